//! The actor runtime; ractor lives here and nowhere else. `RuntimeHandle` is the typed,
//! timed, `Result`-returning face the service layer uses; nobody outside holds an `ActorRef`.
//!
//! ```text
//! RuntimeHandle
//! ├── Orchestrator       Start / Cancel / Finished / Drain; one driver task per run
//! └── AgentPool          the single owner of agent lifecycles
//!     └── AgentHost<id>  spawned on first use (linked), reaped after idle time
//! ```

pub mod activity;
mod analysis;
mod analysis_cache;
pub mod calls;
mod dataset_facts;
mod direct;
mod driver;
mod emitter;
mod events;
mod host;
mod lease;
pub mod memory;
mod orchestrator;
mod pool;
mod pool_state;
pub mod reports;
pub mod run_times;
mod shutdown;
pub mod work;

use std::sync::Arc;
use std::time::Duration;

use ractor::rpc::CallResult;
use ractor::{Actor, ActorRef};
use vigia_agents::{AgentId, AgentOutput, CancelFlag, Dataset, DetectionParams, FindingsCache};

use driver::DriverDeps;
pub use emitter::{RunKind, SEQ_BLOCK};
pub use events::{EventHub, Subscription};
pub use host::AgentFactory;
use orchestrator::{OrchMsg, Orchestrator};
use pool::{AgentPool, PoolArgs, PoolMsg};
use reports::*;
pub use shutdown::{ShutdownSignal, ShutdownTrigger, shutdown_channel};

use crate::config::AgentsConfig;
use crate::domain::ports::{DataProvider, InvestigationStore};
use crate::domain::{Investigation, InvestigationId};

