//! Direct agent routes: one agent over an organ and period, every agent's status, the engine
//! over records in the body and aggregations of an organ's contracts. Open to anonymous
//! callers (rate limits apply), like investigations.

use std::collections::HashMap;

use axum::extract::{Path, Query, State};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::AppState;
use super::auth_extract::MaybeAuthUser;
use super::error::ApiError;
use super::extract::ApiJson;
use super::openapi::ApiRouter;
use crate::domain::InvestigationRequest;
use crate::error::Error;
use crate::service::agent_request::AgentRequest;
use crate::service::agents::{AgentAnswer, AgentState, DetectAnswer};
use crate::service::orchestration::Orchestrated;
use axum::Json;
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::routes;

type ApiResult = Result<Response, ApiError>;

/// The routes.
pub fn router() -> ApiRouter {
    ApiRouter::new()
        .routes(routes!(status))
        .routes(routes!(investigate))
        .routes(routes!(orchestrate))
        .routes(routes!(multi_agent_query))
        .routes(routes!(detect))
        .routes(routes!(analyze_contracts))
}

#[utoipa::path(post, path = "/api/v1/agents/{agent_name}/investigate", tag = "agents", params(("agent_name" = String, Path, description = "Agent id or alias, e.g. zumbi")), request_body = AgentRequest, security((), ("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "The agent's answer over the data the body names", body = AgentAnswer),
        (status = 400, description = "VALIDATION_ERROR, INVALID_DATA_SOURCE"),
        (status = 404, description = "AGENT_NOT_FOUND"),
        (status = 422, description = "INSUFFICIENT_DATA"),
        (status = 503, description = "AGENT_UNAVAILABLE, SERVICE_UNAVAILABLE"),
    ))]
async fn investigate(
    State(st): State<AppState>,
    Path(agent_name): Path<String>,
    MaybeAuthUser(who): MaybeAuthUser,
    ApiJson(req): ApiJson<AgentRequest>,
) -> ApiResult {
    let answer = st.services.agents.investigate(&agent_name, &req, who.as_ref()).await?;
    Ok(Json(answer).into_response())
}

/// A plan built around the named agent, run over the data the body names.
#[utoipa::path(post, path = "/api/v1/agents/{agent_name}/orchestrate", tag = "agents", params(("agent_name" = String, Path, description = "Agent id or alias, e.g. zumbi")), request_body = AgentRequest, 
    responses(
        (status = 200, description = "A plan around the agent, run", body = Orchestrated),
        (status = 400, description = "VALIDATION_ERROR, INVALID_DATA_SOURCE"),
        (status = 404, description = "AGENT_NOT_FOUND"),
        (status = 422, description = "INSUFFICIENT_DATA"),
        (status = 503, description = "AGENT_UNAVAILABLE, SERVICE_UNAVAILABLE"),
    ))]
async fn orchestrate(
    State(st): State<AppState>,
    Path(agent_name): Path<String>,
    ApiJson(req): ApiJson<AgentRequest>,
) -> ApiResult {
    Ok(Json(st.services.agents.orchestrate(&agent_name, &req).await?).into_response())
}

/// `{query, orgao?, ano?, ...}`: abaporu plans, the agents run, drummond answers.
#[utoipa::path(post, path = "/api/v1/multi-agent/query", tag = "agents", request_body = AgentRequest, 
    responses(
        (status = 200, description = "abaporu's plan, the agents' findings and drummond's answer", body = Orchestrated),
        (status = 400, description = "VALIDATION_ERROR, INVALID_DATA_SOURCE"),
        (status = 422, description = "INSUFFICIENT_DATA"),
        (status = 503, description = "AGENT_UNAVAILABLE, SERVICE_UNAVAILABLE"),
    ))]
async fn multi_agent_query(State(st): State<AppState>, ApiJson(req): ApiJson<AgentRequest>) -> ApiResult {
    if req.query.as_deref().is_none_or(|q| q.trim().is_empty()) {
        return Err(Error::validation("query", "the question to answer").into());
    }
    Ok(Json(st.services.agents.orchestrate("abaporu", &req).await?).into_response())
}

#[utoipa::path(get, path = "/api/v1/agents/status", tag = "agents",  
    responses(
        (status = 200, description = "Every agent: implemented, loaded, statistics", body = AgentsStatus),
    ))]
async fn status(State(st): State<AppState>) -> ApiResult {
    let agents = st.services.agents.status().await?;
    let loaded = agents.iter().filter(|a| a.loaded).count();
    let implemented = agents.iter().filter(|a| a.implemented).count();
    Ok(Json(AgentsStatus { total: agents.len(), implemented, loaded, agents }).into_response())
}

