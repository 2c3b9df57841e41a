//! Tests of the supplier concentration detector.

use super::*;
use crate::demo::{DemoSpec, generate};
use crate::model::contract::Contract;
use crate::testutil::{contract, recall};

const BIG: &str = "12345678000190";

fn year_with(shares: &[(&str, f64)], per_supplier: usize) -> Vec<Contract> {
    let mut out = Vec::new();
    for (s, value) in shares {
        for k in 0..per_supplier {
            out.push(contract(
                &format!("{s}-{k}"),
                "LIMPEZA",
                s,
                "36000",
                value / per_supplier as f64,
                (2024, 1 + k as u32 % 12, 3),
            ));
        }
    }
    out
}

fn run(cs: Vec<Contract>) -> Vec<Anomaly> {
    SupplierConcentration.run(&Dataset::from_contracts(cs), &DetectionParams::default(), &CancelFlag::new()).unwrap()
}

#[test]
fn a_supplier_with_half_of_an_organ_year_is_flagged_with_its_contracts_and_the_organ() {
    let found = run(year_with(&[(BIG, 500.0), ("1", 200.0), ("2", 150.0), ("3", 150.0)], 3));
    assert_eq!(found.len(), 1);
    let a = &found[0];
    assert_eq!(a.id, format!("supplier_concentration-36000-2024-{BIG}"));
    assert_eq!(a.affected_entities.primary.kind, "supplier");
    assert_eq!(a.affected_entities.primary.id, BIG);
    let related: Vec<(&str, &str)> =
        a.affected_entities.related.iter().map(|e| (e.kind.as_str(), e.id.as_str())).collect();
    assert_eq!(related.iter().filter(|(k, _)| *k == "contract").count(), 3);
    assert!(related.contains(&("organ", "36000")));
    assert!((a.technical_details["share"].as_f64().unwrap() - 0.5).abs() < 1e-9);
    assert_eq!(a.value_at_stake(), 500.0);
    assert_eq!(a.technical_details["n_suppliers"], 4);
    assert!(a.technical_details["hhi"].as_f64().unwrap() > 2500.0);
    assert!(a.confidence >= 0.8);
}

#[test]
fn balanced_small_or_two_supplier_organ_years_are_not_flagged() {
    assert!(run(year_with(&[("1", 100.0), ("2", 100.0), ("3", 100.0), ("4", 100.0), ("5", 100.0)], 2)).is_empty());
    assert!(run(year_with(&[(BIG, 900.0), ("1", 50.0), ("2", 50.0)], 1)).is_empty(), "fewer than 5 contracts");
    assert!(run(year_with(&[(BIG, 900.0), ("1", 100.0)], 4)).is_empty(), "fewer than 3 suppliers");
}

#[test]
fn a_share_just_above_a_quarter_is_found_only_at_the_literal_sensitivity() {
    let cs = year_with(&[(BIG, 270.0), ("1", 250.0), ("2", 240.0), ("3", 240.0)], 3);
    assert!(run(cs.clone()).is_empty());
    let all = DetectionParams { confidence_threshold: 0.0, ..DetectionParams::default() };
    let ds = Dataset::from_contracts(cs);
    assert!(SupplierConcentration.run(&ds, &all, &CancelFlag::new()).unwrap().is_empty());
    let literal = DetectionParams { sensitivity: 1.0, ..DetectionParams::default() };
    let found = SupplierConcentration.run(&ds, &literal, &CancelFlag::new()).unwrap();
    assert_eq!(found.len(), 1);
    assert!(found[0].confidence >= 0.8 && found[0].confidence < 0.85, "{}", found[0].confidence);
    assert_eq!(found[0].technical_details["threshold"], 0.25);
}

#[test]
fn a_supplier_with_thousands_of_contracts_names_its_largest_five_hundred() {
    let mut cs = year_with(&[("1", 1000.0), ("2", 1000.0), ("3", 1000.0)], 10);
    cs.extend((0..1200).map(|k| contract(&format!("b{k}"), "LIMPEZA", BIG, "36000", 5.0 + k as f64, (2024, 5, 1))));
    let found = run(cs);
    assert_eq!(found.len(), 1);
    let a = &found[0];
    assert_eq!(a.technical_details["supplier_contracts"], 1200);
    let named: Vec<&str> = a.record_ids().filter(|id| id.starts_with('b')).collect();
    assert_eq!(named.len(), MAX_RELATED);
    assert!(named.contains(&"b1199") && !named.contains(&"b0"), "the largest are kept");
}

#[test]
fn concentration_detector_finds_the_planted_supplier_of_the_demo_data() {
    let data = generate(&DemoSpec { seed: 7, contracts: 5000, ..DemoSpec::default() });
    let found = SupplierConcentration.run(&data.dataset, &DetectionParams::default(), &CancelFlag::new()).unwrap();
    let (r, n, missed) = recall(&data, &found, NAME);
    assert!(n >= 1);
    assert!(r >= 0.9, "recall {r}, missed {missed:?}");
    for p in crate::testutil::planted_for(&data, NAME) {
        assert!(found.iter().any(|a| Some(&a.affected_entities.primary.id) == p.entity_id.as_ref()));
    }
    assert!(found.len() <= n + 1, "{} found for {n} planted", found.len());
}
