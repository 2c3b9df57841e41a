//! A local stand-in for the Portal da Transparência: every endpoint the client reads, serving
//! records in the upstream's shapes (bare arrays, 15 rows a page, the portal's required
//! filters answered with its 400), checking `chave-api-dados`, and switchable to the faults
//! the client must survive: 503, 429 with `Retry-After`, 403, slow beyond the timeout, and a
//! body that is not JSON.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use chrono::NaiveDate;
use serde_json::{Value, json};
use vigia_agents::model::upstream::parse_date;

pub const KEY: &str = "stand-in-key-5d2e91";
const PAGE: usize = 15;

/// Records by endpoint.
#[derive(Default)]
pub struct Records {
    pub contracts: Vec<Value>,
    /// `/contratos/termo-aditivo` rows by contract id.
    pub amendments: HashMap<String, Vec<Value>>,
    pub biddings: Vec<Value>,
    pub agreements: Vec<Value>,
    pub expenses: Vec<Value>,
    pub ceis: Vec<Value>,
    pub cnep: Vec<Value>,
    /// `/servidores` rows (CadastroServidorDTO), filtered by `orgaoServidorLotacao`.
    pub servants: Vec<Value>,
    /// `/orgaos-siafi` and `/orgaos-siape` rows (`{codigo, descricao}`).
    pub siafi: Vec<Value>,
    pub siape: Vec<Value>,
    /// Paths that answer 403 (not allowed for this key) while the rest answer.
    pub forbidden: Vec<&'static str>,
}

/// What every request gets.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Fault {
    None,
    Unavailable,
    RateLimited { retry_after: u64 },
    Forbidden,
    Slow(Duration),
    Malformed,
}

#[derive(Clone)]
pub struct Stand {
    pub records: Arc<Records>,
    pub fault: Arc<Mutex<Fault>>,
    /// Every request: path, query, and the key header it carried.
    pub seen: Arc<Mutex<Vec<(String, String, String)>>>,
}

impl Stand {
    pub fn set(&self, fault: Fault) {
        *self.fault.lock().unwrap() = fault;
    }
    pub fn requests_to(&self, path: &str) -> usize {
        self.seen.lock().unwrap().iter().filter(|(p, _, _)| p == path).count()
    }
}

/// Starts the stand-in; its base URL.
pub async fn stand_in(records: Records) -> (String, Stand) {
    let stand = Stand { records: Arc::new(records), fault: Arc::new(Mutex::new(Fault::None)), seen: Arc::default() };
    let app = Router::new().fallback(get(serve)).with_state(stand.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}"), stand)
}

fn bad(message: &str) -> Response {
    (StatusCode::BAD_REQUEST, axum::Json(json!({"Erro na API": message}))).into_response()
}

fn dmy(q: &HashMap<String, String>, k: &str) -> Option<NaiveDate> {
    q.get(k).and_then(|v| NaiveDate::parse_from_str(v, "%d/%m/%Y").ok())
}

fn text<'a>(v: &'a Value, path: &str) -> &'a str {
    path.split('.').fold(v, |v, k| &v[k]).as_str().unwrap_or("")
}

/// Whether a record of `organ` (its top organ or its own).
pub fn of_organ(v: &Value, organ: &str) -> bool {
    let unit = if v["unidadeGestora"].is_object() { &v["unidadeGestora"] } else { v };
    text(unit, "orgaoMaximo.codigo") == organ
        || text(unit, "orgaoVinculado.codigoSIAFI") == organ
        || text(v, "orgao.codigoSIAFI") == organ
}

/// Whether the record's date `field` lies in the query's period (undated records pass).
pub fn in_period(v: &Value, field: &str, from: Option<NaiveDate>, to: Option<NaiveDate>) -> bool {
    match v.get(field).and_then(Value::as_str).and_then(|d| parse_date(d).ok().flatten()) {
        Some(d) => from.is_none_or(|f| d >= f) && to.is_none_or(|t| d <= t),
        None => true,
    }
}

fn page(rows: Vec<&Value>, q: &HashMap<String, String>) -> Response {
    let Some(p) = q.get("pagina").and_then(|p| p.parse::<usize>().ok()).filter(|p| *p >= 1) else {
        return bad("Filtros mínimos: Página (padrão = 1)");
    };
    let out: Vec<&Value> = rows.into_iter().skip((p - 1) * PAGE).take(PAGE).collect();
    axum::Json(out).into_response()
}

