//! The admin IP whitelist routes under `/api/v1/admin/ip-whitelist`: add, remove/{ip}, list,
//! check/{ip}, update/{ip} (answers the updated entry), cleanup, initialize-defaults, stats.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, Utc};
use serde::Serialize;
use serde::{Deserialize, Deserializer};
use utoipa::ToSchema;

use super::AppState;
use super::admin_views::Done;
use super::auth_extract::AdminUser;
use super::error::ApiError;
use super::extract::ApiJson;
use super::openapi::ApiRouter;
use super::views::ts;
use crate::domain::WhitelistEntry;
use crate::service::whitelist::{EntryUpdate, NewEntry};
use axum::Json;
use utoipa_axum::routes;

type ApiResult = Result<Response, ApiError>;

/// The whitelist routes.
pub fn router() -> ApiRouter {
    ApiRouter::new()
        .routes(routes!(add))
        .routes(routes!(remove))
        .routes(routes!(list))
        .routes(routes!(check))
        .routes(routes!(update))
        .routes(routes!(cleanup))
        .routes(routes!(initialize_defaults))
        .routes(routes!(stats))
}

#[derive(Deserialize, utoipa::ToSchema)]
struct AddBody {
    ip_address: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    expires_at: Option<DateTime<Utc>>,
}

/// A field that may be absent (keep), null (clear) or a value (set).
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
struct UpdateBody {
    #[serde(default)]
    description: Option<String>,
    #[serde(default, deserialize_with = "present")]
    expires_at: Option<Option<DateTime<Utc>>>,
    #[serde(default)]
    is_active: Option<bool>,
}

/// A whitelist entry.
#[derive(Debug, Serialize, ToSchema)]
pub struct EntryView {
    /// Entry id.
    pub id: u64,
    /// The address.
    pub ip_address: String,
    /// Why it is allowed.
    pub description: String,
    /// Added (RFC 3339).
    pub added_at: String,
    /// When it stops applying (RFC 3339), if ever.
    pub expires_at: Option<String>,
    /// Whether it applies.
    pub is_active: bool,
}

/// The entry that allows a checked address.
#[derive(Debug, Serialize, ToSchema)]
pub struct MatchedEntry {
    /// Entry id.
    pub id: u64,
    /// Why it is allowed.
    pub description: String,
    /// When it stops applying (RFC 3339), if ever.
    pub expires_at: Option<String>,
}

/// Whether an address is allowed.
#[derive(Debug, Serialize, ToSchema)]
pub struct CheckView {
    /// The address as checked.
    pub ip_address: String,
    /// Whether an active entry allows it.
    pub is_whitelisted: bool,
    /// That entry.
    pub entry: Option<MatchedEntry>,
}

/// Expired entries removed.
#[derive(Debug, Serialize, ToSchema)]
pub struct CleanupView {
    /// How many.
    pub removed_count: usize,
    /// Their addresses.
    pub removed_ips: Vec<String>,
}

/// Default entries added.
#[derive(Debug, Serialize, ToSchema)]
pub struct DefaultsView {
    /// How many.
    pub added_count: usize,
    /// Their addresses.
    pub added_ips: Vec<String>,
}

/// The newest entry.
#[derive(Debug, Serialize, ToSchema)]
pub struct RecentEntry {
    /// The address.
    pub ip_address: String,
    /// Added (RFC 3339).
    pub added_at: String,
}

/// Counts by state.
#[derive(Debug, Serialize, ToSchema)]
pub struct StatsView {
    /// Entries.
    pub total_entries: usize,
    /// Active and unexpired.
    pub active_entries: usize,
    /// Past their expiry.
    pub expired_entries: usize,
    /// The newest entry.
    pub most_recent: Option<RecentEntry>,
}

fn entry_view(e: &WhitelistEntry) -> EntryView {
    EntryView {
        id: e.id,
        ip_address: e.ip_address.clone(),
        description: e.description.clone(),
        added_at: ts(&e.added_at),
        expires_at: e.expires_at.as_ref().map(ts),
        is_active: e.is_active,
    }
}

#[utoipa::path(post, path = "/api/v1/admin/ip-whitelist/add", tag = "admin", request_body = AddBody, security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 201, description = "Added", body = EntryView),
        (status = 400, description = "VALIDATION_ERROR"),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
        (status = 409, description = "CONFLICT"),
    ))]
