//! Direct agent routes: one agent over an organ and period, every agent's status, the engine
//! over records in the body and aggregations of an organ's contracts. Open to anonymous
//! callers (rate limits apply), like investigations.

use std::collections::HashMap;

use axum::extract::{Path, Query, State};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{Value, json};

use super::AppState;
use super::error::ApiError;
use super::extract::ApiJson;
use crate::domain::InvestigationRequest;
use crate::error::Error;
use crate::service::agent_request::AgentRequest;

type ApiResult = Result<Response, ApiError>;

/// The routes.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/agents/status", get(status))
        .route("/api/v1/agents/{agent_name}/investigate", post(investigate))
        .route("/api/v1/anomalies/detect", post(detect))
        .route("/api/v1/analyze/contracts", get(analyze_contracts))
}

async fn investigate(
    State(st): State<AppState>,
    Path(agent_name): Path<String>,
    ApiJson(req): ApiJson<AgentRequest>,
) -> ApiResult {
    let answer = st.services.agents.investigate(&agent_name, &req).await?;
    Ok(Json(answer).into_response())
}

async fn status(State(st): State<AppState>) -> ApiResult {
    let agents = st.services.agents.status().await?;
    let loaded = agents.iter().filter(|a| a.loaded).count();
    let implemented = agents.iter().filter(|a| a.implemented).count();
    Ok(Json(json!({"total": agents.len(), "implemented": implemented, "loaded": loaded, "agents": agents}))
        .into_response())
}

/// `{records: [...], sensitivity?, anomaly_types?}`, or the records alone (an array, or an
/// upstream page).
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
async fn analyze_contracts(State(st): State<AppState>, Query(q): Query<HashMap<String, String>>) -> ApiResult {
    let req = request_from_query(&q)?;
    let answer = st.services.agents.investigate("oscar_niemeyer", &req).await?;
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
