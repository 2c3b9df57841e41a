//! `GET /api/v1/federal/{ibge/demographics, datasus/health-metrics, inep/education-stats,
//! pncp/contracts}`: the public federal sources (`{data, meta}`), filters in the query. Open to
//! anonymous callers (rate limits apply), like the other data routes.

use std::collections::HashMap;

use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};

use super::AppState;
use super::error::ApiError;
use crate::service::federal::Query as Params;

type Q = Query<HashMap<String, String>>;

/// The routes.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/federal/ibge/demographics", get(demographics))
        .route("/api/v1/federal/datasus/health-metrics", get(health_metrics))
        .route("/api/v1/federal/inep/education-stats", get(education_stats))
        .route("/api/v1/federal/pncp/contracts", get(pncp_contracts))
}

/// `uf` or `municipio` (7-digit code), `ano`.
async fn demographics(State(st): State<AppState>, Query(q): Q) -> Result<Response, ApiError> {
    Ok(Json(st.services.federal.demographics(&Params(q)).await?).into_response())
}

/// `uf` or `municipio` (one required), `tipo_unidade`, `pagina`.
async fn health_metrics(State(st): State<AppState>, Query(q): Q) -> Result<Response, ApiError> {
    Ok(Json(st.services.federal.health_metrics(&Params(q)).await?).into_response())
}

/// `tema` (default "censo escolar"), `limite` (1-50).
async fn education_stats(State(st): State<AppState>, Query(q): Q) -> Result<Response, ApiError> {
    Ok(Json(st.services.federal.education_stats(&Params(q)).await?).into_response())
}

/// `data_inicial`, `data_final` (at most 365 days apart; default the last 30 days), `pagina`,
/// `tamanho_pagina` (10-500), `cnpj_orgao`, `codigo_unidade`.
async fn pncp_contracts(State(st): State<AppState>, Query(q): Q) -> Result<Response, ApiError> {
    Ok(Json(st.services.federal.pncp_contracts(&Params(q)).await?).into_response())
}
