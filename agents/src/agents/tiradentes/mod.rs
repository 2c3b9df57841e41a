//! Tiradentes, the report writer: an investigation report in Markdown and HTML.
//!
//! Method. Runs every registered detector through the engine (reading the run's shared
//! [`crate::FindingsCache`] when there is one, so nothing is computed twice), writes the
//! detector insights and recommendations of [`crate::agents::narrative`], measures the scope of
//! the data ([`input::Scope::of`]: records by kind, organs, period, gaps) and renders the report
//! with [`render_report`]: title, scope, executive summary (counts by type and severity, money
//! at stake, risk score), the findings most severe first with their evidence and record ids (at
//! most [`input::DEFAULT_MAX_FINDINGS`], the rest counted), the insights and recommendations,
//! the methodology (each detector's rule and its thresholds at the sensitivity used) and the
//! limitations (data gaps). The findings belong to the detecting agents: Tiradentes returns them
//! inside the report, not as its own anomalies. Artifacts: kind `report`, content
//! `{format: "markdown"|"html", body}`. Hosts that kept a finished investigation's results call
//! [`render_report`] with a [`ReportInput`] built from them.

pub mod doc;
pub mod input;
pub mod methodology;
pub mod render;

use serde_json::json;

pub use input::{ReportInput, Scope};
pub use render::{Report, render_report};

use crate::agents::narrative::{insights, recommendations};
use crate::agents::narrative_detectors as more;
use crate::agents::roster::AgentId;
use crate::agents::{Agent, insight};
use crate::cancel::AnalysisError;
use crate::detect::context::AnalysisContext;
use crate::detect::{self, engine};
use crate::model::report::{AgentOutput, Artifact, Summary};
use crate::text::format_brl;

/// Detectors per engine call (one progress step each).
const BATCH: usize = 5;

/// The report writer.
#[derive(Debug, Clone, Copy, Default)]
pub struct Tiradentes;

impl Tiradentes {
    /// A new report writer.
    pub fn new() -> Self {
        Tiradentes
    }
}

/// The report's title: the question when there is one, else the organ or the organ count.
fn title(ctx: &AnalysisContext<'_>, scope: &Scope) -> String {
    if let Some(q) = ctx.question.map(str::trim).filter(|q| !q.is_empty()) {
        return format!("Relatório de investigação: {q}");
    }
    match scope.organs.as_slice() {
        [] => "Relatório de investigação".into(),
        [one] => format!("Relatório de investigação: {} ({})", one.name, one.code),
        many => format!("Relatório de investigação: {} órgãos", many.len()),
    }
}

impl Agent for Tiradentes {
    fn id(&self) -> AgentId {
        AgentId::Tiradentes
    }

    fn analyse(&self, ctx: &AnalysisContext<'_>) -> Result<AgentOutput, AnalysisError> {
        let batches: Vec<&[&str]> = detect::NAMES.chunks(BATCH).collect();
        let anomalies = engine::detect_batches(ctx, &batches, 0.9)?;
        ctx.cancel.check()?;
        let mut notes = insights(AgentId::Tiradentes, &anomalies);
        notes.extend(more::insights(AgentId::Tiradentes, &anomalies));
        let mut recs = recommendations(&anomalies);
        recs.extend(more::recommendations(&anomalies));
        let scope = Scope::of(ctx.dataset);
        let input = ReportInput::from_results(title(ctx, &scope), scope, anomalies, notes, recs, ctx.params.clone());
        let report = render_report(&input);
        let summary = Summary::of(&input.anomalies);
        let listed = input.anomalies.len().min(input.max_findings);
        let text = format!(
            "Relatório escrito em Markdown e HTML: {} achados ({} listados), {} em jogo, risco {} de 100, {} detectores, {} lacunas de dados",
            summary.total_anomalies,
            listed,
            format_brl(input.anomalies.iter().map(|a| a.value_at_stake()).sum()),
            summary.risk_score,
            input.detectors.len(),
            input.scope.gaps.len()
        );
        let evidence: Vec<&crate::Anomaly> = input.anomalies.iter().take(20).map(|a| &**a).collect();
        (ctx.progress)(1.0);
        Ok(AgentOutput {
            anomalies: Vec::new(),
            insights: vec![insight(AgentId::Tiradentes, text, 0.95, &evidence)],
            recommendations: input.recommendations.clone(),
            artifacts: vec![
                Artifact {
                    kind: "report".into(),
                    title: input.title.clone(),
                    content: json!({"format": "markdown", "body": report.markdown}),
                },
                Artifact {
                    kind: "report".into(),
                    title: input.title,
                    content: json!({"format": "html", "body": report.html}),
                },
            ],
        })
    }
}

#[cfg(test)]
mod tests;
