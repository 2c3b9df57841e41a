//! `GET /api/v1/audit?page&limit`: the audit trail, newest first, for callers with
//! `ver:auditoria`, in the spec's offset pagination form.

use std::collections::HashMap;

use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use serde_json::{Map, Value};
use utoipa::ToSchema;

use super::AppState;
use super::auth_extract::AuthUser;
use super::error::ApiError;
use super::openapi::ApiRouter;
use super::views::lists::{PageLinks, PageMeta};
use super::views::ts;
use crate::domain::{AuditEntry, Outcome};
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

/// Who acted.
#[derive(Debug, Serialize, ToSchema)]
pub struct Actor {
    /// User id (null for an unknown e-mail, e.g. a failed login).
    pub user_id: Option<String>,
    /// E-mail.
    pub email: Option<String>,
}

/// One audit record.
#[derive(Debug, Serialize, ToSchema)]
pub struct AuditView {
    /// Record id.
    pub id: String,
    /// When (RFC 3339).
    pub timestamp: String,
    /// What, e.g. `auth.login`.
    pub action: String,
    /// How it ended.
    pub outcome: Outcome,
    /// Who, when known.
    pub actor: Option<Actor>,
    /// Address of the request.
    pub address: Option<String>,
    /// Request id.
    pub request_id: Option<String>,
    /// Details of the action.
    #[schema(value_type = Object)]
    pub details: Map<String, Value>,
}

/// A page of audit records.
#[derive(Debug, Serialize, ToSchema)]
pub struct AuditPage {
    /// Records, newest first.
    pub data: Vec<AuditView>,
    /// Page numbers.
    pub meta: PageMeta,
    /// Links to other pages.
    pub links: PageLinks,
}

fn entry_view(e: &AuditEntry) -> AuditView {
    let actor = e
        .actor_id
        .map(|id| Actor { user_id: Some(id.to_string()), email: e.actor_email.clone() })
        .or_else(|| e.actor_email.as_ref().map(|m| Actor { user_id: None, email: Some(m.clone()) }));
    AuditView {
        id: e.id.to_string(),
        timestamp: ts(&e.timestamp),
        action: e.action.clone(),
        outcome: e.outcome,
        actor,
        address: e.address.clone(),
        request_id: e.request_id.clone(),
        details: e.details.clone(),
    }
}

#[utoipa::path(get, path = "/api/v1/audit", tag = "audit", params(("limit" = Option<usize>, Query, description = "Entries per page (default 20)"), ("page" = Option<usize>, Query, description = "From 1")), security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Audit entries, newest first (the caller's own; all for an admin)", body = AuditPage),
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
    Ok(Json(AuditPage {
        data: p.items.iter().map(entry_view).collect(),
        meta: PageMeta { total: p.total, page, limit, pages },
        links: PageLinks {
            first: link(1),
            prev: (page > 1).then(|| link(page - 1)),
            next: (page < pages).then(|| link(page + 1)),
            last: link(pages),
        },
    })
    .into_response())
}
