//! Investigation routes in both naming variants: start, status, results, progress, list,
//! cancel and the SSE stream. Each handler extracts, makes one service call and maps.
//!
//! Access: anyone may start (anonymous runs are public; a signed-in caller needs
//! `escrever:investigacoes` and owns the run); an owned run is readable by its owner or an
//! admin; the list shows public runs plus the caller's own (all for an admin); cancelling needs
//! `deletar:investigacoes` and ownership, or an admin.

use std::collections::HashMap;

use axum::Json;
use axum::extract::{Query, State};
use axum::http::{StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use chrono::NaiveDate;
use serde_json::json;

use super::AppState;
use super::auth_extract::{AuthUser, MaybeAuthUser};
use super::error::{ApiError, Lang};
use super::extract::{ApiJson, InvId, LastEventId};
use super::openapi::ApiRouter;
use super::views::shapes::{InvestigationCancelled, InvestigationResults, InvestigationStarted, InvestigationStatus};
use super::views::{InvestigationCursorPage, InvestigationPage};
use super::{sse, views};
use crate::domain::cursor::{Cursor, Direction};
use crate::domain::{InvestigationRequest, Status};
use crate::error::Error;
use crate::service::investigations::ListQuery;
use utoipa_axum::routes;

type ApiResult = Result<Response, ApiError>;

/// Routes of both variants (the Portuguese ones are aliases of the English handlers; their
/// errors use the Portuguese envelope).
pub fn router() -> ApiRouter {
    ApiRouter::new()
        .routes(routes!(start))
        .alias("/api/v1/investigations", routes!(start, list))
        .routes(routes!(paginated))
        .routes(routes!(stream))
        .routes(routes!(status))
        .routes(routes!(results))
        .routes(routes!(progress))
        .alias("/api/v1/investigations/{id}", routes!(cancel, status))
        .alias("/api/v1/investigacoes/iniciar", routes!(start))
        .alias("/api/v1/investigacoes", routes!(list))
        .alias("/api/v1/investigacoes/paginado", routes!(paginated))
        .alias("/api/v1/investigacoes/stream/{id}", routes!(stream))
        .alias("/api/v1/investigacoes/{id}/status", routes!(status))
        .alias("/api/v1/investigacoes/{id}/resultados", routes!(results))
        .alias("/api/v1/investigacoes/{id}/progresso", routes!(progress))
        .alias("/api/v1/investigacoes/{id}", routes!(cancel, status))
}

fn lang(uri: &Uri) -> Lang {
    Lang::for_path(uri.path())
}

/// Starts an investigation (201 with its id and stream URL; it runs in the background).
#[utoipa::path(post, path = "/api/v1/investigations/start", tag = "investigations",
    request_body = InvestigationRequest,
    security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 201, description = "Started", body = InvestigationStarted),
        (status = 400, description = "VALIDATION_ERROR, INVALID_DATA_SOURCE"),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
        (status = 503, description = "SERVICE_UNAVAILABLE"),
    ))]
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

/// An investigation's status, progress and statistics.
#[utoipa::path(get, path = "/api/v1/investigations/{id}/status", tag = "investigations", params(("id" = uuid::Uuid, Path, description = "Investigation id")),
    security((), ("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Status", body = InvestigationStatus),
        (status = 400, description = "VALIDATION_ERROR"),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
        (status = 404, description = "INVESTIGATION_NOT_FOUND"),
    ))]
async fn status(
    State(st): State<AppState>,
    uri: Uri,
    MaybeAuthUser(who): MaybeAuthUser,
    InvId(id): InvId,
) -> ApiResult {
    let inv = st.services.investigations.head(id, who.as_ref())?;
    Ok(Json(views::status_view(lang(&uri), &inv)).into_response())
}

/// A finished investigation's anomalies, summary and report.
#[utoipa::path(get, path = "/api/v1/investigations/{id}/results", tag = "investigations", params(("id" = uuid::Uuid, Path, description = "Investigation id")),
    security((), ("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Results", body = InvestigationResults),
        (status = 400, description = "VALIDATION_ERROR"),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
        (status = 404, description = "INVESTIGATION_NOT_FOUND"),
        (status = 409, description = "INVESTIGATION_IN_PROGRESS"),
    ))]
