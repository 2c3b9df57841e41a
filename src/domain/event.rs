//! Events of an investigation stream. Each has a sequence number (1, 2, ...) per
//! investigation, is persisted before it is published, and is rendered by each transport in
//! its naming variant.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::investigation::{Investigation, Phase, Status};

/// One event with its sequence number.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InvestigationEvent {
    /// 1-based, gap-free per investigation; the SSE `id`.
    pub seq: u64,
    /// The payload.
    pub kind: EventKind,
}

/// A finding as its `anomaly` event shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnomalyFound {
    /// Anomaly id.
    pub id: String,
    /// Anomaly type (English wire name).
    pub anomaly_type: String,
    /// Severity (English wire name).
    pub severity: String,
    /// 0-1.
    pub confidence: f64,
    /// Description.
    pub description: String,
    /// The detector's plain-language explanation in English, when it wrote one (not on the
    /// wire; chat answers in English quote it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description_en: Option<String>,
    /// Contract id of the primary record (or of the first related contract).
    pub contract_id: Option<String>,
    /// Supplier name.
    pub supplier: Option<String>,
    /// Value in R$.
    pub value: Option<f64>,
    /// The money the finding puts at stake (not on the wire; chat answers quote it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_stake: Option<f64>,
}

/// The spec's stream events, plus the terminal events of runs that do not complete.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum EventKind {
    /// `progress {percentage, current_phase, agents_active}`.
    Progress {
        /// 0-100.
        percentage: f64,
        /// Phase.
        current_phase: Phase,
        /// Agents analysing now.
        agents_active: usize,
    },
    /// `anomaly {id, type, severity, confidence, description, affected_record}`: shared, since
    /// runs answered from the analysis cache emit the very findings of the run before them.
    Anomaly(Arc<AnomalyFound>),
    /// `insight {agent, message, confidence}`.
    Insight {
        /// Agent id.
        agent: arcstr::ArcStr,
        /// Text (shared with the insight it shows).
        message: arcstr::ArcStr,
        /// 0-1.
        confidence: f64,
    },
    /// `complete {total_anomalies, processing_time, agents_used}`.
    Complete {
        /// Anomalies in the results.
        total_anomalies: usize,
        /// Milliseconds.
        processing_time: u64,
        /// Agent ids.
        agents_used: Vec<String>,
        /// `completed` or `completed_fallback`.
        status: Status,
    },
    /// The run failed: `error {code, message, recoverable}`.
    Error {
        /// Stable code.
        code: String,
        /// Safe message.
        message: String,
        /// Whether retrying may help.
        recoverable: bool,
    },
    /// The run was cancelled.
    Cancelled {
        /// Whether some agents had finished (their results are kept).
        partial_results_available: bool,
    },
}

impl EventKind {
    /// Whether `self` and `other` are equal, a shared finding taken for equal to itself without
    /// comparing its text.
    pub fn same_as(&self, other: &EventKind) -> bool {
        match (self, other) {
            (EventKind::Anomaly(a), EventKind::Anomaly(b)) => Arc::ptr_eq(a, b) || a == b,
            _ => self == other,
        }
    }

    /// Whether this event ends the stream.
    pub fn is_terminal(&self) -> bool {
        matches!(self, EventKind::Complete { .. } | EventKind::Error { .. } | EventKind::Cancelled { .. })
    }

    /// The terminal event of an investigation that ended as `inv` says: `complete` with its
    /// results, `cancelled` (partial results when some agent finished), else `error`.
    pub fn terminal_of(inv: &Investigation) -> EventKind {
        match (&inv.results, inv.status) {
            (Some(r), Status::Completed | Status::CompletedFallback) => EventKind::Complete {
                total_anomalies: r.anomalies.len(),
                processing_time: r.execution_time_ms,
                agents_used: r.agents_used.clone(),
                status: inv.status,
            },
            (r, Status::Cancelled) => EventKind::Cancelled {
                partial_results_available: r.as_ref().is_some_and(|r| !r.agents_used.is_empty()),
            },
            _ => match &inv.error {
                Some(e) => {
                    EventKind::Error { code: e.code.clone(), message: e.message.clone(), recoverable: e.recoverable }
                }
                None => EventKind::Error {
                    code: "INTERNAL_ERROR".into(),
                    message: "the investigation ended without results".into(),
                    recoverable: true,
                },
            },
        }
    }
}
