//! `AgentActivity`, the item of the `agentActivity` subscription: what happened to an agent
//! (or `SNAPSHOT` for its state when the stream began) and its stats right after.

use async_graphql::{Enum, SimpleObject};
use chrono::{DateTime, Utc};

use super::types::AgentStats;
use crate::service::agent_activity::{ActivityItem, ActivityKind as Kind};

/// What an `AgentActivity` reports (the service's kinds, as GraphQL names them).
#[derive(Enum, Clone, Copy, PartialEq, Eq)]
#[graphql(remote = "Kind")]
pub enum ActivityKind {
    /// The agent's state when the subscription began (or after `LAGGED`).
    Snapshot,
    /// It was loaded.
    Loaded,
    /// It was unloaded; `reason` says why.
    Unloaded,
    /// An analysis began on it.
    AnalysisStarted,
    /// An analysis on it ended; `ok`, `error` and `durationMs` say how.
    AnalysisFinished,
    /// The subscriber fell behind and missed `missed` events; a snapshot of every agent follows.
    Lagged,
}

/// One change of an agent's activity.
#[derive(SimpleObject)]
pub struct AgentActivity {
    /// What happened.
    pub kind: ActivityKind,
    /// The agent's stats right after it (null for `LAGGED`).
    pub agent: Option<AgentStats>,
    /// `UNLOADED`: `idle`, `evicted` (room made under the cap), `admin`, `forgotten` (its actor
    /// failed) or `shutdown`.
    pub reason: Option<String>,
    /// `ANALYSIS_FINISHED`: whether it answered.
    pub ok: Option<bool>,
    /// `ANALYSIS_FINISHED`: what went wrong (`cancelled` included).
    pub error: Option<String>,
    /// `ANALYSIS_FINISHED`: its wall time on the agent, milliseconds.
    pub duration_ms: Option<f64>,
    /// `LAGGED`: events missed.
    pub missed: Option<u64>,
    /// When it happened.
    pub at: DateTime<Utc>,
}

impl From<ActivityItem> for AgentActivity {
    fn from(i: ActivityItem) -> Self {
        AgentActivity {
            kind: i.kind.into(),
            agent: i.agent.map(AgentStats::from),
            reason: i.reason.map(String::from),
            ok: i.ok,
            error: i.error,
            duration_ms: i.duration_ms,
            missed: i.missed,
            at: i.at,
        }
    }
}
