//! The analysis agents: the [`Agent`] trait, one module per named agent (each runs detectors
//! through the engine and explains what they found), the Portuguese insights and
//! recommendations they write ([`narrative`], [`narrative_detectors`]) and the [`roster`] that
//! knows every agent, builds the implemented ones and says which anomaly types each covers.
//! Agents call detectors; detectors never call agents.

pub mod anita;
pub mod bonifacio;
pub mod ceuci;
pub mod dandara;
pub mod lampiao;
pub mod machado;
pub mod maria_quiteria;
pub mod narrative;
pub mod narrative_detectors;
pub mod obaluaie;
pub mod oscar_niemeyer;
pub mod oxossi;
pub mod roster;
pub mod tiradentes;
pub mod zumbi;

use crate::cancel::AnalysisError;
use crate::detect::context::AnalysisContext;
use crate::lang::Language;
use crate::model::report::{AgentOutput, Insight};
use roster::AgentId;

/// An analysis agent: a named, self-contained analysis over a dataset.
///
/// Agents are plain values; the host decides where they run (an actor, a thread, the CLI).
/// `analyse` is CPU-bound and synchronous: hosts run it on a blocking pool.
pub trait Agent: Send + Sync + 'static {
    /// Which agent this is.
    fn id(&self) -> AgentId;
    /// Runs the analysis. Must return `Err(Cancelled)` soon after `ctx.cancel` is set.
    fn analyse(&self, ctx: &AnalysisContext<'_>) -> Result<AgentOutput, AnalysisError>;
}

/// Convenience for agents: an insight whose evidence is the ids of the given anomalies.
pub fn insight(agent: AgentId, text: String, confidence: f64, evidence: &[&crate::Anomaly]) -> Insight {
    Insight {
        agent: agent.as_str().into(),
        insight: text.into(),
        confidence,
        supporting_evidence: evidence.iter().map(|a| a.id.clone()).collect(),
        insight_en: None,
    }
}

/// [`insight`] without evidence, written by `text` in Portuguese and in English.
pub fn insight_in_both(agent: AgentId, text: impl Fn(Language) -> String, confidence: f64) -> Insight {
    Insight { insight_en: Some(text(Language::En).into()), ..insight(agent, text(Language::Pt), confidence, &[]) }
}

#[cfg(test)]
mod tests;
