//! `GET /api/v1/transparency/{contracts, expenses, agreements}`: one page of the Portal da
//! Transparência's records (`{data, meta}`), filters in the query. Open to anonymous callers
//! (rate limits apply), like the other data routes.

use std::collections::HashMap;

use axum::Json;
use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};
use utoipa_axum::routes;

use super::AppState;
use super::error::ApiError;
use super::openapi::ApiRouter;
use crate::service::federal::Query as Params;
use crate::service::transparency::Records;

/// The routes.
pub fn router() -> ApiRouter {
    ApiRouter::new().routes(routes!(contracts)).routes(routes!(expenses)).routes(routes!(agreements))
}

async fn page(st: AppState, kind: Records, q: HashMap<String, String>) -> Result<Response, ApiError> {
    Ok(Json(st.services.transparency.page(kind, &Params(q)).await?).into_response())
}

/// `codigo_orgao` (required), `ano`, `mes`, `valor_inicial`, `pagina`.
#[utoipa::path(get, path = "/api/v1/transparency/contracts", tag = "transparency", params(("codigo_orgao" = String, Query, description = "SIAFI organ code"), ("ano" = Option<String>, Query, description = "Year"), ("mes" = Option<String>, Query, description = "Month 1-12"), ("valor_inicial" = Option<String>, Query, description = "Minimum value, applied here (the portal has none)"), ("pagina" = Option<String>, Query, description = "Page (15 rows)")), responses((status = 200, description = "`{data, meta}`: the records and where they came from (source, demo_mode, data_status, warning)", body = crate::http::views::data::DataAnswer), (status = 400, description = "VALIDATION_ERROR"), (status = 429, description = "RATE_LIMIT_EXCEEDED")))]
async fn contracts(State(st): State<AppState>, Query(q): Query<HashMap<String, String>>) -> Result<Response, ApiError> {
    page(st, Records::Contracts, q).await
}

/// `data` and `fase` (required), `unidade_gestora` or `gestao` (one required), `valor_inicial`, `pagina`.
#[utoipa::path(get, path = "/api/v1/transparency/expenses", tag = "transparency", params(("data" = String, Query, description = "Day (DD/MM/AAAA or ISO)"), ("fase" = String, Query, description = "1 empenho, 2 liquidação, 3 pagamento"), ("unidade_gestora" = Option<String>, Query, description = "Managing unit (or gestao)"), ("gestao" = Option<String>, Query, description = "Gestão (or unidade_gestora)"), ("valor_inicial" = Option<String>, Query, description = "Minimum value, applied here (the portal has none)"), ("pagina" = Option<String>, Query, description = "Page (15 rows)")), responses((status = 200, description = "`{data, meta}`: the records and where they came from (source, demo_mode, data_status, warning)", body = crate::http::views::data::DataAnswer), (status = 400, description = "VALIDATION_ERROR"), (status = 429, description = "RATE_LIMIT_EXCEEDED")))]
async fn expenses(State(st): State<AppState>, Query(q): Query<HashMap<String, String>>) -> Result<Response, ApiError> {
    page(st, Records::Expenses, q).await
}

/// One of `uf`, `codigo_ibge`, `codigo_orgao`, `numero` (required); `ano`, `mes`, `convenente`,
/// `situacao`, `valor_inicial`, `pagina`.
#[utoipa::path(get, path = "/api/v1/transparency/agreements", tag = "transparency", params(("uf" = Option<String>, Query, description = "State (one of uf, codigo_ibge, codigo_orgao, numero)"), ("codigo_ibge" = Option<String>, Query, description = "IBGE municipality code"), ("codigo_orgao" = Option<String>, Query, description = "SIAFI organ code"), ("numero" = Option<String>, Query, description = "Agreement number"), ("ano" = Option<String>, Query, description = "Year"), ("mes" = Option<String>, Query, description = "Month 1-12"), ("convenente" = Option<String>, Query, description = "Grantee"), ("situacao" = Option<String>, Query, description = "Situation"), ("valor_inicial" = Option<String>, Query, description = "Minimum value, applied here (the portal has none)"), ("pagina" = Option<String>, Query, description = "Page (15 rows)")), responses((status = 200, description = "`{data, meta}`: the records and where they came from (source, demo_mode, data_status, warning)", body = crate::http::views::data::DataAnswer), (status = 400, description = "VALIDATION_ERROR"), (status = 429, description = "RATE_LIMIT_EXCEEDED")))]
async fn agreements(
    State(st): State<AppState>,
    Query(q): Query<HashMap<String, String>>,
) -> Result<Response, ApiError> {
    page(st, Records::Agreements, q).await
}
