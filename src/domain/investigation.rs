//! An investigation: identity, owner, request, state machine, progress and results.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;
use vigia_agents::model::report::{Insight, Summary};
use vigia_agents::{Anomaly, DetectionParams};

use super::request::InvestigationRequest;

/// Investigation id (UUID v7, so ids sort by creation time).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct InvestigationId(pub Uuid);

impl InvestigationId {
    /// A new, time-ordered id.
    pub fn new() -> Self {
        Self(Uuid::now_v7())
    }
    /// Parses a path segment; `None` when it is not a UUID.
    pub fn parse(s: &str) -> Option<Self> {
        Uuid::parse_str(s).ok().map(Self)
    }
}

impl Default for InvestigationId {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Display for InvestigationId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// The spec's states. `completed_fallback` is reported as a completed run whose data came
/// from the demo generator after an upstream failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Accepted, not yet running.
    Pending,
    /// Running.
    Processing,
    /// Finished with results.
    Completed,
    /// Finished with results over demo data because the upstream failed.
    CompletedFallback,
    /// Finished without results (see `error`).
    Failed,
    /// Stopped by a client.
    Cancelled,
}

impl Status {
    /// English wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pending => "pending",
            Status::Processing => "processing",
            Status::Completed => "completed",
            Status::CompletedFallback => "completed_fallback",
            Status::Failed => "failed",
            Status::Cancelled => "cancelled",
        }
    }
    /// Portuguese wire name.
    pub fn as_pt(self) -> &'static str {
        match self {
            Status::Pending => "pendente",
            Status::Processing => "processando",
            Status::Completed => "concluida",
            Status::CompletedFallback => "concluida_fallback",
            Status::Failed => "falhada",
            Status::Cancelled => "cancelada",
        }
    }
    /// Parses either wire name.
    pub fn parse(s: &str) -> Option<Status> {
        [
            Status::Pending,
            Status::Processing,
            Status::Completed,
            Status::CompletedFallback,
            Status::Failed,
            Status::Cancelled,
        ]
        .into_iter()
        .find(|st| st.as_str() == s || st.as_pt() == s)
    }
    /// Whether no further transition can happen.
    pub fn is_terminal(self) -> bool {
        !matches!(self, Status::Pending | Status::Processing)
    }
    /// Whether results exist.
    pub fn has_results(self) -> bool {
        matches!(self, Status::Completed | Status::CompletedFallback)
    }
}

/// The spec's processing phases, in the order an investigation goes through them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Request checked, run registered.
    Initialization,
    /// Records fetched (upstream or demo).
    DataCollection,
    /// Records normalised and filtered.
    Preprocessing,
    /// Agents analysing in parallel.
    AgentAnalysis,
    /// Cross-agent patterns: duplicate findings merged.
    PatternDetection,
    /// Summary and risk score.
    ResultAggregation,
    /// Insights, recommendations and explanations written.
    ReportGeneration,
}

impl Phase {
    /// Every phase in order.
    pub const ALL: [Phase; 7] = [
        Phase::Initialization,
        Phase::DataCollection,
        Phase::Preprocessing,
        Phase::AgentAnalysis,
        Phase::PatternDetection,
        Phase::ResultAggregation,
        Phase::ReportGeneration,
    ];
    /// English wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Initialization => "initialization",
            Phase::DataCollection => "data_collection",
            Phase::Preprocessing => "preprocessing",
            Phase::AgentAnalysis => "agent_analysis",
            Phase::PatternDetection => "pattern_detection",
            Phase::ResultAggregation => "result_aggregation",
            Phase::ReportGeneration => "report_generation",
        }
    }
    /// Portuguese wire name.
    pub fn as_pt(self) -> &'static str {
        match self {
            Phase::Initialization => "inicializacao",
            Phase::DataCollection => "coleta_dados",
            Phase::Preprocessing => "preprocessamento",
            Phase::AgentAnalysis => "analise_agente",
            Phase::PatternDetection => "deteccao_padroes",
            Phase::ResultAggregation => "agregacao_resultados",
            Phase::ReportGeneration => "geracao_relatorio",
        }
    }
    /// Progress percentage when the phase starts.
    pub fn start_percentage(self) -> f64 {
        match self {
            Phase::Initialization => 0.0,
            Phase::DataCollection => 5.0,
            Phase::Preprocessing => 20.0,
            Phase::AgentAnalysis => 25.0,
            Phase::PatternDetection => 85.0,
            Phase::ResultAggregation => 90.0,
            Phase::ReportGeneration => 95.0,
        }
    }
}

/// `{code, message, recoverable}` of a failed run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorInfo {
    /// Stable code (INSUFFICIENT_DATA, AGENT_FAILED, ...).
    pub code: String,
    /// Safe to show.
    pub message: String,
    /// Whether trying again may succeed.
    pub recoverable: bool,
    /// Structured details.
    #[serde(default)]
    pub details: serde_json::Map<String, serde_json::Value>,
}

/// Where the analysed data came from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Provenance {
    /// `portal_transparencia_api` or `demo_data`.
    pub source: String,
    /// Whether the data is synthetic.
    pub demo_mode: bool,
    /// When it was fetched (or generated).
    pub fetched_at: Option<DateTime<Utc>>,
    /// Whether it came from the upstream cache.
    pub cache_hit: bool,
    /// Why the run fell back to demo data, if it did (no secrets).
    pub fallback_reason: Option<String>,
    /// Records the upstream sent (at least this many exist: the API gives no totals); `None`
    /// for demo data.
    #[serde(default)]
    pub records_available: Option<usize>,
    /// Whether the record budget or the page cap stopped a fetch before its end.
    #[serde(default)]
    pub truncated: bool,
    /// What was not fetched and why (a kind the key may not read, details over budget).
    #[serde(default)]
    pub notes: Vec<String>,
    /// Names these records exactly when the source can say so cheaply (demo data: the
    /// generator's inputs), so the analysis cache need not hash every record. Not stored.
    #[serde(skip)]
    pub content_key: Option<String>,
}

