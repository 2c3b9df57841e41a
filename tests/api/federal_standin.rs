//! One local server standing in for every federal source and the Portal da Transparência at
//! once, serving their real shapes: IBGE aggregates (population as strings per year) and
//! localidades (built from ../shared/real/ibge/cidades.json), PNCP's real contracts page
//! (../shared/real/pncp), CNES establishments, INEP's CKAN catalogue, and the Portal's bare
//! arrays of 15 (demo records written in the upstream DTO shape). Every request is recorded
//! (path, query, the key header); a switch turns every answer into a fault.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::{Json, Router};
use serde_json::{Value, json};
use vigia::config::Config;
use vigia_agents::agents::lampiao::ibge::tables;
use vigia_agents::demo::{DemoSpec, generate};
use vigia_agents::model::agreement::agreement_to_upstream;
use vigia_agents::model::expense::expense_to_upstream;
use vigia_agents::model::upstream::contract_to_upstream;

pub const KEY: &str = "federal-test-key-91c4e2";

/// What every answer is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Fault {
    None,
    Unavailable,
    TooMany,
    Forbidden,
    Slow,
    Malformed,
    BadRequest,
}

/// One request seen.
#[derive(Debug, Clone)]
pub struct Seen {
    pub path: String,
    pub query: HashMap<String, String>,
    pub key: Option<String>,
}

#[derive(Clone)]
pub struct StandIn {
    pub url: String,
    pub fault: Arc<Mutex<Fault>>,
    pub seen: Arc<Mutex<Vec<Seen>>>,
    portal: Arc<HashMap<&'static str, Vec<Value>>>,
}

impl StandIn {
    pub fn set(&self, f: Fault) {
        *self.fault.lock().unwrap() = f;
    }
    pub fn requests(&self, path_start: &str) -> Vec<Seen> {
        self.seen.lock().unwrap().iter().filter(|s| s.path.starts_with(path_start)).cloned().collect()
    }
    /// Points every source of `c` at this server, with the key, short timeouts and one retry.
    pub fn configure(&self, c: &mut Config) {
        c.upstream.api_url = self.url.clone();
        c.upstream.api_key = Some(KEY.to_string().into());
        c.upstream.timeout_secs = 2.0;
        c.upstream.retries = 1;
        c.upstream.requests_per_minute = 60_000;
        c.federal.requests_per_minute = 60_000;
        c.federal.ibge_url = self.url.clone();
        c.federal.pncp_url = self.url.clone();
        c.federal.datasus_url = self.url.clone();
        c.federal.inep_url = self.url.clone();
    }
}

/// Population served: the offline table's state figure plus 1,000 (so a test can tell which
/// answered), and 10,000 per municipality plus its code's last three digits.
pub fn served_state_population(uf: &str) -> u64 {
    tables().state(uf).and_then(|s| s.population).unwrap_or(0) + 1_000
}

fn aggregates(q: &HashMap<String, String>) -> Value {
    let t = tables();
    let loc = q.get("localidades").cloned().unwrap_or_default();
    let serie = |id: String, nome: String, v: u64| json!({"localidade": {"id": id, "nivel": {"id": "N"}, "nome": nome}, "serie": {"2021": "1", "2024": v.to_string()}});
    let series: Vec<Value> = if loc == "N3[all]" {
        t.states
            .iter()
            .map(|s| serie(t.uf_code(s.uf).unwrap().to_string(), s.name.into(), served_state_population(s.uf)))
            .collect()
    } else {
        let wanted = |code: u32| match loc.as_str() {
            "N6[all]" => true,
            l if l.starts_with("N6[N3[") => l[6..8].parse::<u32>().ok() == Some(code / 100_000),
            l => l.get(3..10).and_then(|c| c.parse::<u32>().ok()) == Some(code),
        };
        t.municipalities
            .iter()
            .filter(|m| wanted(m.code))
            .map(|m| serie(m.code.to_string(), format!("{} - {}", m.name, m.uf), 10_000 + (m.code % 1000) as u64))
            .collect()
    };
    json!([{"id": "9324", "variavel": "População residente estimada", "unidade": "Pessoas",
        "resultados": [{"classificacoes": [], "series": series}]}])
}

/// The literacy rate served: 80 plus the state code's remainder by 19, plus a quarter.
pub fn served_literacy(uf_code: u32) -> f64 {
    80.0 + (uf_code % 19) as f64 + 0.25
}

