//! How investigations look on the wire, in each naming variant. One function per shape; the
//! English and Portuguese keys sit side by side so the two variants cannot drift apart.

use std::collections::BTreeMap;

use chrono::{DateTime, SecondsFormat, Utc};
use serde_json::{Map, Value};

use super::error::Lang;
use crate::domain::{Investigation, InvestigationHead, Phase, Status};
use crate::service::investigations::{Cancelled, Started};

mod anomaly;
pub mod bilingual;
pub mod chat;
pub mod data;
mod events;
pub mod lists;
pub mod shapes;

pub use events::event;
pub use lists::{InvestigationCursorPage, InvestigationPage, cursor_list, list};

use self::bilingual::{Localized, localized};
use self::shapes::*;

/// An instant as RFC 3339 UTC with milliseconds (`2024-05-01T12:00:00.000Z`).
pub(crate) fn ts(t: &DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

fn status(lang: Lang, s: Status) -> &'static str {
    if lang == Lang::Pt { s.as_pt() } else { s.as_str() }
}

fn phase(lang: Lang, p: Phase) -> &'static str {
    if lang == Lang::Pt { p.as_pt() } else { p.as_str() }
}

/// Builds an object from `(english, portuguese, value)` triples.
fn obj(lang: Lang, fields: Vec<(&str, &str, Value)>) -> Value {
    let mut m = Map::new();
    for (en, pt, v) in fields {
        m.insert(if lang == Lang::Pt { pt } else { en }.to_string(), v);
    }
    Value::Object(m)
}

/// Path of the stream endpoint of an investigation.
pub fn stream_path(lang: Lang, inv: &Investigation) -> String {
    match lang {
        Lang::En => format!("/api/v1/investigations/stream/{}", inv.id),
        Lang::Pt => format!("/api/v1/investigacoes/stream/{}", inv.id),
    }
}

/// Start response.
pub fn started(lang: Lang, s: &Started) -> Localized<InvestigationStarted, InvestigacaoIniciada> {
    let inv = &s.investigation;
    localized(
        lang,
        InvestigationStarted {
            investigation_id: inv.id,
            status: status(lang, inv.status),
            estimated_completion: s.estimated_completion.as_ref().map(ts),
            stream_url: stream_path(lang, inv),
        },
    )
}

/// InvestigationStatus, from the head (results are never read for it).
pub fn status_view(lang: Lang, inv: &InvestigationHead) -> Localized<InvestigationStatus, StatusInvestigacao> {
    let p = &inv.progress;
    let processing_ms = match (inv.started_at, inv.completed_at) {
        (Some(s), Some(c)) => (c - s).num_milliseconds().max(0),
        (Some(s), None) => (Utc::now() - s).num_milliseconds().max(0),
        _ => 0,
    };
    let error = inv.error.as_ref().map(|e| RunError {
        code: e.code.clone(),
        message: e.message.clone(),
        recoverable: e.recoverable,
    });
    localized(
        lang,
        InvestigationStatus {
            investigation_id: inv.id,
            status: status(lang, inv.status),
            progress: ProgressView {
                percentage: p.percentage,
                current_phase: p.current_phase.map(|ph| phase(lang, ph)),
                phases_completed: p.phases_completed.iter().map(|ph| phase(lang, *ph)).collect(),
            },
            statistics: StatisticsView {
                records_processed: p.records_processed,
                anomalies_found: inv.anomalies_found,
                agents_invoked: p.agents_invoked,
                processing_time_ms: processing_ms.unsigned_abs(),
            },
            created_at: ts(&inv.created_at),
            started_at: inv.started_at.as_ref().map(ts),
            completed_at: inv.completed_at.as_ref().map(ts),
            error,
            metadata: inv.provenance.as_ref().map(data_origin),
        },
    )
}

/// Where an investigation's data came from: source, demo flag, `data_status` (`completed` or
/// `completed_fallback`: the state stays `completed` either way), the warning, and how much of
/// what the upstream holds was analysed.
fn data_origin(p: &crate::domain::investigation::Provenance) -> DataOrigin {
    DataOrigin {
        source: p.source.clone(),
        demo_mode: p.demo_mode,
        data_status: p.data_status(),
        warning: p.warning(),
        records_available: p.records_available,
        truncated: p.truncated,
        data_notes: p.notes.clone(),
    }
}

