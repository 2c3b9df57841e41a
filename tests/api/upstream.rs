//! Production mode against a local server that stands in for the Portal da Transparência,
//! serving `/contratos` in its real shape (bare arrays, 15 rows a page, `chave-api-dados`).

use std::sync::{Arc, Mutex};

use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{Value, json};
use vigia_agents::demo::{DemoSpec, generate};
use vigia_agents::model::upstream::contract_to_upstream;

use crate::helpers::spawn_app_with;

pub(crate) const KEY: &str = "test-key-7f3a9c";

#[derive(Clone)]
pub(crate) struct Fake {
    records: Arc<Vec<Value>>,
    fail: bool,
    seen_keys: Arc<Mutex<Vec<String>>>,
}

async fn contratos(
    State(f): State<Fake>,
    headers: HeaderMap,
    Query(q): Query<std::collections::HashMap<String, String>>,
) -> Response {
    let key = headers.get("chave-api-dados").and_then(|v| v.to_str().ok()).unwrap_or("").to_string();
    f.seen_keys.lock().unwrap().push(key.clone());
    if f.fail {
        return (StatusCode::SERVICE_UNAVAILABLE, "unavailable").into_response();
    }
    if key != KEY {
        return (StatusCode::UNAUTHORIZED, Json(json!({"Erro na API": "Chave de API inválida!"}))).into_response();
    }
    let Some(organ) = q.get("codigoOrgao") else {
        return (StatusCode::BAD_REQUEST, Json(json!({"Erro na API": "Filtros mínimos: codigoOrgao"}))).into_response();
    };
    let page: usize = q.get("pagina").and_then(|p| p.parse().ok()).unwrap_or(1);
    let rows: Vec<&Value> = f
        .records
        .iter()
        .filter(|r| r["unidadeGestora"]["orgaoMaximo"]["codigo"] == organ.as_str())
        .skip((page - 1) * 15)
        .take(15)
        .collect();
    Json(rows).into_response()
}

pub(crate) async fn fake_upstream(fail: bool) -> (String, Fake) {
    let data =
        generate(&DemoSpec { seed: 5, contracts: 400, organ_codes: vec!["36000".into()], ..DemoSpec::default() });
    let fake = Fake {
        records: Arc::new(data.dataset.contracts.iter().map(contract_to_upstream).collect()),
        fail,
        seen_keys: Arc::default(),
    };
    let app = Router::new().route("/contratos", get(contratos)).with_state(fake.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}"), fake)
}

#[tokio::test]
async fn production_mode_reads_the_upstream_with_the_key_header_and_says_so() {
    let (url, fake) = fake_upstream(false).await;
    let app = spawn_app_with(|c| {
        c.upstream.api_url = url;
        c.upstream.api_key = Some(KEY.to_string().into());
        c.upstream.max_pages = 10;
        c.upstream.requests_per_minute = 60_000;
    })
    .await;
    let id = app
        .start(json!({"query": "contratos do Ministério da Saúde em 2024", "data_source": "portal_transparencia"}))
        .await;
    let s = app.wait_done(&id).await;
    assert_eq!(s["status"], "completed", "{s}");
    let body = app.get_signed(&format!("/api/v1/investigations/{id}/results")).await.text().await.unwrap();
    assert!(!body.contains(KEY), "the key never reaches a client");
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["metadata"]["source"], "portal_transparencia_api");
    assert_eq!(v["metadata"]["demo_mode"], false);
    assert!(v.get("warning").is_none());
    assert!(v["metadata"]["total_records_analyzed"].as_u64().unwrap() >= 100);
    assert!(fake.seen_keys.lock().unwrap().iter().all(|k| k == KEY));
    let h: Value = app.get("/health/detailed").await.json().await.unwrap();
    let upstream = &h["components"]["upstream"];
    assert_eq!((upstream["status"].as_str(), upstream["mode"].as_str()), (Some("healthy"), Some("production")), "{h}");
    assert!(upstream["latency_ms"].as_f64().unwrap() >= 0.0, "the upstream is checked, not assumed");
    let r = app.post_signed("/api/v1/investigations/start", &json!({"query": "x", "data_source": "tcu"})).await;
    assert_eq!(r.status(), 400);
    assert_eq!(r.json::<Value>().await.unwrap()["error"]["code"], "INVALID_DATA_SOURCE");
}

#[tokio::test]
async fn an_upstream_failure_falls_back_to_demo_data_as_completed_fallback() {
    let (url, fake) = fake_upstream(true).await;
    let app = spawn_app_with(|c| {
        c.upstream.api_url = url;
        c.upstream.api_key = Some(KEY.to_string().into());
        c.upstream.retries = 1;
    })
    .await;
    let id =
        app.start(json!({"query": "contratos do Ministério da Saúde", "data_source": "portal_transparencia"})).await;
    let s = app.wait_done(&id).await;
    assert_eq!(s["status"], "completed_fallback", "{s}");
    let v: Value = app.get_signed(&format!("/api/v1/investigations/{id}/results")).await.json().await.unwrap();
    assert_eq!(v["metadata"]["demo_mode"], true);
    assert_eq!(v["metadata"]["source"], "demo_data");
    assert!(v["metadata"]["fallback_reason"].as_str().unwrap().contains("503"));
    assert_eq!(fake.seen_keys.lock().unwrap().len(), 2, "one try and one retry");
    let body = app.get("/health/detailed").await.text().await.unwrap();
    assert!(!body.contains(KEY), "the key never reaches a client");
    let h: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(h["status"], "degraded", "{h}");
    assert_eq!(h["components"]["upstream"]["status"], "unhealthy");
    assert!(h["components"]["upstream"]["error"].as_str().unwrap().contains("503"), "{h}");
}
