//! `GET /api/v1/federal/{ibge/demographics, datasus/health-metrics, inep/education-stats,
//! pncp/contracts}`: the public federal sources (`{data, meta}`), filters in the query. Open to
//! anonymous callers (rate limits apply), like the other data routes.

use std::collections::HashMap;

use axum::Json;
use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};
use utoipa_axum::routes;

use super::AppState;
use super::error::ApiError;
use super::openapi::ApiRouter;
use crate::service::federal::Query as Params;

type Q = Query<HashMap<String, String>>;

/// The routes.
pub fn router() -> ApiRouter {
    ApiRouter::new()
        .routes(routes!(demographics))
        .routes(routes!(health_metrics))
        .routes(routes!(education_stats))
        .routes(routes!(pncp_contracts))
}

/// `uf` or `municipio` (7-digit code), `ano`.
#[utoipa::path(get, path = "/api/v1/federal/ibge/demographics", tag = "federal", params(("uf" = Option<String>, Query, description = "State (two letters)"), ("municipio" = Option<String>, Query, description = "7-digit IBGE code"), ("ano" = Option<String>, Query, description = "Year")), responses((status = 200, description = "`{data, meta}`: the records and where they came from (source, demo_mode, data_status, warning)", body = crate::http::views::data::DataAnswer), (status = 400, description = "VALIDATION_ERROR"), (status = 429, description = "RATE_LIMIT_EXCEEDED")))]
async fn demographics(State(st): State<AppState>, Query(q): Q) -> Result<Response, ApiError> {
    Ok(Json(st.services.federal.demographics(&Params(q)).await?).into_response())
}

/// `uf` or `municipio` (one required), `tipo_unidade`, `pagina`.
#[utoipa::path(get, path = "/api/v1/federal/datasus/health-metrics", tag = "federal", params(("uf" = Option<String>, Query, description = "State (or municipio)"), ("municipio" = Option<String>, Query, description = "7-digit IBGE code (or uf)"), ("tipo_unidade" = Option<String>, Query, description = "CNES unit type"), ("pagina" = Option<String>, Query, description = "Page")), responses((status = 200, description = "`{data, meta}`: the records and where they came from (source, demo_mode, data_status, warning)", body = crate::http::views::data::DataAnswer), (status = 400, description = "VALIDATION_ERROR"), (status = 429, description = "RATE_LIMIT_EXCEEDED")))]
async fn health_metrics(State(st): State<AppState>, Query(q): Q) -> Result<Response, ApiError> {
    Ok(Json(st.services.federal.health_metrics(&Params(q)).await?).into_response())
}

/// `tema` (default "censo escolar"), `limite` (1-50).
#[utoipa::path(get, path = "/api/v1/federal/inep/education-stats", tag = "federal", params(("tema" = Option<String>, Query, description = "Theme (default censo escolar)"), ("limite" = Option<String>, Query, description = "1-50")), responses((status = 200, description = "`{data, meta}`: the records and where they came from (source, demo_mode, data_status, warning)", body = crate::http::views::data::DataAnswer), (status = 400, description = "VALIDATION_ERROR"), (status = 429, description = "RATE_LIMIT_EXCEEDED")))]
async fn education_stats(State(st): State<AppState>, Query(q): Q) -> Result<Response, ApiError> {
    Ok(Json(st.services.federal.education_stats(&Params(q)).await?).into_response())
}

/// `data_inicial`, `data_final` (at most 365 days apart; default the last 30 days), `pagina`,
/// `tamanho_pagina` (10-500), `cnpj_orgao`, `codigo_unidade`.
#[utoipa::path(get, path = "/api/v1/federal/pncp/contracts", tag = "federal", params(("data_inicial" = Option<String>, Query, description = "Start (at most 365 days before data_final)"), ("data_final" = Option<String>, Query, description = "End"), ("pagina" = Option<String>, Query, description = "Page"), ("tamanho_pagina" = Option<String>, Query, description = "10-500"), ("cnpj_orgao" = Option<String>, Query, description = "Organ CNPJ"), ("codigo_unidade" = Option<String>, Query, description = "Unit code")), responses((status = 200, description = "`{data, meta}`: the records and where they came from (source, demo_mode, data_status, warning)", body = crate::http::views::data::DataAnswer), (status = 400, description = "VALIDATION_ERROR"), (status = 429, description = "RATE_LIMIT_EXCEEDED")))]
async fn pncp_contracts(State(st): State<AppState>, Query(q): Q) -> Result<Response, ApiError> {
    Ok(Json(st.services.federal.pncp_contracts(&Params(q)).await?).into_response())
}
