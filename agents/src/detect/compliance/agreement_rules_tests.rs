//! Tests of the agreement rules of `compliance_rules` on hand-made convênios: each rule at its
//! boundaries (the sanction's last day, a fine, a release exactly at the tolerance) and the
//! sensitivity semantics.

use std::collections::BTreeSet;

use chrono::NaiveDate;

use super::*;
use crate::detect::Detector;
use crate::detect::compliance::compliance_rules::{ComplianceRules, NAME};
use crate::model::anomaly::AnomalyType;
use crate::model::cnpj::cnpj_from_parts;
use crate::model::contract::{Organ, Party};
use crate::testutil::contract;

fn day(d: (i32, u32, u32)) -> NaiveDate {
    NaiveDate::from_ymd_opt(d.0, d.1, d.2).unwrap()
}

fn grantee() -> String {
    cnpj_from_parts(23_456_789, 1)
}

fn agreement(id: &str, doc: &str, value: f64, released: f64, from: (i32, u32, u32)) -> Agreement {
    Agreement {
        id: id.into(),
        number: format!("9{id}"),
        object: "CONSTRUÇÃO DE UNIDADE BÁSICA DE SAÚDE".into(),
        situation: "EM EXECUÇÃO".into(),
        grantee: Party { name: "INSTITUTO X".into(), document: doc.into() },
        organ: Organ { code: "36000".into(), acronym: "MS".into(), name: "Ministério da Saúde".into() },
        value,
        released,
        counterpart: value * 0.5,
        valid_from: Some(day(from)),
        valid_until: Some(day(from) + chrono::Days::new(700)),
        published_on: Some(day(from) + chrono::Days::new(3)),
        last_release_on: None,
        uf: "MG".into(),
        municipality: "X".into(),
        municipality_code: String::new(),
    }
}

fn sanction(id: &str, doc: &str, kind: &str, from: (i32, u32, u32), to: Option<(i32, u32, u32)>) -> Sanction {
    Sanction {
        id: id.into(),
        register: if kind == "Multa" { "CNEP" } else { "CEIS" }.into(),
        document: doc.into(),
        name: "INSTITUTO X".into(),
        kind: kind.into(),
        starts_on: Some(day(from)),
        ends_on: to.map(day),
        published_on: Some(day(from)),
        // A federal sanctioning body: its sanctions bind every federal organ.
        authority: "CONTROLADORIA-GERAL DA UNIAO".into(),
        legal_basis: String::new(),
        process_number: String::new(),
        fine: (kind == "Multa").then_some(10_000.0),
    }
}

fn run_with(agreements: Vec<Agreement>, sanctions: Vec<Sanction>, s: f64, confidence: f64) -> Vec<Anomaly> {
    let ds = Dataset { agreements, sanctions, ..Dataset::default() };
    let p = DetectionParams { sensitivity: s, confidence_threshold: confidence, ..DetectionParams::default() };
    ComplianceRules.run(&ds, &p, &CancelFlag::new()).unwrap()
}

fn run(agreements: Vec<Agreement>, sanctions: Vec<Sanction>, s: f64) -> Vec<Anomaly> {
    run_with(agreements, sanctions, s, 0.8)
}

fn rules(found: &[Anomaly]) -> Vec<(String, String)> {
    found
        .iter()
        .map(|a| (a.affected_entities.primary.id.clone(), a.technical_details["rule"].as_str().unwrap().to_string()))
        .collect()
}

fn pair(id: &str, rule: &str) -> (String, String) {
    (id.to_string(), rule.to_string())
}