async fn add(State(st): State<AppState>, _: AdminUser, ApiJson(b): ApiJson<AddBody>) -> ApiResult {
    let new = NewEntry { ip_address: b.ip_address, description: b.description, expires_at: b.expires_at };
    let entry = st.services.whitelist.add(new)?;
    Ok((StatusCode::CREATED, Json(entry_view(&entry))).into_response())
}

#[utoipa::path(delete, path = "/api/v1/admin/ip-whitelist/remove/{ip}", tag = "admin", params(("ip" = String, Path, description = "IPv4 or IPv6 address")), security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Removed", body = Done),
        (status = 400, description = "VALIDATION_ERROR"),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
        (status = 404, description = "RESOURCE_NOT_FOUND"),
    ))]
async fn remove(State(st): State<AppState>, _: AdminUser, Path(ip): Path<String>) -> ApiResult {
    let removed = st.services.whitelist.remove(&ip)?;
    let message = format!("{} removed from the whitelist", removed.ip_address);
    Ok(Json(Done { success: true, message }).into_response())
}

#[utoipa::path(get, path = "/api/v1/admin/ip-whitelist/list", tag = "admin",  security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Every entry", body = Vec<EntryView>),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
    ))]
async fn list(State(st): State<AppState>, _: AdminUser) -> ApiResult {
    let entries = st.services.whitelist.list()?;
    Ok(Json(entries.iter().map(entry_view).collect::<Vec<_>>()).into_response())
}

#[utoipa::path(get, path = "/api/v1/admin/ip-whitelist/check/{ip}", tag = "admin", params(("ip" = String, Path, description = "IPv4 or IPv6 address")), security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Whether the address is allowed", body = CheckView),
        (status = 400, description = "VALIDATION_ERROR"),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
    ))]
async fn check(State(st): State<AppState>, _: AdminUser, Path(ip): Path<String>) -> ApiResult {
    let c = st.services.whitelist.check(&ip)?;
    let entry = c.entry.as_ref().map(|e| MatchedEntry {
        id: e.id,
        description: e.description.clone(),
        expires_at: e.expires_at.as_ref().map(ts),
    });
    Ok(Json(CheckView { ip_address: c.ip_address, is_whitelisted: c.is_whitelisted, entry }).into_response())
}

#[utoipa::path(put, path = "/api/v1/admin/ip-whitelist/update/{ip}", tag = "admin", params(("ip" = String, Path, description = "IPv4 or IPv6 address")), request_body = UpdateBody, security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Updated", body = EntryView),
        (status = 400, description = "VALIDATION_ERROR"),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
        (status = 404, description = "RESOURCE_NOT_FOUND"),
    ))]
async fn update(
    State(st): State<AppState>,
    _: AdminUser,
    Path(ip): Path<String>,
    ApiJson(b): ApiJson<UpdateBody>,
) -> ApiResult {
    let change = EntryUpdate { description: b.description, expires_at: b.expires_at, is_active: b.is_active };
    let entry = st.services.whitelist.update(&ip, change)?;
    Ok(Json(entry_view(&entry)).into_response())
}

#[utoipa::path(post, path = "/api/v1/admin/ip-whitelist/cleanup", tag = "admin",  security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Expired entries removed", body = CleanupView),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
    ))]
async fn cleanup(State(st): State<AppState>, _: AdminUser) -> ApiResult {
    let removed = st.services.whitelist.cleanup()?;
    Ok(Json(CleanupView { removed_count: removed.len(), removed_ips: removed }).into_response())
}

#[utoipa::path(post, path = "/api/v1/admin/ip-whitelist/initialize-defaults", tag = "admin",  security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Loopback and private ranges added", body = DefaultsView),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
    ))]
async fn initialize_defaults(State(st): State<AppState>, _: AdminUser) -> ApiResult {
    let added = st.services.whitelist.initialize_defaults()?;
    Ok(Json(DefaultsView { added_count: added.len(), added_ips: added }).into_response())
}

#[utoipa::path(get, path = "/api/v1/admin/ip-whitelist/stats", tag = "admin",  security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Counts by state", body = StatsView),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
    ))]
async fn stats(State(st): State<AppState>, _: AdminUser) -> ApiResult {
    let s = st.services.whitelist.stats()?;
    let most_recent =
        s.most_recent.as_ref().map(|e| RecentEntry { ip_address: e.ip_address.clone(), added_at: ts(&e.added_at) });
    Ok(Json(StatsView {
        total_entries: s.total_entries,
        active_entries: s.active_entries,
        expired_entries: s.expired_entries,
        most_recent,
    })
    .into_response())
}
