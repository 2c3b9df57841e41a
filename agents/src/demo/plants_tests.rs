//! Tests of the relationship and compliance plants against their detectors: recall and
//! precision at the defaults, determinism, cancellation and monotonic sensitivity.

use std::collections::HashSet;

use proptest::prelude::*;

use crate::agent::{AnalysisError, CancelFlag};
use crate::demo::{DemoData, DemoSpec, generate};
use crate::detect::{bid_rigging, compliance_rules, phantom, relationships, splitting};
use crate::engine;
use crate::model::anomaly::{Anomaly, AnomalyType};
use crate::model::params::DetectionParams;

/// The detectors these plants feed.
pub const MINE: [&str; 5] =
    [compliance_rules::NAME, splitting::NAME, bid_rigging::NAME, relationships::NAME, phantom::NAME];

/// (recall, precision, planted, found) of one detector: a plant is found when one anomaly names
/// all its records; an anomaly is right when it names a planted record.
pub fn score(data: &DemoData, anomalies: &[Anomaly], name: &str) -> (f64, f64, usize, usize) {
    let planted: Vec<_> = data.planted.iter().filter(|p| p.detector == name).collect();
    let found: Vec<_> = anomalies.iter().filter(|a| a.detector() == name).collect();
    let hit = planted
        .iter()
        .filter(|p| found.iter().any(|a| p.record_ids.iter().all(|id| a.record_ids().any(|r| r == id))))
        .count();
    let ids: HashSet<&str> = planted.iter().flat_map(|p| p.record_ids.iter().map(String::as_str)).collect();
    let good = found.iter().filter(|a| a.record_ids().any(|r| ids.contains(r))).count();
    let recall = if planted.is_empty() { 1.0 } else { hit as f64 / planted.len() as f64 };
    let precision = if found.is_empty() { 1.0 } else { good as f64 / found.len() as f64 };
    (recall, precision, planted.len(), found.len())
}

#[test]
fn every_relationship_and_compliance_detector_has_recall_and_precision_of_at_least_0_9_on_seed_7() {
    let data = generate(&DemoSpec { seed: 7, contracts: 5000, ..DemoSpec::default() });
    let params = DetectionParams::default();
    for name in MINE {
        let found = engine::detect(&data.dataset, &params, &CancelFlag::new(), &[name]).unwrap();
        let (recall, precision, planted, n) = score(&data, &found, name);
        assert!(planted > 0, "{name}: nothing planted");
        assert!(recall >= 0.9, "{name}: recall {recall} ({planted} planted, {n} found)");
        assert!(precision >= 0.9, "{name}: precision {precision} ({planted} planted, {n} found)");
        assert!(found.iter().all(|a| a.detector() == name && a.confidence >= 0.8));
    }
}

#[test]
fn all_five_anomaly_types_appear_on_two_thousand_contracts() {
    let data = generate(&DemoSpec::default());
    let (anomalies, summary) = engine::analyse(&data.dataset, &DetectionParams::default(), &CancelFlag::new()).unwrap();
    for t in AnomalyType::ALL {
        assert!(anomalies.iter().any(|a| a.kind == t), "no {t:?}");
        assert!(summary.by_type[&t] > 0);
    }
}

#[test]
fn the_dataset_has_every_kind_in_proportion_and_consistent_with_the_contracts() {
    let data = generate(&DemoSpec { seed: 2, contracts: 4000, ..DemoSpec::default() });
    let ds = &data.dataset;
    let n = ds.contracts.len() as f64;
    assert!((0.2..0.4).contains(&(ds.biddings.len() as f64 / n)), "{} biddings", ds.biddings.len());
    assert!((0.35..0.65).contains(&(ds.expenses.len() as f64 / n)), "{} expenses", ds.expenses.len());
    assert!(!ds.agreements.is_empty() && ds.agreements.len() < ds.biddings.len() / 5);
    let processes: HashSet<&str> = ds.contracts.iter().map(|c| c.process_number.as_str()).collect();
    assert!(ds.biddings.iter().all(|b| processes.contains(b.process_number.as_str())));
    let docs: HashSet<&str> = ds.suppliers.iter().map(|p| p.cnpj.as_str()).collect();
    let with_profile = ds.contracts.iter().filter(|c| docs.contains(c.supplier.document.as_str())).count() as f64;
    assert!(with_profile / n > 0.99, "profiles for every supplier: {with_profile}");
    let organs: HashSet<String> = ds.servants.iter().map(|s| s.organ_family()).collect();
    assert!(organs.len() >= 10, "servants of every organ: {organs:?}");
    assert_eq!(
        ds.len(),
        ds.contracts.len()
            + ds.biddings.len()
            + ds.expenses.len()
            + ds.agreements.len()
            + ds.servants.len()
            + ds.suppliers.len()
            + ds.sanctions.len()
    );
}

