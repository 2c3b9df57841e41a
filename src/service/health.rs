//! Health: liveness, readiness and a detailed report of the store, the runtime, the upstream
//! mode and the federal sources (IBGE, PNCP, DataSUS, INEP) as their clients measured them.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use serde::Serialize;
use serde_json::{Value, json};

use crate::runtime::{RuntimeHandle, memory};
use crate::storage::Store;
use crate::upstream::Provider;
use crate::upstream::federal::FederalSources;

/// The detailed health report.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct Detailed {
    /// `healthy` when every component is, else `degraded`.
    pub status: &'static str,
    /// Crate version.
    pub version: &'static str,
    /// Seconds since start.
    pub uptime_seconds: f64,
    /// Per component: `{status, ...}`.
    #[schema(value_type = Object)]
    pub components: Value,
}

/// The health facade.
pub struct HealthService {
    store: Store,
    runtime: RuntimeHandle,
    provider: Arc<Provider>,
    federal: Option<FederalSources>,
    started: Instant,
    ready: AtomicBool,
}

impl HealthService {
    /// Builds the facade; not ready until [`HealthService::mark_ready`].
    pub fn new(store: Store, runtime: RuntimeHandle, provider: Arc<Provider>) -> Self {
        HealthService {
            store,
            runtime,
            provider,
            federal: None,
            started: Instant::now(),
            ready: AtomicBool::new(false),
        }
    }

    /// Reports the federal sources' clients (production mode; `None`: demo mode).
    pub fn with_federal(mut self, federal: Option<FederalSources>) -> Self {
        self.federal = federal;
        self
    }

    /// The federal sources: each client's mode, host, last success, last error class and
    /// cache, from its own counters (no probe: these sources are reached only when a route
    /// asks). `degraded` while a source's last request failed.
    fn federal(&self) -> Value {
        match &self.federal {
            Some(f) => {
                let sources = f.health();
                let failing = sources.iter().any(|s| s.status != "healthy");
                json!({"status": if failing { "degraded" } else { "healthy" }, "mode": "production", "sources": sources})
            }
            None => {
                let demo = |name: &str, served_by: &str| json!({"name": name, "status": "healthy", "mode": "demo", "served_by": served_by});
                json!({"status": "healthy", "mode": "demo", "sources": [
                    demo("ibge", "the offline IBGE table (states with population, municipalities)"),
                    demo("pncp", "demo contracts in PNCP's shape, generated once per period"),
                    demo("datasus", "the offline IBGE table's places, without establishment figures"),
                    demo("inep", "nothing: there is no offline catalogue"),
                ]})
            }
        }
    }

    /// Called once the listener accepts work.
    pub fn mark_ready(&self) {
        self.ready.store(true, Ordering::Release);
    }

    /// Called when shutdown begins.
    pub fn mark_not_ready(&self) {
        self.ready.store(false, Ordering::Release);
    }

    /// Whether the server accepts work.
    pub fn is_ready(&self) -> bool {
        self.ready.load(Ordering::Acquire)
    }

    /// Seconds since start.
    pub fn uptime(&self) -> f64 {
        self.started.elapsed().as_secs_f64()
    }

    /// Checks every component.
    pub async fn detailed(&self) -> Detailed {
        let store = match self.store.ping() {
            Ok(()) => json!({"status": "healthy", "engine": "sled", "size_on_disk_bytes": self.store.size_on_disk()}),
            Err(e) => {
                tracing::error!(error = %e, "store health check failed");
                json!({"status": "unhealthy", "engine": "sled"})
            }
        };
        let runtime = match (self.runtime.status().await, self.runtime.running().await) {
            (Ok(s), Ok(running)) => json!({
                "status": "healthy",
                "loaded_agents": s.loaded_agents,
                "implemented_agents": s.implemented_agents,
                "unavailable_agents": s.unavailable_agents,
                "investigations_running": running,
            }),
            _ => json!({"status": "unhealthy"}),
        };
        let upstream = match self.provider.probe().await {
            None => json!({
                "status": "healthy",
                "mode": "demo",
                "source": "demo_data",
                "api_key_configured": false,
                "checked": "demo data is generated in process; there is no upstream to reach",
            }),
            Some(Ok(latency)) => json!({
                "status": "healthy",
                "mode": "production",
                "source": "portal_transparencia_api",
                "api_key_configured": true,
                "latency_ms": (latency.as_secs_f64() * 1000.0 * 10.0).round() / 10.0,
                "cache": self.provider.cache_size().map(|(pages, bytes)| json!({"pages": pages, "bytes": bytes})),
            }),
            Some(Err(why)) => {
                tracing::warn!(error = %why, "upstream health check failed");
                json!({
                    "status": "unhealthy",
                    "mode": "production",
                    "source": "portal_transparencia_api",
                    "api_key_configured": true,
                    "error": why,
                    "fallback": "investigations use demo data and say so (completed_fallback)",
                })
            }
        };
        let mut upstream = upstream;
        if self.provider.production_mode()
            && let Some(u) = upstream.as_object_mut()
        {
            let (held, refreshed_at) = self.provider.sanctions_state();
            u.insert("last_error_class".into(), json!(self.provider.last_error_class()));
            u.insert("sanctions".into(), json!({"records": held, "refreshed_at": refreshed_at}));
            let ((siafi, siape), read_at) = self.provider.organ_codes_state();
            u.insert("organ_codes".into(), json!({"siafi": siafi, "siape": siape, "refreshed_at": read_at}));
            let registry = match self.provider.registry_state() {
                Some((source, kept)) => json!({"configured": true, "source": source, "answers_kept": kept}),
                None => json!({"configured": false}),
            };
            u.insert("registry".into(), registry);
        }
        let process = json!({
            "status": "healthy",
            "rss_mb": memory::rss_bytes().map(|b| memory::to_mb(b as i64)),
            "heap_mb": memory::to_mb(memory::heap_bytes()),
        });
        let federal = self.federal();
        let all_ok = [&store, &runtime, &upstream, &federal].iter().all(|c| c["status"] == "healthy");
        Detailed {
            status: if all_ok { "healthy" } else { "degraded" },
            version: env!("CARGO_PKG_VERSION"),
            uptime_seconds: self.uptime(),
            components: json!({"store": store, "runtime": runtime, "upstream": upstream, "federal": federal,
                "process": process}),
        }
    }
}
