//! Building the anomalies of every detector: one [`Finding`] with every field a journalist
//! needs becomes one [`Anomaly`], with entity references for the record kinds beyond
//! contracts, and the entities a finding about a group of contracts names (a supplier or an
//! organ, the contracts behind it, the largest first when there are too many).
//!
//! Language: `explanation.human_readable` carries the Portuguese text, a blank line and the
//! English text prefixed `(EN)` (the spec's built-in heuristics gloss theirs in English inside
//! the Portuguese text); `description` is Portuguese; `explanation.technical` English.

use std::ops::Range;

use serde_json::{Map, Value, json};

use super::common::{contract_ref, details, organ_name, organ_ref, round2, round4, severity, supplier_ref};
use super::series::OrganMonths;
use super::shared::Side;
use crate::model::agreement::Agreement;
use crate::model::anomaly::{
    AffectedEntities, Anomaly, AnomalyType, Context, DataPoint, ENGLISH_MARK, EntityRef, Evidence, Explanation, Factor,
    StatisticalEvidence,
};
use crate::model::bidding::Bidding;
use crate::model::contract::Contract;
use crate::model::dataset::Dataset;
use crate::model::expense::Expense;
use crate::model::registry_facts::SupplierProfile;
use crate::model::sanction::Sanction;
use crate::model::servant::Servant;

/// `{type: "bidding", id, name}`.
pub fn bidding_ref(b: &Bidding) -> EntityRef {
    EntityRef::new("bidding", b.id.to_string(), b.display_name())
}

/// `{type: "expense", id: documento, name}`.
pub fn expense_ref(e: &Expense) -> EntityRef {
    EntityRef::new("expense", e.id.to_string(), e.display_name())
}

/// `{type: "agreement", id, name: "Convênio <number> - <object>"}` (object cut at 80 characters).
pub fn agreement_ref(a: &Agreement) -> EntityRef {
    let object: String = a.object.chars().take(80).collect();
    let name = if a.number.is_empty() { object } else { format!("Convênio {} - {}", a.number, object) };
    EntityRef::new("agreement", a.id.clone(), name)
}

/// `{type: "grantee", id: CNPJ (14 digits) or CPF, name}`: who receives an agreement's money
/// (the convenente). Not `supplier`: a municipality or non-profit sells nothing, and the views
/// that rank suppliers should not count it as one.
pub fn grantee_ref(a: &Agreement) -> EntityRef {
    EntityRef::new("grantee", a.grantee.document.to_string(), a.grantee.name.to_string())
}

/// `{type: "sanction", id, name: "<register> <kind> - <sanctioned>"}`.
pub fn sanction_ref(s: &Sanction) -> EntityRef {
    EntityRef::new("sanction", s.id.clone(), format!("{} {} - {}", s.register, s.kind, s.name))
}

/// `{type: "servant", id, name}`.
pub fn servant_ref(s: &Servant) -> EntityRef {
    EntityRef::new("servant", s.id.clone(), s.name.clone())
}

/// `{type: "supplier", id: CNPJ, name}` from a registry profile.
pub fn profile_ref(p: &SupplierProfile) -> EntityRef {
    EntityRef::new("supplier", p.cnpj.clone(), p.name.clone())
}

/// `{type: "supplier", id, name}` from a document and name.
pub fn supplier(doc: &str, name: &str) -> EntityRef {
    EntityRef::new("supplier", doc.to_string(), name.to_string())
}

/// The entity a finding about one supplier's or one organ's contracts is about, and how the
/// Portuguese text names it after "contratos" ("do fornecedor X", "do órgão Y": "de" and the
/// article contracted), from any of its contracts.
pub fn side_subject(side: Side, c: &Contract) -> (EntityRef, String) {
    match side {
        Side::Supplier => (supplier_ref(c), format!("do fornecedor {}", c.supplier.name)),
        Side::Organ => (organ_ref(c), format!("do órgão {}", organ_name(c))),
    }
}

/// The contracts a finding names, at most `max`: all of them in the order given, or when
/// there are more, the `max` largest by value (ties by index) in index order.
pub fn largest_contracts(ds: &Dataset, mut idx: Vec<usize>, max: usize) -> Vec<usize> {
    if idx.len() > max {
        idx.sort_by(|&a, &b| ds.contracts[b].value().total_cmp(&ds.contracts[a].value()).then(a.cmp(&b)));
        idx.truncate(max);
        idx.sort_unstable();
    }
    idx
}

/// References to the contracts named, followed by the organ of `organ_of`.
pub fn contracts_and_organ(ds: &Dataset, named: &[usize], organ_of: &Contract) -> Vec<EntityRef> {
    named.iter().map(|&i| contract_ref(&ds.contracts[i])).chain(std::iter::once(organ_ref(organ_of))).collect()
}

