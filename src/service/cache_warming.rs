//! Cache warming for administrators: fills this service's own caches before users ask.
//! Two caches can be warmed: the upstream response cache (`upstream_responses`, the Portal
//! client's bounded cache of pages, filled by fetching an investigation's data through the
//! same provider the analyses read) and the agent pool (`agent_pool`, agents spawned through
//! the runtime handle's `load`). Demo mode generates data per request and keeps no response
//! cache, so a query warm there reports 0 items and says why instead of pretending.
//!
//! Strategies, planned from the store and the runtime's figures at request time:
//! `popular_queries` (the most frequent queries of recent investigations, each warmed with the
//! newest such investigation's request, filters included), `recent_investigations` (the last
//! investigations' data requests) and `frequent_agents` (the agents with the most calls,
//! loaded least used first so the pool's LRU keeps the busiest). Totals across runs are kept
//! in the settings tree ([`SETTINGS_KEY`]), so they survive a restart.

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use vigia_agents::AgentId;

use super::admin::runtime_error;
use crate::domain::ports::{DataProvider, InvestigationStore};
use crate::domain::{DataSource, InvestigationHead, InvestigationRequest};
use crate::error::{Error, ErrorCode, Result};
use crate::runtime::RuntimeHandle;
use crate::storage::Store;
use crate::upstream::Provider;

#[path = "cache_warming_plan.rs"]
mod plan;

pub use plan::{
    AGENT_POOL, CacheType, MAX_KEYS, POPULAR_LIMIT, POPULAR_WINDOW_DAYS, RECENT_LIMIT, Strategy, UPSTREAM_CACHE,
};
use plan::{checked_keys, popular, query_request, recent, rename_field};

/// Name of the stored warming totals.
pub const SETTINGS_KEY: &str = "cache_warming";

const DEMO_MODE: &str = "demo mode: investigation data is generated per request and the provider keeps no \
                         response cache, so there is nothing to warm";

/// A strategy with its size now.
#[derive(Debug, Clone)]
pub struct StrategyInfo {
    /// The strategy.
    pub strategy: Strategy,
    /// Items a run would warm now (from the store and the runtime's statistics).
    pub estimated_items: usize,
    /// Why it would warm nothing, when it cannot in this mode.
    pub note: Option<&'static str>,
}

/// What one warming run did.
#[derive(Debug, Clone, Default)]
pub struct WarmReport {
    /// `upstream_responses` or `agent_pool`.
    pub cache_type: &'static str,
    /// Items tried.
    pub attempted: usize,
    /// Items warm after the run (fetched or loaded, or found already there).
    pub items_warmed: usize,
    /// Of those, items that were already in the cache.
    pub already_warm: usize,
    /// Items that failed, with why.
    pub failed: Vec<(String, String)>,
    /// Why nothing was tried (demo mode has no response cache).
    pub skipped: Option<&'static str>,
    /// Wall time.
    pub duration_ms: f64,
}

impl WarmReport {
    /// Whether the cache could be warmed and every item tried is warm.
    pub fn success(&self) -> bool {
        self.skipped.is_none() && self.failed.is_empty()
    }
}

/// Totals across runs.
#[derive(Debug, Clone, Default)]
pub struct WarmingStatus {
    /// Whether a run is under way.
    pub is_warming: bool,
    /// When the last run ended.
    pub last_warming: Option<DateTime<Utc>>,
    /// Runs so far.
    pub runs: u64,
    /// Items tried so far.
    pub total_attempted: u64,
    /// Items warmed so far.
    pub total_warmed: u64,
}

impl WarmingStatus {
    /// Items warmed over items tried; `None` before any item was tried.
    pub fn success_rate(&self) -> Option<f64> {
        (self.total_attempted > 0).then(|| self.total_warmed as f64 / self.total_attempted as f64)
    }
}

/// The stored totals.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Totals {
    runs: u64,
    attempted: u64,
    warmed: u64,
    last_warming: Option<DateTime<Utc>>,
}

/// The cache-warming facade.
pub struct CacheWarmingService {
    store: Store,
    data: Arc<dyn DataProvider>,
    provider: Arc<Provider>,
    runtime: RuntimeHandle,
    busy: AtomicBool,
    totals: Mutex<Totals>,
}

/// Marks a run under way; clears the mark when dropped (a run whose request was dropped too).
struct Running<'a>(&'a AtomicBool);

impl Drop for Running<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