fn literacy() -> Value {
    let t = tables();
    let series: Vec<Value> = t
        .states
        .iter()
        .map(|s| {
            let code = t.uf_code(s.uf).unwrap();
            json!({"localidade": {"id": code.to_string(), "nivel": {"id": "N3"}, "nome": s.name},
                "serie": {"2022": served_literacy(code).to_string()}})
        })
        .collect();
    json!([{"id": "2513", "variavel": "Taxa de alfabetização das pessoas de 15 anos ou mais de idade", "unidade": "%",
        "resultados": [{"classificacoes": [], "series": series}]}])
}

fn localidades(uf: &str) -> Value {
    static ALL: std::sync::OnceLock<Vec<Value>> = std::sync::OnceLock::new();
    let all = ALL.get_or_init(|| {
        serde_json::from_str(&std::fs::read_to_string("../shared/real/ibge/cidades.json").unwrap()).unwrap()
    });
    let rows: Vec<Value> = all
        .iter()
        .filter(|c| c["uf"] == uf)
        .map(|c| {
            let uf_obj = json!({"sigla": c["uf"], "nome": c["estado"], "regiao": {"sigla": c["reg"], "nome": c["regiao"]}});
            json!({"id": c["id"], "nome": c["nome"],
                "microrregiao": {"id": c["microrregiao"]["id"], "nome": c["microrregiao"]["nome"],
                    "mesorregiao": {"id": c["microrregiao"]["mesorregiao"]["id"], "nome": c["microrregiao"]["mesorregiao"]["nome"], "UF": uf_obj}}})
        })
        .collect();
    Value::Array(rows)
}

async fn answer(
    State(s): State<StandIn>,
    uri: Uri,
    headers: HeaderMap,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let path = uri.path().to_string();
    let key = headers.get("chave-api-dados").and_then(|v| v.to_str().ok()).map(str::to_string);
    s.seen.lock().unwrap().push(Seen { path: path.clone(), query: query.clone(), key });
    let fault = *s.fault.lock().unwrap();
    match fault {
        Fault::Unavailable => return (StatusCode::SERVICE_UNAVAILABLE, "unavailable").into_response(),
        Fault::TooMany => return (StatusCode::TOO_MANY_REQUESTS, [("retry-after", "30")], "slow down").into_response(),
        Fault::Forbidden => return (StatusCode::FORBIDDEN, "forbidden").into_response(),
        Fault::Slow => tokio::time::sleep(Duration::from_secs(5)).await,
        Fault::Malformed => return ([("content-type", "application/json")], "{\"data\": [").into_response(),
        Fault::BadRequest => {
            return (StatusCode::BAD_REQUEST, Json(json!({"Erro na API": "Filtros mínimos: Página; Órgão"})))
                .into_response();
        }
        Fault::None => {}
    }
    let page: usize = query.get("pagina").and_then(|p| p.parse().ok()).unwrap_or(1);
    let portal = |k: &str| {
        let rows: Vec<Value> = s.portal[k].iter().skip((page - 1) * 15).take(15).cloned().collect();
        Json(rows).into_response()
    };
    match path.as_str() {
        p if p.starts_with("/api/v3/agregados/6579/periodos/") => Json(aggregates(&query)).into_response(),
        "/api/v3/agregados/9543/periodos/2022/variaveis/2513" => Json(literacy()).into_response(),
        p if p.starts_with("/api/v1/localidades/estados/") => {
            Json(localidades(p.trim_start_matches("/api/v1/localidades/estados/").trim_end_matches("/municipios"))).into_response()
        }
        "/v1/contratos" if query.get("dataInicial").map(String::as_str) == Some("20200101") => StatusCode::NO_CONTENT.into_response(),
        "/v1/contratos" => {
            let text = std::fs::read_to_string("../shared/real/pncp/devtulio-motor-pncp_tests_fixtures_contratos.json").unwrap();
            ([("content-type", "application/json")], text).into_response()
        }
        "/cnes/estabelecimentos" => Json(json!({"estabelecimentos": [
            {"codigo_cnes": 2127989, "nome_razao_social": "MUNICIPIO DE BELO HORIZONTE", "nome_fantasia": "CENTRO DE SAUDE SANTA ROSA",
             "codigo_uf": 31, "codigo_municipio": 310620, "codigo_tipo_unidade": 2},
            {"codigo_cnes": 27049, "nome_razao_social": "HOSPITAL DAS CLINICAS", "nome_fantasia": "HOSPITAL DAS CLINICAS DA UFMG",
             "codigo_uf": 31, "codigo_municipio": 310620, "codigo_tipo_unidade": 5}
        ]}))
        .into_response(),
        "/api/3/action/package_search" => Json(json!({"help": "", "success": true, "result": {"count": 12, "results": [
            {"name": "microdados-do-censo-escolar", "title": "Microdados do Censo Escolar da Educação Básica",
             "notes": "Microdados do Censo Escolar", "metadata_modified": "2024-05-10T12:00:00",
             "resources": [{"name": "Microdados 2023", "format": "ZIP", "url": "https://download.inep.gov.br/dados_abertos/microdados_censo_escolar_2023.zip"}]}
        ]}}))
        .into_response(),
        "/contratos" => portal("contratos"),
        "/despesas/documentos" => portal("despesas"),
        "/convenios" => portal("convenios"),
        // The Portal's other lists (aditivos, licitações, sanctions ...): nothing.
        _ => Json(json!([])).into_response(),
    }
}

