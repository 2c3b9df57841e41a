//! Production mode against the local stand-in for the Portal da Transparência
//! ([`crate::upstream_stand_in`]) serving demo records in the upstream's shapes: the key
//! header, the mode reported, every record kind requested, servants through the organ lists,
//! and the fallback on a failure.

use serde_json::{Value, json};
use vigia_agents::demo::{DemoSpec, generate};
use vigia_agents::model::contract::Organ;
use vigia_agents::model::servant::{Servant, servant_to_upstream};
use vigia_agents::model::upstream::contract_to_upstream;

use crate::helpers::{TestApp, spawn_app_with};
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

/// The app in production mode over the stand-in at `url`, unthrottled, with `request_budget`.
async fn app_over(url: String, request_budget: usize) -> TestApp {
    spawn_app_with(|c| {
        c.upstream.api_url = url;
        c.upstream.api_key = Some(KEY.to_string().into());
        c.upstream.requests_per_minute = 600_000;
        c.upstream.request_budget = request_budget;
    })
    .await
}

/// Starts the health ministry's 2024 investigation and waits for it: its id and status.
async fn health_2024(app: &TestApp) -> (String, Value) {
    let id = app
        .start(json!({"query": "contratos do Ministério da Saúde em 2024", "data_source": "portal_transparencia"}))
        .await;
    let s = app.wait_done(&id).await;
    (id, s)
}

