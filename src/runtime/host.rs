//! `AgentHost`: the actor that hosts one analysis agent. Analyses run on the blocking pool in
//! a spawned task that reports back by message, so the mailbox stays free for cancel and stop.
//! A panicking analysis makes the actor fail, which its supervisor (the pool) sees.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};

use chrono::Utc;
use ractor::{Actor, ActorProcessingErr, ActorRef, RpcReplyPort};
use vigia_agents::{
    Agent, AgentId, AgentOutput, AnalysisContext, AnalysisError, CancelFlag, Dataset, DetectionParams, FindingsCache,
};

use super::activity::{PoolEvent, PoolEvents};
use super::calls::CallEnd;
use super::memory;

/// Builds agents from ids; tests inject their own (e.g. an agent that panics).
pub type AgentFactory = Arc<dyn Fn(AgentId) -> Option<Box<dyn Agent>> + Send + Sync>;

/// State the pool shares with a host without messaging it.
#[derive(Default)]
pub(crate) struct HostShared {
    /// Analyses running now.
    pub in_flight: AtomicUsize,
    /// Leases held now (see `lease.rs`): the agent is in use from its lease on.
    pub leases: AtomicUsize,
    /// Net bytes the agent's construction kept (measured, see `memory::measure`).
    pub memory_bytes: AtomicI64,
    /// Net bytes its running analyses hold now, as the allocator counts them on their threads
    /// (published at every progress report and released when the analysis ends).
    pub working_bytes: AtomicI64,
}

impl HostShared {
    /// What the agent holds now: its state and its running analyses' working set (bytes).
    pub(crate) fn held_bytes(&self) -> i64 {
        self.memory_bytes.load(Ordering::Relaxed).max(0) + self.working_bytes.load(Ordering::Relaxed).max(0)
    }

    /// Whether the agent is leased or analysing: the cap and the idle reaper leave it alone.
    pub(crate) fn in_use(&self) -> bool {
        self.leases.load(Ordering::Acquire) > 0 || self.in_flight.load(Ordering::Acquire) > 0
    }
}

/// One analysis to run.
pub(crate) struct Job {
    pub dataset: Arc<Dataset>,
    pub params: DetectionParams,
    pub cancel: CancelFlag,
    pub progress: Arc<dyn Fn(f32) + Send + Sync>,
    /// Detector results shared by the agents of one investigation run.
    pub findings: Arc<FindingsCache>,
    /// The user's question, for the agents that read one.
    pub question: Option<Arc<str>>,
    /// The call's statistics, recorded by the host when the analysis ends (set by `run_job`).
    pub record: Option<super::calls::CallRecord>,
}

/// Why an analysis produced nothing.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum JobFailure {
    #[error("cancelled")]
    Cancelled,
    #[error("agent panicked: {0}")]
    Panicked(String),
    #[error("{0}")]
    Invalid(String),
}

pub(crate) enum HostMsg {
    Analyse(Box<Job>, RpcReplyPort<Result<AgentOutput, JobFailure>>),
    /// Sets the cancel flag of every running analysis (forced unload).
    CancelAll,
    /// An analysis ended: its cancel flag is dropped (its in-flight count was released before
    /// its caller heard the answer); a panic stops the host.
    JobDone {
        job: u64,
        panic: Option<String>,
    },
}

pub(crate) struct HostArgs {
    pub id: AgentId,
    pub factory: AgentFactory,
    pub shared: Arc<HostShared>,
    /// Where analyses starting and finishing are told.
    pub events: PoolEvents,
}

pub(crate) struct HostState {
    agent: Arc<dyn Agent>,
    shared: Arc<HostShared>,
    events: PoolEvents,
    running: HashMap<u64, CancelFlag>,
    next_job: u64,
}

pub(crate) struct AgentHost;

impl Actor for AgentHost {
    type Msg = HostMsg;
    type State = HostState;
    type Arguments = HostArgs;

    async fn pre_start(&self, _me: ActorRef<HostMsg>, args: HostArgs) -> Result<HostState, ActorProcessingErr> {
        let (agent, bytes) = memory::measure(|| (args.factory)(args.id).map(Arc::<dyn Agent>::from));
        let agent = agent.ok_or_else(|| format!("agent {} has no analysis implemented", args.id))?;
        args.shared.memory_bytes.store(bytes.max(0), Ordering::Relaxed);
        Ok(HostState { agent, shared: args.shared, events: args.events, running: HashMap::new(), next_job: 0 })
    }