/// InvestigationResponse; `None` when the run has no results (callers make sure they exist).
pub fn results(lang: Lang, inv: &Investigation) -> Option<Localized<InvestigationResults, ResultadosInvestigacao>> {
    let r = inv.results.as_ref()?;
    let s = &r.summary;
    let by_type = s
        .by_type
        .iter()
        .map(|(t, n)| ((if lang == Lang::Pt { t.as_pt() } else { t.as_str() }).to_string(), *n))
        .collect();
    let b = &s.by_severity;
    let insights = r
        .insights
        .iter()
        .map(|i| InsightView {
            agent: i.agent.to_string(),
            insight: i.insight.to_string(),
            confidence: i.confidence,
            supporting_evidence: i.supporting_evidence.to_vec(),
        })
        .collect();
    let demo = r.provenance.demo_mode;
    let view = InvestigationResults {
        investigation_id: inv.id,
        status: status(lang, inv.status),
        metadata: ResultsMetadata {
            query: inv.request.query.clone(),
            data_source: inv.request.data_source.clone(),
            filters: inv.request.filters.clone(),
            execution_time_ms: r.execution_time_ms,
            total_records_analyzed: r.records_analyzed,
            source: r.provenance.source.clone(),
            demo_mode: demo,
            agents_used: r.agents_used.clone(),
            agents_cached: r.agents_cached.clone(),
            agents_failed: r
                .agents_failed
                .iter()
                .map(|(a, e)| FailedAgent { agent: a.clone(), reason: e.clone() })
                .collect(),
            fallback_reason: r.provenance.fallback_reason.clone(),
            data_status: r.provenance.data_status(),
            warning: r.provenance.warning(),
            records_available: r.provenance.records_available,
            truncated: r.provenance.truncated,
            data_notes: r.provenance.notes.clone(),
        },
        anomalies: r.anomalies.iter().map(|a| (**a).clone()).collect(),
        summary: ResultsSummary {
            total_anomalies: s.total_anomalies,
            by_type,
            by_severity: SeverityCounts { critical: b.critical, high: b.high, medium: b.medium, low: b.low },
            risk_score: s.risk_score,
        },
        insights,
        recommendations: r.recommendations.clone(),
        warning: r.provenance.warning(),
        explanations: inv.request.include_explanations.unwrap_or(false).then(|| explanations(r)),
    };
    Some(localized(lang, view))
}

/// The run-level explanation: method, confidence interval of the mean confidence per type,
/// and the share of anomalies each detector contributed.
fn explanations(r: &crate::domain::investigation::Results) -> Explanations {
    let mut intervals = BTreeMap::new();
    for t in vigia_agents::AnomalyType::ALL {
        let c: Vec<f64> = r.anomalies.iter().filter(|a| a.kind == t).map(|a| a.confidence).collect();
        if c.is_empty() {
            continue;
        }
        let n = c.len() as f64;
        let mean = c.iter().sum::<f64>() / n;
        let sd = (c.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt();
        let half = 1.96 * sd / n.sqrt();
        intervals.insert(t.as_str().into(), [(mean - half).max(0.0), (mean + half).min(1.0)]);
    }
    let total = r.anomalies.len().max(1) as f64;
    let mut importance = BTreeMap::new();
    for a in &r.anomalies {
        *importance.entry(a.detector().to_string()).or_insert(0.0) += 1.0 / total;
    }
    Explanations {
        methodology: "Peer-grouped statistical detectors over normalised records: z-scores of log values per object category and modality (price), supplier shares per organ and year (concentration), a binomial test on December signings (end of year) and text similarity with same supplier and close value or date (duplicates).",
        confidence_intervals: intervals,
        feature_importance: importance,
    }
}

/// Cancel response.
pub fn cancelled(lang: Lang, c: &Cancelled) -> Localized<InvestigationCancelled, InvestigacaoCancelada> {
    let message = match lang {
        Lang::En => "investigation cancelled",
        Lang::Pt => "investigação cancelada",
    };
    localized(
        lang,
        InvestigationCancelled {
            message,
            investigation_id: c.id,
            status: status(lang, c.status),
            partial_results_available: c.partial_results_available,
        },
    )
}
