//! Per-agent call statistics (calls, failures, latency, last activity), recorded by every path
//! that runs an agent: investigation runs and direct calls. `GET /api/v1/agents/status` reads
//! them. A plain mutex-guarded map: one short lock per finished analysis.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Duration;

use chrono::{DateTime, Utc};
use serde::Serialize;
use vigia_agents::AgentId;

/// What one agent has done since the process started.
#[derive(Debug, Clone, Default, PartialEq, Serialize, utoipa::ToSchema)]
pub struct CallStats {
    /// Analyses asked of it.
    pub calls: u64,
    /// Analyses that ended in an error, a timeout or a panic (cancellations are not failures).
    pub failures: u64,
    /// Mean wall time of its finished analyses, milliseconds.
    pub average_latency_ms: f64,
    /// Slowest finished analysis, milliseconds.
    pub max_latency_ms: f64,
    /// When it last finished an analysis.
    #[schema(value_type = Option<String>, format = DateTime)]
    pub last_active: Option<DateTime<Utc>>,
    #[serde(skip)]
    total_ms: f64,
    #[serde(skip)]
    timed: u64,
}

/// How an analysis ended, for the statistics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallEnd {
    /// It answered.
    Ok,
    /// It failed (error, timeout, panic, no slot).
    Failed,
    /// It was cancelled.
    Cancelled,
}

/// The statistics of every agent.
#[derive(Debug, Default)]
pub struct AgentCalls {
    by_agent: Mutex<BTreeMap<AgentId, CallStats>>,
}

impl AgentCalls {
    /// Records one analysis of `agent` that took `elapsed`.
    pub fn record(&self, agent: AgentId, elapsed: Duration, end: CallEnd) {
        let mut map = self.by_agent.lock().unwrap_or_else(|p| p.into_inner());
        let s = map.entry(agent).or_default();
        s.calls += 1;
        match end {
            CallEnd::Failed => s.failures += 1,
            CallEnd::Cancelled => return,
            CallEnd::Ok => {}
        }
        let ms = elapsed.as_secs_f64() * 1000.0;
        s.timed += 1;
        s.total_ms += ms;
        s.average_latency_ms = s.total_ms / s.timed as f64;
        s.max_latency_ms = s.max_latency_ms.max(ms);
        s.last_active = Some(Utc::now());
    }

    /// One agent's statistics (zeros before its first call).
    pub fn get(&self, agent: AgentId) -> CallStats {
        self.by_agent.lock().unwrap_or_else(|p| p.into_inner()).get(&agent).cloned().unwrap_or_default()
    }
}

/// One call of an agent, recorded exactly once by whichever side sees its end first: the host
/// when the analysis finishes (before it tells subscribers, so an `ANALYSIS_FINISHED` event is
/// never ahead of the totals), the caller when no host answered (no slot, a timeout, a stopped
/// actor). A timed-out analysis that finishes later is not counted again.
#[derive(Clone)]
pub(crate) struct CallRecord {
    calls: std::sync::Arc<AgentCalls>,
    agent: AgentId,
    requested: std::time::Instant,
    done: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl CallRecord {
    /// A call of `agent` asked for now.
    pub(crate) fn new(calls: std::sync::Arc<AgentCalls>, agent: AgentId) -> Self {
        CallRecord { calls, agent, requested: std::time::Instant::now(), done: Default::default() }
    }

    /// Records the call's end (time since it was asked for), unless it was recorded already.
    pub(crate) fn end(&self, end: CallEnd) {
        if !self.done.swap(true, std::sync::atomic::Ordering::AcqRel) {
            self.calls.record(self.agent, self.requested.elapsed(), end);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_record_counts_its_call_once_whoever_ends_it() {
        let calls = std::sync::Arc::new(AgentCalls::default());
        let record = CallRecord::new(calls.clone(), AgentId::Anita);
        record.clone().end(CallEnd::Failed);
        record.end(CallEnd::Ok);
        let s = calls.get(AgentId::Anita);
        assert_eq!((s.calls, s.failures), (1, 1), "the first end counts, the late one does not");
    }

    #[test]
    fn latency_averages_only_finished_analyses_and_failures_are_counted() {
        let calls = AgentCalls::default();
        calls.record(AgentId::Zumbi, Duration::from_millis(10), CallEnd::Ok);
        calls.record(AgentId::Zumbi, Duration::from_millis(30), CallEnd::Failed);
        calls.record(AgentId::Zumbi, Duration::from_millis(999), CallEnd::Cancelled);
        let s = calls.get(AgentId::Zumbi);
        assert_eq!((s.calls, s.failures), (3, 1));
        assert!((s.average_latency_ms - 20.0).abs() < 0.5, "{}", s.average_latency_ms);
        assert!(s.last_active.is_some());
        assert_eq!(calls.get(AgentId::Anita), CallStats::default());
    }
}
