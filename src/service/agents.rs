//! Direct agent calls: one agent over the data of an organ and period
//! (`/api/v1/agents/{name}/investigate`), the engine over records a client sends
//! (`/api/v1/anomalies/detect`), aggregations of an organ's contracts (`/api/v1/analyze/contracts`)
//! and every agent's state and call statistics (`/api/v1/agents/status`). Results of a call are
//! kept for the upstream cache's lifetime: a repeat answers from them with `cache_hit: true`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use serde::Serialize;
use vigia_agents::conversation::Senna;
use vigia_agents::model::report::Insight;
use vigia_agents::{AgentId, AgentOutput, Anomaly, Artifact, Dataset, DetectionParams, FindingsCache};

use super::admin::{resolve_agent, runtime_error};
use super::agent_request::AgentRequest;
use crate::domain::Principal;
use crate::domain::investigation::Provenance;
use crate::domain::ports::DataProvider;
use crate::error::{Error, ErrorCode, Result};
use crate::runtime::calls::CallStats;
use crate::runtime::{AgentCall, RuntimeHandle, work};

/// Audit records the security review reads at most (the newest).
const AUDIT_REVIEWED: usize = 20_000;
/// Results kept at most (oldest dropped first).
const CACHE_ENTRIES: usize = 512;
/// Anomalies listed in a direct call's answer (the count is always whole).
const LISTED: usize = 50;

/// The answer of a direct call.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct AgentAnswer {
    /// `completed`.
    pub status: &'static str,
    /// The agent's id.
    pub agent: String,
    /// Its display name.
    pub agent_name: String,
    /// Where the data came from (`portal_transparencia_api`, `demo_data`).
    pub source: String,
    /// When the data was fetched.
    #[schema(value_type = String, format = DateTime)]
    pub data_freshness: DateTime<Utc>,
    /// Contracts analysed.
    pub contracts_analyzed: usize,
    /// Records of every kind analysed.
    pub records_analyzed: usize,
    /// Anomalies found.
    pub anomalies_found: usize,
    /// Mean confidence of the findings (of the insights when there are none; 0 without either).
    pub confidence: f64,
    /// Whether this answer was served from the results of an identical recent call.
    pub cache_hit: bool,
    /// Wall time of the analysis, milliseconds (of the original call on a cache hit).
    pub execution_time_ms: u64,
    /// The most severe findings (at most 50): AnomalyResult objects (shared with the output
    /// and the answer cache).
    #[serde(serialize_with = "vigia_agents::model::report::shared_vec::serialize")]
    #[schema(value_type = Vec<Anomaly>)]
    pub anomalies: Vec<Arc<Anomaly>>,
    /// The agent's insights (`{agent, insight, confidence, supporting_evidence}`).
    pub insights: Vec<Insight>,
    /// What to do next.
    pub recommendations: Vec<String>,
    /// Reports, aggregations, plans.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub artifacts: Vec<Artifact>,
    /// True when the data is synthetic.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub demo_mode: bool,
    /// Says the data is synthetic, in demo mode.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

impl AgentAnswer {
    /// Builds the answer of `agent` from its output.
    pub fn new(agent: AgentId, out: AgentOutput, ds: &Dataset, provenance: &Provenance, elapsed: Duration) -> Self {
        let confidence = mean(out.anomalies.iter().map(|a| a.confidence))
            .or_else(|| mean(out.insights.iter().map(|i| i.confidence)))
            .unwrap_or(0.0);
        let mut anomalies = out.anomalies;
        vigia_agents::engine::sort(&mut anomalies);
        let found = anomalies.len();
        anomalies.truncate(LISTED);
        AgentAnswer {
            status: provenance.data_status(),
            agent: agent.as_str().into(),
            agent_name: agent.display_name().into(),
            source: provenance.source.clone(),
            data_freshness: provenance.fetched_at.unwrap_or_else(Utc::now),
            contracts_analyzed: ds.contracts.len(),
            records_analyzed: ds.len(),
            anomalies_found: found,
            confidence: (confidence * 1000.0).round() / 1000.0,
            cache_hit: false,
            execution_time_ms: elapsed.as_millis() as u64,
            anomalies,
            insights: out.insights,
            recommendations: out.recommendations,
            artifacts: out.artifacts,
            demo_mode: provenance.demo_mode,
            warning: provenance.warning(),
        }
    }
}

/// An audit record as the security auditor reads it.
fn security_event(e: crate::domain::AuditEntry) -> vigia_agents::model::security_log::SecurityEvent {
    let detail = (!e.details.is_empty()).then(|| serde_json::Value::Object(e.details.clone()).to_string());
    vigia_agents::model::security_log::SecurityEvent {
        timestamp: e.timestamp,
        actor: e.actor_email.clone().or_else(|| e.actor_id.map(|u| u.0.to_string())),
        action: e.action.clone(),
        outcome: if matches!(e.outcome, crate::domain::Outcome::Success) { "success" } else { "failure" }.into(),
        ip: e.address.clone(),
        detail,
    }
}