async fn results(
    State(st): State<AppState>,
    uri: Uri,
    MaybeAuthUser(who): MaybeAuthUser,
    InvId(id): InvId,
) -> ApiResult {
    let inv = st.services.investigations.results(id, who.as_ref())?;
    Ok(Json(views::results(lang(&uri), &inv)).into_response())
}

/// An investigation's progress (the status document).
#[utoipa::path(get, path = "/api/v1/investigations/{id}/progress", tag = "investigations", params(("id" = uuid::Uuid, Path, description = "Investigation id")),
    security((), ("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Status", body = InvestigationStatus),
        (status = 400, description = "VALIDATION_ERROR"),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
        (status = 404, description = "INVESTIGATION_NOT_FOUND"),
    ))]
async fn progress(
    State(st): State<AppState>,
    uri: Uri,
    MaybeAuthUser(who): MaybeAuthUser,
    InvId(id): InvId,
) -> ApiResult {
    let inv = st.services.investigations.head(id, who.as_ref())?;
    Ok(Json(views::status_view(lang(&uri), &inv)).into_response())
}

/// Cancels a running investigation (owner or admin).
#[utoipa::path(delete, path = "/api/v1/investigations/{id}", tag = "investigations", params(("id" = uuid::Uuid, Path, description = "Investigation id")),
    security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Cancelled", body = InvestigationCancelled),
        (status = 400, description = "VALIDATION_ERROR"),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
        (status = 404, description = "INVESTIGATION_NOT_FOUND"),
        (status = 409, description = "CONFLICT"),
    ))]
async fn cancel(State(st): State<AppState>, uri: Uri, AuthUser(who): AuthUser, InvId(id): InvId) -> ApiResult {
    let c = st.services.investigations.cancel(id, &who).await?;
    Ok(Json(views::cancelled(lang(&uri), &c)).into_response())
}

/// Server-sent events of an investigation until it ends (`Last-Event-ID` resumes).
#[utoipa::path(get, path = "/api/v1/investigations/stream/{id}", tag = "investigations",
    params(
        ("id" = uuid::Uuid, Path, description = "Investigation id"),
        ("Last-Event-ID" = Option<u64>, Header, description = "Resume after this event"),
    ),
    security((), ("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Event stream: progress, anomaly, completed, error", content_type = "text/event-stream", body = String),
        (status = 400, description = "VALIDATION_ERROR"),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
        (status = 404, description = "INVESTIGATION_NOT_FOUND"),
    ))]
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

/// Public investigations plus the caller's own (all for an admin), a page at a time.
#[utoipa::path(get, path = "/api/v1/investigations", tag = "investigations",
    params(
        ListParams,
        ("page" = Option<usize>, Query, description = "From 1 (`pagina`)"),
    ),
    security((), ("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "A page of investigations", body = InvestigationPage),
        (status = 400, description = "VALIDATION_ERROR"),
    ))]
async fn list(
    State(st): State<AppState>,
    uri: Uri,
    MaybeAuthUser(who): MaybeAuthUser,
    Query(raw): Query<HashMap<String, String>>,
) -> ApiResult {
    let q = list_query(&raw, 20)?;
    let page = st.services.investigations.list(&q, who.as_ref())?;
    Ok(Json(views::list(lang(&uri), &page, q.page, q.limit, &uri)).into_response())
}

/// The cursor form of the list: `cursor` (empty or absent for the start), `direction`
/// (`next` or `prev`, default `prev`), `limit` (1-100, default 50) and the list's filters.
#[utoipa::path(get, path = "/api/v1/investigations/paginated", tag = "investigations",
    params(
        ListParams,
        ("cursor" = Option<String>, Query, description = "A cursor from a previous page"),
        ("direction" = Option<String>, Query, description = "next or prev (`direcao`)"),
    ),
    security((), ("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "A page of investigations with cursors", body = InvestigationCursorPage),
        (status = 400, description = "VALIDATION_ERROR"),
    ))]
