//! Cooperative cancellation and the error an analysis ends with: the two things detectors and
//! agents share. At the base of the crate, so `detect/` never imports anything from `agents/`.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

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
