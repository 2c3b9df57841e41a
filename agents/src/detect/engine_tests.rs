//! Tests of the detection engine over demo data: every detector fires, order and determinism,
//! filters, cancellation; plus an ignored timing test for release builds.

use super::*;
use crate::demo::{DemoSpec, generate};
use crate::model::anomaly::AnomalyType;

fn detectors_found(anomalies: &[Anomaly]) -> Vec<&str> {
    let mut names: Vec<&str> = anomalies.iter().map(|a| a.detector()).collect();
    names.sort_unstable();
    names.dedup();
    names
}

#[test]
fn every_planted_type_is_found_at_the_defaults_on_demo_data_of_all_organs() {
    // Changed with issue [4]: the demo generator plants by the law and the literature, not to
    // each detector's thresholds, so a detector may miss the plants of its type in one small
    // dataset; per-type precision and recall are measured by examples/evaluate. Here every
    // planted type must be found somewhere, on a record planted with that type.
    let data = generate(&DemoSpec { contracts: 5000, ..DemoSpec::default() });
    let (anomalies, summary) = analyse(&data.dataset, &DetectionParams::default(), &CancelFlag::new()).unwrap();
    let mut kinds: Vec<AnomalyType> = data.planted.iter().map(|p| p.kind).collect();
    kinds.sort();
    kinds.dedup();
    for kind in kinds {
        let planted: std::collections::HashSet<&str> = data
            .planted
            .iter()
            .filter(|p| p.kind == kind)
            .flat_map(|p| p.record_ids.iter().map(String::as_str))
            .collect();
        assert!(
            anomalies.iter().any(|a| a.kind == kind && a.record_ids().any(|r| planted.contains(r))),
            "no {kind:?} finding names a record planted as one"
        );
    }
    assert!(detectors_found(&anomalies).iter().all(|d| detect::NAMES.contains(d)));
    assert_eq!(summary.total_anomalies, anomalies.len());
    assert!(summary.risk_score > 0);
    assert!(anomalies.iter().all(|a| a.confidence >= 0.8));
}

#[test]
fn the_relationship_and_compliance_detectors_fire_on_the_health_ministry_alone() {
    let spec = DemoSpec { organ_codes: vec!["36000".into()], ..DemoSpec::default() };
    let data = generate(&spec);
    assert!(data.dataset.contracts.iter().all(|c| c.organ.code == "36000"));
    let anomalies = detect(&data.dataset, &DetectionParams::default(), &CancelFlag::new(), &[]).unwrap();
    let found = detectors_found(&anomalies);
    // No end_of_year: one organ has no peers to compare its December with. Price and
    // duplicates are measured by examples/evaluate (see the test above).
    for name in [
        crate::detect::compliance::compliance_rules::NAME,
        crate::detect::relationship::bid_rigging::NAME,
        crate::detect::relationship::relationships::NAME,
        crate::detect::relationship::phantom::NAME,
    ] {
        assert!(found.contains(&name), "{name} not found: {found:?}");
    }
}

#[test]
fn the_same_seed_gives_the_same_anomalies_in_the_same_order() {
    let spec = DemoSpec { seed: 99, contracts: 3000, ..DemoSpec::default() };
    let ids = |d: &crate::demo::DemoData| -> Vec<String> {
        detect(&d.dataset, &DetectionParams::default(), &CancelFlag::new(), &[])
            .unwrap()
            .into_iter()
            .map(|a| a.id)
            .collect()
    };
    let first = ids(&generate(&spec));
    assert!(!first.is_empty());
    assert_eq!(first, ids(&generate(&spec)));
}

#[test]
fn anomalies_are_ordered_by_severity_then_money_then_id() {
    let data = generate(&DemoSpec { seed: 3, contracts: 3000, ..DemoSpec::default() });
    let anomalies = detect(&data.dataset, &DetectionParams::default(), &CancelFlag::new(), &[]).unwrap();
    for w in anomalies.windows(2) {
        assert_ne!(order(&w[0], &w[1]), Ordering::Greater, "{} before {}", w[0].id, w[1].id);
    }
    let mut ids: Vec<&str> = anomalies.iter().map(|a| a.id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), anomalies.len(), "anomaly ids are unique");
}

#[test]
fn type_filters_threshold_and_detector_names_restrict_the_output() {
    let data = generate(&DemoSpec { seed: 4, contracts: 2000, ..DemoSpec::default() });
    let cancel = CancelFlag::new();
    let temporal_only =
        DetectionParams { anomaly_types: Some(vec![AnomalyType::TemporalAnomaly]), ..DetectionParams::default() };
    let found = detect(&data.dataset, &temporal_only, &cancel, &[]).unwrap();
    assert!(!found.is_empty() && found.iter().all(|a| a.kind == AnomalyType::TemporalAnomaly));
    let named = detect(&data.dataset, &DetectionParams::default(), &cancel, &["price_zscore"]).unwrap();
    assert!(!named.is_empty() && named.iter().all(|a| a.detector() == "price_zscore"));
    let lax = DetectionParams { confidence_threshold: 0.0, ..DetectionParams::default() };
    let strict = DetectionParams { confidence_threshold: 0.95, ..DetectionParams::default() };
    let (n_lax, n_default, n_strict) = (
        detect(&data.dataset, &lax, &cancel, &[]).unwrap().len(),
        detect(&data.dataset, &DetectionParams::default(), &cancel, &[]).unwrap().len(),
        detect(&data.dataset, &strict, &cancel, &[]).unwrap().len(),
    );
    // Findings right at a threshold in force have confidence 0.80 (see detect::sensitivity), so
    // the default confidence threshold drops only findings with weak evidence.
    assert!(n_lax >= n_default && n_default > n_strict, "{n_lax} {n_default} {n_strict}");
    assert_eq!(
        detect(&data.dataset, &DetectionParams::default(), &cancel, &["nope"]),
        Err(AnalysisError::InvalidInput("unknown detector 'nope'".into()))
    );
}

#[test]
fn a_cancelled_analysis_returns_cancelled() {
    let data = generate(&DemoSpec { contracts: 500, ..DemoSpec::default() });
    let cancel = CancelFlag::new();
    cancel.cancel();
    assert_eq!(analyse(&data.dataset, &DetectionParams::default(), &cancel), Err(AnalysisError::Cancelled));
}

#[test]
fn an_anomaly_serialises_with_the_spec_field_names() {
    let data = generate(&DemoSpec { contracts: 1000, ..DemoSpec::default() });
    let anomalies = detect(&data.dataset, &DetectionParams::default(), &CancelFlag::new(), &[]).unwrap();
    let v = serde_json::to_value(&anomalies[0]).unwrap();
    for key in [
        "id",
        "type",
        "severity",
        "confidence",
        "description",
        "technical_details",
        "affected_entities",
        "evidence",
        "context",
        "explanation",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    assert!(v["affected_entities"]["primary"].get("type").is_some());
}

/// `cargo test --release -p vigia-agents -- --ignored --nocapture engine_timing`
#[test]
#[ignore]
fn engine_timing_over_one_hundred_thousand_and_one_million_contracts() {
    for n in [100_000usize, 1_000_000] {
        let t = std::time::Instant::now();
        let data = generate(&DemoSpec { contracts: n, ..DemoSpec::default() });
        let generated = t.elapsed();
        let t = std::time::Instant::now();
        let (anomalies, _) = analyse(&data.dataset, &DetectionParams::default(), &CancelFlag::new()).unwrap();
        println!("{n} contracts: generate {generated:?}, analyse {:?}, {} anomalies", t.elapsed(), anomalies.len());
    }
}
