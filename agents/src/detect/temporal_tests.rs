//! Tests of the end-of-year detector.

use super::*;
use crate::demo::{DemoSpec, generate};
use crate::model::contract::Contract;
use crate::testutil::{contract, recall};

fn year(december: usize, december_value: f64) -> Vec<Contract> {
    let mut cs: Vec<Contract> = (0..33)
        .map(|k| {
            contract(
                &format!("m{k}"),
                "LIMPEZA",
                &format!("{}", k % 6),
                "26000",
                100.0,
                (2024, 1 + (k % 11) as u32, 10),
            )
        })
        .collect();
    for k in 0..december {
        cs.push(contract(
            &format!("d{k}"),
            "LIMPEZA",
            &format!("{}", k % 6),
            "26000",
            december_value,
            (2024, 12, 1 + k as u32 % 28),
        ));
    }
    cs
}

fn run(cs: Vec<Contract>) -> Vec<Anomaly> {
    EndOfYear.run(&Dataset::from_contracts(cs), &DetectionParams::default(), &CancelFlag::new()).unwrap()
}

#[test]
fn an_organ_year_with_most_contracts_in_december_is_flagged_with_its_monthly_series() {
    let found = run(year(20, 150.0));
    assert_eq!(found.len(), 1);
    let a = &found[0];
    assert_eq!(a.id, "end_of_year-26000-2024");
    assert_eq!(a.kind, AnomalyType::TemporalAnomaly);
    assert_eq!(a.affected_entities.primary.kind, "organ");
    assert_eq!(a.affected_entities.primary.id, "26000");
    assert_eq!(a.affected_entities.related.len(), 20);
    assert!(a.affected_entities.related.iter().all(|e| e.kind == "contract" && e.id.starts_with('d')));
    assert_eq!(a.evidence.data_points.len(), 12);
    assert_eq!(a.evidence.data_points[11].value, 3000.0);
    assert_eq!(a.evidence.data_points[11].timestamp.as_deref(), Some("2024-12"));
    assert!(a.technical_details["p_value"].as_f64().unwrap() < ALPHA);
    assert!((a.technical_details["december_share"].as_f64().unwrap() - 3000.0 / 6300.0).abs() < 1e-4);
    assert!(a.confidence >= 0.8);
}

#[test]
fn one_large_december_contract_is_not_a_rush() {
    assert!(run(year(1, 3000.0)).is_empty());
}

#[test]
fn a_normal_december_is_not_flagged_and_tiny_years_are_not_judged() {
    assert!(run(year(3, 100.0)).is_empty());
    let tiny: Vec<Contract> =
        (0..6).map(|k| contract(&k.to_string(), "X", "1", "26000", 10.0, (2024, 12, 1))).collect();
    assert!(run(tiny).is_empty());
}

#[test]
#[ignore = "the demo generator no longer plants to this detector's thresholds (issue 4 item 11): its recall and precision are measured by examples/evaluate"]
fn end_of_year_detector_finds_the_planted_rush_of_the_demo_data() {
    let data = generate(&DemoSpec { seed: 7, contracts: 5000, ..DemoSpec::default() });
    let found = EndOfYear.run(&data.dataset, &DetectionParams::default(), &CancelFlag::new()).unwrap();
    let (r, n, missed) = recall(&data, &found, NAME);
    assert!(n >= 1);
    assert!(r >= 0.9, "recall {r}, missed {missed:?}");
    assert_eq!(found.len(), n);
}
