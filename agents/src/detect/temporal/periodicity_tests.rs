//! Tests of the periodicity detector.

use chrono::{Days, NaiveDate};

use super::*;
use crate::model::contract::Contract;
use crate::testutil::contract;

fn date(start: NaiveDate, days: u64) -> (i32, u32, u32) {
    let d = start + Days::new(days);
    (d.year(), d.month(), chrono::Datelike::day(&d))
}

/// Irregular background: `n` contracts of each of 3 suppliers with organ 26000, spread by a
/// fixed pseudo-random sequence over two years.
fn background(n: usize) -> Vec<Contract> {
    let start = NaiveDate::from_ymd_opt(2024, 1, 1).unwrap();
    let mut x: u64 = 12345;
    let mut cs = Vec::new();
    for s in 0..3 {
        for k in 0..n {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let day = (x >> 33) % 720;
            cs.push(contract(&format!("b{s}-{k}"), "LIMPEZA", &format!("S{s}"), "26000", 100.0, date(start, day)));
        }
    }
    cs
}

fn clockwork(every: u64, n: usize) -> Vec<Contract> {
    let start = NaiveDate::from_ymd_opt(2024, 2, 5).unwrap();
    (0..n)
        .map(|k| contract(&format!("p{k}"), "LIMPEZA", "PERIODIC", "26000", 100.0, date(start, every * k as u64)))
        .collect()
}

#[test]
fn a_contract_every_three_weeks_has_a_strong_three_week_cadence() {
    let mut counts = vec![0.0; 104];
    for t in (0..104).step_by(3) {
        counts[t] = 1.0;
    }
    let c = cadence(&counts).unwrap();
    assert!((c.period - 3.0).abs() < 0.1, "{c:?}");
    assert!(c.significance > SIGNIFICANCE.at(0.7) && c.amplitude > 1.5, "{c:?}");
    assert!(cadence(&[0.0; 104]).is_none());
}

#[test]
fn a_supplier_signing_every_21_days_is_flagged_and_irregular_ones_are_not() {
    let mut cs = background(40);
    cs.extend(clockwork(21, 30));
    let found = UnnaturalPeriodicity
        .run(&Dataset::from_contracts(cs), &DetectionParams::default(), &CancelFlag::new())
        .unwrap();
    assert_eq!(found.len(), 1, "{found:?}");
    let a = &found[0];
    assert_eq!(a.id, "unnatural_periodicity-26000-PERIODIC");
    assert_eq!(a.affected_entities.primary.kind, "supplier");
    assert_eq!(a.record_ids().filter(|id| id.starts_with('p')).count(), 30);
    assert!((a.technical_details["period_weeks"].as_f64().unwrap() - 3.0).abs() < 0.2);
    let clean = UnnaturalPeriodicity
        .run(&Dataset::from_contracts(background(40)), &DetectionParams::default(), &CancelFlag::new())
        .unwrap();
    assert!(clean.is_empty(), "{clean:?}");
}

#[test]
fn pairs_with_few_contracts_are_not_judged() {
    let ds = Dataset::from_contracts(clockwork(21, MIN_EVENTS - 1));
    assert!(UnnaturalPeriodicity.run(&ds, &DetectionParams::default(), &CancelFlag::new()).unwrap().is_empty());
}

#[test]
fn a_utility_bill_every_month_arrives_like_clockwork_by_nature() {
    let mut cs = background(40);
    cs.extend(clockwork(21, 30).into_iter().map(|mut c| {
        c.object = "FORNECIMENTO DE ENERGIA ELÉTRICA".into();
        c
    }));
    let found = UnnaturalPeriodicity
        .run(&Dataset::from_contracts(cs), &DetectionParams::default(), &CancelFlag::new())
        .unwrap();
    assert!(found.is_empty(), "{found:?}");
}