/// Every agent's state.
#[derive(Debug, Serialize, ToSchema)]
pub struct AgentsStatus {
    /// Agents.
    pub total: usize,
    /// Agents whose analysis exists.
    pub implemented: usize,
    /// Agents loaded now.
    pub loaded: usize,
    /// Each agent: id, name, role, implemented, loaded, in flight, memory, calls, failures, latency.
    pub agents: Vec<AgentState>,
}

/// The body of `/api/v1/anomalies/detect` as the document shows it. The handler reads the body
/// as JSON and takes these fields from it, because the records may also come alone.
#[derive(ToSchema)]
#[allow(dead_code)] // documents the body; `detect` reads it field by field
struct DetectRequest {
    /// The records (also `registros`): the portal's records of any kind the engine reads
    /// (contracts, expenses, agreements, ...), each recognised by its fields; or an object
    /// keyed by kind (`{contratos: [...], despesas: [...]}`).
    records: Vec<serde_json::Map<String, Value>>,
    /// 0 to 1: higher flags more.
    sensitivity: Option<f64>,
    /// Findings below this confidence are left out.
    confidence_threshold: Option<f64>,
    /// Only these types.
    anomaly_types: Option<Vec<vigia_agents::AnomalyType>>,
}

/// `{records: [...], sensitivity?, anomaly_types?}`, or the records alone (an array, or an
/// upstream page).
#[utoipa::path(post, path = "/api/v1/anomalies/detect", tag = "agents", request_body(content = DetectRequest, description = "`{records: [...], sensitivity?, confidence_threshold?, anomaly_types?}`, or the records alone (an array, or an upstream page)"),
    responses(
        (status = 200, description = "Anomalies found in the records", body = DetectAnswer),
        (status = 400, description = "VALIDATION_ERROR"),
        (status = 422, description = "INSUFFICIENT_DATA"),
    ))]
async fn detect(State(st): State<AppState>, ApiJson(body): ApiJson<Value>) -> ApiResult {
    let (records, settings) = match body {
        Value::Object(mut map) if map.contains_key("records") || map.contains_key("registros") => {
            let records = map.remove("records").or_else(|| map.remove("registros")).unwrap_or(Value::Null);
            (records, Value::Object(map))
        }
        other => (other, Value::Object(Default::default())),
    };
    let mut req = InvestigationRequest::new("anomalies/detect");
    let read = |k: &str| settings.get(k).cloned();
    req.sensitivity = read("sensitivity").and_then(|v| v.as_f64());
    req.confidence_threshold = read("confidence_threshold").and_then(|v| v.as_f64());
    if let Some(types) = read("anomaly_types") {
        req.anomaly_types = serde_json::from_value(types)
            .map_err(|_| Error::validation("anomaly_types", "a list of anomaly type names"))?;
    }
    req.validate()?;
    let answer = st.services.agents.detect(records, req.detection_params()).await?;
    Ok(Json(answer).into_response())
}

/// `?orgao=36000&ano=2024[&mes=12]`: oscar_niemeyer's aggregations of the organ's contracts.
#[utoipa::path(get, path = "/api/v1/analyze/contracts", tag = "agents", params(("orgao" = String, Query, description = "SIAFI organ code"), ("ano" = i32, Query, description = "Year"), ("mes" = Option<u32>, Query, description = "Month 1-12")), security((), ("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "oscar_niemeyer's aggregations of the organ's contracts", body = AgentAnswer),
        (status = 400, description = "VALIDATION_ERROR, INVALID_DATA_SOURCE"),
        (status = 422, description = "INSUFFICIENT_DATA"),
        (status = 503, description = "AGENT_UNAVAILABLE, SERVICE_UNAVAILABLE"),
    ))]
async fn analyze_contracts(
    State(st): State<AppState>,
    MaybeAuthUser(who): MaybeAuthUser,
    Query(q): Query<HashMap<String, String>>,
) -> ApiResult {
    let req = request_from_query(&q)?;
    let answer = st.services.agents.investigate_as(vigia_agents::AgentId::OscarNiemeyer, &req, who.as_ref()).await?;
    Ok(Json(answer).into_response())
}

/// Reads an [`AgentRequest`] from query parameters, naming the field a bad value is in.
pub(crate) fn request_from_query(q: &HashMap<String, String>) -> Result<AgentRequest, Error> {
    let mut map = serde_json::Map::new();
    for (k, v) in q {
        let value = match k.as_str() {
            "ano" | "year" | "mes" | "month" => {
                json!(v.trim().parse::<i64>().map_err(|_| Error::validation(k, "an integer"))?)
            }
            "min_value" | "max_value" | "valor_minimo" | "valor_maximo" | "sensitivity" => {
                json!(v.trim().parse::<f64>().map_err(|_| Error::validation(k, "a number"))?)
            }
            _ => json!(v),
        };
        map.insert(k.clone(), value);
    }
    serde_json::from_value(Value::Object(map)).map_err(|e| Error::validation("query", e.to_string()))
}
