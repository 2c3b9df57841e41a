//! Admin connection-pool routes under `/api/v1/admin/connection-pools`: stats, health,
//! config, optimize, reset-stats and recommendations. `upstream_http` is the upstream HTTP
//! client (present in production mode); `database` is the embedded store, which has no
//! connections; `redis` is absent from this build. Every route needs an [`AdminUser`].

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::AppState;
use super::auth_extract::AdminUser;
use super::error::ApiError;
use super::openapi::ApiRouter;
use crate::service::pools::PoolHealth;
use axum::Json;
use utoipa_axum::routes;

type ApiResult = Result<Response, ApiError>;

/// The connection-pool routes.
pub fn router() -> ApiRouter {
    ApiRouter::new()
        .routes(routes!(stats))
        .routes(routes!(health))
        .routes(routes!(config))
        .routes(routes!(optimize))
        .routes(routes!(recommendations))
        .routes(routes!(reset))
}

fn absent(why: &str) -> Value {
    json!({"present": false, "reason": why})
}

const NO_REDIS: &str = "this build has no redis";
const DEMO: &str = "demo mode: no upstream client";

#[utoipa::path(get, path = "/api/v1/admin/connection-pools/stats", tag = "admin",  security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Upstream client counters and the store", body = Object),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
    ))]
async fn stats(State(st): State<AppState>, _: AdminUser) -> ApiResult {
    let p = &st.services.pools;
    let upstream = match p.upstream_stats() {
        Some(s) => json!({
            "present": true,
            "active": s.active,
            // reqwest does not expose its idle connections or a pool size (unbounded per host).
            "idle": null,
            "max_size": null,
            "total": s.requests,
            "failures": s.failures,
            "wait_count": s.waits,
            "avg_wait_time_ms": s.avg_wait_ms,
            "avg_request_time_ms": s.avg_request_ms,
        }),
        None => absent(DEMO),
    };
    Ok(Json(json!({
        "database": {"present": true, "pooled": false, "engine": "sled (embedded, in process)", "flushes": p.store_flushes()},
        "upstream_http": upstream,
        "redis": absent(NO_REDIS),
    }))
    .into_response())
}

fn health_view(h: &PoolHealth) -> Value {
    json!({"status": h.status, "response_time_ms": h.response_time_ms, "error": h.error})
}

#[utoipa::path(get, path = "/api/v1/admin/connection-pools/health", tag = "admin",  security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Store and upstream health, measured", body = Object),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
    ))]
async fn health(State(st): State<AppState>, _: AdminUser) -> ApiResult {
    let (store, upstream) = st.services.pools.health().await;
    let healthy = store.status == "healthy" && upstream.status != "unhealthy";
    Ok(Json(json!({
        "healthy": healthy,
        "pools": {
            "database": health_view(&store),
            "upstream_http": health_view(&upstream),
            "redis": {"status": "absent", "response_time_ms": null},
        },
    }))
    .into_response())
}

#[utoipa::path(get, path = "/api/v1/admin/connection-pools/config", tag = "admin",  security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Pool settings", body = Object),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
    ))]
async fn config(State(st): State<AppState>, _: AdminUser) -> ApiResult {
    let p = &st.services.pools;
    let u = p.upstream_config();
    let upstream = match p.upstream_stats() {
        Some(_) => json!({
            "present": true,
            "min_size": 0,
            "max_size": null,
            "timeout": u.timeout_secs,
            "requests_per_minute": u.requests_per_minute,
            "retries": u.retries,
        }),
        None => absent(DEMO),
    };
    Ok(Json(json!({
        "database": {"present": true, "pooled": false},
        "upstream_http": upstream,
        "redis": absent(NO_REDIS),
    }))
    .into_response())
}

#[utoipa::path(get, path = "/api/v1/admin/connection-pools/optimize", tag = "admin",  security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Advice from the counters", body = Object),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
    ))]
async fn optimize(State(st): State<AppState>, _: AdminUser) -> ApiResult {
    let recs: Vec<Value> = st
        .services
        .pools
        .advice()?
        .iter()
        .map(|a| json!({"pool": a.pool, "action": a.action, "current": a.current, "suggested": a.suggested, "reason": a.reason}))
        .collect();
    Ok(Json(json!({"recommendations": recs})).into_response())
}

#[utoipa::path(get, path = "/api/v1/admin/connection-pools/recommendations", tag = "admin",  security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Recommendations from the counters", body = Object),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
    ))]
async fn recommendations(State(st): State<AppState>, _: AdminUser) -> ApiResult {
    let recs: Vec<Value> = st
        .services
        .pools
        .advice()?
        .iter()
        .map(|a| {
            json!({
                "priority": if a.metric == "failures" { "high" } else { "medium" },
                "pool": a.pool,
                "metric": a.metric,
                "suggestion": a.action,
                "expected_improvement": a.reason,
            })
        })
        .collect();
    Ok(Json(json!({"recommendations": recs})).into_response())
}

#[utoipa::path(post, path = "/api/v1/admin/connection-pools/reset-stats", tag = "admin",  security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Counters reset", body = Object),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
    ))]
async fn reset(State(st): State<AppState>, _: AdminUser) -> ApiResult {
    let done = st.services.pools.reset()?;
    let message = if done { "upstream client counters reset" } else { "no pool has counters to reset (demo mode)" };
    Ok(Json(json!({"success": done, "message": message})).into_response())
}