    async fn handle(&self, me: ActorRef<HostMsg>, msg: HostMsg, st: &mut HostState) -> Result<(), ActorProcessingErr> {
        match msg {
            HostMsg::Analyse(job, reply) => {
                st.next_job += 1;
                let job_id = st.next_job;
                st.running.insert(job_id, job.cancel.clone());
                let in_flight = st.shared.in_flight.fetch_add(1, Ordering::AcqRel) + 1;
                let agent = st.agent.clone();
                let id = agent.id();
                let shared = st.shared.clone();
                let events = st.events.clone();
                let memory_mb = memory::to_mb(shared.held_bytes());
                events.send(PoolEvent::AnalysisStarted { agent: id, in_flight, memory_mb, at: Utc::now() });
                let started = std::time::Instant::now();
                let record = job.record.clone();
                tokio::spawn(async move {
                    let on_thread = shared.clone();
                    let run = super::work::spawn_blocking(move || {
                        let working = WorkingSet::new(&on_thread);
                        let progress = |f: f32| {
                            working.publish();
                            (job.progress)(f)
                        };
                        let ctx = AnalysisContext {
                            dataset: &job.dataset,
                            params: &job.params,
                            cancel: &job.cancel,
                            progress: &progress,
                            findings: Some(&job.findings),
                            question: job.question.as_deref(),
                        };
                        agent.analyse(&ctx)
                    })
                    .await;
                    let (result, panic) = match run {
                        Ok(Ok(out)) => (Ok(out), None),
                        Ok(Err(AnalysisError::Cancelled)) => (Err(JobFailure::Cancelled), None),
                        Ok(Err(AnalysisError::InvalidInput(m))) => (Err(JobFailure::Invalid(m)), None),
                        Err(e) => {
                            let text = panic_text(e);
                            (Err(JobFailure::Panicked(text.clone())), Some(text))
                        }
                    };
                    // Counted, then told, before the caller hears the answer: a subscriber
                    // sees the end of an analysis with its totals, and before anything its
                    // caller does next (an unload, say).
                    if let Some(record) = &record {
                        record.end(match &result {
                            Ok(_) => CallEnd::Ok,
                            Err(JobFailure::Cancelled) => CallEnd::Cancelled,
                            Err(_) => CallEnd::Failed,
                        });
                    }
                    // Ended before the caller hears it: the caller then returns its lease, and
                    // the pool, serving the next lease waiting under the cap, must not find this
                    // agent still analysing (it would put the waiter back with nothing left to
                    // wake it until the next tick).
                    let in_flight = shared
                        .in_flight
                        .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| Some(n.saturating_sub(1)))
                        .map_or(0, |n| n.saturating_sub(1));
                    events.send(PoolEvent::AnalysisFinished {
                        agent: id,
                        error: result.as_ref().err().map(ToString::to_string),
                        duration_ms: started.elapsed().as_secs_f64() * 1000.0,
                        in_flight,
                        memory_mb: memory::to_mb(shared.held_bytes()),
                        at: Utc::now(),
                    });
                    let _ = reply.send(result);
                    let _ = me.cast(HostMsg::JobDone { job: job_id, panic });
                });
            }
            HostMsg::CancelAll => st.running.values().for_each(CancelFlag::cancel),
            HostMsg::JobDone { job, panic } => {
                st.running.remove(&job);
                if let Some(text) = panic {
                    return Err(format!("analysis of {} panicked: {text}", st.agent.id()).into());
                }
            }
        }
        Ok(())
    }

    async fn post_stop(&self, _me: ActorRef<HostMsg>, st: &mut HostState) -> Result<(), ActorProcessingErr> {
        // Work still running when the host stops (forced unload, shutdown) is told to stop.
        st.running.values().for_each(CancelFlag::cancel);
        st.shared.in_flight.store(0, Ordering::Release);
        Ok(())
    }
}

/// The working set of one analysis: the net bytes its thread allocated since it began,
/// published into the host's `working_bytes` (as a change from what it published last) when
/// the analysis reports progress from its own thread, and withdrawn when the analysis ends.
/// Work an analysis spreads over helper threads is counted on those threads, not here.
struct WorkingSet<'a> {
    shared: &'a HostShared,
    thread: std::thread::ThreadId,
    base: i64,
    published: AtomicI64,
}

impl<'a> WorkingSet<'a> {
    fn new(shared: &'a HostShared) -> Self {
        let thread = std::thread::current().id();
        WorkingSet { shared, thread, base: memory::thread_net(), published: AtomicI64::new(0) }
    }

    fn publish(&self) {
        if std::thread::current().id() != self.thread {
            return;
        }
        let now = (memory::thread_net() - self.base).max(0);
        let before = self.published.swap(now, Ordering::Relaxed);
        self.shared.working_bytes.fetch_add(now - before, Ordering::Relaxed);
    }
}

impl Drop for WorkingSet<'_> {
    fn drop(&mut self) {
        self.shared.working_bytes.fetch_sub(self.published.load(Ordering::Relaxed), Ordering::Relaxed);
    }
}

fn panic_text(e: tokio::task::JoinError) -> String {
    match e.try_into_panic() {
        Ok(payload) => payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "panic".into()),
        Err(e) => e.to_string(),
    }
}