fn mean(xs: impl Iterator<Item = f64>) -> Option<f64> {
    let (n, sum) = xs.fold((0usize, 0.0), |(n, s), x| (n + 1, s + x));
    (n > 0).then(|| sum / n as f64)
}

/// One agent's state for `/api/v1/agents/status`.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct AgentState {
    /// Id.
    pub agent: String,
    /// Display name.
    pub name: String,
    /// What it does.
    pub role: String,
    /// Whether it can be loaded (its analysis exists).
    pub implemented: bool,
    /// Whether its actor is running now.
    pub loaded: bool,
    /// Analyses running on it now.
    pub in_flight: usize,
    /// Its measured memory, MiB (when loaded).
    pub memory_mb: Option<f64>,
    /// Seconds it still refuses work after repeated failures.
    pub unavailable_for_secs: Option<f64>,
    /// Calls, failures, latency, last activity.
    #[serde(flatten)]
    pub stats: CallStats,
}

/// The direct-call facade. Cheap to clone (the clones share the cache and the router).
#[derive(Clone)]
pub struct AgentService {
    runtime: RuntimeHandle,
    store: crate::storage::Store,
    provider: Arc<dyn DataProvider>,
    cache_ttl: Duration,
    cache: Arc<Mutex<HashMap<String, (Instant, AgentAnswer)>>>,
    /// The router (senna), trained once per process, shared with chat.
    pub senna: &'static Senna,
}

impl AgentService {
    /// Builds the facade; results are reused for `cache_ttl`.
    pub fn new(
        runtime: RuntimeHandle,
        store: crate::storage::Store,
        provider: Arc<dyn DataProvider>,
        cache_ttl: Duration,
    ) -> Self {
        AgentService {
            runtime,
            store,
            provider,
            cache_ttl,
            cache: Arc::default(),
            senna: vigia_agents::conversation::shared_senna(),
        }
    }

    /// The data a request names, filtered as an investigation filters it, with where it came
    /// from and the detection parameters the request asks for.
    pub async fn data(&self, req: &AgentRequest) -> Result<(Arc<Dataset>, Provenance, DetectionParams)> {
        let inv = req.to_investigation()?;
        let batch = self.provider.fetch(&inv.data_query()).await.map_err(|e| {
            Error::new(ErrorCode::InvalidDataSource, format!("no data could be collected: {e}"))
                .with("data_source", inv.source().as_str())
        })?;
        let params = inv.detection_params();
        Ok((inv.filters.apply_shared(batch.dataset), batch.provenance, params))
    }

    /// Runs `agent_name` over the data `req` names (or answers from an identical recent call).
    pub async fn investigate(
        &self,
        agent_name: &str,
        req: &AgentRequest,
        viewer: Option<&Principal>,
    ) -> Result<AgentAnswer> {
        self.investigate_as(resolve_agent(agent_name)?, req, viewer).await
    }

    /// [`AgentService::investigate`] for an agent already resolved. maria_quiteria reviews the
    /// service's own audit log, so only callers who may read it (admins) can call her.
    pub async fn investigate_as(
        &self,
        agent: AgentId,
        req: &AgentRequest,
        viewer: Option<&Principal>,
    ) -> Result<AgentAnswer> {
        if agent == AgentId::MariaQuiteria {
            return self.security_review(viewer).await;
        }
        let key = format!("{}|{}", agent.as_str(), serde_json::to_string(req).unwrap_or_default());
        if let Some(mut hit) = self.cached(&key) {
            hit.cache_hit = true;
            return Ok(hit);
        }
        let (dataset, provenance, params) = self.data(req).await?;
        let answer = self.run(agent, dataset, params, req.query.clone(), &provenance, None).await?;
        self.remember(key, answer.clone());
        Ok(answer)
    }

    /// maria_quiteria over the most recent audit records (never cached: the log grows).
    async fn security_review(&self, viewer: Option<&Principal>) -> Result<AgentAnswer> {
        let p = viewer.ok_or_else(crate::domain::user::unauthenticated)?;
        p.require(crate::domain::Permission::ViewAudit)?;
        let (entries, _) = self.store.audit_page(0, AUDIT_REVIEWED).map_err(Error::internal)?;
        let ds =
            Dataset { security_events: entries.into_iter().rev().map(security_event).collect(), ..Default::default() };
        let provenance = Provenance {
            source: "audit_log".into(),
            demo_mode: false,
            fetched_at: Some(Utc::now()),
            cache_hit: false,
            ..Provenance::default()
        };
        let params = DetectionParams::default();
        self.run(AgentId::MariaQuiteria, Arc::new(ds), params, None, &provenance, None).await
    }

