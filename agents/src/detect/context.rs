//! The context one analysis runs in: the data, the parameters, cancellation, progress and the
//! findings shared with the other agents of the run. Agents receive it; the engine's agent
//! entry points ([`crate::detect::engine::detect_batches`] and the like) read it. It lives in
//! `detect/` because it names only detection pieces, so the engine needs nothing of `agents/`.

use crate::cancel::CancelFlag;
use crate::detect::findings::FindingsCache;
use crate::model::dataset::Dataset;
use crate::model::params::DetectionParams;

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
    /// The user's question in their words, when the analysis answers one (chat, direct calls);
    /// the routing, memory and planning agents read it, the detectors ignore it.
    pub question: Option<&'a str>,
}

impl<'a> AnalysisContext<'a> {
    /// A context with no progress reporting, for the CLI, tests and benchmarks.
    pub fn new(dataset: &'a Dataset, params: &'a DetectionParams, cancel: &'a CancelFlag) -> Self {
        Self { dataset, params, cancel, progress: &|_| {}, findings: None, question: None }
    }
}
