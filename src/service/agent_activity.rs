//! Agent activity as a stream: every agent's state once (the snapshot, what
//! `/api/v1/agents/status` answers), then one item per event of the runtime's pool broadcast
//! (an agent loaded, unloaded and why, an analysis started or finished), each with the agent's
//! state right after it. The stream subscribes before it takes the snapshot, so nothing that
//! happens meanwhile is lost (it may be in the snapshot and arrive as an event too). A
//! subscriber too slow for the broadcast's buffer gets a `Lagged` item saying how many events
//! it missed, then a fresh snapshot; the pool never waits for it.

use chrono::{DateTime, Utc};
use futures::Stream;
use tokio::sync::broadcast::error::RecvError;

use super::AgentService;
use super::agents::AgentState;
use crate::runtime::ShutdownSignal;
use crate::runtime::activity::PoolEvent;

/// What an activity item reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActivityKind {
    /// The agent's state when the stream began (or after a lag).
    Snapshot,
    /// It was loaded.
    Loaded,
    /// It was unloaded (`reason` says why).
    Unloaded,
    /// An analysis began on it.
    AnalysisStarted,
    /// An analysis on it ended (`ok`, `error`, `duration_ms`).
    AnalysisFinished,
    /// The subscriber fell behind and missed `missed` events; a snapshot follows.
    Lagged,
}

/// One item of the stream.
#[derive(Debug, Clone)]
pub struct ActivityItem {
    /// What happened.
    pub kind: ActivityKind,
    /// The agent's state right after it (`None` for `Lagged`).
    pub agent: Option<AgentState>,
    /// Why it was unloaded: `idle`, `evicted`, `admin`, `forgotten` or `shutdown`.
    pub reason: Option<&'static str>,
    /// Whether a finished analysis answered.
    pub ok: Option<bool>,
    /// What went wrong with a finished analysis (`cancelled` included).
    pub error: Option<String>,
    /// A finished analysis's wall time on the agent, milliseconds.
    pub duration_ms: Option<f64>,
    /// Events a lagging subscriber missed.
    pub missed: Option<u64>,
    /// When it happened (when the snapshot was taken, for snapshots).
    pub at: DateTime<Utc>,
}

impl ActivityItem {
    fn new(kind: ActivityKind, agent: Option<AgentState>, at: DateTime<Utc>) -> ActivityItem {
        ActivityItem { kind, agent, reason: None, ok: None, error: None, duration_ms: None, missed: None, at }
    }
}

impl AgentService {
    /// Every agent's state, then its activity as it happens, until `shutdown`.
    pub fn activity(&self, shutdown: ShutdownSignal) -> impl Stream<Item = ActivityItem> + Send + use<> {
        let this = self.clone();
        async_stream::stream! {
            let mut events = this.pool_events();
            let mut snapshot = true;
            loop {
                if std::mem::take(&mut snapshot) {
                    // A failed snapshot (the runtime stopping) leaves the events to tell.
                    let at = Utc::now();
                    for state in this.status().await.unwrap_or_default() {
                        yield ActivityItem::new(ActivityKind::Snapshot, Some(state), at);
                    }
                }
                let event = tokio::select! {
                    e = events.recv() => e,
                    _ = shutdown.clone().wait() => return,
                };
                match event {
                    Ok(event) => yield this.item(event),
                    Err(RecvError::Lagged(missed)) => {
                        yield ActivityItem { missed: Some(missed), ..ActivityItem::new(ActivityKind::Lagged, None, Utc::now()) };
                        snapshot = true;
                    }
                    Err(RecvError::Closed) => return,
                }
            }
        }
    }

    /// An event as an item: the agent's state from the event's figures and its call statistics.
    fn item(&self, event: PoolEvent) -> ActivityItem {
        // An agent that loaded or ran has an analysis: it is implemented.
        let agent = event.agent();
        let state = |loaded, in_flight, memory_mb| Some(self.state_of(agent, true, loaded, in_flight, memory_mb));
        match event {
            PoolEvent::Loaded { memory_mb, at, .. } => {
                ActivityItem::new(ActivityKind::Loaded, state(true, 0, Some(memory_mb)), at)
            }
            PoolEvent::Unloaded { reason, at, .. } => ActivityItem {
                reason: Some(reason.as_str()),
                ..ActivityItem::new(ActivityKind::Unloaded, state(false, 0, None), at)
            },
            PoolEvent::AnalysisStarted { in_flight, memory_mb, at, .. } => {
                ActivityItem::new(ActivityKind::AnalysisStarted, state(true, in_flight, Some(memory_mb)), at)
            }
            PoolEvent::AnalysisFinished { error, duration_ms, in_flight, memory_mb, at, .. } => ActivityItem {
                ok: Some(error.is_none()),
                error,
                duration_ms: Some(duration_ms),
                ..ActivityItem::new(ActivityKind::AnalysisFinished, state(true, in_flight, Some(memory_mb)), at)
            },
        }
    }
}
