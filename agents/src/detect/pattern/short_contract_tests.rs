//! Tests of the short continuing-service detector.

use chrono::{Days, NaiveDate};

use super::*;
use crate::model::amendment::{Amendment, AmendmentKind};
use crate::model::dataset::Dataset;
use crate::testutil::contract;

fn run(cs: Vec<Contract>, s: f64) -> Vec<Anomaly> {
    let p = DetectionParams { sensitivity: s, ..DetectionParams::default() };
    ShortContract.run(&Dataset::from_contracts(cs), &p, &CancelFlag::new()).unwrap()
}

fn lasting(id: &str, object: &str, value: f64, days: u64) -> Contract {
    let mut c = contract(id, object, "S1", "26000", value, (2024, 3, 1));
    c.valid_until = c.valid_from.map(|d| d + Days::new(days));
    c
}

const CLEANING: &str = "PRESTAÇÃO DE SERVIÇOS CONTÍNUOS DE LIMPEZA E CONSERVAÇÃO COM DEDICAÇÃO DE MÃO DE OBRA";

#[test]
fn a_continuing_service_of_real_money_lasting_days_is_flagged() {
    let found = run(vec![lasting("clean", CLEANING, 420_000.0, 2)], 0.7);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].id, "short_contract-clean");
    assert_eq!(found[0].kind, AnomalyType::PatternAnomaly);
    assert!(found[0].severity <= Severity::Medium);
    assert_eq!(found[0].technical_details["duration_days"], 2);
}

#[test]
fn an_event_a_delivery_or_a_small_or_dated_service_is_not() {
    let cs = vec![
        lasting("event", "PLANEJAMENTO, ORGANIZAÇÃO E EXECUÇÃO DE EVENTO, COM FORNECIMENTO DE ALIMENTOS", 300_000.0, 1),
        lasting("goods", "AQUISIÇÃO DE NOTEBOOKS, GARANTIA DE 36 MESES", 300_000.0, 3),
        // Under the direct-purchase limit of 2024 (R$ 59.906,02).
        lasting("small", CLEANING, 55_000.0, 2),
        lasting("year", CLEANING, 420_000.0, 365),
        // An end equal to the start is an unknown end.
        lasting("same_day", CLEANING, 420_000.0, 0),
        // Ended by a rescisão.
        Contract { situation: "Rescindido".into(), ..lasting("rescinded", CLEANING, 420_000.0, 2) },
    ];
    assert!(run(cs, 0.7).is_empty());
}

#[test]
fn a_stated_term_in_months_makes_a_service_continuing_and_a_prorrogacao_lengthens_it() {
    let mut renewed = lasting("renewed", "VIGILÂNCIA ARMADA NA SEDE, POR 12 (DOZE) MESES", 600_000.0, 3);
    let found = run(vec![renewed.clone()], 0.7);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].technical_details["stated_months"], 12);
    renewed.amendments.push(Amendment {
        number: "1".into(),
        instrument: "Termo Aditivo".into(),
        kinds: vec![AmendmentKind::Extension],
        signed_on: NaiveDate::from_ymd_opt(2024, 3, 2),
        new_global_value: None,
        new_valid_until: NaiveDate::from_ymd_opt(2025, 3, 1),
        description: "PRORROGAÇÃO".into(),
    });
    assert!(run(vec![renewed], 0.7).is_empty());
}

#[test]
fn a_short_job_priced_like_its_peers_days_is_not_flagged() {
    // Twelve-month peers cost R$ 1.000 a day: a 3-day job of R$ 75.000 costs 25 times that,
    // a 7-day one of R$ 60.000 about 8.6 times (under the ratio of 10 at sensitivity 0.7).
    let mut cs: Vec<Contract> =
        (0..8).map(|k| lasting(&format!("peer{k}"), &format!("{CLEANING} LOTE {k}"), 365_000.0, 365)).collect();
    cs.push(lasting("dear", CLEANING, 75_000.0, 3));
    cs.push(lasting("fair", &format!("{CLEANING} DO ANEXO"), 60_000.0, 7));
    let found = run(cs, 0.7);
    let ids: Vec<&str> = found.iter().map(|a| a.id.as_str()).collect();
    assert_eq!(ids, vec!["short_contract-dear"], "{found:?}");
    assert_eq!(found[0].technical_details["peer_ratio"], 25.0);
}
