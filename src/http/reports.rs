//! `GET /api/v1/reports/generate?investigation_id=...&format=markdown|html|json`: tiradentes'
//! report of a finished investigation the caller may read (Markdown by default).

use std::collections::HashMap;

use axum::extract::{Query, State};
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};

use super::AppState;
use super::auth_extract::MaybeAuthUser;
use super::error::ApiError;
use crate::error::Error;

/// The route.
pub fn router() -> Router<AppState> {
    Router::new().route("/api/v1/reports/generate", get(generate))
}

async fn generate(
    State(st): State<AppState>,
    MaybeAuthUser(who): MaybeAuthUser,
    Query(q): Query<HashMap<String, String>>,
) -> Result<Response, ApiError> {
    let id = q.get("investigation_id").ok_or_else(|| Error::validation("investigation_id", "required"))?;
    let report = st.services.reports.investigation(id, who.as_ref())?;
    Ok(match q.get("format").map(String::as_str) {
        None | Some("markdown") | Some("md") => {
            ([(CONTENT_TYPE, "text/markdown; charset=utf-8")], report.markdown).into_response()
        }
        Some("html") => ([(CONTENT_TYPE, "text/html; charset=utf-8")], report.html).into_response(),
        Some("json") => Json(report).into_response(),
        Some(_) => return Err(Error::validation("format", "markdown, html or json").into()),
    })
}
