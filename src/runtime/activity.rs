//! The pool's activity as a broadcast: every change of what the pool holds (an agent loaded or
//! unloaded, and why) and of what a host runs (an analysis started or finished), sent from the
//! place where it happens, so a load and its unload a microsecond apart are both seen. The
//! channel is a bounded tokio broadcast: sending never waits, and a subscriber that falls more
//! than [`CAPACITY`] events behind is told how many it missed (`RecvError::Lagged`) and should
//! take a fresh snapshot of the pool.

use chrono::{DateTime, Utc};
use tokio::sync::broadcast;
use vigia_agents::AgentId;

/// Events kept for the slowest subscriber before it lags.
pub const CAPACITY: usize = 1024;

/// Why an agent was unloaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnloadReason {
    /// Idle past `unload_after_minutes` (the reaper, or a cleanup that was not forced).
    Idle,
    /// Made room under `max_loaded_agents` for another agent (least recently used first).
    Evicted,
    /// An administrator asked (an unload, or a forced cleanup).
    Admin,
    /// Its actor failed or stopped on its own; the pool forgot it (re-spawned on next use).
    Forgotten,
    /// The runtime is stopping.
    Shutdown,
}

impl UnloadReason {
    /// The reason's wire name (`idle`, `evicted`, `admin`, `forgotten`, `shutdown`).
    pub fn as_str(self) -> &'static str {
        match self {
            UnloadReason::Idle => "idle",
            UnloadReason::Evicted => "evicted",
            UnloadReason::Admin => "admin",
            UnloadReason::Forgotten => "forgotten",
            UnloadReason::Shutdown => "shutdown",
        }
    }
}

/// What happened, with the agent's figures as they were right after it (read from the host's
/// shared counters, so sending costs no message).
#[derive(Debug, Clone, PartialEq)]
pub enum PoolEvent {
    /// The agent's actor was spawned and its agent built.
    Loaded {
        /// Which agent.
        agent: AgentId,
        /// Its measured memory, MiB.
        memory_mb: f64,
        /// When.
        at: DateTime<Utc>,
    },
    /// The agent's actor was stopped (or found gone).
    Unloaded {
        /// Which agent.
        agent: AgentId,
        /// Why.
        reason: UnloadReason,
        /// Analyses the unload cancelled.
        cancelled_analyses: usize,
        /// When.
        at: DateTime<Utc>,
    },
    /// An analysis began on the agent.
    AnalysisStarted {
        /// Which agent.
        agent: AgentId,
        /// Analyses running on it now, this one included.
        in_flight: usize,
        /// Its memory now, MiB.
        memory_mb: f64,
        /// When.
        at: DateTime<Utc>,
    },
    /// An analysis on the agent ended.
    AnalysisFinished {
        /// Which agent.
        agent: AgentId,
        /// `None` when it answered; what went wrong otherwise (`cancelled` included).
        error: Option<String>,
        /// Its wall time on the agent, milliseconds.
        duration_ms: f64,
        /// Analyses still running on it.
        in_flight: usize,
        /// Its memory now, MiB.
        memory_mb: f64,
        /// When.
        at: DateTime<Utc>,
    },
}

impl PoolEvent {
    /// The agent the event is about.
    pub fn agent(&self) -> AgentId {
        match self {
            PoolEvent::Loaded { agent, .. }
            | PoolEvent::Unloaded { agent, .. }
            | PoolEvent::AnalysisStarted { agent, .. }
            | PoolEvent::AnalysisFinished { agent, .. } => *agent,
        }
    }
}

/// The sending side, shared by the pool and every host. Cheap to clone.
#[derive(Clone)]
pub struct PoolEvents(broadcast::Sender<PoolEvent>);

impl Default for PoolEvents {
    fn default() -> Self {
        PoolEvents(broadcast::channel(CAPACITY).0)
    }
}

impl PoolEvents {
    /// Sends an event to whoever listens now; nobody listening is not an error.
    pub(crate) fn send(&self, event: PoolEvent) {
        let _ = self.0.send(event);
    }

    /// Every event from now on.
    pub fn subscribe(&self) -> broadcast::Receiver<PoolEvent> {
        self.0.subscribe()
    }
}