/// Runtime failures, as the service layer sees them.
#[derive(Debug, Clone, thiserror::Error)]
pub enum RuntimeError {
    /// The agent cannot run now.
    #[error("agent {agent} is unavailable (retry in {retry_after_secs:.0} s)")]
    AgentUnavailable {
        /// Which agent.
        agent: AgentId,
        /// Seconds until it may be tried again (0 = not implemented or failed to start).
        retry_after_secs: f64,
    },
    /// No slot under `max_loaded_agents` became free in time.
    #[error("no agent slot became free in time for {0} (max_loaded_agents)")]
    NoSlot(AgentId),
    /// The analysis ran and failed (error, timeout, panic); the text is safe to show.
    #[error("agent {agent} failed: {message}")]
    AnalysisFailed {
        /// Which agent.
        agent: AgentId,
        /// What went wrong.
        message: String,
    },
    /// The analysis was cancelled (the caller went away or the server is stopping).
    #[error("the analysis was cancelled")]
    Cancelled,
    /// An actor did not answer in time or is gone (shutdown).
    #[error("runtime did not answer: {0}")]
    NoAnswer(&'static str),
}

impl RuntimeError {
    fn logged(self, cause: &dyn std::fmt::Display) -> Self {
        tracing::warn!(error = %cause, "{self}");
        self
    }
}

/// How long an administrative call to an actor may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(10);

/// The typed handle to the runtime. Cheap to clone.
#[derive(Clone)]
pub struct RuntimeHandle {
    pool: ActorRef<PoolMsg>,
    orchestrator: ActorRef<OrchMsg>,
    hub: EventHub,
    factory: AgentFactory,
    store: Arc<dyn InvestigationStore>,
    run_times: Arc<run_times::RunTimes>,
    calls: Arc<calls::AgentCalls>,
    analysis_timeout: Duration,
    events: activity::PoolEvents,
    /// How many runs are under way, as the orchestrator last counted them.
    running: Arc<std::sync::atomic::AtomicUsize>,
}

/// Everything the runtime is built from.
pub struct RuntimeDeps {
    /// Durable investigations.
    pub store: Arc<dyn InvestigationStore>,
    /// Data for investigations.
    pub data: Arc<dyn DataProvider>,
    /// Builds agents (the real registry in production, test doubles in tests).
    pub factory: AgentFactory,
    /// `[agents]` settings.
    pub agents: AgentsConfig,
    /// Fewer records fail a run with INSUFFICIENT_DATA.
    pub min_records: usize,
}

/// One direct agent call.
pub struct AgentCall {
    /// Which agent.
    pub agent: AgentId,
    /// What it analyses.
    pub dataset: Arc<Dataset>,
    /// Sensitivity and the types asked for.
    pub params: DetectionParams,
    /// The user's question, if any.
    pub question: Option<String>,
    /// Detector results shared with other calls on the same dataset (a plan's steps).
    pub findings: Option<Arc<FindingsCache>>,
    /// Progress reports, 0 to 1.
    pub progress: Option<Arc<dyn Fn(f32) + Send + Sync>>,
}

/// Cancels an analysis when its caller's future is dropped.
struct CancelOnDrop(CancelFlag);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

/// The real agents of the `vigia-agents` crate.
pub fn default_factory() -> AgentFactory {
    Arc::new(vigia_agents::instantiate)
}

async fn call<M, T>(
    actor: &ActorRef<M>,
    what: &'static str,
    msg: impl FnOnce(ractor::RpcReplyPort<T>) -> M,
) -> Result<T, RuntimeError>
where
    M: ractor::Message,
    T: Send + 'static,
{
    match actor.call(msg, Some(CALL_TIMEOUT)).await {
        Ok(CallResult::Success(v)) => Ok(v),
        _ => Err(RuntimeError::NoAnswer(what)),
    }
}

impl RuntimeHandle {
    /// Starts the pool and the orchestrator.
    pub async fn start(deps: RuntimeDeps) -> Result<RuntimeHandle, ractor::SpawnErr> {
        let settings = PoolSettings {
            unload_after_minutes: deps.agents.unload_after_minutes,
            max_loaded_agents: deps.agents.max_loaded_agents,
            preload_agents: Vec::new(),
        };
        let args = PoolArgs {
            factory: deps.factory.clone(),
            settings,
            max_failures: deps.agents.max_failures,
            failure_window: Duration::from_secs_f64(deps.agents.failure_window_secs),
            unavailable_for: Duration::from_secs_f64(deps.agents.unavailable_secs),
            events: activity::PoolEvents::default(),
        };
        let events = args.events.clone();
        let (pool, _) = Actor::spawn(None, AgentPool, args).await?;
        let hub = EventHub::default();
        let store = deps.store.clone();
        let run_times = Arc::new(run_times::RunTimes::default());
        let calls = Arc::new(calls::AgentCalls::default());
        let analysis_timeout = Duration::from_secs_f64(deps.agents.analysis_timeout_secs);
        let driver = DriverDeps {
            calls: calls.clone(),
            run_times: run_times.clone(),
            store: deps.store,
            data: deps.data,
            pool: pool.clone(),
            hub: hub.clone(),
            min_records: deps.min_records,
            analysis_timeout,
            implemented: pool::implemented(&deps.factory),
            analyses: Arc::new(analysis_cache::AnalysisCache::new(Duration::from_secs(
                deps.agents.analysis_cache_ttl_secs,
            ))),
            facts: Arc::default(),
            running: Arc::default(),
        };
        let running = driver.running.clone();
        let (orchestrator, _) = Actor::spawn(None, Orchestrator, driver).await?;
        Ok(RuntimeHandle {
            pool,
            orchestrator,
            hub,
            factory: deps.factory,
            store,
            run_times,
            calls,
            analysis_timeout,
            events,
            running,
        })
    }

    /// Starts running an investigation already saved as `processing`: a fresh one (its first
    /// [`SEQ_BLOCK`] event numbers reserved by the caller before the save), or one
    /// resumed after an interruption. `false` when the runtime is draining or the
    /// investigation already runs.
    pub async fn start_investigation(&self, inv: Investigation, kind: RunKind) -> Result<bool, RuntimeError> {
        call(&self.orchestrator, "orchestrator", |r| OrchMsg::Start(Box::new(inv), kind, r)).await
    }

