//! `GET /api/v1/transparency/{contracts, expenses, agreements}`: one page of the Portal da
//! Transparência's records (`{data, meta}`), filters in the query. Open to anonymous callers
//! (rate limits apply), like the other data routes.

use std::collections::HashMap;

use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};

use super::AppState;
use super::error::ApiError;
use crate::service::federal::Query as Params;
use crate::service::transparency::Records;

/// The routes.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/transparency/contracts", get(contracts))
        .route("/api/v1/transparency/expenses", get(expenses))
        .route("/api/v1/transparency/agreements", get(agreements))
}

async fn page(st: AppState, kind: Records, q: HashMap<String, String>) -> Result<Response, ApiError> {
    Ok(Json(st.services.transparency.page(kind, &Params(q)).await?).into_response())
}

/// `codigo_orgao` (required), `ano`, `mes`, `valor_inicial`, `pagina`.
async fn contracts(State(st): State<AppState>, Query(q): Query<HashMap<String, String>>) -> Result<Response, ApiError> {
    page(st, Records::Contracts, q).await
}

/// `data` and `fase` (required), `unidade_gestora` or `gestao` (one required), `valor_inicial`, `pagina`.
async fn expenses(State(st): State<AppState>, Query(q): Query<HashMap<String, String>>) -> Result<Response, ApiError> {
    page(st, Records::Expenses, q).await
}

/// One of `uf`, `codigo_ibge`, `codigo_orgao`, `numero` (required); `ano`, `mes`, `convenente`,
/// `situacao`, `valor_inicial`, `pagina`.
async fn agreements(
    State(st): State<AppState>,
    Query(q): Query<HashMap<String, String>>,
) -> Result<Response, ApiError> {
    page(st, Records::Agreements, q).await
}
