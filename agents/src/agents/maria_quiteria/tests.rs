//! Maria Quitéria on hand-made audit trails, and end to end beside demo data.

use chrono::{DateTime, Duration, TimeZone, Utc};

use super::*;
use crate::cancel::CancelFlag;
use crate::demo::{DemoSpec, generate};
use crate::model::dataset::Dataset;
use crate::model::params::DetectionParams;

fn t0() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2025, 3, 10, 12, 0, 0).unwrap()
}

fn ev(minutes: i64, actor: &str, action: &str, outcome: &str, ip: &str, detail: Option<&str>) -> SecurityEvent {
    SecurityEvent {
        timestamp: t0() + Duration::minutes(minutes),
        actor: (!actor.is_empty()).then(|| actor.to_string()),
        action: action.into(),
        outcome: outcome.into(),
        ip: (!ip.is_empty()).then(|| ip.to_string()),
        detail: detail.map(str::to_string),
    }
}

/// A quiet day: one successful login of dave every two hours from his usual address.
fn quiet_day() -> Vec<SecurityEvent> {
    (0..12).map(|k| ev(k * 120, "dave@x.gov.br", "login", "success", "10.0.0.1", None)).collect()
}

/// Two failed logins of mallory, then an admin action (`detail`) half an hour later.
fn change_after_failures(detail: &str) -> Vec<SecurityEvent> {
    let mut log: Vec<SecurityEvent> =
        (0..2).map(|k| ev(600 + k, "mallory@x.gov.br", "login", "failure", "192.0.2.7", None)).collect();
    log.push(ev(630, "mallory@x.gov.br", "admin_action", "success", "192.0.2.7", Some(detail)));
    log
}

fn kinds(found: &[SecurityFinding]) -> Vec<(&str, Severity)> {
    found.iter().map(|f| (f.kind, f.severity)).collect()
}

#[test]
fn six_failed_logins_in_five_minutes_then_a_success_are_a_high_burst_per_actor_and_per_address() {
    let mut log = quiet_day();
    log.extend(
        (0..6).map(|k| {
            ev(300 + k, "alice@x.gov.br", "login", "failure", "203.0.113.9", Some("wrong e-mail or password"))
        }),
    );
    log.push(ev(307, "alice@x.gov.br", "login", "success", "203.0.113.9", None));
    let found = review(&log);
    let bursts: Vec<&SecurityFinding> = found.iter().filter(|f| f.kind == "failed_login_burst").collect();
    // One actor from one address: one finding naming both.
    assert_eq!(bursts.len(), 1);
    assert_eq!(bursts[0].severity, Severity::High);
    assert_eq!(bursts[0].actor.as_deref(), Some("alice@x.gov.br"));
    assert_eq!(bursts[0].ip.as_deref(), Some("203.0.113.9"));
    let e = &bursts[0].evidence;
    assert_eq!((e["count"].as_u64(), e["peak_in_window"].as_u64()), (Some(6), Some(6)));
    // 6 failures, one actor, over a log of 22 h (132 windows of 10 minutes).
    assert!((e["base_rate_per_window"].as_f64().unwrap() - 6.0 / 132.0).abs() < 1e-9);
    assert_eq!(e["timestamps"][0], "2025-03-10T17:00:00+00:00");
    assert!(bursts[0].description.starts_with(
        "6 logins falhos de alice@x.gov.br a partir de 203.0.113.9 entre 10/03/2025 17:00:00 UTC e 17:05:00"
    ));
    assert!(bursts[0].description_en.starts_with(
        "6 failed logins by alice@x.gov.br from 203.0.113.9 between 2025-03-10 17:00:00 UTC and 17:05:00"
    ));
}