    /// Cancels a running investigation; resolves when it has stopped (or after `wait`).
    /// `false` when it was not running here.
    pub async fn cancel_investigation(&self, id: InvestigationId, wait: Duration) -> Result<bool, RuntimeError> {
        let Some(mut done) = call(&self.orchestrator, "orchestrator", |r| OrchMsg::Cancel(id, r)).await? else {
            return Ok(false);
        };
        let _ = tokio::time::timeout(wait, done.wait_for(|d| *d)).await;
        Ok(true)
    }

    /// Ends, as cancelled, an investigation that is not running here (saved but never started,
    /// or waiting for a restart): its terminal event is stored and published, so every stream
    /// on it ends, and the final state is durable. Answers the final state.
    pub async fn cancel_idle(&self, inv: Investigation) -> Investigation {
        let id = inv.id;
        let mut em = emitter::Emitter::new(self.store.clone(), self.hub.clone(), inv, RunKind::Resumed);
        em.finish((crate::domain::Status::Cancelled, None, None)).await;
        self.hub.close(id);
        em.inv().clone()
    }

    /// Records how long a completed run took (the store's history, read at start).
    pub fn record_run_time(&self, secs: f64) {
        self.run_times.record(secs);
    }

    /// The median duration of recent completed runs, in seconds; `None` before any.
    pub fn typical_run_secs(&self) -> Option<f64> {
        self.run_times.median()
    }

    /// Investigations running now.
    pub async fn running(&self) -> Result<usize, RuntimeError> {
        call(&self.orchestrator, "orchestrator", OrchMsg::Running).await
    }

