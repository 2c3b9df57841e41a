//! Connection pools for administrators. This build keeps one: the upstream HTTP client's
//! (reqwest, per host; production mode only). The store is embedded (sled, in process), so it
//! has no connections; it is reported as such, with its measured response time. Pools this
//! build does not have (redis) are reported absent, never given figures.

use std::sync::Arc;
use std::time::Instant;

use crate::config::UpstreamConfig;
use crate::error::Result;
use crate::storage::Store;
use crate::upstream::Provider;
use crate::upstream::counters::ClientStats;

/// A pool health check.
#[derive(Debug, Clone)]
pub struct PoolHealth {
    /// `healthy`, `unhealthy` or `absent`.
    pub status: &'static str,
    /// How long the check took, in ms (`None` for an absent pool).
    pub response_time_ms: Option<f64>,
    /// Why, when unhealthy.
    pub error: Option<String>,
}

/// A recommendation from the counters.
#[derive(Debug, Clone)]
pub struct PoolAdvice {
    /// Pool it is about.
    pub pool: &'static str,
    /// Counter it is drawn from.
    pub metric: &'static str,
    /// What to change.
    pub action: String,
    /// Current value of the setting.
    pub current: String,
    /// Suggested value.
    pub suggested: String,
    /// The measured figures behind it.
    pub reason: String,
}

/// The pools facade.
pub struct PoolsService {
    store: Store,
    provider: Arc<Provider>,
    upstream: UpstreamConfig,
}

impl PoolsService {
    /// Builds the facade.
    pub fn new(store: Store, provider: Arc<Provider>, upstream: UpstreamConfig) -> Self {
        PoolsService { store, provider, upstream }
    }

    /// The upstream client's counters; `None` in demo mode (no client).
    pub fn upstream_stats(&self) -> Option<ClientStats> {
        self.provider.client_counters().map(|c| c.read())
    }

    /// The upstream settings the client was built with.
    pub fn upstream_config(&self) -> &UpstreamConfig {
        &self.upstream
    }

    /// Flushes the store has run.
    pub fn store_flushes(&self) -> u64 {
        self.store.flushes()
    }

    /// Checks the store (a read) and the upstream (one real request, production mode).
    pub async fn health(&self) -> (PoolHealth, PoolHealth) {
        let started = Instant::now();
        let store = match self.store.ping() {
            Ok(()) => PoolHealth { status: "healthy", response_time_ms: Some(ms(started)), error: None },
            Err(e) => {
                PoolHealth { status: "unhealthy", response_time_ms: Some(ms(started)), error: Some(e.to_string()) }
            }
        };
        let upstream = match self.provider.probe().await {
            None => PoolHealth { status: "absent", response_time_ms: None, error: None },
            Some(Ok(took)) => {
                PoolHealth { status: "healthy", response_time_ms: Some(took.as_secs_f64() * 1000.0), error: None }
            }
            Some(Err(e)) => PoolHealth { status: "unhealthy", response_time_ms: None, error: Some(e) },
        };
        (store, upstream)
    }

    /// Zeroes the upstream client's totals; false when there is no client.
    pub fn reset(&self) -> Result<bool> {
        match self.provider.client_counters() {
            Some(c) => {
                c.reset();
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// Advice drawn from the upstream client's counters (none without traffic).
    pub fn advice(&self) -> Result<Vec<PoolAdvice>> {
        let Some(s) = self.upstream_stats() else { return Ok(Vec::new()) };
        if s.requests == 0 {
            return Ok(Vec::new());
        }
        let mut out = Vec::new();
        let waited = s.waits as f64 / s.requests as f64;
        if waited > 0.1 {
            let rpm = self.upstream.requests_per_minute;
            out.push(PoolAdvice {
                pool: "upstream_http",
                metric: "wait_count",
                action: "raise upstream.requests_per_minute if the portal's quota for the key allows".into(),
                current: rpm.to_string(),
                suggested: rpm.saturating_mul(2).to_string(),
                reason: format!(
                    "{:.0}% of {} requests waited at the rate limit, {:.1} ms on average",
                    waited * 100.0,
                    s.requests,
                    s.avg_wait_ms.unwrap_or(0.0)
                ),
            });
        }
        let failed = s.failures as f64 / s.requests as f64;
        if failed > 0.05 {
            out.push(PoolAdvice {
                pool: "upstream_http",
                metric: "failures",
                action: "raise upstream.retries or upstream.timeout_secs".into(),
                current: format!("retries {}, timeout {} s", self.upstream.retries, self.upstream.timeout_secs),
                suggested: format!("retries {}", self.upstream.retries + 1),
                reason: format!("{} of {} requests failed", s.failures, s.requests),
            });
        }
        Ok(out)
    }
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1000.0
}
