//! Tests of the end-of-year detector, on organs whose Decembers are compared with their own
//! past Decembers and with their peers' of the same year.

use super::*;
use crate::model::contract::Contract;
use crate::testutil::contract;

/// One year of an organ: 3 contracts of R$ 100 in each month from January to November
/// (signed on the 1st, 14th and 28th), and `december` contracts of `value` each in December
/// (from the 1st to the 31st, so the data runs to the year's end).
fn year(organ: &str, y: i32, december: usize, value: f64) -> Vec<Contract> {
    let mut cs = Vec::new();
    for m in 1..=11u32 {
        for (k, day) in [1u32, 14, 28].into_iter().enumerate() {
            cs.push(contract(&format!("{organ}-{y}-{m}-{k}"), "LIMPEZA", &format!("S{k}"), organ, 100.0, (y, m, day)));
        }
    }
    for k in 0..december {
        let day = if december == 1 { 15 } else { 1 + (k * 30 / (december - 1)) as u32 };
        cs.push(contract(&format!("{organ}-{y}-d{k}"), "LIMPEZA", &format!("S{}", k % 6), organ, value, (y, 12, day)));
    }
    cs
}

/// Three peer organs with an ordinary December (5 contracts of R$ 100) in 2023 and 2024.
fn peers() -> Vec<Contract> {
    ["30000", "36000", "25000"]
        .iter()
        .flat_map(|o| [year(o, 2023, 5, 100.0), year(o, 2024, 5, 100.0)])
        .flatten()
        .collect()
}

fn run(cs: Vec<Contract>) -> Vec<Anomaly> {
    EndOfYear.run(&Dataset::from_contracts(cs), &DetectionParams::default(), &CancelFlag::new()).unwrap()
}

#[test]
fn a_december_far_above_its_own_past_and_its_peers_is_flagged_with_the_contracts_of_the_excess() {
    let mut cs = peers();
    cs.extend(year("26000", 2023, 5, 100.0));
    cs.extend(year("26000", 2024, 20, 150.0));
    let found = run(cs);
    assert_eq!(found.len(), 1, "{found:?}");
    let a = &found[0];
    assert_eq!(a.id, "end_of_year-26000-2024");
    assert_eq!(a.kind, AnomalyType::TemporalAnomaly);
    assert_eq!(a.affected_entities.primary.id, "26000");
    let share = 3000.0 / 6300.0;
    let usual = 500.0 / 3800.0;
    assert!((a.technical_details["december_share"].as_f64().unwrap() - share).abs() < 1e-4);
    assert!((a.technical_details["own_usual_share"].as_f64().unwrap() - usual).abs() < 1e-4);
    assert!((a.technical_details["peer_usual_share"].as_f64().unwrap() - usual).abs() < 1e-4);
    assert_eq!(a.technical_details["peers"], 3);
    assert_eq!(a.technical_details["own_past_decembers"], 1);
    // The excess over the usual share, and the December contracts that make it up.
    let excess = (3000.0 - usual * 6300.0) / (1.0 - usual);
    assert!((a.value_at_stake() - excess).abs() < 1.0, "{}", a.value_at_stake());
    let named = a.affected_entities.related.len();
    assert!(named * 150 >= excess as usize && (named - 1) * 150 < excess as usize, "{named}");
    assert!(a.affected_entities.related.iter().all(|e| e.kind == "contract" && e.id.contains("-d")));
    assert_eq!(a.evidence.data_points.len(), 12);
    assert!(a.confidence >= 0.8);
}

#[test]
fn a_large_december_everywhere_is_the_budget_cycle_not_a_rush() {
    let cs: Vec<Contract> = ["26000", "30000", "36000", "25000"]
        .iter()
        .flat_map(|o| [year(o, 2023, 20, 150.0), year(o, 2024, 20, 150.0)])
        .flatten()
        .collect();
    assert!(run(cs).is_empty());
}

#[test]
fn a_december_large_for_its_peers_but_usual_for_the_organ_is_not_flagged() {
    let mut cs = peers();
    cs.extend(year("26000", 2023, 20, 150.0));
    cs.extend(year("26000", 2024, 20, 150.0));
    assert!(run(cs).is_empty());
}

#[test]
fn without_past_decembers_or_without_peers_there_is_no_finding() {
    // No past December: one year of data.
    let mut one_year: Vec<Contract> = peers().into_iter().filter(|c| c.id.contains("2024")).collect();
    one_year.extend(year("26000", 2024, 20, 150.0));
    assert!(run(one_year).is_empty());
    // No peers: one organ.
    let mut alone = year("26000", 2023, 5, 100.0);
    alone.extend(year("26000", 2024, 20, 150.0));
    assert!(run(alone).is_empty());
}

#[test]
fn one_large_december_contract_is_not_a_rush() {
    let mut cs = peers();
    cs.extend(year("26000", 2023, 5, 100.0));
    cs.extend(year("26000", 2024, 1, 3000.0));
    assert!(run(cs).is_empty());
}

#[test]
fn a_december_rush_asks_for_an_explanation_and_is_high_severity_at_most() {
    let mut cs = peers();
    cs.extend(year("26000", 2023, 5, 100.0));
    cs.extend(year("26000", 2024, 40, 1_000_000.0));
    let found = run(cs);
    assert_eq!(found.len(), 1);
    assert!(found[0].confidence >= 0.9 && found[0].value_at_stake() >= 1e6);
    assert_eq!(found[0].severity, crate::model::anomaly::Severity::High);
}
