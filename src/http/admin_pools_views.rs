//! How the admin connection-pool routes' answers look on the wire, as typed structs so the
//! OpenAPI document derives their schemas. A pool this deployment does not have (redis, the
//! upstream client in demo mode) is reported as [`Absent`].

use serde::Serialize;
use utoipa::ToSchema;

/// A pool this deployment does not have.
#[derive(Debug, Serialize, ToSchema)]
pub struct Absent {
    /// Always false.
    pub present: bool,
    /// Why.
    pub reason: &'static str,
}

impl Absent {
    /// Absent for `reason`.
    pub fn because(reason: &'static str) -> Absent {
        Absent { present: false, reason }
    }
}

/// A pool that may be absent.
#[derive(Debug, Serialize, ToSchema)]
#[serde(untagged)]
pub enum Slot<T> {
    /// The pool's figures.
    Present(T),
    /// Not in this deployment.
    Absent(Absent),
}

/// The store as a "pool": embedded, no connections.
#[derive(Debug, Serialize, ToSchema)]
pub struct StoreStats {
    /// Always true.
    pub present: bool,
    /// Always false: the store is embedded.
    pub pooled: bool,
    /// `sled (embedded, in process)`.
    pub engine: &'static str,
    /// Flushes since start.
    pub flushes: u64,
}

/// The upstream HTTP client's counters.
#[derive(Debug, Serialize, ToSchema)]
pub struct UpstreamStats {
    /// Always true.
    pub present: bool,
    /// Requests in flight.
    pub active: u64,
    /// Always null: reqwest does not expose its idle connections.
    pub idle: Option<u64>,
    /// Always null: the pool is unbounded per host.
    pub max_size: Option<u64>,
    /// Requests since start.
    pub total: u64,
    /// Failed requests.
    pub failures: u64,
    /// Requests that waited for the rate limit.
    pub wait_count: u64,
    /// Mean rate-limit wait.
    pub avg_wait_time_ms: Option<f64>,
    /// Mean request time.
    pub avg_request_time_ms: Option<f64>,
}

/// Every pool's counters.
#[derive(Debug, Serialize, ToSchema)]
pub struct PoolStats {
    /// The store.
    pub database: StoreStats,
    /// The upstream client.
    pub upstream_http: Slot<UpstreamStats>,
    /// Redis.
    pub redis: Absent,
}

/// One pool's measured health.
#[derive(Debug, Serialize, ToSchema)]
pub struct PoolHealthView {
    /// `healthy`, `degraded`, `unhealthy` or `absent`.
    pub status: &'static str,
    /// Probe time.
    pub response_time_ms: Option<f64>,
    /// What failed.
    pub error: Option<String>,
}

/// Each pool's health.
#[derive(Debug, Serialize, ToSchema)]
pub struct PoolsHealth {
    /// The store.
    pub database: PoolHealthView,
    /// The upstream client.
    pub upstream_http: PoolHealthView,
    /// Redis.
    pub redis: PoolHealthView,
}

/// Whether every pool is healthy.
#[derive(Debug, Serialize, ToSchema)]
pub struct HealthView {
    /// The store healthy and the upstream not unhealthy.
    pub healthy: bool,
    /// Each pool.
    pub pools: PoolsHealth,
}

/// The store's pool settings.
#[derive(Debug, Serialize, ToSchema)]
pub struct StoreConfig {
    /// Always true.
    pub present: bool,
    /// Always false.
    pub pooled: bool,
}

/// The upstream client's settings.
#[derive(Debug, Serialize, ToSchema)]
pub struct UpstreamConfigView {
    /// Always true.
    pub present: bool,
    /// Always 0.
    pub min_size: u32,
    /// Always null: unbounded per host.
    pub max_size: Option<u32>,
    /// Request timeout, seconds.
    pub timeout: f64,
    /// Rate limit.
    pub requests_per_minute: u32,
    /// Retries of a failed request.
    pub retries: u32,
}

/// Every pool's settings.
#[derive(Debug, Serialize, ToSchema)]
pub struct PoolConfig {
    /// The store.
    pub database: StoreConfig,
    /// The upstream client.
    pub upstream_http: Slot<UpstreamConfigView>,
    /// Redis.
    pub redis: Absent,
}

/// A setting to change.
#[derive(Debug, Serialize, ToSchema)]
pub struct PoolChange {
    /// Pool.
    pub pool: &'static str,
    /// What to change.
    pub action: String,
    /// Current value.
    pub current: String,
    /// Suggested value.
    pub suggested: String,
    /// The measured figures behind it.
    pub reason: String,
}

/// Settings to change.
#[derive(Debug, Serialize, ToSchema)]
pub struct PoolChanges {
    /// Each change.
    pub recommendations: Vec<PoolChange>,
}

/// A recommendation.
#[derive(Debug, Serialize, ToSchema)]
pub struct PoolRecommendation {
    /// `high` (failures) or `medium`.
    pub priority: &'static str,
    /// Pool.
    pub pool: &'static str,
    /// Counter it is drawn from.
    pub metric: &'static str,
    /// What to do.
    pub suggestion: String,
    /// The measured figures behind it.
    pub expected_improvement: String,
}

/// Recommendations.
#[derive(Debug, Serialize, ToSchema)]
pub struct PoolRecommendations {
    /// Each one.
    pub recommendations: Vec<PoolRecommendation>,
}

/// Counters reset.
#[derive(Debug, Serialize, ToSchema)]
pub struct ResetView {
    /// Whether any counters were reset.
    pub success: bool,
    /// What was reset.
    pub message: &'static str,
}