async fn serve(
    State(s): State<Stand>,
    headers: HeaderMap,
    uri: Uri,
    Query(q): Query<HashMap<String, String>>,
) -> Response {
    let key = headers.get("chave-api-dados").and_then(|v| v.to_str().ok()).unwrap_or("").to_string();
    let path = uri.path().trim_start_matches("/api-de-dados").to_string();
    s.seen.lock().unwrap().push((path.clone(), uri.query().unwrap_or("").to_string(), key.clone()));
    let fault = *s.fault.lock().unwrap();
    match fault {
        Fault::None => {}
        Fault::Unavailable => return (StatusCode::SERVICE_UNAVAILABLE, "unavailable").into_response(),
        Fault::RateLimited { retry_after } => {
            return (StatusCode::TOO_MANY_REQUESTS, [("retry-after", retry_after.to_string())], "").into_response();
        }
        Fault::Forbidden => return StatusCode::FORBIDDEN.into_response(),
        Fault::Slow(d) => tokio::time::sleep(d).await,
        Fault::Malformed => return (StatusCode::OK, "<html><body>Human Verification</body></html>").into_response(),
    }
    if key != KEY {
        return (StatusCode::UNAUTHORIZED, axum::Json(json!({"Erro na API": "Chave de API inválida!"})))
            .into_response();
    }
    let r = &s.records;
    if r.forbidden.contains(&path.as_str()) {
        return StatusCode::FORBIDDEN.into_response();
    }
    let (from, to) = (dmy(&q, "dataInicial"), dmy(&q, "dataFinal"));
    match path.as_str() {
        "/contratos" => {
            let Some(organ) = q.get("codigoOrgao") else { return bad("Filtros mínimos: Página; Código do Órgão") };
            let rows =
                r.contracts.iter().filter(|c| of_organ(c, organ) && in_period(c, "dataAssinatura", from, to)).collect();
            page(rows, &q)
        }
        "/contratos/termo-aditivo" => match q.get("id") {
            Some(id) => axum::Json(r.amendments.get(id).cloned().unwrap_or_default()).into_response(),
            None => bad("Filtros mínimos: id"),
        },
        "/licitacoes" => {
            let (Some(organ), Some(f), Some(t)) = (q.get("codigoOrgao"), from, to) else {
                return bad("Filtros mínimos: Página; Período de no máximo 1 mês; Código do Órgão");
            };
            if (t - f).num_days() > 31 {
                return bad("Filtros mínimos: Página; Período de no máximo 1 mês; Código do Órgão");
            }
            let rows =
                r.biddings.iter().filter(|b| of_organ(b, organ) && in_period(b, "dataAbertura", from, to)).collect();
            page(rows, &q)
        }
        "/licitacoes/participantes" => axum::Json(Vec::<Value>::new()).into_response(),
        "/convenios" => {
            let Some(organ) = q.get("codigoOrgao") else {
                return bad("Filtros mínimos: Página; um dos demais filtros");
            };
            let rows = r.agreements.iter().filter(|a| of_organ(a, organ)).collect();
            page(rows, &q)
        }
        "/despesas/documentos" => {
            let (Some(day), Some(_), Some(ug)) = (dmy(&q, "dataEmissao"), q.get("fase"), q.get("unidadeGestora"))
            else {
                return bad("Filtros mínimos: Página; Respectiva data; Fase, e ao menos um dos demais filtros");
            };
            let rows = r
                .expenses
                .iter()
                .filter(|e| text(e, "codigoUg") == ug && in_period(e, "data", Some(day), Some(day)))
                .collect();
            page(rows, &q)
        }
        "/servidores" => {
            let Some(organ) = q.get("orgaoServidorLotacao") else {
                return bad(
                    "Filtros mínimos: Página (padrão = 1); Código Órgão Lotação (SIAPE) OU Código Órgão Exercício (SIAPE) OU CPF;",
                );
            };
            page(r.servants.iter().filter(|v| text(v, "servidor.orgaoServidorLotacao.codigo") == organ).collect(), &q)
        }
        "/orgaos-siafi" => page(r.siafi.iter().collect(), &q),
        "/orgaos-siape" => page(r.siape.iter().collect(), &q),
        "/ceis" => page(r.ceis.iter().collect(), &q),
        "/cnep" => page(r.cnep.iter().collect(), &q),
        _ => (StatusCode::NOT_FOUND, "not found").into_response(),
    }
}
