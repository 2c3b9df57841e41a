//! `AnomalyResult` of the spec, field for field (English names; transports rename for the
//! Portuguese variant), with the anomaly type and severity enums.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The spec's five anomaly types.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum AnomalyType {
    /// Prices out of line with their peers.
    PriceAnomaly,
    /// Concentration, duplicates and other structural patterns.
    PatternAnomaly,
    /// Timing: end-of-year rushes, spikes, dates out of order.
    TemporalAnomaly,
    /// Suspicious relationships between suppliers, servants and bidders.
    RelationshipAnomaly,
    /// Breaches of procurement law.
    ComplianceViolation,
}

impl AnomalyType {
    /// Every type, in the spec's order.
    pub const ALL: [AnomalyType; 5] = [
        AnomalyType::PriceAnomaly,
        AnomalyType::PatternAnomaly,
        AnomalyType::TemporalAnomaly,
        AnomalyType::RelationshipAnomaly,
        AnomalyType::ComplianceViolation,
    ];
    /// The English wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            AnomalyType::PriceAnomaly => "price_anomaly",
            AnomalyType::PatternAnomaly => "pattern_anomaly",
            AnomalyType::TemporalAnomaly => "temporal_anomaly",
            AnomalyType::RelationshipAnomaly => "relationship_anomaly",
            AnomalyType::ComplianceViolation => "compliance_violation",
        }
    }
    /// The Portuguese wire name.
    pub fn as_pt(self) -> &'static str {
        match self {
            AnomalyType::PriceAnomaly => "anomalia_preco",
            AnomalyType::PatternAnomaly => "anomalia_padrao",
            AnomalyType::TemporalAnomaly => "anomalia_temporal",
            AnomalyType::RelationshipAnomaly => "anomalia_relacionamento",
            AnomalyType::ComplianceViolation => "violacao_conformidade",
        }
    }
    /// Parses either wire name.
    pub fn parse(s: &str) -> Option<AnomalyType> {
        AnomalyType::ALL.into_iter().find(|t| t.as_str() == s || t.as_pt() == s)
    }
}

/// Severity, ordered from least to most severe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    /// Worth a look.
    Low,
    /// Worth an explanation from the organ.
    Medium,
    /// Likely irregular.
    High,
    /// Large money at stake with strong evidence.
    Critical,
}

impl Severity {
    /// English wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Low => "low",
            Severity::Medium => "medium",
            Severity::High => "high",
            Severity::Critical => "critical",
        }
    }
    /// Portuguese wire name.
    pub fn as_pt(self) -> &'static str {
        match self {
            Severity::Low => "baixa",
            Severity::Medium => "media",
            Severity::High => "alta",
            Severity::Critical => "critica",
        }
    }
}

/// An entity an anomaly concerns: `{type, id, name}` with type `contract`, `supplier` or `organ`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct EntityRef {
    /// `contract`, `supplier`, `organ` (later kinds: `expense`, `agreement`, `bidding`, `servant`).
    #[serde(rename = "type")]
    pub kind: String,
    /// The record's own id; a supplier's 14-digit CNPJ; an organ's SIAFI code.
    pub id: String,
    /// A human name (contract number and object, supplier name, organ name).
    pub name: String,
}

impl EntityRef {
    /// Builds a reference.
    pub fn new(kind: &str, id: impl Into<String>, name: impl Into<String>) -> Self {
        Self { kind: kind.to_string(), id: id.into(), name: name.into() }
    }
}

/// `{primary, related}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct AffectedEntities {
    /// The entity the anomaly is about.
    pub primary: EntityRef,
    /// Every other record behind it.
    pub related: Vec<EntityRef>,
}

/// `{metric, value, timestamp}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct DataPoint {
    /// What was measured (`valor_inicial`, `peer_median`, `supplier_share`, ...).
    pub metric: String,
    /// The measured value.
    pub value: f64,
    /// When it applies (signing date of a contract, period end), ISO 8601, if any.
    pub timestamp: Option<String>,
}

