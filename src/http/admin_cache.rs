//! Admin cache-warming routes under `/api/v1/admin/cache-warming`: trigger (every strategy),
//! warm-specific (named agents or queries), status (totals across runs), strategies (each
//! with the items it would warm now) and one strategy by name (an unknown name is 404
//! RESOURCE_NOT_FOUND). Every route needs an [`AdminUser`].

use axum::Json;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::routes;

use super::AppState;
use super::auth_extract::AdminUser;
use super::error::ApiError;
use super::extract::ApiJson;
use super::openapi::ApiRouter;
use super::views::ts;
use crate::service::cache_warming::{Strategy, WarmReport};

type ApiResult = Result<Response, ApiError>;

/// The cache-warming routes.
pub fn router() -> ApiRouter {
    ApiRouter::new()
        .routes(routes!(trigger))
        .routes(routes!(warm_specific))
        .routes(routes!(status))
        .routes(routes!(strategies))
        .routes(routes!(run_strategy))
}

/// `POST /warm-specific`'s body.
#[derive(Debug, Deserialize, ToSchema)]
pub struct WarmSpecificBody {
    /// Agent ids (`agents`) or query texts and 5-digit SIAFI organ codes (`queries`).
    pub cache_keys: Vec<String>,
    /// `agents` or `queries`.
    pub cache_type: String,
}

/// An item that could not be warmed.
#[derive(Debug, Serialize, ToSchema)]
pub struct FailedItem {
    /// The agent id or query.
    pub key: String,
    /// Why.
    pub reason: String,
}

/// What a warming run did.
#[derive(Debug, Serialize, ToSchema)]
pub struct WarmView {
    /// Whether the cache could be warmed and every item tried is warm.
    pub success: bool,
    /// `upstream_responses` or `agent_pool`.
    pub cache_type: &'static str,
    /// Items warm after the run.
    pub items_warmed: usize,
    /// Of those, items already in the cache before it.
    pub already_warm: usize,
    /// Items tried.
    pub attempted: usize,
    /// Items that failed.
    pub failed: Vec<FailedItem>,
    /// Why nothing was tried (demo mode keeps no response cache).
    pub reason: Option<&'static str>,
    /// Wall time.
    pub duration_ms: f64,
}

/// One strategy's run.
#[derive(Debug, Serialize, ToSchema)]
pub struct StrategyRun {
    /// The strategy.
    pub strategy: &'static str,
    /// The run.
    #[serde(flatten)]
    pub run: WarmView,
}

/// Every strategy's run.
#[derive(Debug, Serialize, ToSchema)]
pub struct TriggerView {
    /// Whether every strategy succeeded.
    pub success: bool,
    /// Items warm after the runs, all strategies.
    pub items_warmed: usize,
    /// The caches warmed (a strategy that could not run is left out).
    pub cache_types: Vec<&'static str>,
    /// Wall time of the runs.
    pub duration_ms: f64,
    /// Each strategy's run.
    pub strategies: Vec<StrategyRun>,
}

/// Totals across runs (kept in the store).
#[derive(Debug, Serialize, ToSchema)]
pub struct WarmingStatusView {
    /// Whether a run is under way.
    pub is_warming: bool,
    /// When the last run ended (RFC 3339), null before any.
    pub last_warming: Option<String>,
    /// Items warmed, all runs.
    pub total_warmed: u64,
    /// Items tried, all runs.
    pub total_attempted: u64,
    /// Runs.
    pub runs: u64,
    /// Items warmed over items tried, 0-1; null before any item was tried.
    pub success_rate: Option<f64>,
}

/// A strategy and its size now.
#[derive(Debug, Serialize, ToSchema)]
pub struct StrategyView {
    /// Its name (the path segment of `POST /strategies/{strategy}`).
    pub name: &'static str,
    /// What it does.
    pub description: String,
    /// The cache it fills.
    pub cache_type: &'static str,
    /// Items a run would warm now, from the store and the runtime's statistics.
    pub estimated_items: usize,
    /// Why it would warm nothing in this mode.
    pub note: Option<&'static str>,
}

/// Every strategy.
#[derive(Debug, Serialize, ToSchema)]
pub struct StrategyList {
    /// Each strategy.
    pub strategies: Vec<StrategyView>,
}