#[tokio::test]
async fn production_mode_reads_the_upstream_with_the_key_header_and_says_so() {
    let (url, stand) = fake_upstream(false).await;
    // A year of despesas is a request per day and managing unit.
    let app = app_over(url, 20_000).await;
    let (id, s) = health_2024(&app).await;
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

/// `n` active servants of SIAPE organ `siape`, in the `/servidores` shape.
fn servants(n: usize, siape: &str) -> Vec<Value> {
    (0..n)
        .map(|i| {
            servant_to_upstream(&Servant {
                id: format!("{}", 9_000_000 + i),
                cpf: format!("***.{:03}.{:03}-**", 100 + i, 200 + i),
                name: format!("SERVIDORA {i}"),
                organ: Organ { code: siape.into(), acronym: "MS".into(), name: "MINISTERIO DA SAUDE".into() },
                exercise_organ: siape.into(),
                situation: "ATIVO PERMANENTE".into(),
                kind: "Civil".into(),
                role: "ANALISTA".into(),
            })
        })
        .collect()
}

/// The stand-in with the demo contracts of organ 36000, 20 servants lotados in the SIAPE
/// organ named like it (code 36001, so only the name can link the two) and the organ lists;
/// `forbidden` paths answer 403.
async fn upstream_with_servants(forbidden: Vec<&'static str>) -> (String, Stand) {
    let data =
        generate(&DemoSpec { seed: 5, contracts: 200, organ_codes: vec!["36000".into()], ..DemoSpec::default() });
    let organ = |code: &str, name: &str| json!({"codigo": code, "descricao": name});
    let records = Records {
        contracts: data.dataset.contracts.iter().map(contract_to_upstream).collect(),
        servants: servants(20, "36001"),
        siafi: vec![organ("36000", "Ministério da Saúde"), organ("26000", "Ministério da Educação")],
        siape: vec![organ("26000", "MINISTERIO DA EDUCACAO"), organ("36001", "MINISTÉRIO DA SAÚDE")],
        forbidden,
        ..Records::default()
    };
    stand_in(records).await
}

/// Waits for the organ lists the app reads at start.
pub async fn organ_codes_read(app: &TestApp) {
    for _ in 0..400 {
        let h: Value = app.get("/health/detailed").await.json().await.unwrap();
        if h["components"]["upstream"]["organ_codes"]["siape"].as_u64().is_some_and(|n| n > 0) {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    panic!("the organ lists were never read");
}

async fn servants_investigation(forbidden: Vec<&'static str>) -> (Value, Value, Stand) {
    let (url, stand) = upstream_with_servants(forbidden).await;
    let app = app_over(url, 20_000).await;
    organ_codes_read(&app).await;
    let id = app
        .start(json!({"query": "contratos de 2024", "data_source": "portal_transparencia",
            "filters": {"organizations": ["36000", "52000"]}}))
        .await;
    let s = app.wait_done(&id).await;
    let v: Value = app.get_signed(&format!("/api/v1/investigations/{id}/results")).await.json().await.unwrap();
    (s, v, stand)
}

fn notes(v: &Value) -> Vec<String> {
    v["metadata"]["data_notes"].as_array().unwrap().iter().map(|n| n.as_str().unwrap().to_string()).collect()
}

#[tokio::test]
async fn servants_are_read_through_the_siape_organ_named_like_the_siafi_one_and_analysed() {
    let (s, v, stand) = servants_investigation(Vec::new()).await;
    assert_eq!((s["status"].as_str(), s["metadata"]["data_status"].as_str()), (Some("completed"), Some("completed")));
    let asked: Vec<String> =
        stand.seen.lock().unwrap().iter().filter(|(p, _, _)| p == "/servidores").map(|(_, q, _)| q.clone()).collect();
    assert!(asked.iter().all(|q| q.contains("orgaoServidorLotacao=36001")), "{asked:?}");
    assert!(!asked.is_empty());
    let notes = notes(&v);
    assert!(
        notes.iter().any(|n| n.contains("organ 36000 read as SIAPE organ 36001") && n.contains("20 active servants")),
        "{notes:?}"
    );
    assert!(notes.iter().any(|n| n.contains("cannot be matched to partners of suppliers")), "{notes:?}");
    // 52000 is in neither list: reported, not guessed.
    assert!(notes.iter().any(|n| n.starts_with("servidores not fetched: no SIAPE code for organ 52000")), "{notes:?}");
    let m = &v["metadata"];
    let without_servants = m["total_records_analyzed"].as_u64().unwrap() - 20;
    assert!(without_servants > 0, "{m}");
    assert!(m["records_available"].as_u64().unwrap() >= 20 + without_servants, "the servants are counted: {m}");
}

#[tokio::test]
async fn a_403_on_servidores_is_a_note_about_the_key_not_a_fallback() {
    let (s, v, stand) = servants_investigation(vec!["/servidores"]).await;
    assert_eq!(s["metadata"]["data_status"], "completed", "a 403 on one kind is no upstream failure: {s}");
    assert_eq!(v["metadata"]["source"], "portal_transparencia_api");
    assert!(stand.requests_to("/servidores") > 0);
    let notes = notes(&v);
    assert!(notes.iter().any(|n| n.contains("not allowed for this key (HTTP 403")), "{notes:?}");
}

#[tokio::test]
async fn a_year_of_despesas_within_a_small_budget_reads_days_from_every_month_and_says_which() {
    let (url, stand) = fake_upstream(false).await;
    // Despesas get 20 %: 400 requests for a year of every managing unit of the contracts.
    let app = app_over(url, 2_000).await;
    let (id, s) = health_2024(&app).await;
    assert_eq!(s["metadata"]["data_status"], "completed", "{s}");
    let days: std::collections::BTreeSet<String> = stand
        .seen
        .lock()
        .unwrap()
        .iter()
        .filter(|(p, _, _)| p == "/despesas/documentos")
        .filter_map(|(_, q, _)| q.split('&').find_map(|kv| kv.strip_prefix("dataEmissao=")).map(str::to_string))
        .collect();
    let months: std::collections::BTreeSet<&str> = days.iter().map(|d| &d[5..]).collect();
    assert_eq!(months.len(), 12, "every month of the year is read: {days:?}");
    assert!(days.len() < 366, "a sample, not every day");
    let v: Value = app.get_signed(&format!("/api/v1/investigations/{id}/results")).await.json().await.unwrap();
    assert_eq!(v["metadata"]["truncated"], true);
    let notes = notes(&v);
    let note = notes.iter().find(|n| n.starts_with("despesas (empenhos) read for")).expect("a despesas note");
    assert!(note.contains(&format!("{} of the 366 days", days.len())) && note.contains("12/2024: "), "{note}");
    assert!(note.contains("records available on those days"), "{note}");
}
