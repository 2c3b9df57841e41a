//! Admin connection-pool routes under `/api/v1/admin/connection-pools`: stats, health,
//! config, optimize, reset-stats and recommendations. `upstream_http` is the upstream HTTP
//! client (present in production mode); `database` is the embedded store, which has no
//! connections; `redis` is absent from this build. Every route needs an [`AdminUser`].

use axum::extract::State;
use axum::response::{IntoResponse, Response};

use super::AppState;
use super::admin_pools_views::{
    Absent, HealthView, PoolChange, PoolChanges, PoolConfig, PoolHealthView, PoolRecommendation, PoolRecommendations,
    PoolStats, PoolsHealth, ResetView, Slot, StoreConfig, StoreStats, UpstreamConfigView, UpstreamStats,
};
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

const NO_REDIS: &str = "this build has no redis";
const DEMO: &str = "demo mode: no upstream client";

#[utoipa::path(get, path = "/api/v1/admin/connection-pools/stats", tag = "admin",  security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Upstream client counters and the store", body = PoolStats),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
    ))]
async fn stats(State(st): State<AppState>, _: AdminUser) -> ApiResult {
    let p = &st.services.pools;
    let upstream = match p.upstream_stats() {
        Some(s) => Slot::Present(UpstreamStats {
            present: true,
            active: s.active,
            // reqwest does not expose its idle connections or a pool size (unbounded per host).
            idle: None,
            max_size: None,
            total: s.requests,
            failures: s.failures,
            wait_count: s.waits,
            avg_wait_time_ms: s.avg_wait_ms,
            avg_request_time_ms: s.avg_request_ms,
        }),
        None => Slot::Absent(Absent::because(DEMO)),
    };
    let database =
        StoreStats { present: true, pooled: false, engine: "sled (embedded, in process)", flushes: p.store_flushes() };
    Ok(Json(PoolStats { database, upstream_http: upstream, redis: Absent::because(NO_REDIS) }).into_response())
}

fn health_view(h: &PoolHealth) -> PoolHealthView {
    PoolHealthView { status: h.status, response_time_ms: h.response_time_ms, error: h.error.clone() }
}

#[utoipa::path(get, path = "/api/v1/admin/connection-pools/health", tag = "admin",  security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Store and upstream health, measured", body = HealthView),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
    ))]
async fn health(State(st): State<AppState>, _: AdminUser) -> ApiResult {
    let (store, upstream) = st.services.pools.health().await;
    let healthy = store.status == "healthy" && upstream.status != "unhealthy";
    let pools = PoolsHealth {
        database: health_view(&store),
        upstream_http: health_view(&upstream),
        redis: PoolHealthView { status: "absent", response_time_ms: None, error: None },
    };
    Ok(Json(HealthView { healthy, pools }).into_response())
}

#[utoipa::path(get, path = "/api/v1/admin/connection-pools/config", tag = "admin",  security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Pool settings", body = PoolConfig),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
    ))]
async fn config(State(st): State<AppState>, _: AdminUser) -> ApiResult {
    let p = &st.services.pools;
    let u = p.upstream_config();
    let upstream = match p.upstream_stats() {
        Some(_) => Slot::Present(UpstreamConfigView {
            present: true,
            min_size: 0,
            max_size: None,
            timeout: u.timeout_secs,
            requests_per_minute: u.requests_per_minute,
            retries: u.retries,
        }),
        None => Slot::Absent(Absent::because(DEMO)),
    };
    let database = StoreConfig { present: true, pooled: false };
    Ok(Json(PoolConfig { database, upstream_http: upstream, redis: Absent::because(NO_REDIS) }).into_response())
}

#[utoipa::path(get, path = "/api/v1/admin/connection-pools/optimize", tag = "admin",  security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Advice from the counters", body = PoolChanges),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
    ))]
async fn optimize(State(st): State<AppState>, _: AdminUser) -> ApiResult {
    let recommendations = st
        .services
        .pools
        .advice()?
        .iter()
        .map(|a| PoolChange {
            pool: a.pool,
            action: a.action.clone(),
            current: a.current.clone(),
            suggested: a.suggested.clone(),
            reason: a.reason.clone(),
        })
        .collect();
    Ok(Json(PoolChanges { recommendations }).into_response())
}

#[utoipa::path(get, path = "/api/v1/admin/connection-pools/recommendations", tag = "admin",  security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Recommendations from the counters", body = PoolRecommendations),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
    ))]
async fn recommendations(State(st): State<AppState>, _: AdminUser) -> ApiResult {
    let recommendations = st
        .services
        .pools
        .advice()?
        .iter()
        .map(|a| PoolRecommendation {
            priority: if a.metric == "failures" { "high" } else { "medium" },
            pool: a.pool,
            metric: a.metric,
            suggestion: a.action.clone(),
            expected_improvement: a.reason.clone(),
        })
        .collect();
    Ok(Json(PoolRecommendations { recommendations }).into_response())
}

#[utoipa::path(post, path = "/api/v1/admin/connection-pools/reset-stats", tag = "admin",  security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Counters reset", body = ResetView),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
    ))]
async fn reset(State(st): State<AppState>, _: AdminUser) -> ApiResult {
    let done = st.services.pools.reset()?;
    let message = if done { "upstream client counters reset" } else { "no pool has counters to reset (demo mode)" };
    Ok(Json(ResetView { success: done, message }).into_response())
}