#[test]
fn the_same_seed_gives_the_same_findings_in_the_same_order() {
    let spec = DemoSpec { seed: 21, contracts: 3000, ..DemoSpec::default() };
    let run = || -> Vec<String> {
        let d = generate(&spec);
        engine::detect(&d.dataset, &DetectionParams::default(), &CancelFlag::new(), &MINE)
            .unwrap()
            .into_iter()
            .map(|a| a.id)
            .collect()
    };
    let first = run();
    assert!(first.len() > 10);
    assert_eq!(first, run());
    let a = generate(&spec);
    let b = generate(&spec);
    assert_eq!(a.dataset.biddings, b.dataset.biddings);
    assert_eq!(a.dataset.suppliers, b.dataset.suppliers);
    assert_eq!(a.planted, b.planted);
}

#[test]
fn a_cancelled_run_of_each_detector_returns_cancelled() {
    let data = generate(&DemoSpec { contracts: 500, ..DemoSpec::default() });
    let cancel = CancelFlag::new();
    cancel.cancel();
    for name in MINE {
        let d = crate::detect::by_name(name).unwrap();
        assert_eq!(d.run(&data.dataset, &DetectionParams::default(), &cancel), Err(AnalysisError::Cancelled), "{name}");
    }
}

/// Whether every anomaly of `low` is covered by one of `high` (same detector, every record).
fn covered(low: &[Anomaly], high: &[Anomaly]) -> Option<String> {
    low.iter()
        .find(|a| {
            !high.iter().any(|b| b.detector() == a.detector() && a.record_ids().all(|r| b.record_ids().any(|x| x == r)))
        })
        .map(|a| a.id.clone())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// Raising the sensitivity never removes a finding: each one at the lower sensitivity is
    /// still reported (a network may grow to include it) at the higher.
    #[test]
    fn raising_sensitivity_never_removes_a_finding(seed in 0u64..1000, a in 0.0f64..1.0, b in 0.0f64..1.0) {
        let data = generate(&DemoSpec { seed, contracts: 1200, ..DemoSpec::default() });
        let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
        let run = |s: f64| {
            let p = DetectionParams { sensitivity: s, ..DetectionParams::default() };
            engine::detect(&data.dataset, &p, &CancelFlag::new(), &MINE).unwrap()
        };
        let (low, high) = (run(lo), run(hi));
        prop_assert!(covered(&low, &high).is_none(), "{:?} lost from {} to {}", covered(&low, &high), lo, hi);
    }
}

#[test]
fn both_agreement_rules_are_planted_from_two_hundred_contracts_and_found_exactly_at_the_defaults() {
    for (seed, n) in [(3, 200), (7, 5000)] {
        let data = generate(&DemoSpec { seed, contracts: n, ..DemoSpec::default() });
        let ids: HashSet<&str> = data.dataset.agreements.iter().map(|a| a.id.as_str()).collect();
        let labelled: HashSet<&str> = data
            .planted
            .iter()
            .filter(|p| p.detector == compliance_rules::NAME)
            .flat_map(|p| p.record_ids.iter().map(String::as_str))
            .filter(|id| ids.contains(id))
            .collect();
        let on_agreements = |s: f64| -> Vec<Anomaly> {
            let p = DetectionParams { sensitivity: s, ..DetectionParams::default() };
            engine::detect(&data.dataset, &p, &CancelFlag::new(), &[compliance_rules::NAME])
                .unwrap()
                .into_iter()
                .filter(|a| a.affected_entities.primary.kind == "agreement")
                .collect()
        };
        let found = on_agreements(0.7);
        for rule in ["sanctioned_grantee", "released_above_agreed"] {
            assert!(found.iter().any(|a| a.technical_details["rule"] == rule), "{rule} missing at {n}");
        }
        let named: HashSet<&str> = found.iter().map(|a| a.affected_entities.primary.id.as_str()).collect();
        assert_eq!(named, labelled, "agreements found vs labelled at {n}");
        // The releases within the tolerance are reported once it is gone.
        assert!(on_agreements(1.0).len() > found.len(), "no noise near the tolerance at {n}");
    }
}
