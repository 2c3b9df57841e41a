//! Admin routes under `/api/v1/admin` (besides the IP whitelist): agent lazy loading
//! (`/agent-lazy-loading/*`: status, load, unload, preload-all, config, cleanup,
//! memory-usage), unlocking an account (`POST /users/{user_id}/unlock`) and service API keys
//! (`/api-keys`). Every route needs an [`AdminUser`].

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use super::AppState;
use super::admin_views::{
    AgentMemoryView, ApiKeyList, ApiKeyView, CleanedUp, Done, Loaded, MemoryUsageView, PoolStatusView, Preloaded,
    Unloaded, Unlocked, key_view, status_view,
};
use super::auth_extract::AdminUser;
use super::error::ApiError;
use super::extract::{ApiJson, OptionalJson};
use super::openapi::ApiRouter;
use super::views::ts;
use crate::domain::UserId;
use crate::error::{Error, ErrorCode};
use crate::service::admin::SettingsChange;
use axum::Json;
use utoipa_axum::routes;

type ApiResult = Result<Response, ApiError>;

/// The admin routes.
pub fn router() -> ApiRouter {
    ApiRouter::new()
        .routes(routes!(status))
        .routes(routes!(load))
        .routes(routes!(unload))
        .routes(routes!(preload_all))
        .routes(routes!(configure))
        .routes(routes!(cleanup))
        .routes(routes!(memory_usage))
        .routes(routes!(unlock))
        .routes(routes!(create_key, list_keys))
        .routes(routes!(revoke_key))
}

#[derive(Deserialize, utoipa::ToSchema)]
struct LoadBody {
    agent_name: String,
}

#[derive(Deserialize, utoipa::ToSchema)]
struct UnloadBody {
    agent_name: String,
    #[serde(default)]
    force: bool,
}

#[derive(Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
struct ConfigBody {
    unload_after_minutes: Option<f64>,
    max_loaded_agents: Option<usize>,
    preload_agents: Option<Vec<String>>,
}

#[derive(Deserialize, utoipa::ToSchema)]
struct KeyBody {
    name: String,
    user_id: String,
}

fn user_id(raw: &str, field: &str) -> Result<UserId, Error> {
    UserId::parse(raw).ok_or_else(|| Error::validation(field, "not a UUID"))
}

#[utoipa::path(get, path = "/api/v1/admin/agent-lazy-loading/status", tag = "admin",  security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Pool status: loaded agents, settings, statistics", body = PoolStatusView),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
    ))]
async fn status(State(st): State<AppState>, _: AdminUser) -> ApiResult {
    let s = st.services.admin.status().await?;
    Ok(Json(status_view(&s)).into_response())
}

#[utoipa::path(post, path = "/api/v1/admin/agent-lazy-loading/load", tag = "admin", request_body = LoadBody, security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Loaded", body = Loaded),
        (status = 400, description = "VALIDATION_ERROR"),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
        (status = 404, description = "AGENT_NOT_FOUND"),
        (status = 503, description = "AGENT_UNAVAILABLE"),
    ))]
async fn load(State(st): State<AppState>, _: AdminUser, ApiJson(b): ApiJson<LoadBody>) -> ApiResult {
    let r = st.services.admin.load(&b.agent_name).await?;
    Ok(Json(Loaded {
        success: true,
        agent_name: r.agent_name,
        already_loaded: r.already_loaded,
        load_time_ms: r.load_time_ms,
        memory_usage_mb: r.memory_usage_mb,
    })
    .into_response())
}

#[utoipa::path(post, path = "/api/v1/admin/agent-lazy-loading/unload", tag = "admin", request_body = UnloadBody, security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Unloaded (or why not)", body = Unloaded),
        (status = 400, description = "VALIDATION_ERROR"),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
        (status = 404, description = "AGENT_NOT_FOUND"),
        (status = 409, description = "CONFLICT"),
    ))]
async fn unload(State(st): State<AppState>, _: AdminUser, ApiJson(b): ApiJson<UnloadBody>) -> ApiResult {
    let r = st.services.admin.unload(&b.agent_name, b.force).await?;
    Ok(Json(Unloaded {
        success: r.success,
        agent_name: r.agent_name,
        freed_memory_mb: r.freed_memory_mb,
        cancelled_analyses: r.cancelled_analyses,
        reason: r.reason,
    })
    .into_response())
}

#[utoipa::path(post, path = "/api/v1/admin/agent-lazy-loading/preload-all", tag = "admin",  security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Preloaded", body = Preloaded),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
    ))]
async fn preload_all(State(st): State<AppState>, _: AdminUser) -> ApiResult {
    let r = st.services.admin.preload_all().await?;
    Ok(Json(Preloaded {
        success: true,
        loaded_agents: r.loaded_agents,
        total_loaded: r.total_loaded,
        total_time_ms: r.total_time_ms,
    })
    .into_response())
}

