//! Tests of `purchase_splitting` on hand-made commitments.

use chrono::{Days, NaiveDate};

use super::*;
use crate::model::contract::{Organ, Party, Unit};
use crate::model::dataset::Dataset;

fn empenho(id: &str, day: u64, value: f64, process: &str) -> Expense {
    Expense {
        id: id.into(),
        date: Some(NaiveDate::from_ymd_opt(2024, 3, 1).unwrap() + Days::new(day)),
        phase: "Empenho".into(),
        kind: "Original".into(),
        payee: Party { name: "POSTO X".into(), document: "11222333000181".into() },
        value,
        unit: Unit { code: "250005".into(), name: "UG".into() },
        organ: Organ { code: "36000".into(), acronym: arcstr::ArcStr::new(), name: "MS".into() },
        sub_organ: "36000".into(),
        element: "30 - Material de Consumo".into(),
        category: arcstr::ArcStr::new(),
        group: arcstr::ArcStr::new(),
        modality: "Dispensa de Licitação".into(),
        process_number: process.into(),
        observation: arcstr::ArcStr::new(),
    }
}

fn run(expenses: Vec<Expense>, s: f64) -> Vec<Anomaly> {
    let ds = Dataset { expenses, ..Dataset::default() };
    let p = DetectionParams { sensitivity: s, ..DetectionParams::default() };
    PurchaseSplitting.run(&ds, &p, &CancelFlag::new()).unwrap()
}

#[test]
fn three_purchases_under_the_2024_limit_within_days_that_sum_above_it_are_split() {
    let found =
        run(vec![empenho("a", 0, 40_000.0, ""), empenho("b", 4, 45_000.0, ""), empenho("c", 9, 38_000.0, "")], 0.7);
    assert_eq!(found.len(), 1);
    let a = &found[0];
    assert_eq!(a.kind, AnomalyType::ComplianceViolation);
    assert_eq!(a.technical_details["threshold"], serde_json::json!(59_906.02));
    assert_eq!(a.record_ids().filter(|r| ["a", "b", "c"].contains(r)).count(), 3);
    assert!(a.evidence.data_points.iter().any(|d| d.metric == "running_sum" && d.value == 123_000.0));
}

#[test]
fn spread_purchases_count_only_at_the_literal_rule_and_contract_payments_never() {
    let spread = vec![empenho("a", 0, 40_000.0, ""), empenho("b", 100, 45_000.0, ""), empenho("c", 200, 38_000.0, "")];
    assert!(run(spread.clone(), 0.7).is_empty());
    assert_eq!(run(spread, 1.0).len(), 1);
    let with_contract = vec![empenho("a", 0, 40_000.0, "P1"), empenho("b", 1, 45_000.0, "P1")];
    let ds = Dataset {
        expenses: with_contract,
        ..Dataset::from_contracts(vec![{
            let mut c = crate::testutil::contract("k", "X", "11222333000181", "36000", 85_000.0, (2024, 3, 1));
            c.process_number = "P1".into();
            c
        }])
    };
    assert!(PurchaseSplitting.run(&ds, &DetectionParams::default(), &CancelFlag::new()).unwrap().is_empty());
    let small = vec![empenho("a", 0, 9_000.0, ""), empenho("b", 1, 9_000.0, ""), empenho("c", 2, 9_000.0, "")];
    assert!(run(small, 0.7).is_empty(), "small purchases under the limit together are fine");
}

#[test]
fn the_window_and_fraction_move_monotonically_with_sensitivity() {
    assert_eq!((window_days(0.7), window_days(1.0)), (30, 365));
    assert!(window_days(0.2) < window_days(0.5) && min_fraction(0.2) > min_fraction(0.9));
    assert_eq!(min_fraction(1.0), 0.0);
}

#[test]
fn monthly_rent_and_utility_commitments_are_not_split_purchases() {
    // Real Despesas shapes: "EMPENHO PARA A LOCACAO DO IMOVEL ...", the power utility.
    let mut v = vec![empenho("a", 0, 40_000.0, ""), empenho("b", 4, 45_000.0, ""), empenho("c", 9, 38_000.0, "")];
    for e in &mut v {
        e.observation = "EMPENHO PARA A LOCACAO DO IMOVEL ONDE ABRIGA AS INSTALACOES DA DELEGACIA".into();
    }
    assert!(run(v.clone(), 1.0).is_empty());
    for e in &mut v {
        e.observation = arcstr::ArcStr::new();
        e.payee.name = "COMPANHIA ENERGETICA DE X".into();
    }
    assert!(run(v, 1.0).is_empty());
}

#[test]
fn purchases_before_the_new_law_are_held_to_the_lei_8666_limit_of_their_date() {
    // Four of R$ 9.000 in two weeks of 2020: far under Lei 14.133's R$ 50.000, above Lei
    // 8.666's R$ 17.600.
    let mut v: Vec<Expense> = (0..4).map(|k| empenho(&k.to_string(), 4 * k, 9_000.0, "")).collect();
    for e in &mut v {
        e.date = e.date.map(|d| d.with_year(2020).unwrap());
    }
    let found = run(v, 0.7);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].technical_details["threshold"], serde_json::json!(17_600.0));
}
