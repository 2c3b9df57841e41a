//! Production mode with a company register: a local stand-in serving the register's JSON
//! shape (BrasilAPI `/api/cnpj/v1/{cnpj}`, minhareceita.org `/{cnpj}`) beside the Portal
//! stand-in. Suppliers' facts reach the dataset and the phantom-supplier rule, answers are
//! kept in sled (a second investigation reads nothing), a failing register is a note, and
//! without `registry.base_url` nothing is read.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use chrono::NaiveDate;
use serde_json::{Value, json};
use vigia_agents::demo::{DemoSpec, generate};
use vigia_agents::model::contract::Organ;
use vigia_agents::model::servant::{Servant, servant_to_upstream};
use vigia_agents::model::upstream::contract_to_upstream;

use crate::helpers::{TestApp, spawn_app_with};
use crate::upstream_stand_in::{KEY, Records, stand_in};

/// An ordinary company with two partners, opened in 2009.
const ORDINARY: &str = "11222333000181";
/// Two shells: opened five days before their first contract, no partners, one phone.
const SHELL_A: &str = "40111222000140";
const SHELL_B: &str = "40333444000150";

fn records() -> HashMap<String, Value> {
    let shell = |cnpj: &str, name: &str, number: &str| {
        json!({"cnpj": cnpj, "razao_social": name, "nome_fantasia": "", "data_inicio_atividade": "2024-03-10",
            "descricao_situacao_cadastral": "ATIVA", "cnae_fiscal": 4789099, "logradouro": "RUA DAS FLORES",
            "numero": number, "complemento": "", "bairro": "CENTRO", "cep": "70040010", "municipio": "BRASILIA",
            "uf": "DF", "ddd_telefone_1": "6133334444", "qsa": []})
    };
    let ordinary = json!({"cnpj": ORDINARY, "razao_social": "DISTRIBUIDORA HOSPITALAR PLANALTO LTDA",
        "nome_fantasia": "PLANALTO MED", "data_inicio_atividade": "2009-06-01",
        "descricao_situacao_cadastral": "ATIVA", "cnae_fiscal": 4644301, "logradouro": "SIA TRECHO 3",
        "numero": "625", "complemento": "LOTE 12", "bairro": "ZONA INDUSTRIAL", "cep": "71200030",
        "municipio": "BRASILIA", "uf": "DF", "ddd_telefone_1": "6130451200",
        "qsa": [{"nome_socio": "MARIA APARECIDA SOUZA", "cnpj_cpf_do_socio": "***456789**", "qualificacao_socio": "Sócio-Administrador"},
                {"nome_socio": "JOSE CARLOS SOUZA", "cnpj_cpf_do_socio": "***112233**", "qualificacao_socio": "Sócio"}]});
    HashMap::from([
        (ORDINARY.to_string(), ordinary),
        (SHELL_A.to_string(), shell(SHELL_A, "ALFA COMERCIO DE SUPRIMENTOS LTDA", "100")),
        (SHELL_B.to_string(), shell(SHELL_B, "BETA SOLUCOES EM MATERIAIS LTDA", "200")),
    ])
}

#[derive(Clone, Default)]
struct Register {
    records: Arc<HashMap<String, Value>>,
    /// `None`: answers; `Some(503)`: unavailable; `Some(0)`: slower than the timeout.
    fault: Arc<Mutex<Option<u16>>>,
    calls: Arc<Mutex<usize>>,
}

impl Register {
    fn calls(&self) -> usize {
        *self.calls.lock().unwrap()
    }
}

async fn serve(State(r): State<Register>, uri: Uri) -> Response {
    *r.calls.lock().unwrap() += 1;
    let fault = *r.fault.lock().unwrap();
    match fault {
        Some(0) => tokio::time::sleep(Duration::from_secs(5)).await,
        Some(code) => return StatusCode::from_u16(code).unwrap().into_response(),
        None => {}
    }
    match r.records.get(uri.path().trim_start_matches('/')) {
        Some(v) => axum::Json(v.clone()).into_response(),
        None => (StatusCode::NOT_FOUND, axum::Json(json!({"message": "CNPJ não encontrado"}))).into_response(),
    }
}