#[test]
fn a_grantee_barred_on_the_start_date_is_flagged_through_any_branch_with_every_entity_named() {
    let a = agreement("801", &grantee(), 400_000.0, 100_000.0, (2024, 6, 1));
    let branch = sanction("77", &cnpj_from_parts(23_456_789, 3), "Inidoneidade", (2024, 1, 1), Some((2024, 12, 31)));
    let found = run(vec![a], vec![branch], 0.7);
    assert_eq!(rules(&found), vec![pair("801", "sanctioned_grantee")]);
    let f = &found[0];
    assert_eq!(f.id, "compliance_rules-sanctioned_grantee-801");
    assert_eq!(f.kind, AnomalyType::ComplianceViolation);
    assert_eq!(f.detector(), NAME);
    assert_eq!(f.affected_entities.primary.kind, "agreement");
    let related: Vec<(&str, &str)> =
        f.affected_entities.related.iter().map(|e| (e.kind.as_str(), e.id.as_str())).collect();
    assert_eq!(related, vec![("grantee", grantee().as_str()), ("organ", "36000"), ("sanction", "77")]);
    assert!((f.confidence - 0.95).abs() < 1e-9);
    assert_eq!(f.technical_details["value_at_stake"], serde_json::json!(400_000.0));
    let text = &f.explanation.as_ref().unwrap().human_readable;
    assert!(
        text.contains("Decreto 11.531/2023") && text.contains("Portaria Conjunta") && text.contains("(EN)"),
        "{text}"
    );
    assert!(text.starts_with("O convênio 9801"), "{text}");
}

#[test]
fn a_sanction_over_the_day_before_the_start_or_from_the_day_after_or_a_fine_does_not_bar() {
    let a = agreement("802", &grantee(), 400_000.0, 0.0, (2024, 6, 1));
    let expired = sanction("1", &grantee(), "Impedimento de contratar", (2023, 1, 1), Some((2024, 5, 31)));
    let later = sanction("2", &grantee(), "Impedimento de licitar e contratar", (2024, 6, 2), None);
    let fine = sanction("3", &grantee(), "Multa", (2024, 1, 1), None);
    assert!(run(vec![a.clone()], vec![expired, later, fine], 1.0).is_empty());
    let last_day = sanction("4", &grantee(), "Impedimento de licitar e contratar", (2023, 1, 1), Some((2024, 6, 1)));
    assert_eq!(rules(&run(vec![a.clone()], vec![last_day], 0.7)), vec![pair("802", "sanctioned_grantee")]);
    let open = sanction("5", &grantee(), "Inidoneidade", (2024, 6, 1), None);
    assert_eq!(rules(&run(vec![a], vec![open], 0.7)), vec![pair("802", "sanctioned_grantee")]);
}

#[test]
fn the_publication_date_stands_in_for_a_missing_start_and_no_date_means_no_judgement() {
    let mut a = agreement("803", &grantee(), 400_000.0, 0.0, (2024, 6, 1));
    a.valid_from = None;
    // Published on 2024-06-04: the sanction from 2024-06-02 binds it.
    let s = sanction("6", &grantee(), "Impedimento de licitar e contratar", (2024, 6, 2), Some((2024, 9, 1)));
    assert_eq!(rules(&run(vec![a.clone()], vec![s.clone()], 0.7)), vec![pair("803", "sanctioned_grantee")]);
    a.published_on = None;
    assert!(run(vec![a], vec![s], 1.0).is_empty());
}

#[test]
fn releases_beyond_the_tolerance_over_the_agreed_value_are_flagged_and_the_counterpart_does_not_count() {
    assert!((released_tolerance(0.7) - 0.05).abs() < 1e-12);
    assert_eq!(released_tolerance(1.0), 0.0);
    assert!((released_tolerance(0.0) - 1.0 / 6.0).abs() < 1e-6);
    assert!((released_tolerance(0.5) - 1.0 / 12.0).abs() < 1e-6);
    let at = agreement("810", &grantee(), 100_000.0, 105_000.0, (2024, 3, 1));
    let cent_over = agreement("811", &grantee(), 100_000.0, 105_000.02, (2024, 3, 1));
    // 40% over the federal value but under value + counterpart (150,000): still flagged.
    let big = agreement("812", &grantee(), 100_000.0, 140_000.0, (2024, 3, 1));
    let within = agreement("813", &grantee(), 100_000.0, 100_000.0, (2024, 3, 1));
    let empty = agreement("814", &grantee(), 0.0, 5_000.0, (2024, 3, 1));
    let found = run(vec![at.clone(), cent_over, big, within.clone(), empty], Vec::new(), 0.7);
    assert_eq!(rules(&found), vec![pair("811", "released_above_agreed"), pair("812", "released_above_agreed")]);
    let big = &found[1];
    assert!((big.confidence - 0.98).abs() < 1e-9, "{}", big.confidence);
    assert_eq!(big.technical_details["value_at_stake"], serde_json::json!(40_000.0));
    assert_eq!(big.technical_details["threshold"], serde_json::json!(0.05));
    assert!(found[0].confidence >= 0.88 && found[0].confidence < 0.9);
    let text = &big.explanation.as_ref().unwrap().human_readable;
    assert!(text.contains("40,0%") && text.contains("(EN)"), "{text}");
    // At the literal setting any cent over the agreed value counts; the exact value does not.
    let mut cent = within.clone();
    cent.id = "815".into();
    cent.released = 100_000.02;
    assert_eq!(
        rules(&run(vec![at, within, cent], Vec::new(), 1.0)),
        vec![pair("810", "released_above_agreed"), pair("815", "released_above_agreed")]
    );
}