/// Starts the stand-in on an ephemeral port.
pub async fn stand_in() -> StandIn {
    let data =
        generate(&DemoSpec { seed: 9, contracts: 300, organ_codes: vec!["36000".into()], year: Some(2024) }).dataset;
    let mut portal = HashMap::new();
    portal.insert("contratos", data.contracts.iter().map(contract_to_upstream).collect());
    portal.insert("despesas", data.expenses.iter().map(expense_to_upstream).collect());
    portal.insert("convenios", data.agreements.iter().map(agreement_to_upstream).collect());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let s = StandIn {
        url: format!("http://{}", listener.local_addr().unwrap()),
        fault: Arc::new(Mutex::new(Fault::None)),
        seen: Arc::default(),
        portal: Arc::new(portal),
    };
    let app = Router::new().fallback(answer).with_state(s.clone());
    tokio::spawn(async move { axum::serve(listener, app).await });
    s
}

/// A GET on the app: status and JSON body.
pub async fn get_json(app: &crate::helpers::TestApp, path: &str) -> (u16, Value) {
    let r = app.get(path).await;
    let status = r.status().as_u16();
    (status, r.json().await.unwrap())
}

/// Every fault class with the `upstream_error` it must be reported as.
pub const FAULTS: [(Fault, &str); 5] = [
    (Fault::Unavailable, "server_error"),
    (Fault::TooMany, "rate_limited"),
    (Fault::Forbidden, "blocked"),
    (Fault::Slow, "timeout"),
    (Fault::Malformed, "malformed"),
];

/// Each `(path, field)` answers 400 `VALIDATION_ERROR` naming `field`, and nothing reaches the
/// stand-in.
pub async fn assert_refused(s: &StandIn, app: &crate::helpers::TestApp, cases: &[(&str, &str)]) {
    for (path, field) in cases {
        let (status, body) = get_json(app, path).await;
        assert_eq!(status, 400, "{path}: {body}");
        assert_eq!(body["error"]["code"], "VALIDATION_ERROR", "{path}");
        assert_eq!(body["error"]["details"]["field"], *field, "{path}");
    }
    // The provider's scheduled refreshes read the sanctions and organ lists on their own.
    let scheduled = ["/ceis", "/cnep", "/orgaos-siafi", "/orgaos-siape"];
    let sent: Vec<String> =
        s.seen.lock().unwrap().iter().map(|r| r.path.clone()).filter(|p| !scheduled.contains(&p.as_str())).collect();
    assert!(sent.is_empty(), "nothing reached the upstream: {sent:?}");
}

/// `path` under the current fault: a 200 with `completed_fallback` naming `class`, without the
/// key anywhere, within the timeout budget (two attempts of at most 2 s, a 429's wait given up
/// when longer than the timeout). The body.
pub async fn assert_fallback(app: &crate::helpers::TestApp, path: &str, class: &str) -> Value {
    let started = std::time::Instant::now();
    let r = app.get(path).await;
    assert_eq!(r.status(), 200, "{class} {path}");
    let text = r.text().await.unwrap();
    assert!(!text.contains(KEY), "{class} {path}: the key leaked");
    let body: Value = serde_json::from_str(&text).unwrap();
    let meta = &body["meta"];
    assert_eq!(meta["data_status"], "completed_fallback", "{class} {path}: {body}");
    assert_eq!((meta["upstream_error"].as_str(), meta["demo_mode"].as_bool()), (Some(class), Some(true)), "{path}");
    assert!(meta["warning"].as_str().unwrap().contains(class));
    assert!(started.elapsed() < Duration::from_secs(6), "{class} {path}: {:?}", started.elapsed());
    body
}
