//! The driver of one investigation: walks the processing phases, fans the analysis out to the
//! agents in parallel through the pool, merges their output and persists every event before
//! publishing it. The only writer of an investigation's state while it runs.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::Utc;
use ractor::ActorRef;
use tokio::sync::watch;
use vigia_agents::agents::roster::COVERAGE;
use vigia_agents::model::report::Summary;
use vigia_agents::{AgentId, Anomaly, CancelFlag, DetectionParams};

use super::analysis::analyse;
use super::analysis_cache::{AnalysisCache, Fingerprint};
use super::emitter::{Emitter, RunKind};
use super::events::EventHub;
use super::pool::PoolMsg;
use crate::domain::investigation::Results;
use crate::domain::ports::{DataProvider, InvestigationStore};
use crate::domain::{ErrorInfo, Investigation, Phase, Status};

/// What a driver needs; cloned into each run.
#[derive(Clone)]
pub(crate) struct DriverDeps {
    pub store: Arc<dyn InvestigationStore>,
    pub data: Arc<dyn DataProvider>,
    pub pool: ActorRef<PoolMsg>,
    pub hub: EventHub,
    pub min_records: usize,
    pub analysis_timeout: Duration,
    /// Agents whose analysis exists (the factory builds them).
    pub implemented: Vec<AgentId>,
    /// Durations of completed runs (for estimates).
    pub run_times: Arc<super::run_times::RunTimes>,
    /// Per-agent call statistics.
    pub calls: Arc<super::calls::AgentCalls>,
    /// Agent outputs of recent identical analyses.
    pub analyses: Arc<AnalysisCache>,
    /// What recent runs derived from their datasets, by dataset.
    pub facts: Arc<super::dataset_facts::KeptFacts>,
    /// How many runs are under way, as the orchestrator last counted them.
    pub running: Arc<std::sync::atomic::AtomicUsize>,
}

/// Cancellation of one run: the run-level flag (a client cancelled) and the per-agent job
/// flags (also set alone when shutdown abandons the run, so no status is written).
pub(crate) struct RunControl {
    cancelled: CancelFlag,
    signal: watch::Sender<bool>,
    jobs: Mutex<Vec<CancelFlag>>,
}

impl Default for RunControl {
    fn default() -> Self {
        RunControl { cancelled: CancelFlag::new(), signal: watch::channel(false).0, jobs: Mutex::new(Vec::new()) }
    }
}

impl RunControl {
    /// A client cancelled: stop everything.
    pub fn cancel(&self) {
        self.cancelled.cancel();
        self.signal.send_replace(true);
        self.abort_jobs();
    }
    /// Resolves once a client cancelled.
    async fn wait_cancelled(&self) {
        let mut rx = self.signal.subscribe();
        let _ = rx.wait_for(|c| *c).await;
    }
    /// Stop the agents' work only (shutdown).
    pub fn abort_jobs(&self) {
        self.jobs.lock().unwrap_or_else(|p| p.into_inner()).iter().for_each(CancelFlag::cancel);
    }
    pub(super) fn new_job(&self) -> CancelFlag {
        let flag = CancelFlag::new();
        if self.cancelled.is_cancelled() {
            flag.cancel();
        }
        self.jobs.lock().unwrap_or_else(|p| p.into_inner()).push(flag.clone());
        flag
    }
}

enum Outcome {
    Done(Box<Results>),
    Cancelled(Option<Box<Results>>),
    Failed(ErrorInfo),
}

/// Which agents analyse an investigation: the implemented ones whose analyses cover a wanted
/// type, in a fixed order (so results are identical for identical input).
pub(crate) fn plan(params: &DetectionParams, implemented: &[AgentId]) -> Vec<AgentId> {
    COVERAGE
        .iter()
        .filter(|(id, types)| implemented.contains(id) && types.iter().any(|t| params.wants(*t)))
        .map(|(id, _)| *id)
        .collect()
}

/// Runs one investigation to its end and writes the final state.
pub(crate) async fn run(deps: DriverDeps, inv: Investigation, kind: RunKind, control: Arc<RunControl>) {
    let id = inv.id;
    deps.hub.begin(id);
    let mut em = Emitter::new(deps.store.clone(), deps.hub.clone(), inv, kind);
    let started = std::time::Instant::now();
    let outcome = drive(&deps, &mut em, &control, started).await;
    let (status, results, error) = outcome_parts(outcome);
    if status.has_results() {
        deps.run_times.record(started.elapsed().as_secs_f64());
    }
    em.finish((status, results, error)).await;
    deps.hub.close(id);
}

fn outcome_parts(o: Outcome) -> (Status, Option<Box<Results>>, Option<ErrorInfo>) {
    match o {
        // The spec's states end in `completed` even over fallback data; the results' and the
        // status view's metadata say `data_status: completed_fallback` (Provenance::data_status).
        Outcome::Done(r) => (Status::Completed, Some(r), None),
        Outcome::Cancelled(r) => (Status::Cancelled, r, None),
        Outcome::Failed(e) => (Status::Failed, None, Some(e)),
    }
}

fn failed(code: &str, message: String, recoverable: bool) -> Outcome {
    Outcome::Failed(ErrorInfo { code: code.into(), message, recoverable, details: Default::default() })
}

