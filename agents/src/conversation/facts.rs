//! The structured facts an answer is phrased from ([`AnswerFacts`], [`AnomalyBrief`]), what a
//! session remembers between turns ([`SessionMemory`]), and building both from engine results
//! and a dataset, so every figure drummond writes comes from here.

use std::borrow::Borrow;
use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::{Entities, Intent, Language};
use crate::model::anomaly::{Anomaly, Severity};
use crate::model::dataset::Dataset;
use crate::model::report::BySeverity;

/// Briefs kept in [`AnswerFacts::anomalies`] by [`AnswerFacts::from_findings`]; the counts and
/// the money at stake cover every finding.
pub const BRIEFS_KEPT: usize = 10;

/// Briefs a session's memory keeps of its last answer ([`AnswerFacts::remembered`]): a
/// follow-up asks for the most severe finding, the biggest supplier or the money at stake, and
/// the counts cover every finding; the answer itself, with all its briefs, is in the history.
pub const BRIEFS_REMEMBERED: usize = 1;

/// One finding as drummond may cite it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnomalyBrief {
    /// The anomaly's id.
    pub id: String,
    /// Its type (`price_anomaly`, ...).
    pub anomaly_type: String,
    /// `low`, `medium`, `high` or `critical`.
    pub severity: String,
    /// The detector's one-sentence description (Portuguese).
    pub description: String,
    /// The detector's plain-language explanation in English, when it wrote one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description_en: Option<String>,
    /// The contract concerned, when the primary entity is one.
    pub contract_id: Option<String>,
    /// The supplier concerned, by name, when one is named.
    pub supplier: Option<String>,
    /// Money at stake in R$, when the finding is monetary.
    pub value: Option<f64>,
}

impl AnomalyBrief {
    /// The brief of an engine finding.
    pub fn of(a: &Anomaly) -> AnomalyBrief {
        let entities = std::iter::once(&a.affected_entities.primary).chain(&a.affected_entities.related);
        let named = |kind: &str| entities.clone().find(|e| e.kind == kind);
        let value = a.value_at_stake();
        AnomalyBrief {
            id: a.id.clone(),
            anomaly_type: a.kind.as_str().to_string(),
            severity: a.severity.as_str().to_string(),
            description: a.description.clone(),
            description_en: a.explanation_en().map(str::to_string),
            contract_id: named("contract").map(|e| e.id.clone()),
            supplier: named("supplier").map(|e| if e.name.is_empty() { e.id.clone() } else { e.name.clone() }),
            value: (value > 0.0).then_some(value),
        }
    }
}

/// Everything drummond may say about one answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnswerFacts {
    /// What was asked.
    pub intent: Intent,
    /// For which organs, period, values, supplier.
    pub entities: Entities,
    /// The records are synthetic demo data.
    pub demo: bool,
    /// The investigation that produced the findings, if one did.
    pub investigation_id: Option<String>,
    /// Records the analysis read.
    pub records_analysed: usize,
    /// The most severe findings first (at most [`BRIEFS_KEPT`] when built by `from_findings`).
    pub anomalies: Vec<AnomalyBrief>,
    /// Every finding, not only the briefs kept.
    pub total_anomalies: usize,
    /// Sum of the money at stake of every finding, in R$.
    pub money_at_stake: f64,
    /// Largest suppliers by contracted value (name, R$), from the dataset.
    pub top_suppliers: Vec<(String, f64)>,
    /// For status answers: lines filled by the host.
    pub status_lines: Vec<String>,
    /// Findings per severity, over every finding.
    #[serde(default)]
    pub by_severity: BySeverity,
}

impl AnswerFacts {
    /// Facts with no findings and no records, for the host to fill (status answers).
    pub fn empty(intent: Intent, entities: Entities, demo: bool) -> AnswerFacts {
        AnswerFacts {
            intent,
            entities,
            demo,
            investigation_id: None,
            records_analysed: 0,
            anomalies: Vec::new(),
            total_anomalies: 0,
            money_at_stake: 0.0,
            top_suppliers: Vec::new(),
            status_lines: Vec::new(),
            by_severity: BySeverity::default(),
        }
    }

    /// The facts of an analysis: `anomalies` as the engine ordered them (most severe first),
    /// the records analysed and the dataset's largest suppliers.
    pub fn from_findings(
        intent: Intent,
        entities: Entities,
        demo: bool,
        investigation_id: Option<String>,
        dataset: &Dataset,
        anomalies: &[impl Borrow<Anomaly>],
    ) -> AnswerFacts {
        let mut facts = AnswerFacts::empty(intent, entities, demo);
        facts.investigation_id = investigation_id;
        facts.records_analysed = dataset.len();
        facts.top_suppliers = top_suppliers(dataset, 3);
        for a in anomalies {
            facts.push(a.borrow());
        }
        facts
    }