/// The organ of a monthly series as the subject of a finding about some of its months.
pub struct OrganSubject {
    /// The organ's name ([`organ_name`]).
    pub name: String,
    /// The organ.
    pub primary: EntityRef,
    /// The months' contracts (at most the `max` given, the largest first), then the organ.
    pub related: Vec<EntityRef>,
}

/// The subject of a finding about the months `months` of an organ's series.
pub fn organ_subject(ds: &Dataset, s: &OrganMonths, months: Range<usize>, max: usize) -> OrganSubject {
    let first = &ds.contracts[s.example];
    let idx = s.members[months].iter().flatten().map(|&i| i as usize).collect();
    let named = largest_contracts(ds, idx, max);
    OrganSubject { name: organ_name(first), primary: organ_ref(first), related: contracts_and_organ(ds, &named, first) }
}

/// A data point.
pub fn point(metric: &str, value: f64, timestamp: Option<String>) -> DataPoint {
    DataPoint { metric: metric.to_string(), value: round2(value), timestamp }
}

/// Everything one anomaly says, before it is laid out in the spec's shape.
pub struct Finding {
    /// Detector name (`technical_details.detector`, id prefix).
    pub detector: &'static str,
    /// Anomaly type.
    pub kind: AnomalyType,
    /// The rest of the id (`<detector>-<key>`), stable for the same data.
    pub key: String,
    /// Confidence after the sensitivity adjustment.
    pub confidence: f64,
    /// Money at stake in R$.
    pub at_stake: f64,
    /// The threshold that fired (`technical_details.threshold`).
    pub threshold: f64,
    /// One Portuguese sentence.
    pub description: String,
    /// Portuguese explanation.
    pub human_pt: String,
    /// English explanation; empty when the Portuguese text already glosses itself in English.
    pub human_en: String,
    /// Technical (English): method, thresholds, baseline.
    pub technical: String,
    /// The entity it is about.
    pub primary: EntityRef,
    /// Every record behind it.
    pub related: Vec<EntityRef>,
    /// Measurements.
    pub data_points: Vec<DataPoint>,
    /// Named patterns.
    pub patterns: Vec<Value>,
    /// Method name, score and contamination for `statistical_analysis`.
    pub method: &'static str,
    /// Score compared with the threshold.
    pub score: f64,
    /// Fraction of comparable units flagged by the same rule.
    pub contamination: f64,
    /// Peer group or rule baseline.
    pub peer: Option<Value>,
    /// The law or rule.
    pub regulatory: Option<Value>,
    /// What drove the score: (factor, impact, description).
    pub factors: Vec<(String, f64, String)>,
    /// Extra `technical_details` entries.
    pub details: Vec<(&'static str, Value)>,
}

impl Finding {
    /// Lays the finding out as an [`Anomaly`].
    pub fn build(self) -> Anomaly {
        let mut td: Map<String, Value> = details(self.detector, self.threshold, self.at_stake);
        for (k, v) in self.details {
            td.insert(k.to_string(), v);
        }
        Anomaly {
            id: format!("{}-{}", self.detector, self.key),
            kind: self.kind,
            severity: severity(self.confidence, self.at_stake),
            confidence: round4(self.confidence),
            description: self.description,
            technical_details: td,
            affected_entities: AffectedEntities { primary: self.primary, related: self.related },
            evidence: Evidence {
                data_points: self.data_points,
                patterns: self.patterns,
                statistical_analysis: Some(StatisticalEvidence {
                    method: self.method.to_string(),
                    anomaly_score: round4(self.score),
                    contamination: round4(self.contamination),
                }),
            },
            context: Context {
                historical_comparison: None,
                peer_comparison: self.peer,
                regulatory_context: self.regulatory,
            },
            explanation: Some(Explanation {
                human_readable: if self.human_en.is_empty() {
                    self.human_pt
                } else {
                    format!("{}{ENGLISH_MARK}{}", self.human_pt, self.human_en)
                },
                technical: self.technical,
                contributing_factors: self
                    .factors
                    .into_iter()
                    .map(|(factor, impact, description)| Factor { factor, impact: round2(impact), description })
                    .collect(),
            }),
        }
    }
}

/// A pattern object `{name, description, ...extra}`.
pub fn pattern(name: &str, description: String, extra: Value) -> Value {
    let mut m = Map::new();
    m.insert("name".into(), json!(name));
    m.insert("description".into(), json!(description));
    if let Value::Object(e) = extra {
        m.extend(e);
    }
    Value::Object(m)
}

/// Confidence of a legal rule at this sensitivity: the base moves by only 0.05 per unit of
/// sensitivity around the default, so a breach of the law is reported at every sensitivity
/// (a base of 0.9 stays at or above 0.865) while its confidence still follows the request.
pub fn legal_confidence(base: f64, sensitivity: f64) -> f64 {
    (base + 0.05 * (sensitivity.clamp(0.0, 1.0) - super::common::DEFAULT_SENSITIVITY)).clamp(0.01, 0.99)
}
