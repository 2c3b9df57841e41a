//! `spending_spike`: a month in which an organ contracted far more than in its usual month,
//! and (the daily grain, [`crate::detect::temporal::spikes_daily`]) a day on which it signed contracts of far
//! more purchase processes than on the other days of that month.
//!
//! Each organ's contracted value per month on the shared zero-filled grid
//! ([`crate::detect::series`]) is taken on the log scale over the span of months its history allows
//! ([`crate::detect::coverage`]: from its first regular month, without the data's cut last month; a
//! dataset of one publication month has no span at all). A month's modified z-score is
//! `(ln V_m - median) / (1.4826 MAD)` over the span (robust, so the spike itself barely moves
//! the baseline; the spread is at least 0.1). A month is judged only with at least
//! [`MIN_BEFORE`] months of the span before it and [`MIN_AFTER`] after it (so neither the
//! data's first and last months nor an organ's first appearance is ever a spike), and never
//! in December: the federal budget cycle makes December large everywhere, and `end_of_year`
//! judges it against the organ's own past Decembers and its peers'. A month is flagged when
//! its z exceeds `T(s)` and at least 3 contracts were signed in it (one large contract is a
//! price question, not a spike). Only organs with a span of 12 or more months and at least 2
//! contracts a month on average over it are judged.
//!
//! Sensitivity `s` moves `T(s)` through 9 (s = 0), 4.5 (s = 0.7, calibrated: clean demo
//! months stay under 3, planted spikes reach 5 and more) and 3.5 (s = 1, the conventional
//! cut-off of Iglewicz and Hoaglin's modified z-score). Confidence =
//! `margin_confidence(z - T(s), 1.5)`. The money at stake is the month's value above the
//! organ's median month. Complexity: linear in the contracts plus organs x months.
//!
//! Severity: high at most ([`crate::model::anomaly::Anomaly::at_most`]): the pattern asks for an
//! explanation; it proves no wrong by itself.

use serde_json::json;

use crate::cancel::{AnalysisError, CancelFlag};
use crate::detect::Detector;
use crate::detect::common::{round2, round4};
use crate::detect::coverage::{Span, mean_count};
use crate::detect::finding::{Finding, organ_subject, pattern, point};
use crate::detect::sensitivity::{Threshold, margin_confidence, tidy};
use crate::detect::series::{OrganMonths, month_label, robust};
use crate::detect::shared::Shared;
use crate::model::anomaly::{Anomaly, AnomalyType};
use crate::model::dataset::Dataset;
use crate::model::params::DetectionParams;
use crate::text::{format_brl, format_decimal};

/// Detector name.
pub const NAME: &str = "spending_spike";
/// The modified z-score threshold as sensitivity moves it.
pub const Z: Threshold = Threshold::new(9.0, 4.5, 3.5);
/// Fewest months in an organ's span to judge it.
pub const MIN_MONTHS: usize = 12;
/// Fewest months of the organ's span before a judged month.
pub const MIN_BEFORE: usize = 6;
/// Fewest months of the organ's span after a judged month.
pub const MIN_AFTER: usize = 2;
/// Fewest contracts per month, on average, to judge an organ.
pub const MIN_MEAN_COUNT: f64 = 2.0;
/// Fewest contracts in a flagged month.
pub const MIN_SPIKE_COUNT: u32 = 3;
/// Most contracts named by one anomaly (the largest first).
pub const MAX_RELATED: usize = 500;

/// The spending spike detector.
#[derive(Debug, Clone, Copy, Default)]
pub struct SpendingSpike;

impl Detector for SpendingSpike {
    fn name(&self) -> &'static str {
        NAME
    }
    fn kind(&self) -> AnomalyType {
        AnomalyType::TemporalAnomaly
    }
    fn run_shared(
        &self,
        sh: &Shared<'_>,
        p: &DetectionParams,
        cancel: &CancelFlag,
    ) -> Result<Vec<Anomaly>, AnalysisError> {
        let ds = sh.dataset();
        let (grid, series) = sh.organ_months(cancel)?;
        let coverage = sh.coverage(cancel)?;
        let grid = *grid;
        let t = Z.at(p.sensitivity);
        let mut out = Vec::new();
        for s in series.iter() {
            cancel.check()?;
            let Some(sp) = coverage.span(s) else { continue };
            if sp.len() < MIN_MONTHS || mean_count(s, sp) < MIN_MEAN_COUNT {
                continue;
            }
            let logs = s.logs();
            let (median, sigma) = robust(&logs[sp.start..sp.end], 0.1);
            let z: Vec<f64> = logs.iter().map(|l| (l - median) / sigma).collect();
            let judged = |m: usize| sp.judges(m, MIN_BEFORE, MIN_AFTER) && !is_december(grid.first + m as i32);
            let flagged = (sp.start..sp.end).filter(|&m| z[m] > t && judged(m)).count();
            for (m, &zm) in z.iter().enumerate() {
                if zm > t && judged(m) && s.counts[m] >= MIN_SPIKE_COUNT {
                    let confidence = tidy(margin_confidence(zm - t, 1.5));
                    if confidence >= p.confidence_threshold {
                        let month = Month { key: grid.first + m as i32, m, z: zm, median, sigma, flagged, span: sp };
                        out.push(anomaly(ds, s, &month, t, confidence, p.sensitivity));
                    }
                }
            }
        }
        out.extend(crate::detect::temporal::spikes_daily::bursts(sh, coverage, p, cancel)?);
        Ok(out)
    }
}