/// `{method, anomaly_score, contamination}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct StatisticalEvidence {
    /// The method (`zscore_log_peer_group`, `share_of_total`, ...).
    pub method: String,
    /// The score compared against the threshold.
    pub anomaly_score: f64,
    /// The fraction of the peer group flagged by the same rule.
    pub contamination: f64,
}

/// `{data_points, patterns, statistical_analysis?}`. Patterns are free-form objects
/// (`{name, description, ...}`), the spec not fixing their fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default, utoipa::ToSchema)]
pub struct Evidence {
    /// Measurements behind the finding.
    pub data_points: Vec<DataPoint>,
    /// Named patterns seen.
    pub patterns: Vec<Value>,
    /// The statistical test, when one applies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub statistical_analysis: Option<StatisticalEvidence>,
}

/// `{historical_comparison?, peer_comparison?, regulatory_context?}`, free-form objects.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default, utoipa::ToSchema)]
pub struct Context {
    /// How this compares with the same entity's past.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub historical_comparison: Option<Value>,
    /// How this compares with its peer group (which group, its baseline).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peer_comparison: Option<Value>,
    /// The rule or law that applies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub regulatory_context: Option<Value>,
}

/// `{factor, impact, description}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Factor {
    /// Short name.
    pub factor: String,
    /// Share of the score it explains, 0 to 1.
    pub impact: f64,
    /// One sentence.
    pub description: String,
}

/// What separates the Portuguese text of [`Explanation::human_readable`] from its English
/// version, when the detector wrote one.
pub const ENGLISH_MARK: &str = "\n\n(EN) ";

/// `{human_readable, technical, contributing_factors}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Explanation {
    /// For a journalist or citizen.
    pub human_readable: String,
    /// For an auditor: method, thresholds, baseline.
    pub technical: String,
    /// What drove the score.
    pub contributing_factors: Vec<Factor>,
}

/// One anomaly (the spec's `AnomalyResult`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Anomaly {
    /// Stable for the same data: `<detector>-<key>`.
    pub id: String,
    /// The anomaly type.
    #[serde(rename = "type")]
    pub kind: AnomalyType,
    /// Severity.
    pub severity: Severity,
    /// Confidence 0 to 1.
    pub confidence: f64,
    /// One sentence a journalist can check.
    pub description: String,
    /// Free-form; always has `detector`, plus the threshold and baseline that fired.
    pub technical_details: Map<String, Value>,
    /// The records concerned.
    pub affected_entities: AffectedEntities,
    /// Measurements and the test behind the finding.
    pub evidence: Evidence,
    /// Historical, peer and regulatory context.
    pub context: Context,
    /// Plain-language and technical explanation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explanation: Option<Explanation>,
}

impl Anomaly {
    /// The detector that found it (`technical_details.detector`).
    pub fn detector(&self) -> &str {
        self.technical_details.get("detector").and_then(Value::as_str).unwrap_or("")
    }
    /// The money at stake in R$ (`technical_details.value_at_stake`), 0 when not monetary.
    pub fn value_at_stake(&self) -> f64 {
        self.technical_details.get("value_at_stake").and_then(Value::as_f64).unwrap_or(0.0)
    }
    /// The English version of the plain-language explanation, when the detector wrote one.
    pub fn explanation_en(&self) -> Option<&str> {
        self.explanation.as_ref()?.human_readable.split_once(ENGLISH_MARK).map(|(_, en)| en)
    }
    /// Ids of every record named (primary first), for matching against planted labels.
    pub fn record_ids(&self) -> impl Iterator<Item = &str> {
        std::iter::once(&self.affected_entities.primary)
            .chain(self.affected_entities.related.iter())
            .map(|e| e.id.as_str())
    }
}

impl Anomaly {
    /// The same finding with its severity capped at `max`: for rules whose evidence asks for
    /// an explanation but cannot prove a wrong by itself (see each detector's doc).
    pub fn at_most(mut self, max: Severity) -> Anomaly {
        self.severity = self.severity.min(max);
        self
    }
}