impl Provenance {
    /// `completed_fallback` when the upstream failed and demo data stood in, else `completed`.
    pub fn data_status(&self) -> &'static str {
        if self.fallback_reason.is_some() { "completed_fallback" } else { "completed" }
    }

    /// What a client must be told about the data: demo data and why, or a cut by the budget.
    pub fn warning(&self) -> Option<String> {
        match (&self.fallback_reason, self.demo_mode, self.truncated) {
            (Some(why), _, _) => Some(format!("[DEMO] the upstream failed ({why}); synthetic demo data was analysed")),
            (None, true, _) => {
                Some("[DEMO] synthetic data with planted anomalies: set TRANSPARENCY_API_KEY for real records".into())
            }
            (None, false, true) => Some(format!(
                "a fetch budget (upstream.record_budget, upstream.request_budget) stopped reading the upstream \
                 before the end of its lists: {} records were read and more exist; see data_notes",
                self.records_available.unwrap_or_default()
            )),
            (None, false, false) => None,
        }
    }
}

/// The results of a finished run (the spec's InvestigationResponse, language-neutral).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Results {
    /// Anomalies, most severe first; shared (`Arc`), so results built from outputs already
    /// held (the analysis cache) and the views built from results do not copy them.
    /// (These three are the results' body, which the store keeps apart, once per content:
    /// absent from a stored record, hence `default`.)
    #[serde(with = "vigia_agents::model::report::shared_vec", default)]
    pub anomalies: Vec<std::sync::Arc<Anomaly>>,
    /// Summary and risk score.
    pub summary: Summary,
    /// Insights of every agent.
    #[serde(default)]
    pub insights: Vec<Insight>,
    /// Recommendations.
    #[serde(default)]
    pub recommendations: Vec<String>,
    /// Agents that ran and finished.
    pub agents_used: Vec<String>,
    /// Agents that failed, with why (the run finished with the others' results).
    pub agents_failed: Vec<(String, String)>,
    /// Agents whose output came from an identical analysis moments before (same records,
    /// agent and parameters: `agents.analysis_cache_ttl_secs`) instead of a new run.
    #[serde(default)]
    pub agents_cached: Vec<String>,
    /// Records analysed.
    pub records_analyzed: usize,
    /// Wall time of the run.
    pub execution_time_ms: u64,
    /// Where the data came from.
    pub provenance: Provenance,
    /// The suppliers paid most in the analysed contracts (name, total value), largest first;
    /// at most ten.
    #[serde(default)]
    pub top_suppliers: Vec<(String, f64)>,
}

/// Live progress of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Progress {
    /// 0-100.
    pub percentage: f64,
    /// Current phase.
    pub current_phase: Option<Phase>,
    /// Phases finished.
    pub phases_completed: Vec<Phase>,
    /// Records fetched.
    pub records_processed: usize,
    /// Anomalies reported so far.
    pub anomalies_found: usize,
    /// Agents asked to analyse.
    pub agents_invoked: usize,
}

/// An investigation as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Investigation {
    /// Id.
    pub id: InvestigationId,
    /// Owner (nil UUID for anonymous callers until authentication lands).
    pub user_id: Uuid,
    /// The request as accepted.
    pub request: InvestigationRequest,
    /// Detection parameters derived from the request.
    pub params: DetectionParams,
    /// State.
    pub status: Status,
    /// Progress.
    pub progress: Progress,
    /// Accepted at.
    pub created_at: DateTime<Utc>,
    /// Started processing at.
    pub started_at: Option<DateTime<Utc>>,
    /// Finished at.
    pub completed_at: Option<DateTime<Utc>>,
    /// Why it failed.
    pub error: Option<ErrorInfo>,
    /// Results, once finished.
    pub results: Option<Results>,
}

impl Investigation {
    /// A new run in `processing` (the spec's start transition).
    pub fn start(request: InvestigationRequest, user_id: Uuid) -> Self {
        let now = Utc::now();
        Investigation {
            id: InvestigationId::new(),
            user_id,
            params: request.detection_params(),
            request,
            status: Status::Processing,
            progress: Progress { current_phase: Some(Phase::Initialization), ..Progress::default() },
            created_at: now,
            started_at: Some(now),
            completed_at: None,
            error: None,
            results: None,
        }
    }
    /// Anomalies found (final count once finished, running count before).
    pub fn anomalies_found(&self) -> usize {
        self.results.as_ref().map_or(self.progress.anomalies_found, |r| r.anomalies.len())
    }
    /// Risk score 0-100 once results exist.
    pub fn risk_score(&self) -> Option<u8> {
        self.results.as_ref().map(|r| r.summary.risk_score)
    }
    /// Mean confidence of the anomalies found (0 when none).
    pub fn confidence_score(&self) -> f64 {
        match &self.results {
            Some(r) if !r.anomalies.is_empty() => {
                r.anomalies.iter().map(|a| a.confidence).sum::<f64>() / r.anomalies.len() as f64
            }
            _ => 0.0,
        }
    }
}
