//! `GET /api/v1/audit?page&limit`: the audit trail, newest first, for callers with
//! `ver:auditoria`, in the spec's offset pagination form.

use std::collections::HashMap;

use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::AppState;
use super::auth_extract::AuthUser;
use super::error::ApiError;
use super::openapi::ApiRouter;
use super::views::ts;
use crate::domain::AuditEntry;
use crate::error::Error;
use axum::Json;
use utoipa_axum::routes;

/// The audit route.
pub fn router() -> ApiRouter {
    ApiRouter::new().routes(routes!(list))
}

fn number(raw: &HashMap<String, String>, key: &str, default: usize) -> Result<usize, Error> {
    raw.get(key).map_or(Ok(default), |v| v.trim().parse().map_err(|_| Error::validation(key, "not a whole number")))
}

fn entry_view(e: &AuditEntry) -> Value {
    json!({
        "id": e.id.to_string(),
        "timestamp": ts(&e.timestamp),
        "action": e.action,
        "outcome": e.outcome,
        "actor": e.actor_id.map(|id| json!({"user_id": id.to_string(), "email": e.actor_email}))
            .or_else(|| e.actor_email.as_ref().map(|m| json!({"user_id": null, "email": m}))),
        "address": e.address,
        "request_id": e.request_id,
        "details": e.details,
    })
}

#[utoipa::path(get, path = "/api/v1/audit", tag = "audit", params(("limit" = Option<usize>, Query, description = "Entries per page (default 20)"), ("page" = Option<usize>, Query, description = "From 1")), security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Audit entries, newest first (the caller's own; all for an admin)", body = Object),
        (status = 400, description = "VALIDATION_ERROR"),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
    ))]
async fn list(
    State(st): State<AppState>,
    AuthUser(who): AuthUser,
    Query(raw): Query<HashMap<String, String>>,
) -> Result<Response, ApiError> {
    let (page, limit) = (number(&raw, "page", 1)?, number(&raw, "limit", 20)?);
    let p = st.services.audit.page(&who, page, limit)?;
    let pages = p.total.div_ceil(limit).max(1);
    let link = |n: usize| format!("/api/v1/audit?page={n}&limit={limit}");
    Ok(Json(json!({
        "data": p.items.iter().map(entry_view).collect::<Vec<_>>(),
        "meta": {"page": page, "limit": limit, "total": p.total, "pages": pages},
        "links": {
            "first": link(1),
            "prev": (page > 1).then(|| link(page - 1)),
            "next": (page < pages).then(|| link(page + 1)),
            "last": link(pages),
        },
    }))
    .into_response())
}