#[test]
fn failures_against_many_accounts_from_one_address_are_a_burst_of_that_address() {
    let mut log = quiet_day();
    log.extend((0..8).map(|k| ev(300 + k, &format!("user{k}@x.gov.br"), "login", "failure", "198.51.100.66", None)));
    let bursts: Vec<SecurityFinding> = review(&log).into_iter().filter(|f| f.kind == "failed_login_burst").collect();
    assert_eq!(bursts.len(), 1);
    assert_eq!((bursts[0].actor.as_deref(), bursts[0].ip.as_deref()), (None, Some("198.51.100.66")));
    assert_eq!(bursts[0].severity, Severity::Medium);
    assert!(bursts[0].description.starts_with("8 logins falhos do endereço 198.51.100.66, contra várias contas"));
}

#[test]
fn failures_below_the_burst_size_or_spread_over_the_day_are_not_bursts() {
    let mut log = quiet_day();
    log.extend((0..4).map(|k| ev(300 + k, "alice@x.gov.br", "login", "failure", "203.0.113.9", None)));
    log.extend((0..8).map(|k| ev(k * 15, "erin@x.gov.br", "login", "failure", "198.51.100.2", None)));
    assert!(review(&log).iter().all(|f| f.kind != "failed_login_burst"));
}

#[test]
fn a_privilege_change_after_failures_is_high_and_one_without_is_low() {
    let mut log = quiet_day();
    log.push(ev(10, "root@x.gov.br", "admin_action", "success", "10.0.0.5", Some("POST /api/v1/admin/api-keys 201")));
    log.extend(change_after_failures("POST /api/v1/auth/register 201"));
    let found = review(&log);
    let changes: Vec<&SecurityFinding> = found.iter().filter(|f| f.kind == "privilege_change").collect();
    assert_eq!(kinds(&found).iter().filter(|k| k.0 == "privilege_change").count(), 2);
    assert_eq!((changes[0].severity, changes[0].actor.as_deref()), (Severity::High, Some("mallory@x.gov.br")));
    assert_eq!(changes[0].evidence["failures_in_prior_hour"], 2);
    assert!(changes[0].description.contains("(POST /api/v1/auth/register 201) depois de 2 falhas de acesso"));
    assert_eq!(changes[1].severity, Severity::Low);
}

#[test]
fn a_login_from_an_address_new_for_the_actor_is_reported_after_enough_history() {
    let mut log: Vec<SecurityEvent> =
        (0..3).map(|k| ev(k * 60, "bob@x.gov.br", "login", "success", "10.1.1.1", None)).collect();
    log.push(ev(200, "bob@x.gov.br", "login", "success", "45.6.7.8", None));
    // Two logins only: the second address is not yet news.
    log.extend([
        ev(0, "carol@x.gov.br", "login", "success", "10.2.2.2", None),
        ev(5, "carol@x.gov.br", "login", "success", "10.3.3.3", None),
    ]);
    let found: Vec<SecurityFinding> = review(&log).into_iter().filter(|f| f.kind == "new_address").collect();
    assert_eq!(found.len(), 1);
    assert_eq!((found[0].actor.as_deref(), found[0].ip.as_deref()), (Some("bob@x.gov.br"), Some("45.6.7.8")));
    assert_eq!(found[0].evidence["previous_logins"], 3);
    assert_eq!(found[0].evidence["known_addresses"][0], "10.1.1.1");
}

#[test]
fn activity_at_three_in_the_morning_is_unusual_for_an_office_hours_actor() {
    // Twelve days at 14h Brasília (17h UTC), then one act at 3h Brasília (06h UTC).
    let mut log: Vec<SecurityEvent> =
        (0..12).map(|d| ev(d * 24 * 60 + 5 * 60, "fabio@x.gov.br", "login", "success", "10.0.0.3", None)).collect();
    log.push(ev(
        12 * 24 * 60 - 6 * 60,
        "fabio@x.gov.br",
        "admin_action",
        "success",
        "10.0.0.3",
        Some("DELETE /api/v1/admin/api-keys/k1 204"),
    ));
    let found: Vec<SecurityFinding> = review(&log).into_iter().filter(|f| f.kind == "unusual_hour").collect();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].severity, Severity::Medium, "the odd act is a privilege change");
    assert_eq!(found[0].evidence["timestamps"][0], "2025-03-22T06:00:00+00:00");
    assert!(found[0].description.contains("horário de Brasília: 3h"));
    assert!(found[0].description.contains("a maioria por volta das 14h"));
}

