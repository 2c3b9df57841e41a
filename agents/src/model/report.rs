//! What an analysis returns: agent output (anomalies, insights, recommendations) and the
//! summary of the spec (`total_anomalies`, `by_type`, `by_severity`, `risk_score`).

use std::collections::BTreeMap;
use std::sync::Arc;

use arcstr::ArcStr;
use serde::{Deserialize, Serialize};

use super::anomaly::{Anomaly, AnomalyType, Severity};

/// The spec's `AgentInsight`. Its texts are shared (`ArcStr`, `Arc`): an output the analysis
/// cache keeps is copied into every run it answers, its insights into the run's results and
/// events, and a copy is then a count, not tens of allocations per insight.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Insight {
    /// Agent id.
    #[schema(value_type = String)]
    pub agent: ArcStr,
    /// One or two sentences.
    #[schema(value_type = String)]
    pub insight: ArcStr,
    /// 0 to 1.
    pub confidence: f64,
    /// Ids of the anomalies behind it.
    #[schema(value_type = Vec<String>)]
    pub supporting_evidence: Arc<[String]>,
    /// The same in English, where the agent writes one (the chat answers English questions
    /// with it); `insight` is Portuguese.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub insight_en: Option<ArcStr>,
}

/// What one agent produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct AgentOutput {
    /// Anomalies at or above the confidence threshold, most severe first; shared (`Arc`) with
    /// the findings cache the agents of one analysis read and with whatever keeps the output,
    /// so no finding is copied on its way to a client.
    #[serde(with = "shared_vec")]
    pub anomalies: Vec<Arc<Anomaly>>,
    /// Insights over them.
    pub insights: Vec<Insight>,
    /// What an auditor should do next.
    pub recommendations: Vec<String>,
    /// Structured products beside the findings (a report, chart-ready aggregations, a plan);
    /// empty for the detection agents.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub artifacts: Vec<Artifact>,
}

/// A structured product of an agent, as it is handed to clients: a kind (`report`,
/// `aggregation`, `network`, `regional`, `security_review`, `plan`, ...), a title and the content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Artifact {
    /// What the content is; clients dispatch on it.
    pub kind: String,
    /// A human title ("Gastos por órgão").
    pub title: String,
    /// The content: JSON for data, a JSON string for text documents.
    pub content: serde_json::Value,
}

/// Counts per severity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default, utoipa::ToSchema)]
pub struct BySeverity {
    /// critical
    pub critical: usize,
    /// high
    pub high: usize,
    /// medium
    pub medium: usize,
    /// low
    pub low: usize,
}

/// The spec's summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default, utoipa::ToSchema)]
pub struct Summary {
    /// Number of anomalies.
    pub total_anomalies: usize,
    /// Count per anomaly type (every type present, zero included).
    pub by_type: BTreeMap<AnomalyType, usize>,
    /// Count per severity.
    pub by_severity: BySeverity,
    /// 0 to 100; see [`risk_score`].
    pub risk_score: u8,
}

impl Summary {
    /// Summarises a set of anomalies (owned or shared).
    pub fn of<A: std::borrow::Borrow<Anomaly>>(anomalies: &[A]) -> Summary {
        let mut by_type: BTreeMap<AnomalyType, usize> = AnomalyType::ALL.iter().map(|t| (*t, 0)).collect();
        let mut by_severity = BySeverity::default();
        for a in anomalies.iter().map(A::borrow) {
            *by_type.entry(a.kind).or_default() += 1;
            match a.severity {
                Severity::Critical => by_severity.critical += 1,
                Severity::High => by_severity.high += 1,
                Severity::Medium => by_severity.medium += 1,
                Severity::Low => by_severity.low += 1,
            }
        }
        Summary { total_anomalies: anomalies.len(), by_type, by_severity, risk_score: risk_score(anomalies) }
    }
}

/// Risk score 0-100 of a set of anomalies.
///
/// Each anomaly is read as an independent chance that the spending it concerns is irregular:
/// `p = w(severity) * confidence * m`, with `w` = 0.5 critical, 0.3 high, 0.12 medium,
/// 0.04 low, and a money factor `m = 0.6 + 0.4 * min(1, log10(1 + R$ at stake) / 7)` (R$ 10 M
/// or more at stake counts fully; non-monetary findings count at 0.6). The score is the chance
/// that at least one is irregular, `100 * (1 - Π(1 - p))`, rounded. No anomalies give 0; a
/// handful of confident critical findings approach 100; many low ones raise it slowly.
pub fn risk_score<A: std::borrow::Borrow<Anomaly>>(anomalies: &[A]) -> u8 {
    let clean: f64 = anomalies
        .iter()
        .map(A::borrow)
        .map(|a| {
            let w = match a.severity {
                Severity::Critical => 0.5,
                Severity::High => 0.3,
                Severity::Medium => 0.12,
                Severity::Low => 0.04,
            };
            let money = 0.6 + 0.4 * ((1.0 + a.value_at_stake().max(0.0)).log10() / 7.0).min(1.0);
            1.0 - w * a.confidence.clamp(0.0, 1.0) * money
        })
        .product();
    (100.0 * (1.0 - clean)).round().clamp(0.0, 100.0) as u8
}

/// Serde for a `Vec<Arc<T>>` as the plain sequence of `T` (serde's own `Arc` support needs a
/// feature flag that would rebuild every dependency).
pub mod shared_vec {
    use std::sync::Arc;

    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    /// Serialises the values the `Arc`s point to.
    pub fn serialize<T: Serialize, S: Serializer>(v: &[Arc<T>], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(v.iter().map(|a| &**a))
    }

    /// Reads a sequence of `T`, each into its own `Arc`.
    pub fn deserialize<'de, T: Deserialize<'de>, D: Deserializer<'de>>(d: D) -> Result<Vec<Arc<T>>, D::Error> {
        Ok(Vec::<T>::deserialize(d)?.into_iter().map(Arc::new).collect())
    }
}
