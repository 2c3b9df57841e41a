//! Tests of the daily grain of the spending spike detector.

use super::*;
use crate::model::contract::Contract;
use crate::model::dataset::Dataset;
use crate::testutil::contract;

/// An organ signing one contract (its own process) every day of March and April 2024, plus
/// `burst` contracts on 2024-04-10 whose processes are `process(k)`.
fn organ(burst: usize, process: impl Fn(usize) -> String) -> Vec<Contract> {
    let mut cs = Vec::new();
    for (m, days) in [(3u32, 31u32), (4, 30)] {
        for d in 1..=days {
            cs.push(contract(&format!("{m}-{d}"), "LIMPEZA", "S1", "26000", 100.0, (2024, m, d)));
        }
    }
    for k in 0..burst {
        let mut c = contract(&format!("b{k}"), "LIMPEZA", "S2", "26000", 100.0, (2024, 4, 10));
        c.process_number = process(k).into();
        cs.push(c);
    }
    cs
}

fn run(cs: Vec<Contract>, sensitivity: f64) -> Vec<Anomaly> {
    let ds = Dataset::from_contracts(cs);
    let p = DetectionParams { sensitivity, ..DetectionParams::default() };
    {
        let sh = Shared::new(&ds);
        let (grid, series) = sh.organ_months(&CancelFlag::new()).unwrap();
        let coverage = Coverage::of(&ds, grid, series);
        bursts(&sh, &coverage, &p, &CancelFlag::new()).unwrap()
    }
}

#[test]
fn a_day_with_contracts_of_fifteen_processes_in_a_month_of_one_a_day_is_a_burst() {
    let found = run(organ(15, |k| format!("P{k}")), 0.7);
    assert_eq!(found.len(), 1);
    let a = &found[0];
    assert_eq!(a.technical_details["grain"], "day");
    assert_eq!(a.technical_details["date"], "2024-04-10");
    assert_eq!(a.technical_details["processes"], 16);
    assert!(a.record_ids().any(|r| r == "b0") && a.record_ids().any(|r| r == "4-10"));
    assert_eq!(a.affected_entities.primary.kind, "organ");
}

#[test]
fn forty_contracts_of_one_process_signed_together_are_one_purchase_not_a_burst() {
    assert!(run(organ(40, |_| "PREGAO-1".into()), 1.0).is_empty());
}

#[test]
fn a_month_busy_on_every_day_is_not_a_daily_burst() {
    let mut cs = Vec::new();
    for d in 1..=30u32 {
        for k in 0..12 {
            cs.push(contract(&format!("{d}-{k}"), "LIMPEZA", "S1", "26000", 100.0, (2024, 4, d)));
        }
    }
    assert!(run(cs, 1.0).is_empty());
}

#[test]
fn fewer_than_eight_processes_on_a_day_are_never_a_burst() {
    assert!(run(organ(6, |k| format!("P{k}")), 1.0).is_empty());
}

#[test]
fn raising_the_sensitivity_never_removes_a_burst() {
    for burst in [7, 9, 11, 13, 20] {
        let mut last = 0;
        for s in [0.0, 0.3, 0.5, 0.7, 0.85, 1.0] {
            let n = run(organ(burst, |k| format!("P{k}")), s).len();
            assert!(n >= last, "burst {burst}: {n} findings at sensitivity {s}, {last} below it");
            last = n;
        }
    }
}

/// [`organ`] with every contract published `lag` days after signing, except the burst's,
/// published `burst_lag` days after.
fn published(burst: usize, lag: u64, burst_lag: u64) -> Vec<Contract> {
    let mut cs = organ(burst, |k| format!("P{k}"));
    for c in cs.iter_mut() {
        let days = if c.id.starts_with('b') { burst_lag } else { lag };
        c.published_on = c.signed_on.map(|d| d + chrono::Days::new(days));
    }
    cs
}

#[test]
fn a_publication_batch_whose_date_was_copied_into_the_signing_date_is_not_a_burst() {
    // The organ publishes a week after signing; the burst's contracts carry their publication
    // date as signing date.
    assert!(run(published(15, 7, 0), 0.7).is_empty());
    // Published a week later like the others, the same day is a burst.
    assert_eq!(run(published(15, 7, 7), 0.7).len(), 1);
}

#[test]
fn a_burst_in_the_first_month_of_the_data_is_not_judged() {
    let mut cs = organ(0, |k| format!("P{k}"));
    for k in 0..15 {
        let mut c = contract(&format!("b{k}"), "LIMPEZA", "S2", "26000", 100.0, (2024, 3, 10));
        c.process_number = format!("P{k}").into();
        cs.push(c);
    }
    assert!(run(cs, 1.0).is_empty());
}

#[test]
fn a_day_formalising_the_power_and_water_of_every_unit_is_not_a_burst() {
    let mut cs = organ(0, |k| format!("P{k}"));
    for k in 0..15 {
        let object =
            if k % 2 == 0 { "FORNECIMENTO DE ENERGIA ELÉTRICA" } else { "FORNECIMENTO DE ÁGUA POTÁVEL E ESGOTO" };
        let mut c = contract(&format!("u{k}"), object, &format!("{k:0>14}"), "26000", 50_000.0, (2024, 4, 10));
        c.process_number = format!("U{k}").into();
        cs.push(c);
    }
    assert!(run(cs, 1.0).is_empty());
}
