//! The driver of one investigation: walks the processing phases, fans the analysis out to the
//! agents in parallel through the pool, merges their output and persists every event before
//! publishing it. The only writer of an investigation's state while it runs.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use chrono::Utc;
use futures::stream::FuturesUnordered;
use futures::{FutureExt, StreamExt};
use ractor::ActorRef;
use rustc_hash::FxHashSet;
use tokio::sync::{mpsc, watch};
use vigia_agents::agents::roster::COVERAGE;
use vigia_agents::model::report::Summary;
use vigia_agents::{AgentId, AgentOutput, Anomaly, CancelFlag, Dataset, DetectionParams, FindingsCache};

use super::analysis_cache::{AnalysisCache, Fingerprint, RunKey};
use super::dataset_facts::DatasetFacts;
use super::direct::run_job;
use super::emitter::{Emitter, RunKind};
use super::events::EventHub;
use super::host::Job;
use super::pool::PoolMsg;
use crate::domain::investigation::Results;
use crate::domain::ports::{DataProvider, InvestigationStore};
use crate::domain::{ErrorInfo, EventKind, Investigation, Phase, Status};

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
    fn new_job(&self) -> CancelFlag {
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

/// Anomalies, outputs in plan order (their anomalies taken into the first), failed agents
/// with why, agents answered from the cache.
type Analysis = (Vec<Arc<Anomaly>>, Vec<(AgentId, AgentOutput)>, Vec<(String, String)>, Vec<String>);

/// Runs every agent in parallel, streaming progress, anomalies and insights as agents finish.
async fn analyse(
    deps: &DriverDeps,
    em: &mut Emitter,
    control: &RunControl,
    (dataset, data, facts): (&Arc<Dataset>, Option<Fingerprint>, &DatasetFacts),
    params: &DetectionParams,
    agents: &[AgentId],
    question: &str,
) -> Analysis {
    let (progress_tx, mut progress_rx) = mpsc::unbounded_channel::<(usize, f32)>();
    let mut pending = FuturesUnordered::new();
    let mut cached = Vec::new();
    let mut failed: Vec<(String, String)> = Vec::new();
    // One run of each detector serves every agent that uses it.
    let findings = Arc::new(FindingsCache::new());
    let question: Arc<str> = Arc::from(question);
    let run_key = data.map(|d| Arc::new(RunKey::of(d, params)));
    for (idx, agent) in agents.iter().copied().enumerate() {
        if let Some(out) = run_key.as_ref().and_then(|k| deps.analyses.get(k, agent)) {
            cached.push(agent.as_str().to_string());
            pending.push(async move { (agent, Ok((*out).clone())) }.boxed());
            continue;
        }
        let tx = progress_tx.clone();
        let job = Job {
            dataset: dataset.clone(),
            params: params.clone(),
            cancel: control.new_job(),
            progress: Arc::new(move |f| {
                let _ = tx.send((idx, f));
            }),
            findings: findings.clone(),
            question: Some(question.clone()),
            record: None,
        };
        let (pool, calls, timeout) = (deps.pool.clone(), deps.calls.clone(), deps.analysis_timeout);
        // Each agent leases, analyses and returns its lease in its own future: under a cap
        // smaller than the plan, an agent waits for another's lease without holding one.
        let (analyses, run_key) = (deps.analyses.clone(), run_key.clone());
        pending.push(
            async move {
                let out = run_job(&pool, &calls, agent, job, timeout).await;
                if let (Ok(out), Some(k)) = (&out, run_key) {
                    analyses.put(&k, agent, out);
                }
                (agent, out)
            }
            .boxed(),
        );
    }
    drop(progress_tx);
    let mut fractions = vec![0f32; agents.len()];
    let mut last_pct = Phase::AgentAnalysis.start_percentage();
    // Ids hashed with Fx, as the agents hash the records they come from.
    let mut emitted: FxHashSet<ById> = FxHashSet::default();
    let mut anomalies = Vec::new();
    let mut outputs = Vec::new();
    while !pending.is_empty() {
        // An agent already finished is taken without waiting; queued progress goes out before
        // the run waits.
        let done = match pending.next().now_or_never() {
            Some(Some(done)) => done,
            _ => {
                em.emit_queued().await;
                tokio::select! {
                    Some((idx, f)) = progress_rx.recv() => {
                        fractions[idx] = f.clamp(0.0, 1.0);
                        let pct = agent_pct(&fractions);
                        if pct - last_pct >= 5.0 {
                            last_pct = pct;
                            em.progress(Phase::AgentAnalysis, pct, pending.len()).await;
                        }
                        continue;
                    }
                    Some(done) = pending.next() => done,
                }
            }
        };
        // What the agents that finished by now brought is persisted in one write:
        // their new anomalies, their insights and the progress each completes (agents
        // answered from the analysis cache all finish at once).
        let mut ready = vec![done];
        while let Some(Some(more)) = pending.next().now_or_never() {
            ready.push(more);
        }
        let mut events = Vec::new();
        let mut running = pending.len() + ready.len();
        for (agent, r) in ready {
            running -= 1;
            match r {
                Ok(mut out) => {
                    // The anomalies (shared, not copied) go into the results; the
                    // output keeps its insights and recommendations.
                    for a in std::mem::take(&mut out.anomalies) {
                        if emitted.insert(ById(a.clone())) {
                            events.extend(em.anomaly_event(&a.id, facts.found(dataset, &a)));
                            anomalies.push(a);
                        }
                    }
                    events.extend(out.insights.iter().map(|i| EventKind::Insight {
                        agent: i.agent.clone(),
                        message: i.insight.clone(),
                        confidence: i.confidence,
                    }));
                    outputs.push((agent, out));
                }
                Err(e) => failed.push((agent.as_str().into(), e.to_string())),
            }
            if let Some(i) = agents.iter().position(|a| *a == agent) {
                fractions[i] = 1.0;
            }
            let pct = agent_pct(&fractions);
            last_pct = pct;
            events.push(em.progress_event(Phase::AgentAnalysis, pct, running));
        }
        if pending.is_empty() {
            // The last agents' output: the run does not wait again before its end, so it goes
            // out with the terminal event, in the final write.
            em.queue(events);
        } else {
            em.emit_all(events).await;
        }
    }
    // Completion order is a race; plan order keeps results identical for identical input.
    outputs.sort_by_key(|(a, _)| agents.iter().position(|x| x == a));
    failed.sort();
    (anomalies, outputs, failed, cached)
}

/// A finding in a set of findings, known by its id (shared, not copied).
struct ById(Arc<Anomaly>);

impl PartialEq for ById {
    fn eq(&self, other: &Self) -> bool {
        self.0.id == other.0.id
    }
}

impl Eq for ById {}

impl std::hash::Hash for ById {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.id.hash(state);
    }
}

fn agent_pct(fractions: &[f32]) -> f64 {
    let mean = if fractions.is_empty() { 1.0 } else { fractions.iter().sum::<f32>() as f64 / fractions.len() as f64 };
    let (lo, hi) = (Phase::AgentAnalysis.start_percentage(), Phase::PatternDetection.start_percentage());
    lo + (hi - lo) * mean
}

/// Marks the end of a run in the log and metrics.
pub(crate) fn record_end(status: Status) {
    metrics::counter!("vigia_investigations_total", "status" => status.as_str()).increment(1);
    tracing::info!(status = status.as_str(), at = %Utc::now(), "investigation finished");
}