fn view(r: WarmReport) -> WarmView {
    WarmView {
        success: r.success(),
        cache_type: r.cache_type,
        items_warmed: r.items_warmed,
        already_warm: r.already_warm,
        attempted: r.attempted,
        failed: r.failed.into_iter().map(|(key, reason)| FailedItem { key, reason }).collect(),
        reason: r.skipped,
        duration_ms: r.duration_ms,
    }
}

fn strategy_run(strategy: Strategy, r: WarmReport) -> StrategyRun {
    StrategyRun { strategy: strategy.name(), run: view(r) }
}

#[utoipa::path(post, path = "/api/v1/admin/cache-warming/trigger", tag = "admin",  security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Every strategy run, one after the other", body = TriggerView),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
        (status = 409, description = "CONFLICT"),
    ))]
async fn trigger(State(st): State<AppState>, _: AdminUser) -> ApiResult {
    let runs = st.services.cache_warming.trigger().await?;
    let mut cache_types: Vec<&'static str> = Vec::new();
    for (_, r) in &runs {
        if r.skipped.is_none() && !cache_types.contains(&r.cache_type) {
            cache_types.push(r.cache_type);
        }
    }
    let strategies: Vec<StrategyRun> = runs.into_iter().map(|(s, r)| strategy_run(s, r)).collect();
    Ok(Json(TriggerView {
        success: strategies.iter().all(|s| s.run.success || s.run.reason.is_some()),
        items_warmed: strategies.iter().map(|s| s.run.items_warmed).sum(),
        cache_types,
        duration_ms: strategies.iter().map(|s| s.run.duration_ms).sum(),
        strategies,
    })
    .into_response())
}

#[utoipa::path(post, path = "/api/v1/admin/cache-warming/warm-specific", tag = "admin", request_body = WarmSpecificBody, security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "The named agents loaded or the named queries' data fetched", body = WarmView),
        (status = 400, description = "VALIDATION_ERROR"),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
        (status = 409, description = "CONFLICT"),
    ))]
async fn warm_specific(State(st): State<AppState>, _: AdminUser, ApiJson(b): ApiJson<WarmSpecificBody>) -> ApiResult {
    let r = st.services.cache_warming.warm_specific(&b.cache_keys, &b.cache_type).await?;
    Ok(Json(view(r)).into_response())
}

#[utoipa::path(get, path = "/api/v1/admin/cache-warming/status", tag = "admin",  security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Whether a run is under way and the totals across runs", body = WarmingStatusView),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
    ))]
async fn status(State(st): State<AppState>, _: AdminUser) -> ApiResult {
    let s = st.services.cache_warming.status();
    Ok(Json(WarmingStatusView {
        is_warming: s.is_warming,
        last_warming: s.last_warming.as_ref().map(ts),
        total_warmed: s.total_warmed,
        total_attempted: s.total_attempted,
        runs: s.runs,
        success_rate: s.success_rate(),
    })
    .into_response())
}

#[utoipa::path(get, path = "/api/v1/admin/cache-warming/strategies", tag = "admin",  security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Every strategy with the items it would warm now", body = StrategyList),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
    ))]
async fn strategies(State(st): State<AppState>, _: AdminUser) -> ApiResult {
    let list = st.services.cache_warming.strategies().await?;
    let strategies = list
        .into_iter()
        .map(|i| StrategyView {
            name: i.strategy.name(),
            description: i.strategy.description(),
            cache_type: i.strategy.cache_type(),
            estimated_items: i.estimated_items,
            note: i.note,
        })
        .collect();
    Ok(Json(StrategyList { strategies }).into_response())
}

#[utoipa::path(post, path = "/api/v1/admin/cache-warming/strategies/{strategy}", tag = "admin",
    params(("strategy" = String, Path, description = "popular_queries, recent_investigations or frequent_agents")),
    security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "The strategy's run", body = StrategyRun),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
        (status = 404, description = "RESOURCE_NOT_FOUND"),
        (status = 409, description = "CONFLICT"),
    ))]
async fn run_strategy(State(st): State<AppState>, _: AdminUser, Path(name): Path<String>) -> ApiResult {
    let (strategy, r) = st.services.cache_warming.run_strategy(&name).await?;
    Ok(Json(strategy_run(strategy, r)).into_response())
}