/// The month judged.
struct Month {
    key: i32,
    m: usize,
    z: f64,
    median: f64,
    sigma: f64,
    flagged: usize,
    span: Span,
}

/// Whether a month key is a December.
pub fn is_december(key: i32) -> bool {
    key.rem_euclid(12) == 11
}

fn anomaly(ds: &Dataset, s: &OrganMonths, mo: &Month, t: f64, confidence: f64, sensitivity: f64) -> Anomaly {
    let label = month_label(mo.key);
    let value = s.values[mo.m];
    let typical = mo.median.exp();
    let at_stake = (value - typical).max(0.0);
    let ratio = value / typical.max(1.0);
    let subject = organ_subject(ds, s, mo.m..mo.m + 1, MAX_RELATED);
    let organ = &subject.name;
    let data_points = (0..s.values.len())
        .filter(|k| k.abs_diff(mo.m) <= 6)
        .map(|k| point("monthly_value", s.values[k], Some(month_label(mo.key - mo.m as i32 + k as i32))))
        .collect();
    let a = Finding {
        detector: NAME,
        kind: AnomalyType::TemporalAnomaly,
        key: format!("{}-{}", s.organ, label),
        confidence,
        at_stake,
        threshold: round4(t),
        description: format!(
            "{} contratou {} em {} ({} contratos), {} vezes o valor de um mês típico do órgão ({})",
            organ,
            format_brl(value),
            label,
            s.counts[mo.m],
            format_decimal(ratio, 1),
            format_brl(typical)
        ),
        human_pt: format!(
            "Em {}, {} assinou {} contratos que somam {}, cerca de {} vezes o valor de um mês típico do órgão \
             ({}). Um pico assim pede a explicação do que foi contratado de uma vez.",
            label,
            organ,
            s.counts[mo.m],
            format_brl(value),
            format_decimal(ratio, 1),
            format_brl(typical)
        ),
        human_en: format!(
            "In {label}, the organ signed {} contracts worth {}, about {ratio:.1} times its typical month.",
            s.counts[mo.m],
            format_brl(value)
        ),
        technical: format!(
            "modified z-score of ln(monthly value) over the organ's {} months from {} (zero-filled grid): z = {:.2} > \
             {:.2} (threshold at sensitivity {}; 3.5 is the literal Iglewicz-Hoaglin cut-off); median ln = {:.3}, \
             1.4826 MAD = {:.3}; judged with at least {} months before and {} after, Decembers left to end_of_year",
            mo.span.len(),
            month_label(mo.key - mo.m as i32 + mo.span.start as i32),
            mo.z,
            t,
            sensitivity,
            mo.median,
            mo.sigma,
            MIN_BEFORE,
            MIN_AFTER
        ),
        primary: subject.primary,
        related: subject.related,
        data_points,
        patterns: vec![pattern(
            "monthly_spike",
            format!("{label} holds {ratio:.1}x the organ's typical month"),
            json!({"month": label, "ratio_to_typical": round2(ratio), "contracts": s.counts[mo.m]}),
        )],
        method: "modified_zscore_log_monthly_value",
        score: mo.z,
        contamination: mo.flagged as f64 / mo.span.len().max(1) as f64,
        peer: Some(json!({
            "baseline": "organ_monthly_median",
            "organ": s.organ,
            "months": mo.span.len(),
            "from_month": month_label(mo.key - mo.m as i32 + mo.span.start as i32),
            "median_month_value": round2(typical),
            "sigma_log": round4(mo.sigma),
        })),
        regulatory: None,
        factors: vec![
            ("z_score".into(), 0.7, format!("{:.2} robust deviations above the organ's median month", mo.z)),
            ("contracts".into(), 0.3, format!("{} contracts signed in the month", s.counts[mo.m])),
        ],
        details: vec![
            ("grain", json!("month")),
            ("organ", json!(s.organ)),
            ("month", json!(label)),
            ("z_score", json!(round4(mo.z))),
            ("sensitivity", json!(sensitivity)),
            ("literal_threshold", json!(3.5)),
            ("baseline", json!("organ_monthly_median")),
            ("month_value", json!(round2(value))),
            ("typical_month_value", json!(round2(typical))),
            ("month_contracts", json!(s.counts[mo.m])),
            ("history_months", json!(mo.span.len())),
            ("months_before", json!(mo.m - mo.span.start)),
            ("months_after", json!(mo.span.end - mo.m - 1)),
        ],
    }
    .build();
    a.at_most(crate::model::anomaly::Severity::High)
}

#[cfg(test)]
#[path = "spikes_tests.rs"]
mod tests;
