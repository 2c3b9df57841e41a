//! Tests of the round values detector.

use super::*;
use crate::model::contract::Contract;
use crate::testutil::contract;

/// 20 suppliers with 12 contracts each of non-round values, in organ 26000 and 36000.
fn market() -> Vec<Contract> {
    let mut cs = Vec::new();
    for s in 0..20 {
        for k in 0..12 {
            let v = 10_000.0 + 137.37 * (s * 12 + k) as f64;
            let organ = if k % 2 == 0 { "26000" } else { "36000" };
            cs.push(contract(&format!("{s}-{k}"), "LIMPEZA", &format!("S{s:02}"), organ, v, (2024, 1 + k as u32, 5)));
        }
    }
    cs
}

fn run(cs: Vec<Contract>) -> Vec<Anomaly> {
    RoundValues.run(&Dataset::from_contracts(cs), &DetectionParams::default(), &CancelFlag::new()).unwrap()
}

#[test]
fn round_values_are_exact_multiples_of_a_thousand() {
    assert!(is_round(15_000.0) && is_round(1_000.0) && is_round(2_000_000.0));
    assert!(!is_round(15_000.01) && !is_round(999.0) && !is_round(f64::NAN) && !is_round(1_500.0));
}

#[test]
fn a_supplier_with_most_values_round_is_flagged_and_the_rest_are_not() {
    assert!(run(market()).is_empty());
    let mut cs = market();
    cs.extend((0..12).map(|k| {
        let v = if k < 10 { 20_000.0 + 1_000.0 * k as f64 } else { 20_123.45 };
        contract(&format!("r{k}"), "LIMPEZA", "ROUND", "26000", v, (2024, 3, 1 + k as u32))
    }));
    let found = run(cs);
    assert_eq!(found.len(), 1, "{found:?}");
    let a = &found[0];
    assert_eq!(a.id, "round_values-supplier-ROUND");
    assert_eq!(a.affected_entities.primary.id, "ROUND");
    assert_eq!(a.affected_entities.related.len(), 10);
    assert!((a.technical_details["round_share"].as_f64().unwrap() - 10.0 / 12.0).abs() < 1e-3);
    // The market's first contract is R$ 10.000,00: 11 round values in 252 contracts.
    assert!((a.technical_details["baseline_rate"].as_f64().unwrap() - 11.0 / 252.0).abs() < 1e-3);
    assert!(a.confidence >= 0.8);
}

#[test]
fn a_few_round_values_are_not_an_excess() {
    let mut cs = market();
    cs.extend((0..12).map(|k| {
        let v = if k < 2 { 30_000.0 } else { 30_123.45 + k as f64 };
        contract(&format!("r{k}"), "LIMPEZA", "FEW", "26000", v, (2024, 3, 1 + k as u32))
    }));
    assert!(run(cs).is_empty());
}