#[utoipa::path(put, path = "/api/v1/admin/agent-lazy-loading/config", tag = "admin", request_body = ConfigBody, security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "The pool status with the new settings", body = PoolStatusView),
        (status = 400, description = "VALIDATION_ERROR"),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
    ))]
async fn configure(State(st): State<AppState>, _: AdminUser, ApiJson(b): ApiJson<ConfigBody>) -> ApiResult {
    let change = SettingsChange {
        unload_after_minutes: b.unload_after_minutes,
        max_loaded_agents: b.max_loaded_agents,
        preload_agents: b.preload_agents,
    };
    let s = st.services.admin.configure(change).await?;
    Ok(Json(status_view(&s)).into_response())
}

/// The optional body of POST /cleanup.
#[derive(Debug, Default, serde::Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
struct CleanupBody {
    /// Unload every agent not in use, however recently used.
    #[serde(default)]
    force: bool,
}

#[utoipa::path(post, path = "/api/v1/admin/agent-lazy-loading/cleanup", tag = "admin", request_body(content = Option<CleanupBody>, description = "Optional; `force` unloads every idle agent"), security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Unloaded idle agents", body = CleanedUp),
        (status = 400, description = "VALIDATION_ERROR"),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
    ))]
async fn cleanup(State(st): State<AppState>, _: AdminUser, OptionalJson(b): OptionalJson<CleanupBody>) -> ApiResult {
    let r = st.services.admin.cleanup(b.force).await?;
    Ok(Json(CleanedUp { unloaded_agents: r.unloaded_agents, freed_memory_mb: r.freed_memory_mb }).into_response())
}

#[utoipa::path(get, path = "/api/v1/admin/agent-lazy-loading/memory-usage", tag = "admin",  security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Memory per loaded agent", body = MemoryUsageView),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
    ))]
async fn memory_usage(State(st): State<AppState>, _: AdminUser) -> ApiResult {
    let m = st.services.admin.memory_usage().await?;
    let agents = m
        .agents
        .iter()
        .map(|a| AgentMemoryView { name: a.name.clone(), memory_mb: a.memory_mb, last_used: ts(&a.last_used) })
        .collect();
    Ok(Json(MemoryUsageView { total_memory_mb: m.total_memory_mb, agents }).into_response())
}

#[utoipa::path(post, path = "/api/v1/admin/users/{user_id}/unlock", tag = "admin", params(("user_id" = uuid::Uuid, Path, description = "User id")), security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Unlocked", body = Unlocked),
        (status = 400, description = "VALIDATION_ERROR"),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
        (status = 404, description = "RESOURCE_NOT_FOUND"),
    ))]
async fn unlock(State(st): State<AppState>, AdminUser(admin): AdminUser, Path(raw): Path<String>) -> ApiResult {
    let user = st.services.auth.unlock(&admin, user_id(&raw, "user_id")?)?;
    Ok(Json(Unlocked { success: true, user_id: user.id.to_string(), email: user.email.as_str().to_string() })
        .into_response())
}

#[utoipa::path(post, path = "/api/v1/admin/api-keys", tag = "admin", request_body = KeyBody, security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 201, description = "Created; `api_key` is shown only now", body = ApiKeyView),
        (status = 400, description = "VALIDATION_ERROR"),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
        (status = 404, description = "RESOURCE_NOT_FOUND"),
    ))]
async fn create_key(
    State(st): State<AppState>,
    AdminUser(admin): AdminUser,
    ApiJson(b): ApiJson<KeyBody>,
) -> ApiResult {
    let (record, key) = st.services.auth.create_api_key(&admin, &b.name, user_id(&b.user_id, "user_id")?)?;
    Ok((StatusCode::CREATED, Json(key_view(&record, Some(key)))).into_response())
}

#[utoipa::path(get, path = "/api/v1/admin/api-keys", tag = "admin",  security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "API keys (never the secrets)", body = ApiKeyList),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
    ))]
async fn list_keys(State(st): State<AppState>, AdminUser(admin): AdminUser) -> ApiResult {
    let keys = st.services.auth.api_keys(&admin)?;
    Ok(Json(ApiKeyList { api_keys: keys.iter().map(|k| key_view(k, None)).collect() }).into_response())
}

#[utoipa::path(delete, path = "/api/v1/admin/api-keys/{key_id}", tag = "admin", params(("key_id" = uuid::Uuid, Path, description = "API key id")), security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Revoked", body = Done),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
        (status = 404, description = "RESOURCE_NOT_FOUND"),
    ))]
async fn revoke_key(State(st): State<AppState>, AdminUser(admin): AdminUser, Path(raw): Path<String>) -> ApiResult {
    let id = uuid::Uuid::parse_str(&raw)
        .map_err(|_| Error::new(ErrorCode::ResourceNotFound, format!("API key {raw} not found")).with("id", raw))?;
    st.services.auth.revoke_api_key(&admin, id)?;
    Ok(Json(Done { success: true, message: "API key revoked".into() }).into_response())
}