    /// Runs one agent over `dataset` through the runtime.
    pub async fn run(
        &self,
        agent: AgentId,
        dataset: Arc<Dataset>,
        params: DetectionParams,
        question: Option<String>,
        provenance: &Provenance,
        findings: Option<Arc<FindingsCache>>,
    ) -> Result<AgentAnswer> {
        let started = Instant::now();
        let call = AgentCall { agent, dataset: dataset.clone(), params, question, findings, progress: None };
        let out = self.runtime.call_agent(call).await.map_err(runtime_error)?;
        Ok(AgentAnswer::new(agent, out, &dataset, provenance, started.elapsed()))
    }

    /// The engine over records a client sent (any shape `vigia detect` reads).
    pub async fn detect(&self, body: serde_json::Value, params: DetectionParams) -> Result<DetectAnswer> {
        let dataset = work::spawn_blocking(move || vigia_agents::model::records_text::records_from_value(&body))
            .await
            .map_err(Error::internal)?
            .map_err(|e| Error::validation("records", e.to_string()))?;
        if dataset.is_empty() {
            return Err(Error::validation("records", "no record of a known shape was found"));
        }
        let started = Instant::now();
        let records = dataset.len();
        let result = work::spawn_blocking(move || {
            vigia_agents::engine::analyse(&dataset, &params, &vigia_agents::CancelFlag::new())
        })
        .await
        .map_err(Error::internal)?
        .map_err(|e| Error::validation("records", e.to_string()))?;
        let (anomalies, summary) = result;
        Ok(DetectAnswer {
            records_analyzed: records,
            anomalies_found: anomalies.len(),
            summary,
            anomalies,
            execution_time_ms: started.elapsed().as_millis() as u64,
        })
    }

    /// Every agent of the roster with its state and statistics.
    pub async fn status(&self) -> Result<Vec<AgentState>> {
        let pool = self.runtime.status().await.map_err(runtime_error)?;
        Ok(AgentId::ALL
            .iter()
            .map(|&id| {
                let memory = pool.agents.iter().find(|m| m.name == id.as_str());
                let mut state = self.state_of(
                    id,
                    pool.implemented_agents.iter().any(|a| a == id.as_str()),
                    pool.loaded_agents.iter().any(|a| a == id.as_str()),
                    memory.map_or(0, |m| m.in_flight),
                    memory.map(|m| m.memory_mb),
                );
                state.unavailable_for_secs =
                    pool.unavailable_agents.iter().find(|(a, _)| a == id.as_str()).map(|(_, s)| *s);
                state
            })
            .collect())
    }

    /// One agent's state from figures the caller has (a pool status, or an activity event):
    /// its identity and call statistics added; no cool-down.
    pub(super) fn state_of(
        &self,
        id: AgentId,
        implemented: bool,
        loaded: bool,
        in_flight: usize,
        memory_mb: Option<f64>,
    ) -> AgentState {
        AgentState {
            agent: id.as_str().into(),
            name: id.display_name().into(),
            role: id.role().into(),
            implemented,
            loaded,
            in_flight,
            memory_mb,
            unavailable_for_secs: None,
            stats: self.runtime.call_stats(id),
        }
    }

    /// The runtime's pool activity from now on (see `agent_activity.rs`).
    pub(super) fn pool_events(&self) -> tokio::sync::broadcast::Receiver<crate::runtime::activity::PoolEvent> {
        self.runtime.pool_events()
    }

    fn cached(&self, key: &str) -> Option<AgentAnswer> {
        let cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        cache.get(key).filter(|(at, _)| at.elapsed() < self.cache_ttl).map(|(_, a)| a.clone())
    }

    fn remember(&self, key: String, answer: AgentAnswer) {
        let mut cache = self.cache.lock().unwrap_or_else(|p| p.into_inner());
        cache.retain(|_, (at, _)| at.elapsed() < self.cache_ttl);
        if cache.len() >= CACHE_ENTRIES
            && let Some(oldest) = cache.iter().min_by_key(|(_, (at, _))| *at).map(|(k, _)| k.clone())
        {
            cache.remove(&oldest);
        }
        cache.insert(key, (Instant::now(), answer));
    }
}

/// The answer of `/api/v1/anomalies/detect`.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct DetectAnswer {
    /// Records read from the body.
    pub records_analyzed: usize,
    /// Anomalies found.
    pub anomalies_found: usize,
    /// Counts by type and severity, risk score.
    pub summary: vigia_agents::model::report::Summary,
    /// The findings, most severe first: AnomalyResult objects.
    pub anomalies: Vec<Anomaly>,
    /// Wall time of the analysis, milliseconds.
    pub execution_time_ms: u64,
}