async fn paginated(
    State(st): State<AppState>,
    uri: Uri,
    MaybeAuthUser(who): MaybeAuthUser,
    Query(raw): Query<HashMap<String, String>>,
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
    let q = list_query(&raw, 50)?;
    let page = st.services.investigations.paginated(&q, cursor.as_ref(), direction, who.as_ref())?;
    Ok(Json(views::cursor_list(lang(&uri), &page)).into_response())
}

/// The filters and ordering both list forms take, as documented and as [`list_query`] reads
/// them: each under its English name or its Portuguese one (in parentheses), blanks as absent.
/// Values stay text here so a bad one is refused with the spec's envelope, naming the field.
#[derive(Debug, utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
struct ListParams {
    /// pending, running, completed, failed or cancelled
    status: Option<String>,
    /// Data source (`fonte_dados` also accepted)
    data_source: Option<String>,
    /// Created on or after (`data_de`)
    #[param(value_type = Option<chrono::NaiveDate>)]
    date_from: Option<String>,
    /// Created on or before (`data_ate`)
    #[param(value_type = Option<chrono::NaiveDate>)]
    date_to: Option<String>,
    /// At least this many anomalies (`min_anomalias`)
    #[param(value_type = Option<usize>)]
    min_anomalies: Option<String>,
    /// created_at, completed_at, anomalies_found, risk_score or status; `-` prefix for descending (`ordenacao`)
    sort: Option<String>,
    /// 1-100 (`limite`)
    #[param(value_type = Option<usize>)]
    limit: Option<String>,
}

impl ListParams {
    /// The parameters under either name, the English one first.
    fn read(raw: &HashMap<String, String>) -> ListParams {
        let get = |en: &str, pt: &str| {
            raw.get(en).or_else(|| raw.get(pt)).map(|s| s.trim().to_string()).filter(|s| !s.is_empty())
        };
        ListParams {
            status: get("status", "status"),
            data_source: get("data_source", "fonte_dados"),
            date_from: get("date_from", "data_de"),
            date_to: get("date_to", "data_ate"),
            min_anomalies: get("min_anomalies", "min_anomalias"),
            sort: get("sort", "ordenacao"),
            limit: get("limit", "limite"),
        }
    }
}

/// Parses the list parameters ([`ListParams`], and `page`/`pagina`); `limit` defaults to
/// `default_limit` (the page form's 20, the cursor form's 50).
fn list_query(raw: &HashMap<String, String>, default_limit: usize) -> Result<ListQuery, Error> {
    let p = ListParams::read(raw);
    let number = |name: &str, v: Option<&str>| -> Result<Option<usize>, Error> {
        v.map(|v| v.parse::<usize>().map_err(|_| Error::validation(name, format!("'{v}' is not a whole number"))))
            .transpose()
    };
    let date = |name: &str, v: Option<&str>| -> Result<Option<NaiveDate>, Error> {
        v.map(|v| v.parse::<NaiveDate>().map_err(|_| Error::validation(name, format!("'{v}' is not an ISO 8601 date"))))
            .transpose()
    };
    let status = p
        .status
        .as_deref()
        .map(|s| Status::parse(s).ok_or_else(|| Error::validation("status", format!("'{s}' is not a status"))))
        .transpose()?;
    let limit = number("limit", p.limit.as_deref())?.unwrap_or(default_limit);
    if !(1..=100).contains(&limit) {
        return Err(Error::validation("limit", "must be between 1 and 100"));
    }
    let page_text = raw.get("page").or_else(|| raw.get("pagina")).map(|s| s.trim()).filter(|s| !s.is_empty());
    let page = number("page", page_text)?.unwrap_or(1);
    if page == 0 {
        return Err(Error::validation("page", "must be at least 1"));
    }
    let sort = p.sort.as_deref().unwrap_or("-created_at");
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
        data_source: p.data_source.clone(),
        date_from: date("date_from", p.date_from.as_deref())?,
        date_to: date("date_to", p.date_to.as_deref())?,
        min_anomalies: number("min_anomalies", p.min_anomalies.as_deref())?,
        sort: (key.to_string(), desc),
        page,
        limit,
    })
}