impl CacheWarmingService {
    /// Builds the facade; the totals are read from the store.
    pub fn new(store: Store, data: Arc<dyn DataProvider>, provider: Arc<Provider>, runtime: RuntimeHandle) -> Self {
        let totals = store.setting::<Totals>(SETTINGS_KEY).unwrap_or_else(|e| {
            tracing::warn!(error = %e, "stored cache-warming totals unreadable; starting from zero");
            None
        });
        CacheWarmingService {
            store,
            data,
            provider,
            runtime,
            busy: AtomicBool::new(false),
            totals: Mutex::new(totals.unwrap_or_default()),
        }
    }

    /// Every strategy with the items it would warm now.
    pub async fn strategies(&self) -> Result<Vec<StrategyInfo>> {
        let mut out = Vec::new();
        for strategy in Strategy::ALL {
            let (estimated_items, note) = match strategy {
                Strategy::FrequentAgents => (self.frequent_agents().await?.len(), None),
                _ if !self.provider.production_mode() => (0, Some(DEMO_MODE)),
                _ => (self.chosen(strategy)?.len(), None),
            };
            out.push(StrategyInfo { strategy, estimated_items, note });
        }
        Ok(out)
    }

    /// Runs every strategy, one after the other (one run in the totals).
    pub async fn trigger(&self) -> Result<Vec<(Strategy, WarmReport)>> {
        let _running = self.begin()?;
        let mut out = Vec::new();
        for strategy in Strategy::ALL {
            out.push((strategy, self.run(strategy).await?));
        }
        self.record(out.iter().map(|(_, r)| r))?;
        Ok(out)
    }

    /// Runs one strategy by name (RESOURCE_NOT_FOUND for an unknown one).
    pub async fn run_strategy(&self, name: &str) -> Result<(Strategy, WarmReport)> {
        let strategy = Strategy::parse(name)?;
        let _running = self.begin()?;
        let report = self.run(strategy).await?;
        self.record([&report])?;
        Ok((strategy, report))
    }

    /// Warms the given keys: agent ids (`agents`) or query texts and organ codes (`queries`).
    pub async fn warm_specific(&self, keys: &[String], cache_type: &str) -> Result<WarmReport> {
        let kind = CacheType::parse(cache_type)?;
        let keys = checked_keys(keys)?;
        let report = match kind {
            CacheType::Agents => {
                let ids = keys
                    .iter()
                    .enumerate()
                    .map(|(i, k)| {
                        AgentId::parse(k).ok_or_else(|| {
                            Error::validation(&format!("cache_keys[{i}]"), format!("no agent is called '{k}'"))
                        })
                    })
                    .collect::<Result<Vec<_>>>()?;
                let _running = self.begin()?;
                self.load_agents(&ids).await
            }
            CacheType::Queries => {
                let requests = keys
                    .iter()
                    .enumerate()
                    .map(|(i, k)| query_request(k).map_err(|e| rename_field(e, &format!("cache_keys[{i}]"))))
                    .collect::<Result<Vec<_>>>()?;
                let _running = self.begin()?;
                self.fetch_all(requests).await
            }
        };
        self.record([&report])?;
        Ok(report)
    }

    /// Whether a run is under way and the totals across runs.
    pub fn status(&self) -> WarmingStatus {
        let t = self.totals.lock().unwrap_or_else(|p| p.into_inner()).clone();
        WarmingStatus {
            is_warming: self.busy.load(Ordering::Acquire),
            last_warming: t.last_warming,
            runs: t.runs,
            total_attempted: t.attempted,
            total_warmed: t.warmed,
        }
    }

