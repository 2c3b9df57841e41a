//! Production mode against the local stand-in for the Portal da Transparência
//! ([`crate::upstream_stand_in`]) serving demo records in the upstream's shapes: the key
//! header, the mode reported, every record kind requested, and the fallback on a failure.

use serde_json::{Value, json};
use vigia_agents::demo::{DemoSpec, generate};
use vigia_agents::model::upstream::contract_to_upstream;

use crate::helpers::spawn_app_with;
pub(crate) use crate::upstream_stand_in::KEY;
use crate::upstream_stand_in::{Fault, Records, Stand, stand_in};

/// The stand-in serving 400 demo contracts of organ 36000, failing with 503 when `fail`.
pub(crate) async fn fake_upstream(fail: bool) -> (String, Stand) {
    let data =
        generate(&DemoSpec { seed: 5, contracts: 400, organ_codes: vec!["36000".into()], ..DemoSpec::default() });
    let records =
        Records { contracts: data.dataset.contracts.iter().map(contract_to_upstream).collect(), ..Records::default() };
    let (url, stand) = stand_in(records).await;
    if fail {
        stand.set(Fault::Unavailable);
    }
    (url, stand)
}

#[tokio::test]
async fn production_mode_reads_the_upstream_with_the_key_header_and_says_so() {
    let (url, stand) = fake_upstream(false).await;
    let app = spawn_app_with(|c| {
        c.upstream.api_url = url;
        c.upstream.api_key = Some(KEY.to_string().into());
        c.upstream.requests_per_minute = 600_000;
        // A year of despesas is a request per day and managing unit.
        c.upstream.request_budget = 20_000;
    })
    .await;
    let id = app
        .start(json!({"query": "contratos do Ministério da Saúde em 2024", "data_source": "portal_transparencia"}))
        .await;
    let s = app.wait_done(&id).await;
    assert_eq!(s["status"], "completed", "{s}");
    assert_eq!(s["metadata"]["data_status"], "completed", "{s}");
    let body = app.get_signed(&format!("/api/v1/investigations/{id}/results")).await.text().await.unwrap();
    assert!(!body.contains(KEY), "the key never reaches a client");
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["metadata"]["source"], "portal_transparencia_api");
    assert_eq!(v["metadata"]["demo_mode"], false);
    assert_eq!(v["metadata"]["truncated"], false);
    assert!(v.get("warning").is_none(), "{v}");
    assert!(v["metadata"]["total_records_analyzed"].as_u64().unwrap() >= 100);
    assert!(stand.seen.lock().unwrap().iter().all(|(_, _, k)| k == KEY));
    for path in ["/contratos", "/contratos/termo-aditivo", "/licitacoes", "/convenios", "/despesas/documentos"] {
        assert!(stand.requests_to(path) > 0, "{path} was not read");
    }
    assert_eq!(stand.requests_to("/licitacoes"), 12, "one request per month of the year");
    let h: Value = app.get("/health/detailed").await.json().await.unwrap();
    let upstream = &h["components"]["upstream"];
    assert_eq!((upstream["status"].as_str(), upstream["mode"].as_str()), (Some("healthy"), Some("production")), "{h}");
    assert!(upstream["latency_ms"].as_f64().unwrap() >= 0.0, "the upstream is checked, not assumed");
    let r = app.post_signed("/api/v1/investigations/start", &json!({"query": "x", "data_source": "tcu"})).await;
    assert_eq!(r.status(), 400);
    assert_eq!(r.json::<Value>().await.unwrap()["error"]["code"], "INVALID_DATA_SOURCE");
}

#[tokio::test]
async fn an_upstream_failure_falls_back_to_demo_data_with_completed_fallback_metadata() {
    let (url, stand) = fake_upstream(true).await;
    let app = spawn_app_with(|c| {
        c.upstream.api_url = url;
        c.upstream.api_key = Some(KEY.to_string().into());
        c.upstream.retries = 1;
    })
    .await;
    let id =
        app.start(json!({"query": "contratos do Ministério da Saúde", "data_source": "portal_transparencia"})).await;
    let s = app.wait_done(&id).await;
    assert_eq!(s["status"], "completed", "the spec's state machine: {s}");
    assert_eq!(s["metadata"]["data_status"], "completed_fallback", "{s}");
    let v: Value = app.get_signed(&format!("/api/v1/investigations/{id}/results")).await.json().await.unwrap();
    assert_eq!(v["metadata"]["demo_mode"], true);
    assert_eq!(v["metadata"]["source"], "demo_data");
    assert_eq!(v["metadata"]["data_status"], "completed_fallback");
    assert!(v["metadata"]["fallback_reason"].as_str().unwrap().contains("503"));
    assert!(v["warning"].as_str().unwrap().starts_with("[DEMO]"), "{v}");
    assert_eq!(stand.requests_to("/contratos"), 2, "one try and one retry");
    let body = app.get("/health/detailed").await.text().await.unwrap();
    assert!(!body.contains(KEY), "the key never reaches a client");
    let h: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(h["status"], "degraded", "{h}");
    assert_eq!(h["components"]["upstream"]["status"], "unhealthy");
    assert_eq!(h["components"]["upstream"]["last_error_class"], "server_error", "{h}");
    assert!(h["components"]["upstream"]["error"].as_str().unwrap().contains("503"), "{h}");
}
