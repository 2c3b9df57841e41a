//! Reports of finished investigations (tiradentes): rendered again from what the store kept
//! (findings, insights, recommendations, the request's scope), in Markdown or HTML, for
//! `GET /api/v1/reports/generate` and for the chat's report answers.

use std::sync::Arc;

use vigia_agents::agents::tiradentes::input::{OrganCount, RecordCount};
use vigia_agents::agents::tiradentes::{Report, ReportInput, Scope, render_report};

use super::InvestigationService;
use crate::domain::{Investigation, InvestigationId, Principal, Status};
use crate::error::{Error, ErrorCode, Result};

/// Findings a report lists at most (the summary counts them all).
const MAX_FINDINGS: usize = 50;

/// The report facade.
pub struct ReportService {
    investigations: Arc<InvestigationService>,
}

impl ReportService {
    /// Over the investigations.
    pub fn new(investigations: Arc<InvestigationService>) -> Self {
        ReportService { investigations }
    }

    /// The report of a finished investigation `viewer` may read.
    pub fn investigation(&self, id: &str, viewer: Option<&Principal>) -> Result<Report> {
        let id = InvestigationId::parse(id).ok_or_else(|| Error::validation("investigation_id", "a UUID"))?;
        let inv = self.investigations.get(id, viewer)?;
        Ok(render_report(&input_of(&inv)?))
    }
}

/// What tiradentes renders for a stored investigation (its dataset is gone: the scope comes
/// from the request and the results).
pub fn input_of(inv: &Investigation) -> Result<ReportInput> {
    let results = match (&inv.results, inv.status) {
        (Some(r), Status::Completed | Status::Cancelled | Status::Failed) => r,
        _ => {
            return Err(Error::new(
                ErrorCode::InvestigationInProgress,
                "the investigation has no results yet; the report is available when it ends",
            )
            .with("investigation_id", inv.id.to_string()));
        }
    };
    let mut detectors: Vec<String> = results.anomalies.iter().map(|a| a.detector().to_string()).collect();
    detectors.sort();
    detectors.dedup();
    let f = &inv.request.filters;
    Ok(ReportInput {
        title: format!("Relatório da investigação {}: {}", inv.id, inv.request.query),
        generated_at: Some(chrono::Utc::now()),
        scope: Scope {
            records: vec![RecordCount { kind: "registros analisados".into(), count: results.records_analyzed }],
            organs: f
                .organizations
                .iter()
                .map(|code| OrganCount {
                    code: code.clone(),
                    name: vigia_agents::organs::organ_by_code(code).map_or_else(String::new, |o| o.name.to_string()),
                    records: 0,
                })
                .collect(),
            period: f.date_range.as_ref().map(|r| (r.start, r.end)),
            gaps: Vec::new(),
        },
        anomalies: results.anomalies.clone(),
        insights: results.insights.clone(),
        recommendations: results.recommendations.clone(),
        params: inv.params.clone(),
        detectors,
        max_findings: MAX_FINDINGS,
    })
}

/// A Markdown report cut at its second-level headings: the pieces a chat answer streams.
pub fn sections(markdown: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in markdown.lines() {
        if line.starts_with("## ") || out.is_empty() {
            out.push(String::new());
        }
        if let Some(last) = out.last_mut() {
            last.push_str(line);
            last.push('\n');
        }
    }
    out.into_iter().map(|s| s.trim_end().to_string()).filter(|s| !s.is_empty()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_is_cut_at_its_second_level_headings() {
        let md = "# Title\nintro\n\n## One\na\n## Two\nb\n";
        assert_eq!(sections(md), ["# Title\nintro", "## One\na", "## Two\nb"]);
    }
}
