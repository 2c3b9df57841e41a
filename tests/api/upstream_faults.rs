//! Every upstream fault ends in demo data reported as `completed_fallback`, within the
//! timeout budget, never as an error; the key never reaches a response or the logs; a repeat
//! is served from the cache.

use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::crash::{admin_token, serve_logged};
use crate::helpers::{ADMIN_EMAIL, ADMIN_PASSWORD, TestApp, spawn_app_with};
use crate::upstream::fake_upstream;
use crate::upstream_stand_in::{Fault, KEY};

const TIMEOUT_SECS: f64 = 0.5;
const RETRIES: u32 = 1;

async fn app_over(url: String) -> TestApp {
    spawn_app_with(|c| {
        c.upstream.api_url = url;
        c.upstream.api_key = Some(KEY.to_string().into());
        c.upstream.timeout_secs = TIMEOUT_SECS;
        c.upstream.retries = RETRIES;
        c.upstream.requests_per_minute = 60_000;
    })
    .await
}

/// Polls an investigation's status until it leaves processing; the status and how long it took.
pub(crate) async fn finish(app: &TestApp, id: &str, within: Duration) -> (Value, Duration) {
    let started = Instant::now();
    while started.elapsed() < within {
        let v: Value = app.get_signed(&format!("/api/v1/investigations/{id}/status")).await.json().await.unwrap();
        if v["status"] != "processing" && v["status"] != "pending" {
            return (v, started.elapsed());
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("investigation {id} did not finish within {within:?}");
}

async fn falls_back(fault: Fault, class: &str) {
    let (url, stand) = fake_upstream(false).await;
    stand.set(fault);
    let app = app_over(url).await;
    let body = json!({"query": "contratos do Ministério da Saúde em 2024", "data_source": "portal_transparencia"});
    let id = app.start(body).await;
    // Budget: every try at the timeout, the backoffs and the demo generation, with slack.
    let budget = Duration::from_secs_f64(TIMEOUT_SECS * f64::from(RETRIES + 1) + 1.0 + 10.0);
    let (s, took) = finish(&app, &id, budget).await;
    assert_eq!(
        (s["status"].as_str(), s["metadata"]["data_status"].as_str()),
        (Some("completed"), Some("completed_fallback")),
        "{fault:?}: {s}"
    );
    let text = app.get_signed(&format!("/api/v1/investigations/{id}/results")).await.text().await.unwrap();
    assert!(!text.contains(KEY));
    let v: Value = serde_json::from_str(&text).unwrap();
    let warning = v["metadata"]["warning"].as_str().unwrap();
    assert!(warning.starts_with("[DEMO]") && warning.contains("portal_transparencia"), "{fault:?}: {warning}");
    assert_eq!(v["metadata"]["source"], "demo_data");
    let direct: Value = app
        .post("/api/v1/agents/zumbi/investigate", &json!({"orgao": "36000", "ano": 2023}))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(direct["status"], "completed_fallback", "{fault:?}: {direct}");
    assert!(direct["warning"].as_str().unwrap().contains("[DEMO]"));
    let events =
        crate::chat::turn(&app, json!({"message": "Investigue contratos do Ministério da Saúde em 2024"})).await;
    let complete = events.iter().find(|(name, _)| name == "complete").map(|(_, data)| data);
    assert_eq!(complete.map(|c| c["status"].clone()), Some(json!("completed_fallback")), "{fault:?}: {events:?}");
    let h = app.get("/health/detailed").await.text().await.unwrap();
    assert!(!h.contains(KEY));
    let h: Value = serde_json::from_str(&h).unwrap();
    assert_eq!(h["components"]["upstream"]["last_error_class"], class, "{fault:?}: {h}");
    assert!(took < budget, "{fault:?} took {took:?}");
}

#[tokio::test]
async fn a_503_after_the_retries_falls_back() {
    falls_back(Fault::Unavailable, "server_error").await;
}

#[tokio::test]
async fn a_429_whose_retry_after_outlasts_the_timeout_falls_back_at_once() {
    falls_back(Fault::RateLimited { retry_after: 30 }, "rate_limited").await;
}

#[tokio::test]
async fn a_403_falls_back_as_blocked() {
    falls_back(Fault::Forbidden, "blocked").await;
}

#[tokio::test]
async fn an_upstream_slower_than_the_timeout_falls_back() {
    falls_back(Fault::Slow(Duration::from_secs(5)), "timeout").await;
}

#[tokio::test]
async fn a_body_that_is_not_json_falls_back_as_malformed() {
    falls_back(Fault::Malformed, "malformed").await;
}

#[tokio::test]
async fn a_repeated_investigation_is_served_from_the_cache() {
    let (url, stand) = fake_upstream(false).await;
    let app = app_over(url).await;
    let body = json!({"query": "contratos do Ministério da Saúde em 2024", "data_source": "portal_transparencia"});
    let first = app.start(body.clone()).await;
    finish(&app, &first, Duration::from_secs(30)).await;
    let contracts = stand.requests_to("/contratos");
    let amendments = stand.requests_to("/contratos/termo-aditivo");
    assert!(contracts > 0 && amendments > 0);
    let second = app.start(body).await;
    let (s, _) = finish(&app, &second, Duration::from_secs(30)).await;
    assert_eq!(s["metadata"]["data_status"], "completed", "{s}");
    assert_eq!(s["metadata"]["source"], "portal_transparencia_api");
    assert_eq!(
        (stand.requests_to("/contratos"), stand.requests_to("/contratos/termo-aditivo")),
        (contracts, amendments),
        "the repeat sent no request: every page and detail came from the cache"
    );
    let h: Value = app.get("/health/detailed").await.json().await.unwrap();
    assert!(h["components"]["upstream"]["cache"]["pages"].as_u64().unwrap() > 0, "{h}");
}

/// The real binary with logs at debug level for every crate: after a fault and a success, no
/// log line, response or header it printed holds the key.
#[tokio::test]
async fn the_key_is_never_in_the_logs_or_the_responses_of_the_real_binary() {
    let (url, stand) = fake_upstream(false).await;
    stand.set(Fault::Unavailable);
    let client = reqwest::Client::new();
    let url = url.as_str();
    let env = [
        ("VIGIA_ADMIN_EMAIL", ADMIN_EMAIL),
        ("VIGIA_ADMIN_PASSWORD", ADMIN_PASSWORD),
        ("TRANSPARENCY_API_KEY", KEY),
        ("TRANSPARENCY_API_URL", url),
        ("VIGIA__UPSTREAM__RETRIES", "1"),
        ("VIGIA__UPSTREAM__TIMEOUT_SECS", "1"),
    ];
    let server = serve_logged(&client, &env).await;
    let base = server.base.clone();
    let token = admin_token(&client, &base).await;
    let mut bodies = Vec::new();
    for fault in [Fault::Unavailable, Fault::None] {
        stand.set(fault);
        let body = json!({"query": "contratos do Ministério da Saúde em 2024", "data_source": "portal_transparencia"});
        let r = client
            .post(format!("{base}/api/v1/investigations/start"))
            .bearer_auth(&token)
            .json(&body)
            .send()
            .await
            .unwrap();
        let id = r.json::<Value>().await.unwrap()["investigation_id"].as_str().unwrap().to_string();
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let r = client
                .get(format!("{base}/api/v1/investigations/{id}/status"))
                .bearer_auth(&token)
                .send()
                .await
                .unwrap();
            let text = r.text().await.unwrap();
            let v: Value = serde_json::from_str(&text).unwrap();
            bodies.push(text);
            if v["status"] == "completed" || Instant::now() > deadline {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let r =
            client.get(format!("{base}/api/v1/investigations/{id}/results")).bearer_auth(&token).send().await.unwrap();
        bodies.push(format!("{:?}", r.headers()));
        bodies.push(r.text().await.unwrap());
    }
    for path in ["/health/detailed", "/api/v1/admin/connection-pools/stats"] {
        let r = client.get(format!("{base}{path}")).bearer_auth(&token).send().await.unwrap();
        bodies.push(r.text().await.unwrap());
    }
    let logs = server.logs();
    assert!(logs.contains("upstream request failed"), "the fault was logged: {}", &logs[..logs.len().min(2000)]);
    assert!(stand.seen.lock().unwrap().iter().any(|(_, _, k)| k == KEY), "the key was sent");
    assert!(!logs.contains(KEY), "the key is in the logs");
    for b in &bodies {
        assert!(!b.contains(KEY), "the key is in a response: {b}");
    }
    assert!(bodies.iter().any(|b| b.contains("completed_fallback")));
}
