//! Tests of the regime change detector.

use super::*;
use crate::detect::coverage::tests::monthly;
use crate::model::contract::Contract;
use crate::testutil::contract;

/// Two years of an organ signing 4 contracts a month worth `before` each until `from`
/// (0-based month on the grid), `after` each from then on; the data runs to the end of
/// 2025.
fn organ(before: f64, after: f64, from: usize) -> Vec<Contract> {
    let mut cs = monthly("26000", (2024, 1), 24, 4, 1.0);
    for c in cs.iter_mut() {
        let t: usize = c.id.split('-').nth(1).and_then(|t| t.parse().ok()).unwrap_or(0);
        let level = if t < from { before } else { after };
        c.initial_value *= level;
        c.final_value *= level;
    }
    cs
}

fn run(cs: Vec<Contract>) -> Vec<Anomaly> {
    RegimeChange.run(&Dataset::from_contracts(cs), &DetectionParams::default(), &CancelFlag::new()).unwrap()
}

#[test]
fn the_best_split_is_where_the_level_changes() {
    let s = best_split(&[1.0, 1.1, 0.9, 1.0, 5.0, 5.1, 4.9, 5.0], 3, 3).unwrap();
    assert_eq!(s.k, 4);
    assert!(s.z > 2.0 && (s.ratio - 4.0f64.exp()).abs() < 1.0, "{s:?}");
    assert!(best_split(&[1.0; 5], 3, 3).is_none());
    // The split never leaves fewer months than asked on either side.
    assert_eq!(best_split(&[1.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0], 4, 3).map(|s| s.k), Some(4));
}

#[test]
fn spending_that_triples_for_good_is_a_regime_change_from_that_month() {
    let found = run(organ(100.0, 300.0, 14));
    assert_eq!(found.len(), 1, "{found:?}");
    let a = &found[0];
    assert_eq!(a.id, "regime_change-26000-2025-03");
    assert_eq!(a.affected_entities.primary.id, "26000");
    assert!((a.technical_details["ratio"].as_f64().unwrap() - 3.0).abs() < 0.3);
    assert_eq!(a.technical_details["months_before"], 14);
    assert!(a.record_ids().any(|id| id == "26000-14-0") && !a.record_ids().any(|id| id == "26000-13-0"));
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

#[test]
fn a_rise_without_a_year_of_history_before_it_or_three_months_after_is_not_judged() {
    // From the organ's sixth month: the level before it is not a whole year.
    assert!(run(organ(100.0, 300.0, 6)).is_empty());
    // In the last two months of the data: the new level has not lasted.
    assert!(run(organ(100.0, 300.0, 22)).is_empty());
}

#[test]
fn an_organ_appearing_in_the_data_late_is_judged_from_its_first_regular_month() {
    // Another organ runs through three years; this one appears in 2023-07 at a low level and
    // triples in 2025-01: its level before the rise counts from its own first month.
    let mut cs = monthly("36000", (2023, 1), 36, 4, 100.0);
    let mut late = monthly("26000", (2023, 7), 30, 4, 1.0);
    for c in late.iter_mut() {
        let t: usize = c.id.split('-').nth(1).and_then(|t| t.parse().ok()).unwrap_or(0);
        let level = if t < 18 { 100.0 } else { 300.0 };
        c.initial_value *= level;
        c.final_value *= level;
    }
    cs.extend(late.clone());
    let found = run(cs);
    assert_eq!(found.iter().map(|a| a.id.as_str()).collect::<Vec<_>>(), vec!["regime_change-26000-2025-01"]);
    assert_eq!(found[0].technical_details["history_from"], "2023-07");
    // Its first appearance is not a change, however low the zero months before it.
    let mut appear = monthly("36000", (2024, 1), 24, 4, 100.0);
    appear.extend(monthly("26000", (2024, 10), 15, 4, 300.0));
    assert!(run(appear).is_empty());
}
