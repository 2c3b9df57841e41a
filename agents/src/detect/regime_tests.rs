//! Tests of the regime change detector.

use super::*;
use crate::model::contract::Contract;
use crate::testutil::contract;

/// Two years of an organ signing 4 contracts a month worth `before` each until `from`
/// (0-based month on the grid), `after` each from then on.
fn organ(before: f64, after: f64, from: usize) -> Vec<Contract> {
    let mut cs = Vec::new();
    for t in 0..24usize {
        let (y, m) = (2024 + (t / 12) as i32, 1 + (t % 12) as u32);
        for k in 0..4 {
            let v = if t < from { before } else { after } * (1.0 + 0.03 * ((t * 7 + k) % 5) as f64);
            cs.push(contract(&format!("{t}-{k}"), "LIMPEZA", &format!("S{k}"), "26000", v, (y, m, 3 + k as u32)));
        }
    }
    cs
}

fn run(cs: Vec<Contract>) -> Vec<Anomaly> {
    RegimeChange.run(&Dataset::from_contracts(cs), &DetectionParams::default(), &CancelFlag::new()).unwrap()
}

#[test]
fn the_best_split_is_where_the_level_changes() {
    let s = best_split(&[1.0, 1.1, 0.9, 1.0, 5.0, 5.1, 4.9, 5.0]).unwrap();
    assert_eq!(s.k, 4);
    assert!(s.z > 2.0 && (s.ratio - 4.0f64.exp()).abs() < 1.0, "{s:?}");
    assert!(best_split(&[1.0; 5]).is_none());
}

#[test]
fn spending_that_triples_for_good_is_a_regime_change_from_that_month() {
    let found = run(organ(100.0, 300.0, 14));
    assert_eq!(found.len(), 1, "{found:?}");
    let a = &found[0];
    assert_eq!(a.id, "regime_change-26000-2025-03");
    assert_eq!(a.affected_entities.primary.id, "26000");
    assert!((a.technical_details["ratio"].as_f64().unwrap() - 3.0).abs() < 0.3);
    assert!(a.record_ids().any(|id| id == "14-0") && !a.record_ids().any(|id| id == "13-0"));
    assert!(a.confidence >= 0.8);
}

#[test]
fn steady_spending_a_drop_or_a_single_spike_is_not_a_regime_change() {
    assert!(run(organ(100.0, 100.0, 12)).is_empty());
    assert!(run(organ(300.0, 100.0, 12)).is_empty(), "drops are not reported");
    let mut spike = organ(100.0, 100.0, 24);
    spike.extend((0..20).map(|k| contract(&format!("x{k}"), "LIMPEZA", "S1", "26000", 500.0, (2025, 11, 2))));
    assert!(run(spike).is_empty());
}