#[test]
fn an_agreement_breaking_both_rules_gets_one_anomaly_per_rule_after_the_contracts_ones() {
    let a = agreement("820", &grantee(), 200_000.0, 260_000.0, (2024, 6, 1));
    let s = sanction("9", &grantee(), "Impedimento de licitar e contratar", (2024, 1, 1), None);
    let mut c = contract("100000001", "AQUISIÇÃO DE MEDICAMENTOS", &grantee(), "36000", 100_000.0, (2024, 6, 1));
    c.final_value = 200_000.0;
    // The growth is a recorded acréscimo (totals alone would not be judged at this confidence).
    c.amendments = vec![crate::model::amendment::Amendment {
        kinds: vec![crate::model::amendment::AmendmentKind::Addition],
        new_global_value: Some(200_000.0),
        ..Default::default()
    }];
    let ds = Dataset {
        agreements: vec![a, agreement("821", &grantee(), 1.0, 0.0, (2023, 1, 1))],
        sanctions: vec![s],
        ..Dataset::from_contracts(vec![c])
    };
    let found = ComplianceRules.run(&ds, &DetectionParams::default(), &CancelFlag::new()).unwrap();
    assert_eq!(
        rules(&found),
        vec![
            pair("100000001", "sanctioned_supplier"),
            pair("100000001", "amendment_above_cap"),
            pair("820", "sanctioned_grantee"),
            pair("820", "released_above_agreed")
        ]
    );
    // Contamination: the share of agreements breaking the same rule (1 of 2).
    let share = found[3].evidence.statistical_analysis.as_ref().unwrap().contamination;
    assert_eq!(share, 0.5);
    assert!(found.iter().all(|a| a.detector() == NAME && a.kind == AnomalyType::ComplianceViolation));
}

#[test]
fn raising_the_sensitivity_never_removes_an_agreement_finding() {
    let mut cases = Vec::new();
    for (k, over) in [0.0, 0.004, 0.02, 0.049, 0.05, 0.06, 0.09, 0.12, 0.17, 0.3].iter().enumerate() {
        cases.push(agreement(&format!("83{k}"), &grantee(), 100_000.0, 100_000.0 * (1.0 + over), (2024, 6, 1)));
    }
    let s = vec![sanction("1", &grantee(), "Impedimento de licitar e contratar", (2024, 1, 1), Some((2024, 6, 1)))];
    let steps: Vec<f64> = (0..=20).map(|k| f64::from(k) / 20.0).collect();
    for confidence in [0.0, 0.8, 0.9] {
        let ids = |x: f64| -> BTreeSet<String> {
            run_with(cases.clone(), s.clone(), x, confidence).into_iter().map(|a| a.id).collect()
        };
        for w in steps.windows(2) {
            let (lo, hi) = (ids(w[0]), ids(w[1]));
            assert!(
                lo.is_subset(&hi),
                "lost from {} to {} at confidence {confidence}: {:?}",
                w[0],
                w[1],
                lo.difference(&hi)
            );
        }
    }
    // Legal rules: the sanction (of every case's grantee) and the excesses beyond a sixth are
    // reported at every sensitivity.
    assert_eq!(run(cases.clone(), s.clone(), 0.0).len(), 12, "{:?}", rules(&run(cases, s, 0.0)));
}

#[test]
fn a_cancelled_run_over_agreements_alone_returns_cancelled() {
    let ds = Dataset { agreements: vec![agreement("840", &grantee(), 1.0, 2.0, (2024, 1, 1))], ..Dataset::default() };
    let cancel = CancelFlag::new();
    cancel.cancel();
    assert_eq!(ComplianceRules.run(&ds, &DetectionParams::default(), &cancel), Err(AnalysisError::Cancelled));
}