    /// How many runs are under way, as the orchestrator last counted them, without asking it
    /// (an investigation's admission reads it; [`RuntimeHandle::running`] also proves the
    /// orchestrator answers).
    pub fn running_now(&self) -> usize {
        self.running.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Live events of an investigation.
    pub fn subscribe(&self, id: InvestigationId) -> events::Subscription {
        self.hub.subscribe(id)
    }

    /// Live events of an investigation, watched by its starter: while the starter is the only
    /// subscriber, the run does not flush its end before telling it (the starter makes the end
    /// durable with its own answer).
    pub fn subscribe_as_starter(&self, id: InvestigationId) -> events::Subscription {
        self.hub.subscribe_as_starter(id)
    }

    /// The results the run of `id` completed with, handed to the starter watching it (once).
    pub fn take_handed(&self, id: InvestigationId) -> Option<Box<crate::domain::investigation::Results>> {
        self.hub.take_handed(id)
    }

    /// The pool's activity from now on: loads, unloads (with why) and analyses started and
    /// finished, each as it happens. A receiver that falls behind gets `RecvError::Lagged`.
    pub fn pool_events(&self) -> tokio::sync::broadcast::Receiver<activity::PoolEvent> {
        self.events.subscribe()
    }

    /// Loads an agent (spawns its actor) if it is not loaded.
    pub async fn load(&self, id: AgentId) -> Result<LoadReport, RuntimeError> {
        call(&self.pool, "agent pool", |r| PoolMsg::Load(id, r)).await?
    }

    /// Unloads an agent; `force` cancels its running analyses first.
    pub async fn unload(&self, id: AgentId, force: bool) -> Result<UnloadReport, RuntimeError> {
        call(&self.pool, "agent pool", |r| PoolMsg::Unload(id, force, r)).await?
    }

    /// Loads every implemented agent (or the configured preload list), up to the cap.
    pub async fn preload_all(&self) -> Result<PreloadReport, RuntimeError> {
        call(&self.pool, "agent pool", PoolMsg::PreloadAll).await
    }

    /// Unloads the agents idle longer than `unload_after_minutes`, or with `force` every agent
    /// not in use (leased or analysing).
    pub async fn cleanup(&self, force: bool) -> Result<CleanupReport, RuntimeError> {
        call(&self.pool, "agent pool", |r| PoolMsg::Cleanup(force, r)).await
    }

    /// Loaded agents, memory, settings and counters.
    pub async fn status(&self) -> Result<PoolStatus, RuntimeError> {
        call(&self.pool, "agent pool", PoolMsg::Status).await
    }

    /// Changes the lazy-loading settings at run time.
    pub async fn configure(&self, settings: PoolSettings) -> Result<PoolStatus, RuntimeError> {
        call(&self.pool, "agent pool", |r| PoolMsg::Configure(settings, r)).await
    }

    /// Runs one agent on `dataset` (a direct call): leases it (loading it if needed), runs the
    /// analysis on the blocking pool within the analysis timeout, records the call. Dropping
    /// the future cancels the analysis.
    pub async fn call_agent(&self, call: AgentCall) -> Result<AgentOutput, RuntimeError> {
        let cancel = CancelFlag::new();
        let _cancel_on_drop = CancelOnDrop(cancel.clone());
        let job = host::Job {
            dataset: call.dataset,
            params: call.params,
            cancel,
            progress: call.progress.unwrap_or_else(|| Arc::new(|_| {})),
            findings: call.findings.unwrap_or_default(),
            question: call.question.map(Arc::from),
            record: None,
        };
        match direct::run_job(&self.pool, &self.calls, call.agent, job, self.analysis_timeout).await {
            Ok(out) => Ok(out),
            Err(direct::RunFailure::Cancelled) => Err(RuntimeError::Cancelled),
            Err(direct::RunFailure::NoLease(e)) => Err(e),
            Err(direct::RunFailure::Failed(message)) => {
                Err(RuntimeError::AnalysisFailed { agent: call.agent, message })
            }
        }
    }

    /// Calls, failures, latency and last activity of one agent.
    pub fn call_stats(&self, id: AgentId) -> calls::CallStats {
        self.calls.get(id)
    }

    /// Whether an agent's analysis is implemented (it can be loaded).
    pub fn is_implemented(&self, id: AgentId) -> bool {
        (self.factory)(id).is_some()
    }

    /// The ordered shutdown of the runtime: refuse new runs, give running ones `grace` to
    /// finish, abandon the rest (their agents' work is cancelled and they stay `processing`
    /// in the store, to be resumed at the next start), then stop every agent and the actors.
    pub async fn shutdown(&self, grace: Duration) {
        let draining = call(&self.orchestrator, "orchestrator", OrchMsg::Drain).await.unwrap_or_default();
        let deadline = tokio::time::Instant::now() + grace;
        for run in draining {
            let mut task = run.task;
            if tokio::time::timeout_at(deadline, &mut task).await.is_err() {
                tracing::warn!(investigation = %run.id, "abandoning a running investigation; it resumes at next start");
                run.control.abort_jobs();
                task.abort();
            }
        }
        let _ = call(&self.pool, "agent pool", PoolMsg::StopAll).await;
        self.orchestrator.stop(Some("shutdown".into()));
        self.pool.stop(Some("shutdown".into()));
    }
}

#[cfg(test)]
mod tests;

/// The engine's findings over demo data (seed 7, 2,000 contracts), for tests that need real
/// anomalies.
#[cfg(test)]
pub(crate) fn demo_findings() -> Vec<vigia_agents::Anomaly> {
    let data = vigia_agents::demo::generate(&vigia_agents::demo::DemoSpec {
        seed: 7,
        contracts: 2_000,
        organ_codes: Vec::new(),
        year: None,
    });
    let params = DetectionParams::default();
    vigia_agents::engine::analyse(&data.dataset, &params, &CancelFlag::new())
        .map(|(found, _)| found)
        .unwrap_or_default()
}
