//! The `Agent` trait every analysis agent implements, the context an analysis runs in
//! (data, parameters, cancellation, progress) and the factory that builds an agent from its id.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::findings::FindingsCache;
use crate::model::dataset::Dataset;
use crate::model::params::DetectionParams;
use crate::model::report::{AgentOutput as Output, Insight};
use crate::registry::AgentId;

pub use crate::model::report::AgentOutput;

/// A cooperative cancellation flag shared between the host and a running analysis.
///
/// Detectors call [`CancelFlag::check`] between units of work, so a cancelled investigation
/// stops burning CPU within one unit rather than running to completion.
#[derive(Debug, Clone, Default)]
pub struct CancelFlag(Arc<AtomicBool>);

impl CancelFlag {
    /// A fresh, not-cancelled flag.
    pub fn new() -> Self {
        Self::default()
    }
    /// Asks every holder of this flag to stop.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Release);
    }
    /// Whether [`CancelFlag::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Acquire)
    }
    /// `Err(AnalysisError::Cancelled)` once cancelled; detectors use it with `?`.
    pub fn check(&self) -> Result<(), AnalysisError> {
        if self.is_cancelled() { Err(AnalysisError::Cancelled) } else { Ok(()) }
    }
}

/// Why an analysis did not produce output.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AnalysisError {
    /// The host cancelled the analysis through its [`CancelFlag`].
    #[error("analysis cancelled")]
    Cancelled,
    /// The input cannot be analysed (for example, no records of a kind the agent needs).
    #[error("invalid input: {0}")]
    InvalidInput(String),
}

/// Everything an analysis needs, borrowed from the host for the duration of one run.
pub struct AnalysisContext<'a> {
    /// The normalised records to analyse.
    pub dataset: &'a Dataset,
    /// Sensitivity, confidence threshold and the anomaly types asked for.
    pub params: &'a DetectionParams,
    /// Checked between units of work.
    pub cancel: &'a CancelFlag,
    /// Called with the fraction of the agent's work done (0.0 to 1.0); cheap, may be called often.
    pub progress: &'a (dyn Fn(f32) + Sync),
    /// Detector results shared with the other agents analysing the same dataset, if any.
    pub findings: Option<&'a FindingsCache>,
}

impl<'a> AnalysisContext<'a> {
    /// A context with no progress reporting, for the CLI, tests and benchmarks.
    pub fn new(dataset: &'a Dataset, params: &'a DetectionParams, cancel: &'a CancelFlag) -> Self {
        Self { dataset, params, cancel, progress: &|_| {}, findings: None }
    }
}

/// An analysis agent: a named, self-contained analysis over a [`Dataset`].
///
/// Agents are plain values; the host decides where they run (an actor, a thread, the CLI).
/// `analyse` is CPU-bound and synchronous: hosts run it on a blocking pool.
pub trait Agent: Send + Sync + 'static {
    /// Which agent this is.
    fn id(&self) -> AgentId;
    /// Runs the analysis. Must return `Err(Cancelled)` soon after `ctx.cancel` is set.
    fn analyse(&self, ctx: &AnalysisContext<'_>) -> Result<Output, AnalysisError>;
}

/// Builds the agent with this id, or `None` when the agent has no analysis implemented yet
/// (the registry knows every agent's name; only implemented ones can be loaded).
pub fn instantiate(id: AgentId) -> Option<Box<dyn Agent>> {
    match id {
        AgentId::Zumbi => Some(Box::new(crate::zumbi::Zumbi::new())),
        AgentId::Anita => Some(Box::new(crate::anita::Anita::new())),
        AgentId::Bonifacio => Some(Box::new(crate::bonifacio::Bonifacio::new())),
        AgentId::Oxossi => Some(Box::new(crate::oxossi::Oxossi::new())),
        AgentId::Obaluaie => Some(Box::new(crate::obaluaie::Obaluaie::new())),
        AgentId::Machado => Some(Box::new(crate::machado::Machado::new())),
        AgentId::Ceuci => Some(Box::new(crate::ceuci::Ceuci::new())),
        _ => None,
    }
}

/// Convenience for agents: an insight whose evidence is the ids of the given anomalies.
pub fn insight(agent: AgentId, text: String, confidence: f64, evidence: &[&crate::Anomaly]) -> Insight {
    Insight {
        agent: agent.as_str().to_string(),
        insight: text,
        confidence,
        supporting_evidence: evidence.iter().map(|a| a.id.clone()).collect(),
    }
}
