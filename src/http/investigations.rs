//! Investigation routes in both naming variants: start, status, results, progress, list,
//! cancel and the SSE stream. Each handler extracts, makes one service call and maps.
//!
//! Access: anyone may start (anonymous runs are public; a signed-in caller needs
//! `escrever:investigacoes` and owns the run); an owned run is readable by its owner or an
//! admin; the list shows public runs plus the caller's own (all for an admin); cancelling needs
//! `deletar:investigacoes` and ownership, or an admin.

use std::collections::HashMap;

use axum::extract::{Query, State};
use axum::http::{StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use axum::{Json, Router};
use chrono::NaiveDate;
use serde_json::json;

use super::AppState;
use super::auth_extract::{AuthUser, MaybeAuthUser};
use super::error::{ApiError, Lang};
use super::extract::{ApiJson, InvId, LastEventId};
use super::{sse, views};
use crate::domain::cursor::{Cursor, Direction};
use crate::domain::{InvestigationRequest, Status};
use crate::error::Error;
use crate::service::investigations::ListQuery;

type ApiResult = Result<Response, ApiError>;

/// Routes of both variants.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/investigations/start", post(start))
        .route("/api/v1/investigations", post(start).get(list))
        .route("/api/v1/investigations/paginated", get(paginated))
        .route("/api/v1/investigations/stream/{id}", get(stream))
        .route("/api/v1/investigations/{id}/status", get(status))
        .route("/api/v1/investigations/{id}/results", get(results))
        .route("/api/v1/investigations/{id}/progress", get(progress))
        .route("/api/v1/investigations/{id}", delete(cancel).get(status))
        .route("/api/v1/investigacoes/iniciar", post(start))
        .route("/api/v1/investigacoes", get(list))
        .route("/api/v1/investigacoes/paginado", get(paginated))
        .route("/api/v1/investigacoes/stream/{id}", get(stream))
        .route("/api/v1/investigacoes/{id}/status", get(status))
        .route("/api/v1/investigacoes/{id}/resultados", get(results))
        .route("/api/v1/investigacoes/{id}/progresso", get(progress))
        .route("/api/v1/investigacoes/{id}", delete(cancel).get(status))
}

fn lang(uri: &Uri) -> Lang {
    Lang::for_path(uri.path())
}

async fn start(
    State(st): State<AppState>,
    uri: Uri,
    AuthUser(who): AuthUser,
    ApiJson(req): ApiJson<InvestigationRequest>,
) -> ApiResult {
    // Over HTTP only a signed-in caller starts investigations (401 otherwise); the chat starts
    // them for anonymous chat users through the same service call with no owner.
    let started = st.services.investigations.start(req, Some(&who)).await?;
    Ok((StatusCode::CREATED, Json(views::started(lang(&uri), &started))).into_response())
}

async fn status(
    State(st): State<AppState>,
    uri: Uri,
    MaybeAuthUser(who): MaybeAuthUser,
    InvId(id): InvId,
) -> ApiResult {
    let inv = st.services.investigations.head(id, who.as_ref())?;
    Ok(Json(views::status_view(lang(&uri), &inv)).into_response())
}

async fn results(
    State(st): State<AppState>,
    uri: Uri,
    MaybeAuthUser(who): MaybeAuthUser,
    InvId(id): InvId,
) -> ApiResult {
    let inv = st.services.investigations.results(id, who.as_ref())?;
    Ok(Json(views::results(lang(&uri), &inv)).into_response())
}

async fn progress(
    State(st): State<AppState>,
    uri: Uri,
    MaybeAuthUser(who): MaybeAuthUser,
    InvId(id): InvId,
) -> ApiResult {
    let inv = st.services.investigations.head(id, who.as_ref())?;
    Ok(Json(views::status_view(lang(&uri), &inv)).into_response())
}

async fn cancel(State(st): State<AppState>, uri: Uri, AuthUser(who): AuthUser, InvId(id): InvId) -> ApiResult {
    let c = st.services.investigations.cancel(id, &who).await?;
    Ok(Json(views::cancelled(lang(&uri), &c)).into_response())
}

async fn stream(
    State(st): State<AppState>,
    uri: Uri,
    InvId(id): InvId,
    LastEventId(last): LastEventId,
    MaybeAuthUser(who): MaybeAuthUser,
) -> ApiResult {
    let events = st.services.investigations.stream(id, last, who.as_ref())?;
    Ok(sse::investigation_stream(lang(&uri), events, st.keep_alive_secs))
}

