//! `round_values`: a supplier or an organ with far more round contract values (exact multiples
//! of R$ 1.000) than the rest of the data, the mark of values set by hand rather than by a
//! price survey or a bid. Only contracts awarded in competition are counted: a direct
//! purchase's value is negotiated (project budgets of fundações de apoio, leases, tariffs) and
//! round by nature.
//!
//! The baseline rate `p0` is the share of round values among every contract of R$ 1.000 or
//! more in the dataset (at least 2%, so data without round values does not make one round
//! value suspicious). Each supplier and each organ with at least 10 such contracts is tested
//! with the exact binomial upper tail of its round count under `p0`. Flagged when its round
//! share exceeds `S(s)` and `-log10 p > Q(s)`.
//!
//! Sensitivity `s` moves `S(s)` through 80% (s = 0), 40% (s = 0.7, calibrated: legitimate
//! round values are spread thin, planted suppliers have most of theirs rounded) and 20% (s =
//! 1), and `Q(s)` through 10, 5 and 2 (p < 0.01). Confidence =
//! `margin_confidence(-log10 p - Q(s), 3)`. Complexity: one pass to group, O(n) binomial terms
//! at most per entity: O(n) overall.

use serde_json::json;

use crate::cancel::{AnalysisError, CancelFlag};
use crate::detect::Detector;
use crate::detect::common::{contract_ref, round2, round4};
use crate::detect::distributions::binomial_significance;
use crate::detect::finding::{Finding, pattern, point, side_subject};
use crate::detect::legal::{self, Modality};
use crate::detect::sensitivity::{Threshold, margin_confidence, tidy};
use crate::detect::shared::{Shared, Side};
use crate::model::anomaly::{Anomaly, AnomalyType, Severity};
use crate::model::dataset::Dataset;
use crate::model::params::DetectionParams;
use crate::text::{format_brl, format_pct};

/// Detector name.
pub const NAME: &str = "round_values";
/// The highest severity of a round-value finding: round amounts are common in budgets,
/// agreements and estimates, so they are a reason to look, never evidence alone.
pub const MAX_SEVERITY: Severity = Severity::Medium;
/// Round share of an entity's contracts, as sensitivity moves it.
pub const SHARE: Threshold = Threshold::new(0.8, 0.4, 0.2);
/// `-log10` of the binomial tail, as sensitivity moves it.
pub const SIGNIFICANCE: Threshold = Threshold::new(10.0, 5.0, 2.0);
/// Fewest contracts of R$ 1.000 or more for an entity to be judged.
pub const MIN_RECORDS: usize = 10;
/// Floor of the baseline rate.
pub const MIN_BASE: f64 = 0.02;
/// The unit a round value is a multiple of, in R$.
pub const UNIT: f64 = 1_000.0;

/// The round values detector.
#[derive(Debug, Clone, Copy, Default)]
pub struct RoundValues;

/// Whether a value is an exact multiple of R$ 1.000 (to the cent) and at least R$ 1.000.
pub fn is_round(v: f64) -> bool {
    if !(v.is_finite() && v >= UNIT) {
        return false;
    }
    // Integer arithmetic: a floating-point remainder is a slow software routine.
    let cents = (v * 100.0).round() as i64;
    cents % 100_000 == 0
}

impl Detector for RoundValues {
    fn name(&self) -> &'static str {
        NAME
    }
    fn kind(&self) -> AnomalyType {
        AnomalyType::PatternAnomaly
    }
    fn run_shared(
        &self,
        sh: &Shared<'_>,
        p: &DetectionParams,
        cancel: &CancelFlag,
    ) -> Result<Vec<Anomaly>, AnalysisError> {
        let cs = &sh.dataset().contracts;
        // 0: below R$ 1.000 (not judged), 1: not round, 2: round.
        let kind: Vec<u8> = cs
            .iter()
            .map(|c| {
                let v = c.value();
                // A direct purchase's value is negotiated (a project budget of a fundação de
                // apoio, a lease, a tariff): round by nature, not a sign of a value set by hand
                // in place of a bid.
                let direct = matches!(legal::modality(&c.modality), Modality::Dispensa | Modality::Inexigibilidade);
                if !(v.is_finite() && v >= UNIT) || direct {
                    0
                } else if is_round(v) {
                    2
                } else {
                    1
                }
            })
            .collect();
        let total = kind.iter().filter(|k| **k > 0).count();
        let round = kind.iter().filter(|k| **k == 2).count();
        let base = if total == 0 { MIN_BASE } else { (round as f64 / total as f64).max(MIN_BASE) };
        let (st, qt) = (SHARE.at(p.sensitivity), SIGNIFICANCE.at(p.sensitivity));
        let mut out = Vec::new();
        sh.for_each_entity(
            cancel,
            MIN_RECORDS,
            |i| kind[i] > 0,
            |side, id, members| {
                let rounded: Vec<usize> = members.iter().map(|&i| i as usize).filter(|&i| kind[i] == 2).collect();
                let share = rounded.len() as f64 / members.len() as f64;
                if share <= st {
                    return;
                }
                let significance = binomial_significance(rounded.len(), members.len(), base);
                if significance <= qt {
                    return;
                }
                let confidence = tidy(margin_confidence(significance - qt, 3.0));
                if confidence >= p.confidence_threshold {
                    let e = Entity { side, id, members, rounded: &rounded, share, significance, base };
                    out.push(anomaly(sh.dataset(), &e, (st, qt), confidence, p.sensitivity));
                }
            },
        )?;
        out.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(out)
    }
}