async fn register(fault: Option<u16>) -> (String, Register) {
    let reg = Register { records: Arc::new(records()), fault: Arc::new(Mutex::new(fault)), ..Register::default() };
    let app = Router::new().fallback(get(serve)).with_state(reg.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}"), reg)
}

/// The Portal stand-in with 120 demo contracts of organ 36000, three of them won (for the
/// largest sums) by the planted suppliers on 2024-03-15.
async fn portal() -> String {
    portal_with(Vec::new()).await
}

/// [`portal`] with `servants` in `/servidores` and the organ lists that link SIAFI organ
/// 36000 to SIAPE organ 36001.
async fn portal_with(servants: Vec<Value>) -> String {
    let data =
        generate(&DemoSpec { seed: 5, contracts: 120, organ_codes: vec!["36000".into()], ..DemoSpec::default() });
    let mut contracts = data.dataset.contracts;
    for (c, doc) in contracts.iter_mut().zip([ORDINARY, SHELL_A, SHELL_B]) {
        c.supplier.document = doc.into();
        c.signed_on = NaiveDate::from_ymd_opt(2024, 3, 15);
        c.initial_value = 90_000_000.0;
        c.final_value = 0.0;
    }
    let organ = |code: &str, name: &str| json!({"codigo": code, "descricao": name});
    let records = Records {
        contracts: contracts.iter().map(contract_to_upstream).collect(),
        siafi: vec![organ("36000", "Ministério da Saúde")],
        siape: vec![organ("36001", "MINISTÉRIO DA SAÚDE")],
        servants,
        ..Records::default()
    };
    stand_in(records).await.0
}

async fn app(portal: String, register: Option<String>) -> TestApp {
    spawn_app_with(|c| {
        c.upstream.api_url = portal;
        c.upstream.api_key = Some(KEY.to_string().into());
        c.upstream.requests_per_minute = 600_000;
        c.upstream.request_budget = 20_000;
        c.upstream.timeout_secs = 1.0;
        c.upstream.retries = 1;
        c.registry.base_url = register;
        c.registry.requests_per_minute = 600_000;
        c.registry.max_suppliers = 10;
    })
    .await
}

async fn investigate(app: &TestApp) -> Value {
    let id = app
        .start(json!({"query": "fornecedores fantasmas do Ministério da Saúde em 2024", "data_source": "portal_transparencia"}))
        .await;
    let s = app.wait_done(&id).await;
    assert_eq!((s["status"].as_str(), s["metadata"]["data_status"].as_str()), (Some("completed"), Some("completed")));
    app.get_signed(&format!("/api/v1/investigations/{id}/results")).await.json().await.unwrap()
}

fn notes(v: &Value) -> Vec<String> {
    v["metadata"]["data_notes"].as_array().unwrap().iter().map(|n| n.as_str().unwrap().to_string()).collect()
}

#[tokio::test]
async fn suppliers_facts_come_from_the_register_reach_the_phantom_rule_and_are_read_once() {
    let (url, reg) = register(None).await;
    let app = app(portal().await, Some(url)).await;
    let v = investigate(&app).await;
    assert_eq!(v["metadata"]["source"], "portal_transparencia_api");
    let n = notes(&v);
    let note = n.iter().find(|n| n.starts_with("company register:")).unwrap_or_else(|| panic!("{n:?}"));
    assert!(
        note.contains("10 suppliers looked up (10 read") && note.contains("3 found, 7 not in the register"),
        "{note}"
    );
    assert!(note.contains("0 failed") && !note.contains(" 0 skipped"), "{note}");
    assert_eq!(reg.calls(), 10);
    let phantom: Vec<&Value> = v["anomalies"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["technical_details"]["detector"] == "phantom_suppliers")
        .collect();
    let text = serde_json::to_string(&phantom).unwrap();
    assert!(text.contains("ALFA COMERCIO") && text.contains("BETA SOLUCOES"), "{text}");
    assert!(!text.contains("PLANALTO"), "a company with partners and years of activity is no phantom: {text}");
    // Found and not found are both kept: the second investigation reads nothing.
    let again = investigate(&app).await;
    assert_eq!(reg.calls(), 10, "answers are kept in sled");
    let h: Value = app.get("/health/detailed").await.json().await.unwrap();
    let r = &h["components"]["upstream"]["registry"];
    assert_eq!((r["configured"].as_bool(), r["answers_kept"].as_u64()), (Some(true), Some(10)), "{h}");
    assert_eq!(
        (r["source"]["name"].as_str(), r["source"]["status"].as_str()),
        (Some("company_register"), Some("healthy")),
        "{r}"
    );
    assert!(notes(&again).iter().any(|n| n.contains("10 suppliers looked up (0 read from the register")));
}

