//! `GET /api/v1/reports/generate?investigation_id=...&format=markdown|html|json`: tiradentes'
//! report of a finished investigation the caller may read (Markdown by default).

use std::collections::HashMap;

use axum::extract::{Query, State};
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};

use super::AppState;
use super::auth_extract::MaybeAuthUser;
use super::error::ApiError;
use super::openapi::ApiRouter;
use crate::error::Error;
use axum::Json;
use utoipa_axum::routes;

/// The route.
pub fn router() -> ApiRouter {
    ApiRouter::new().routes(routes!(generate))
}

#[utoipa::path(get, path = "/api/v1/reports/generate", tag = "reports", params(("investigation_id" = uuid::Uuid, Query, description = "A finished investigation"), ("format" = Option<String>, Query, description = "markdown (default), html or json")), security((), ("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "The report as Markdown (default), HTML or JSON (`{markdown, html, ...}`)", content(
            (String = "text/markdown"),
            (String = "text/html"),
            (vigia_agents::agents::tiradentes::Report = "application/json"),
        )),
        (status = 400, description = "VALIDATION_ERROR"),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
        (status = 404, description = "INVESTIGATION_NOT_FOUND"),
        (status = 409, description = "INVESTIGATION_IN_PROGRESS"),
    ))]
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
