//! Tests of the date consistency detector.

use chrono::{Days, NaiveDate};

use super::*;
use crate::model::dataset::Dataset;
use crate::testutil::contract;

fn signed() -> NaiveDate {
    NaiveDate::from_ymd_opt(2024, 6, 10).unwrap()
}

fn base(id: &str) -> Contract {
    let mut c = contract(id, "LIMPEZA", "S", "26000", 1000.0, (2024, 6, 10));
    c.published_on = Some(signed() + Days::new(3));
    c.valid_until = Some(signed() + Days::new(365));
    c
}

fn run(cs: Vec<Contract>, s: f64) -> Vec<Anomaly> {
    let p = DetectionParams { sensitivity: s, ..DetectionParams::default() };
    DateInconsistency.run(&Dataset::from_contracts(cs), &p, &CancelFlag::new()).unwrap()
}

#[test]
fn publication_before_signing_retroactive_validity_and_inverted_validity_are_flagged() {
    let mut early = base("early");
    early.published_on = Some(signed() - Days::new(10));
    let mut retro = base("retro");
    retro.valid_from = Some(signed() - Days::new(120));
    let mut inverted = base("inverted");
    inverted.valid_until = Some(signed() - Days::new(40));
    let found = run(vec![base("ok"), early, retro, inverted], 0.7);
    let ids: Vec<&str> = found.iter().map(|a| a.affected_entities.primary.id.as_str()).collect();
    assert_eq!(found.len(), 3, "{ids:?}");
    let problems = |id: &str| {
        found.iter().find(|a| a.affected_entities.primary.id == id).unwrap().technical_details["problems"].clone()
    };
    assert_eq!(problems("early"), serde_json::json!(["published_before_signing"]));
    assert_eq!(problems("retro"), serde_json::json!(["validity_before_signing"]));
    assert_eq!(problems("inverted"), serde_json::json!(["validity_ends_before_start"]));
    assert!(found.iter().all(|a| a.kind == AnomalyType::TemporalAnomaly && a.confidence >= 0.8));
}

#[test]
fn publication_after_signing_is_normal_and_small_gaps_need_a_higher_sensitivity() {
    assert!(run(vec![base("ok")], 1.0).is_empty());
    let mut one_day = base("one_day");
    one_day.published_on = Some(signed() - Days::new(1));
    let mut month = base("month");
    month.valid_from = Some(signed() - Days::new(45));
    assert!(run(vec![one_day.clone(), month.clone()], 0.7).is_empty());
    assert_eq!(run(vec![one_day, month], 1.0).len(), 2);
}

#[test]
fn a_date_typed_wrong_is_low_severity_data_quality_and_a_retroactive_validity_puts_its_days_at_stake() {
    let mut early = base("early");
    early.initial_value = 50_000_000.0;
    early.final_value = 50_000_000.0;
    early.published_on = Some(signed() - Days::new(200));
    let found = run(vec![early], 0.7);
    assert_eq!(found[0].severity, crate::model::anomaly::Severity::Low);
    assert_eq!(found[0].value_at_stake(), 0.0);
    assert_eq!(found[0].technical_details["data_quality_only"], true);
    // A year of validity, 120 days of it before the signature.
    let mut retro = base("retro");
    retro.valid_from = Some(signed() - Days::new(120));
    retro.valid_until = Some(signed() + Days::new(245));
    let found = run(vec![retro], 0.7);
    assert!((found[0].value_at_stake() - 1000.0 * 120.0 / 365.0).abs() < 0.01);
}

#[test]
fn the_1900_sentinel_is_a_missing_date_not_a_retroactive_validity() {
    let mut sentinel = base("sentinel");
    sentinel.valid_from = NaiveDate::from_ymd_opt(1900, 1, 1);
    sentinel.published_on = NaiveDate::from_ymd_opt(1900, 1, 1);
    assert!(run(vec![sentinel], 1.0).is_empty());
}