/// A servant of the Ministry of Health who is, by the register, a partner (same six visible
/// CPF digits, same name) of a supplier the ministry pays: the relationship rule names both.
#[tokio::test]
async fn a_servant_who_is_a_partner_of_a_supplier_of_her_own_organ_is_found_through_the_register() {
    let servant = |id: &str, cpf: &str, name: &str| {
        servant_to_upstream(&Servant {
            id: id.into(),
            cpf: cpf.into(),
            name: name.into(),
            organ: Organ { code: "36001".into(), acronym: "MS".into(), name: "MINISTERIO DA SAUDE".into() },
            exercise_organ: "36001".into(),
            situation: "ATIVO PERMANENTE".into(),
            kind: "Civil".into(),
            role: "ANALISTA".into(),
        })
    };
    let servants = vec![
        servant("9100001", "***.456.789-**", "Maria Aparecida Souza"),
        // Same name, other digits: a namesake, not the partner.
        servant("9100002", "***.999.888-**", "JOSE CARLOS SOUZA"),
    ];
    let (url, _reg) = register(None).await;
    let app = app(portal_with(servants).await, Some(url)).await;
    crate::upstream::organ_codes_read(&app).await;
    let id = app
        .start(json!({"query": "contratos do Ministério da Saúde em 2024", "data_source": "portal_transparencia",
            "filters": {"organizations": ["36000"]}}))
        .await;
    let s = app.wait_done(&id).await;
    assert_eq!(s["status"], "completed", "{s}");
    let v: Value = app.get_signed(&format!("/api/v1/investigations/{id}/results")).await.json().await.unwrap();
    let links: Vec<&Value> = v["anomalies"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["technical_details"]["detector"] == "relationship_network")
        .filter(|a| a.to_string().to_uppercase().contains("SOUZA"))
        .collect();
    let text = serde_json::to_string(&links).unwrap().to_uppercase();
    assert!(text.contains("MARIA APARECIDA SOUZA") && text.contains("PLANALTO"), "{:?}", notes(&v));
    assert!(!text.contains("9100002"), "a namesake with other CPF digits is not the partner: {text}");
}

#[tokio::test]
async fn a_failing_or_slow_register_is_a_note_and_the_investigation_completes_on_portal_data() {
    for (fault, says) in [(503, "503"), (0, "did not answer")] {
        let (url, reg) = register(Some(fault)).await;
        let app = app(portal().await, Some(url)).await;
        let v = investigate(&app).await;
        assert_eq!(
            (v["metadata"]["source"].as_str(), v["metadata"]["demo_mode"].as_bool()),
            (Some("portal_transparencia_api"), Some(false))
        );
        let n = notes(&v);
        let failed = n
            .iter()
            .find(|n| n.starts_with("company register failed for 10 suppliers"))
            .unwrap_or_else(|| panic!("{n:?}"));
        assert!(failed.contains(says), "{failed}");
        assert!(reg.calls() <= 8 * 2, "one failure stops the lookups: {}", reg.calls());
    }
}

#[tokio::test]
async fn without_a_register_url_nothing_is_read_and_no_register_note_appears() {
    let (_, reg) = register(None).await;
    let app = app(portal().await, None).await;
    let v = investigate(&app).await;
    assert_eq!(reg.calls(), 0);
    assert!(!notes(&v).iter().any(|n| n.contains("company register")), "{v}");
}