#[test]
fn lockouts_and_a_reused_refresh_token_are_reported() {
    let log = vec![
        ev(0, "gil@x.gov.br", "account_locked", "success", "192.0.2.1", Some("failures=5")),
        ev(
            5,
            "gil@x.gov.br",
            "token_refresh",
            "failure",
            "192.0.2.1",
            Some("rotated refresh token reused: session revoked"),
        ),
        ev(6, "gil@x.gov.br", "token_refresh", "failure", "192.0.2.1", Some("renewal limit reached")),
    ];
    assert_eq!(
        kinds(&review(&log)),
        vec![("refresh_token_reuse", Severity::High), ("account_locked", Severity::Medium)]
    );
}

#[test]
fn maria_quiteria_reviews_a_log_beside_demo_data_and_keeps_her_findings_out_of_the_anomalies() {
    let mut data = generate(&DemoSpec { seed: 2, contracts: 500, ..DemoSpec::default() }).dataset;
    let mut log = quiet_day();
    log.extend((0..7).map(|k| {
        ev(400 + k, "", "unauthorized_access", "failure", "198.51.100.77", Some("GET /api/v1/investigations 401"))
    }));
    log.extend(change_after_failures("POST /api/v1/admin/api-keys 201"));
    data.security_events = log;
    let (params, cancel) = (DetectionParams::default(), CancelFlag::new());
    let out = MariaQuiteria::new().analyse(&AnalysisContext::new(&data, &params, &cancel)).unwrap();
    assert!(out.anomalies.is_empty());
    let a = &out.artifacts[0];
    assert_eq!(a.kind, "security_review");
    let findings = a.content["findings"].as_array().unwrap();
    assert_eq!(a.content["events"], data.security_events.len());
    assert_eq!(out.insights.len(), findings.len() + 1);
    assert_eq!(a.content["findings_total"], findings.len());
    assert!(findings.iter().any(|f| f["kind"] == "refused_request_burst" && f["ip"] == "198.51.100.77"));
    assert!(findings.iter().any(|f| f["kind"] == "privilege_change" && f["severity"] == "high"));
    assert!(out.insights[0].insight.starts_with("Revisão de 22 eventos de auditoria"));
    // Every insight is also written in English.
    assert!(out.insights.iter().all(|i| i.insight_en.is_some()));
    assert!(out.insights[0].insight_en.as_deref().unwrap().starts_with("Review of 22 audit events"));
    assert!(out.insights.iter().any(|i| i.insight_en.as_deref().unwrap().starts_with("Privilege change by ")));
    assert!(out.recommendations.iter().any(|r| r.contains("mallory@x.gov.br")));
    let empty = MariaQuiteria::new().analyse(&AnalysisContext::new(&Dataset::default(), &params, &cancel)).unwrap();
    assert!(empty.insights[0].insight.starts_with("Nenhum evento"));
}

#[test]
fn a_cancelled_security_review_returns_cancelled() {
    assert_eq!(crate::testutil::analyse_cancelled(&MariaQuiteria::new(), 100), Err(AnalysisError::Cancelled));
}

#[test]
fn the_summary_counts_in_the_singular_when_there_is_one() {
    let data = Dataset {
        security_events: vec![ev(0, "ana@x.gov.br", "login", "failure", "203.0.113.1", None)],
        ..Dataset::default()
    };
    let (params, cancel) = (DetectionParams::default(), CancelFlag::new());
    let out = MariaQuiteria::new().analyse(&AnalysisContext::new(&data, &params, &cancel)).unwrap();
    let (pt, en) = (&out.insights[0].insight, out.insights[0].insight_en.as_deref().unwrap());
    assert!(pt.ends_with(": 1 login falho; 0 achados (0 altos, 0 médios, 0 baixos)"), "{pt}");
    assert!(
        en.starts_with("Review of 1 audit event from ")
            && en.ends_with(": 1 failed login; 0 findings (0 high, 0 medium, 0 low)"),
        "{en}"
    );
}