    /// What a session's memory keeps of these facts for the next turn: all but the briefs after
    /// the [`BRIEFS_REMEMBERED`] most severe, their English explanations in a session held in
    /// Portuguese (`lang`) and the status lines (written for one answer). The memory is written
    /// with every answer, so it holds what follow-ups read and no more.
    pub fn remembered(&self, lang: Language) -> AnswerFacts {
        AnswerFacts {
            intent: self.intent,
            entities: self.entities.clone(),
            demo: self.demo,
            investigation_id: self.investigation_id.clone(),
            records_analysed: self.records_analysed,
            anomalies: self
                .anomalies
                .iter()
                .take(BRIEFS_REMEMBERED)
                .map(|b| AnomalyBrief {
                    description_en: b.description_en.clone().filter(|_| lang.is_en()),
                    ..b.clone()
                })
                .collect(),
            total_anomalies: self.total_anomalies,
            money_at_stake: self.money_at_stake,
            top_suppliers: self.top_suppliers.clone(),
            status_lines: Vec::new(),
            by_severity: self.by_severity,
        }
    }

    /// Adds one finding as it arrives, in any order: the counts and money take every finding
    /// pushed (push each id once), the briefs keep the [`BRIEFS_KEPT`] most severe (then
    /// largest) in order.
    pub fn push(&mut self, a: &Anomaly) {
        self.total_anomalies += 1;
        let value = a.value_at_stake().max(0.0);
        self.money_at_stake += value;
        let s = &mut self.by_severity;
        match a.severity {
            Severity::Critical => s.critical += 1,
            Severity::High => s.high += 1,
            Severity::Medium => s.medium += 1,
            Severity::Low => s.low += 1,
        }
        // Ranked before its brief is made: a finding that would not be kept makes none.
        let graver = (severity_rank(a.severity.as_str()), value);
        let at = self.anomalies.partition_point(|b| rank(b) >= graver);
        if at < BRIEFS_KEPT {
            self.anomalies.insert(at, AnomalyBrief::of(a));
            self.anomalies.truncate(BRIEFS_KEPT);
        }
    }
}

/// Severity first, then money at stake: the order briefs are kept in (larger is graver).
fn rank(b: &AnomalyBrief) -> (u8, f64) {
    (severity_rank(&b.severity), b.value.unwrap_or(0.0))
}

fn severity_rank(severity: &str) -> u8 {
    match severity {
        "critical" => 3,
        "high" => 2,
        "medium" => 1,
        _ => 0,
    }
}

/// The `n` suppliers with the largest contracted value (contracts' final value, else initial),
/// largest first, ties by name.
pub fn top_suppliers(dataset: &Dataset, n: usize) -> Vec<(String, f64)> {
    let mut totals: HashMap<&str, f64> = HashMap::new();
    for c in &dataset.contracts {
        let name = if c.supplier.name.is_empty() { c.supplier.document.as_str() } else { c.supplier.name.as_str() };
        if !name.is_empty() {
            *totals.entry(name).or_default() += c.value();
        }
    }
    let mut ranked: Vec<(&str, f64)> = totals.into_iter().collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    // Only the names kept are copied.
    ranked.into_iter().take(n).map(|(k, v)| (k.to_string(), v)).collect()
}

/// What nana keeps of a session between turns (the host stores it, e.g. in sled).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct SessionMemory {
    /// The entities in force (the last turn's, with what it carried over).
    pub entities: Entities,
    /// The last substantive intent (investigation, analysis or report), which follow-ups continue.
    pub last_intent: Option<Intent>,
    /// The language of the last message.
    pub language: Language,
    /// Investigations started in this session, oldest first.
    pub investigation_ids: Vec<String>,
    /// Turns so far.
    pub turns: u32,
    /// The facts of the last analysed answer, so a follow-up can be answered from them.
    pub last_answer_facts: Option<AnswerFacts>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cancel::CancelFlag;
    use crate::demo::{DemoSpec, generate};
    use crate::model::params::DetectionParams;

    #[test]
    fn findings_pushed_in_any_order_keep_the_most_severe_briefs_in_order() {
        let data = generate(&DemoSpec { seed: 9, contracts: 800, ..DemoSpec::default() });
        let (all, _) = crate::engine::analyse(&data.dataset, &DetectionParams::default(), &CancelFlag::new()).unwrap();
        assert!(all.len() > BRIEFS_KEPT, "enough findings to truncate");
        let ordered =
            AnswerFacts::from_findings(Intent::Investigation, Entities::default(), true, None, &data.dataset, &all);
        let mut shuffled = AnswerFacts::empty(Intent::Investigation, Entities::default(), true);
        for a in all.iter().rev() {
            shuffled.push(a);
        }
        assert_eq!(shuffled.total_anomalies, all.len());
        assert_eq!(shuffled.by_severity, ordered.by_severity);
        let ranks: Vec<_> = shuffled.anomalies.iter().map(rank).collect();
        assert!(ranks.windows(2).all(|w| w[0] >= w[1]));
        assert_eq!(ranks, ordered.anomalies.iter().map(rank).collect::<Vec<_>>());
        assert!((shuffled.money_at_stake - ordered.money_at_stake).abs() < 1e-6);
    }
}