    /// Claims the one run at a time; CONFLICT while another runs.
    fn begin(&self) -> Result<Running<'_>> {
        self.busy
            .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
            .map(|_| Running(&self.busy))
            .map_err(|_| Error::new(ErrorCode::Conflict, "a cache warming run is already under way; try again later"))
    }

    /// Adds a run (of one or more strategies) to the totals and stores them (durable with the
    /// request's commit).
    fn record<'a>(&self, reports: impl IntoIterator<Item = &'a WarmReport>) -> Result<()> {
        let snapshot = {
            let mut t = self.totals.lock().unwrap_or_else(|p| p.into_inner());
            t.runs += 1;
            for r in reports {
                t.attempted += r.attempted as u64;
                t.warmed += r.items_warmed as u64;
            }
            t.last_warming = Some(Utc::now());
            t.clone()
        };
        self.store.save_setting(SETTINGS_KEY, &snapshot).map_err(Error::internal)
    }

    async fn run(&self, strategy: Strategy) -> Result<WarmReport> {
        match strategy {
            Strategy::FrequentAgents => {
                let mut ids = self.frequent_agents().await?;
                // Least used first: the busiest are loaded last, so the pool's LRU keeps them.
                ids.reverse();
                Ok(self.load_agents(&ids).await)
            }
            _ if !self.provider.production_mode() => Ok(self.fetch_all(Vec::new()).await),
            _ => {
                let requests = self.chosen(strategy)?.iter().map(|h| self.request_of(h)).collect::<Result<_>>()?;
                Ok(self.fetch_all(requests).await)
            }
        }
    }

    /// The agents with calls, most calls first, as many as the pool may hold.
    async fn frequent_agents(&self) -> Result<Vec<AgentId>> {
        let cap = self.runtime.status().await.map_err(runtime_error)?.settings.max_loaded_agents;
        let mut ranked: Vec<(AgentId, u64)> = AgentId::ALL
            .iter()
            .filter(|id| self.runtime.is_implemented(**id))
            .map(|id| (*id, self.runtime.call_stats(*id).calls))
            .filter(|(_, calls)| *calls > 0)
            .collect();
        ranked.sort_by_key(|r| std::cmp::Reverse(r.1));
        Ok(ranked.into_iter().take(cap).map(|(id, _)| id).collect())
    }

    /// The investigations whose requests a query strategy fetches, from the heads in the
    /// store (their full records are read only when a run fetches them).
    fn chosen(&self, strategy: Strategy) -> Result<Vec<InvestigationHead>> {
        let heads = self.store.heads().map_err(Error::internal)?;
        let heads: Vec<&InvestigationHead> = heads
            .iter()
            .filter(|h| DataSource::parse(&h.data_source).is_some_and(|s| self.provider.supports(s)))
            .collect();
        let chosen = match strategy {
            Strategy::PopularQueries => popular(&heads, Utc::now() - Duration::days(POPULAR_WINDOW_DAYS)),
            _ => recent(&heads),
        };
        Ok(chosen.into_iter().cloned().collect())
    }

    /// An investigation's stored request; its head's query and source if the record is gone.
    fn request_of(&self, head: &InvestigationHead) -> Result<InvestigationRequest> {
        match InvestigationStore::get(&self.store, head.id).map_err(Error::internal)? {
            Some(inv) => Ok(inv.request),
            None => {
                let mut req = InvestigationRequest::new(head.query.clone());
                req.data_source = head.data_source.clone();
                Ok(req)
            }
        }
    }

    /// Fetches each request's data through the provider, one after the other (the upstream's
    /// token bucket spaces them anyway). A fetch that fell back to demo data left nothing in
    /// the cache: it counts as failed.
    async fn fetch_all(&self, requests: Vec<InvestigationRequest>) -> WarmReport {
        let started = Instant::now();
        let mut r = WarmReport { cache_type: UPSTREAM_CACHE, ..WarmReport::default() };
        if !self.provider.production_mode() {
            r.skipped = Some(DEMO_MODE);
            return r;
        }
        for req in requests {
            r.attempted += 1;
            match self.data.fetch(&req.data_query()).await {
                Ok(batch) => match batch.provenance.fallback_reason {
                    Some(reason) => r.failed.push((req.query, format!("the upstream failed: {reason}"))),
                    None => {
                        r.items_warmed += 1;
                        r.already_warm += usize::from(batch.provenance.cache_hit);
                    }
                },
                Err(e) => r.failed.push((req.query, e.to_string())),
            }
        }
        r.duration_ms = started.elapsed().as_secs_f64() * 1000.0;
        r
    }

    /// Loads each agent into the pool in order.
    async fn load_agents(&self, ids: &[AgentId]) -> WarmReport {
        let started = Instant::now();
        let mut r = WarmReport { cache_type: AGENT_POOL, ..WarmReport::default() };
        for id in ids {
            r.attempted += 1;
            if !self.runtime.is_implemented(*id) {
                r.failed.push((id.as_str().into(), "no analysis in this version".into()));
                continue;
            }
            match self.runtime.load(*id).await {
                Ok(load) => {
                    r.items_warmed += 1;
                    r.already_warm += usize::from(load.already_loaded);
                }
                Err(e) => r.failed.push((id.as_str().into(), runtime_error(e).message)),
            }
        }
        r.duration_ms = started.elapsed().as_secs_f64() * 1000.0;
        r
    }
}

#[cfg(test)]
#[path = "cache_warming_tests.rs"]
mod tests;