async fn list(
    State(st): State<AppState>,
    uri: Uri,
    MaybeAuthUser(who): MaybeAuthUser,
    Query(raw): Query<HashMap<String, String>>,
) -> ApiResult {
    let q = list_query(&raw)?;
    let page = st.services.investigations.list(&q, who.as_ref())?;
    Ok(Json(views::list(lang(&uri), &page, q.page, q.limit, &uri)).into_response())
}

/// The cursor form of the list: `cursor` (empty or absent for the start), `direction`
/// (`next` or `prev`, default `prev`), `limit` (1-100, default 50) and the list's filters.
async fn paginated(
    State(st): State<AppState>,
    uri: Uri,
    MaybeAuthUser(who): MaybeAuthUser,
    Query(mut raw): Query<HashMap<String, String>>,
) -> ApiResult {
    let text = |en: &str, pt: &str| raw.get(en).or_else(|| raw.get(pt)).map(|s| s.trim().to_string());
    let cursor = match text("cursor", "cursor").filter(|c| !c.is_empty()) {
        Some(c) => {
            Some(Cursor::decode(&c).ok_or_else(|| Error::validation("cursor", "not a cursor this service issued"))?)
        }
        None => None,
    };
    let direction = match text("direction", "direcao").filter(|d| !d.is_empty()) {
        Some(d) => Direction::parse(&d).ok_or_else(|| Error::validation("direction", "must be 'next' or 'prev'"))?,
        None => Direction::Prev,
    };
    raw.entry("limit".into()).or_insert_with(|| "50".into());
    let q = list_query(&raw)?;
    let page = st.services.investigations.paginated(&q, cursor.as_ref(), direction, who.as_ref())?;
    Ok(Json(views::cursor_list(lang(&uri), &page)).into_response())
}

/// Parses the list parameters under either name (`status`, `data_source`/`fonte_dados`, ...).
fn list_query(raw: &HashMap<String, String>) -> Result<ListQuery, Error> {
    let get = |en: &str, pt: &str| raw.get(en).or_else(|| raw.get(pt)).map(|s| s.trim()).filter(|s| !s.is_empty());
    let number = |en: &str, pt: &str| -> Result<Option<usize>, Error> {
        get(en, pt)
            .map(|v| v.parse::<usize>().map_err(|_| Error::validation(en, format!("'{v}' is not a whole number"))))
            .transpose()
    };
    let date = |en: &str, pt: &str| -> Result<Option<NaiveDate>, Error> {
        get(en, pt)
            .map(|v| {
                v.parse::<NaiveDate>().map_err(|_| Error::validation(en, format!("'{v}' is not an ISO 8601 date")))
            })
            .transpose()
    };
    let status = get("status", "status")
        .map(|s| Status::parse(s).ok_or_else(|| Error::validation("status", format!("'{s}' is not a status"))))
        .transpose()?;
    let limit = number("limit", "limite")?.unwrap_or(20);
    if !(1..=100).contains(&limit) {
        return Err(Error::validation("limit", "must be between 1 and 100"));
    }
    let page = number("page", "pagina")?.unwrap_or(1);
    if page == 0 {
        return Err(Error::validation("page", "must be at least 1"));
    }
    let sort = get("sort", "ordenacao").unwrap_or("-created_at");
    let (desc, key) = match sort.strip_prefix('-') {
        Some(k) => (true, k),
        None => (false, sort),
    };
    let key = match key {
        "criado_em" => "created_at",
        "concluido_em" => "completed_at",
        "anomalias_encontradas" => "anomalies_found",
        "pontuacao_risco" => "risk_score",
        k => k,
    };
    if !["created_at", "completed_at", "anomalies_found", "risk_score", "status"].contains(&key) {
        return Err(Error::validation("sort", format!("cannot sort by '{key}'"))
            .with("allowed", json!(["created_at", "completed_at", "anomalies_found", "risk_score", "status"])));
    }
    Ok(ListQuery {
        status,
        data_source: get("data_source", "fonte_dados").map(str::to_string),
        date_from: date("date_from", "data_de")?,
        date_to: date("date_to", "data_ate")?,
        min_anomalies: number("min_anomalies", "min_anomalias")?,
        sort: (key.to_string(), desc),
        page,
        limit,
    })
}