async fn drive(deps: &DriverDeps, em: &mut Emitter, control: &RunControl, started: std::time::Instant) -> Outcome {
    // Data already at hand (a dataset generated or fetched before) takes no time: the first
    // phases' progress then goes out with the next step's, in its write. Otherwise it goes out
    // before the run waits for the data.
    em.queue_phases(&[Phase::Initialization, Phase::DataCollection]);
    let req = em.inv().request.clone();
    let query = req.data_query();
    let mut fetch = std::pin::pin!(deps.data.fetch(&query));
    let fetched = match futures::poll!(fetch.as_mut()) {
        std::task::Poll::Ready(r) => r,
        std::task::Poll::Pending => {
            em.emit_queued().await;
            tokio::select! {
                r = fetch => r,
                _ = control.wait_cancelled() => return Outcome::Cancelled(None),
            }
        }
    };
    let batch = match fetched {
        Ok(b) => b,
        Err(e) => return failed("DATA_UNAVAILABLE", format!("no data could be collected: {e}"), true),
    };
    let provenance = batch.provenance;
    // Records named by a content key are fingerprinted by that key and the filters, so the
    // filtered dataset and the agents' outputs over it are shared by the runs that ask alike.
    let keyed = provenance.content_key.as_deref().and_then(|key| Fingerprint::of_key(key, &req.filters));
    let (analyses, filters, records) = (deps.analyses.clone(), req.filters.clone(), batch.dataset);
    let preprocess = move || {
        let dataset = analyses.filtered(keyed, || filters.apply_shared(records));
        let data = keyed.or_else(|| Fingerprint::of(&dataset));
        (dataset, data)
    };
    // A filtered dataset already shared takes no preprocessing: its progress goes out with the
    // next step's. Otherwise filtering and fingerprinting (a long computation over many
    // records) run on the lowered analysis threads, not on the turns' threads.
    let (dataset, data) = match deps.analyses.kept_filtered(keyed) {
        Some(kept) => {
            em.queue_phases(&[Phase::Preprocessing]);
            (kept, keyed)
        }
        None => {
            em.phase(Phase::Preprocessing, 0).await;
            match super::work::spawn_blocking(preprocess).await {
                Ok(prepared) => prepared,
                Err(e) => return failed("INTERNAL_ERROR", format!("preprocessing failed: {e}"), true),
            }
        }
    };
    em.inv_mut().progress.records_processed = dataset.len();
    let found = dataset.spending_len();
    if found < deps.min_records {
        let mut e = ErrorInfo {
            code: "INSUFFICIENT_DATA".into(),
            message: format!("{found} spending records match the request; at least {} are needed", deps.min_records),
            recoverable: true,
            details: Default::default(),
        };
        e.details.insert("records_found".into(), found.into());
        e.details.insert("minimum_required".into(), deps.min_records.into());
        e.details
            .insert("suggestion".into(), "widen the date range, remove value filters or name another organ".into());
        return Outcome::Failed(e);
    }
    let facts = deps.facts.of(&dataset);
    let params = em.inv().params.clone();
    let agents = plan(&params, &deps.implemented);
    em.inv_mut().progress.agents_invoked = agents.len();
    // Queued: it goes out with the first findings when the analysis cache answers every agent
    // at once, else before the run waits for an agent.
    em.queue_phase(Phase::AgentAnalysis, agents.len());
    let analysis = analyse(deps, em, control, (&dataset, data, &facts), &params, &agents, &req.query).await;
    let (mut anomalies, outputs, agents_failed, agents_cached) = analysis;
    let agents_used: Vec<String> = outputs.iter().map(|(a, _)| a.as_str().to_string()).collect();
    let mut insights = Vec::new();
    let mut recommendations: Vec<String> = Vec::new();
    for (_, out) in outputs {
        insights.extend(out.insights);
        for r in out.recommendations {
            if !recommendations.contains(&r) {
                recommendations.push(r);
            }
        }
    }
    let partial = |anomalies: Vec<Arc<Anomaly>>, insights, recommendations, agents_used, agents_failed| Results {
        agents_cached: agents_cached.clone(),
        summary: Summary::of(&anomalies),
        anomalies,
        insights,
        recommendations,
        agents_used,
        agents_failed,
        records_analyzed: dataset.len(),
        execution_time_ms: started.elapsed().as_millis() as u64,
        provenance: provenance.clone(),
        top_suppliers: facts.top_suppliers.clone(),
    };
    if control.cancelled.is_cancelled() {
        let any = !agents_used.is_empty();
        return Outcome::Cancelled(
            any.then(|| Box::new(partial(anomalies, insights, recommendations, agents_used, agents_failed))),
        );
    }
    if agents_used.is_empty() && !agents.is_empty() {
        let why: Vec<String> = agents_failed.iter().map(|(a, e)| format!("{a}: {e}")).collect();
        return failed("AGENTS_FAILED", format!("every agent failed ({})", why.join("; ")), true);
    }
    // Most severe first, then most money at stake (each looked up once), then by id.
    vigia_agents::engine::sort(&mut anomalies);
    if let Some(max) = req.max_results {
        anomalies.truncate(max as usize);
    }
    let results = partial(anomalies, insights, recommendations, agents_used, agents_failed);
    // Ranking, aggregation and the report take no time of their own: their progress is
    // written with the terminal event, in the final write.
    em.queue_phases(&[Phase::PatternDetection, Phase::ResultAggregation, Phase::ReportGeneration]);
    Outcome::Done(Box::new(results))
}

/// Marks the end of a run in the log and metrics.
pub(crate) fn record_end(status: Status) {
    metrics::counter!("vigia_investigations_total", "status" => status.as_str()).increment(1);
    tracing::info!(status = status.as_str(), at = %Utc::now(), "investigation finished");
}
