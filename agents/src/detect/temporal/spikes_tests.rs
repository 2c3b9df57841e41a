//! Tests of the spending spike detector.

use super::*;
use crate::model::contract::Contract;
use crate::testutil::contract;

/// Two years of an organ signing `per_month` contracts of R$ 100 each month, plus `extra`
/// contracts of R$ 100 in June 2024.
fn organ(per_month: usize, extra: usize) -> Vec<Contract> {
    let mut cs = Vec::new();
    for y in [2024, 2025] {
        for m in 1..=12u32 {
            for k in 0..per_month {
                let v = 100.0 + (k % 3) as f64;
                cs.push(contract(
                    &format!("{y}-{m}-{k}"),
                    "LIMPEZA",
                    &format!("S{k}"),
                    "26000",
                    v,
                    (y, m, 1 + k as u32),
                ));
            }
        }
    }
    cs.extend((0..extra).map(|k| contract(&format!("x{k}"), "LIMPEZA", "S9", "26000", 100.0, (2024, 9, 15))));
    cs
}

fn run(cs: Vec<Contract>, p: &DetectionParams) -> Vec<Anomaly> {
    SpendingSpike.run(&Dataset::from_contracts(cs), p, &CancelFlag::new()).unwrap()
}

#[test]
fn a_month_with_six_times_the_usual_contracts_is_a_spike_naming_them() {
    let found = run(organ(5, 25), &DetectionParams::default());
    // The 25 extra contracts were all signed on one day: a daily burst as well.
    let daily: Vec<_> = found.iter().filter(|a| a.technical_details["grain"] == "day").collect();
    assert_eq!(daily.len(), 1, "{daily:?}");
    assert_eq!(daily[0].technical_details["date"], "2024-09-15");
    let found: Vec<_> = found.iter().filter(|a| a.technical_details["grain"] == "month").collect();
    assert_eq!(found.len(), 1, "{found:?}");
    let a = found[0];
    assert_eq!(a.id, "spending_spike-26000-2024-09");
    assert_eq!(a.kind, AnomalyType::TemporalAnomaly);
    assert_eq!(a.affected_entities.primary.id, "26000");
    assert_eq!(a.record_ids().filter(|id| id.starts_with('x')).count(), 25);
    assert_eq!(a.technical_details["month_contracts"], 30);
    assert!(a.technical_details["z_score"].as_f64().unwrap() > Z.at(0.7));
    assert_eq!(a.technical_details["baseline"], "organ_monthly_median");
    assert!((a.value_at_stake() - (3000.0 - 505.0)).abs() < 10.0, "{}", a.value_at_stake());
    assert!(a.confidence >= 0.8);
}

#[test]
fn steady_months_and_a_single_large_contract_are_not_spikes() {
    assert!(run(organ(5, 0), &DetectionParams::default()).is_empty());
    let mut one_big = organ(5, 0);
    one_big.push(contract("big", "LIMPEZA", "S1", "26000", 100_000.0, (2024, 9, 20)));
    let literal = DetectionParams { sensitivity: 1.0, ..DetectionParams::default() };
    assert!(run(one_big, &literal).iter().all(|a| !a.id.ends_with("2024-09")) || MIN_SPIKE_COUNT <= 6);
    // Too few contracts a month: not judged at all.
    assert!(run(organ(1, 10), &DetectionParams::default()).is_empty());
}

#[test]
fn a_cancelled_spike_search_stops() {
    let cancel = CancelFlag::new();
    cancel.cancel();
    let ds = Dataset::from_contracts(organ(5, 25));
    assert_eq!(SpendingSpike.run(&ds, &DetectionParams::default(), &cancel), Err(AnalysisError::Cancelled));
}

/// [`organ`] with the `extra` contracts on `day` instead.
fn organ_with_extra_on(extra: usize, day: (i32, u32, u32)) -> Vec<Contract> {
    let mut cs = organ(5, 0);
    cs.extend((0..extra).map(|k| contract(&format!("x{k}"), "LIMPEZA", "S9", "26000", 100.0, day)));
    cs
}

fn monthly_grain(found: &[Anomaly]) -> Vec<&Anomaly> {
    found.iter().filter(|a| a.technical_details["grain"] == "month").collect()
}

#[test]
fn a_spike_without_six_months_of_history_before_it_is_not_judged() {
    // March 2024 is the third month of the data: too little history to call it unusual.
    let found = run(organ_with_extra_on(25, (2024, 3, 15)), &DetectionParams::default());
    assert!(monthly_grain(&found).is_empty(), "{found:?}");
    // The same spike in the first month of the data is not judged at either grain.
    assert!(run(organ_with_extra_on(25, (2024, 1, 15)), &DetectionParams::default()).is_empty());
}

#[test]
fn the_last_month_of_the_data_and_december_are_not_spikes() {
    // November 2025, one month before the data's (cut) last month: too little after it.
    let found = run(organ_with_extra_on(25, (2025, 11, 3)), &DetectionParams::default());
    assert!(monthly_grain(&found).is_empty(), "{found:?}");
    // December is end_of_year's to judge, against past Decembers and peers.
    let found = run(organ_with_extra_on(25, (2024, 12, 3)), &DetectionParams::default());
    assert!(monthly_grain(&found).is_empty(), "{found:?}");
}