/// One judged entity.
struct Entity<'a> {
    side: Side,
    id: &'a str,
    members: &'a [u32],
    rounded: &'a [usize],
    share: f64,
    significance: f64,
    base: f64,
}

fn anomaly(ds: &Dataset, e: &Entity<'_>, (st, qt): (f64, f64), confidence: f64, sensitivity: f64) -> Anomaly {
    let (primary, label) = side_subject(e.side, &ds.contracts[e.members[0] as usize]);
    let side = e.side.name();
    let at_stake: f64 = e.rounded.iter().map(|&i| ds.contracts[i].value()).sum();
    let related: Vec<_> = e.rounded.iter().take(500).map(|&i| contract_ref(&ds.contracts[i])).collect();
    let n = e.members.len();
    Finding {
        detector: NAME,
        kind: AnomalyType::PatternAnomaly,
        key: format!("{side}-{}", e.id),
        confidence,
        at_stake,
        threshold: round4(st),
        description: format!(
            "{} de {} contratos {} têm valores redondos (múltiplos de R$ 1.000), contra {} no conjunto",
            e.rounded.len(),
            n,
            label,
            format_pct(e.base)
        ),
        human_pt: format!(
            "{} dos {} contratos {} ({}) têm valor exatamente redondo, somando {}. Nos demais contratos a taxa é \
             de {}. Valores redondos em excesso sugerem preços definidos sem pesquisa de mercado ou lance; vale pedir \
             a memória de cálculo.",
            e.rounded.len(),
            n,
            label,
            format_pct(e.share),
            format_brl(at_stake),
            format_pct(e.base)
        ),
        human_en: format!(
            "{} of {} contracts of this {side} have round values ({:.0}%), against a {:.1}% baseline.",
            e.rounded.len(),
            n,
            e.share * 100.0,
            e.base * 100.0
        ),
        technical: format!(
            "exact binomial upper tail of {} round values (multiples of R$ 1.000) in {} contracts under the dataset \
             rate {:.4}: -log10 p = {:.2} > {:.2}, share {:.3} > {:.3} (thresholds at sensitivity {}; 2 and 0.2 at \
             1.0)",
            e.rounded.len(),
            n,
            e.base,
            e.significance,
            qt,
            e.share,
            st,
            sensitivity
        ),
        primary,
        related,
        data_points: vec![
            point("round_share", e.share, None),
            point("baseline_round_share", e.base, None),
            point("contracts", n as f64, None),
        ],
        patterns: vec![pattern(
            "round_value_excess",
            format!("{:.0}% round values against {:.1}%", e.share * 100.0, e.base * 100.0),
            json!({"round": e.rounded.len(), "contracts": n}),
        )],
        method: "binomial_exact_upper_tail",
        score: e.significance,
        contamination: e.share,
        peer: Some(json!({"baseline": "dataset_round_rate", "rate": round4(e.base)})),
        regulatory: Some(json!({
            "rule": "Lei 14.133/2021, art. 23 (valor estimado a partir de pesquisa de preços)",
        })),
        factors: vec![
            ("round_share".into(), 0.6, format!("{:.0}% of the contracts are round", e.share * 100.0)),
            ("significance".into(), 0.4, format!("-log10 p = {:.1}", e.significance)),
        ],
        details: vec![
            ("entity", json!(side)),
            ("entity_id", json!(e.id)),
            ("round_share", json!(round4(e.share))),
            ("baseline", json!("dataset_round_rate")),
            ("baseline_rate", json!(round4(e.base))),
            ("significance", json!(round4(e.significance))),
            ("share_threshold", json!(round4(st))),
            ("sensitivity", json!(sensitivity)),
            ("round_value", json!(round2(at_stake))),
        ],
    }
    .build()
    .at_most(MAX_SEVERITY)
}

#[cfg(test)]
#[path = "round_values_tests.rs"]
mod tests;
