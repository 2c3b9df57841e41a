//! `end_of_year`: an organ that crowds its spending into December.
//!
//! Per organ and year, December's share of the contracted value is compared with the expected
//! 1/12. A flag needs both: the value share above `f(s)` times the expected, and a December
//! contract count significantly above 1/12 of the year's contracts (one-sided binomial test by
//! normal approximation, `-log10 p > q(s)`), so one large December contract alone does not
//! fire it. Organ-years with fewer than 12 contracts are not judged.
//!
//! Sensitivity `s` moves `f(s)` through 4.0 (s = 0), 2.6 (s = 0.7, calibrated: clean demo
//! Decembers hold about 10% of the value, planted ones 35-42%) and 2.0 (s = 1, twice the
//! expected share), and `q(s)` through 6 (p < 1e-6), 3 (p < 0.001) and 2 (p < 0.01).
//! Confidence = `margin_confidence(share / (1/12) - f(s), 0.75)` (see
//! [`super::sensitivity`]). Complexity: linear (one pass to group by organ-year).

use chrono::Datelike;
use serde_json::json;

use super::Detector;
use super::common::{contract_ref, organ_name, organ_ref, round2, round4};
use super::finding::{Finding, largest_contracts, pattern, point};
use super::sensitivity::{Threshold, margin_confidence, tidy};
use super::shared::Shared;
use super::stats::binomial_upper_p;
use crate::agent::{AnalysisError, CancelFlag};
use crate::model::anomaly::{Anomaly, AnomalyType};
use crate::model::dataset::Dataset;
use crate::model::params::DetectionParams;
use crate::text::{format_brl, format_pct};

/// Detector name.
pub const NAME: &str = "end_of_year";
/// The expected share of one month.
pub const EXPECTED_SHARE: f64 = 1.0 / 12.0;
/// December's value share must exceed this multiple of the expected share.
pub const SHARE_FACTOR: f64 = 2.0;
/// Significance level of the count test.
pub const ALPHA: f64 = 0.01;
/// Fewest contracts in an organ-year to judge it.
pub const MIN_CONTRACTS: usize = 12;
/// December's value share over the expected 1/12, as sensitivity moves it.
pub const FACTOR: Threshold = Threshold::new(4.0, 2.6, SHARE_FACTOR);
/// `-log10` of the count test's p-value, as sensitivity moves it (the literal `ALPHA` at 1).
pub const SIGNIFICANCE: Threshold = Threshold::new(6.0, 3.0, 2.0);
/// Most December contracts named by one anomaly (the largest first).
pub const MAX_RELATED: usize = 500;

/// The end-of-year rush detector.
#[derive(Debug, Clone, Copy, Default)]
pub struct EndOfYear;

/// Confidence of a flag at this December share and sensitivity.
pub fn confidence_for(december_share: f64, sensitivity: f64) -> f64 {
    tidy(margin_confidence(december_share / EXPECTED_SHARE - FACTOR.at(sensitivity), 0.75))
}

impl Detector for EndOfYear {
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
        let mut out = Vec::new();
        for g in sh.organ_years() {
            let (organ, year) = (g.organ, g.year);
            let members: Vec<usize> = g.members.iter().map(|&i| i as usize).collect();
            cancel.check()?;
            if members.len() < MIN_CONTRACTS {
                continue;
            }
            let mut values = [0.0f64; 12];
            let mut counts = [0usize; 12];
            let mut december = Vec::new();
            for &i in &members {
                let c = &ds.contracts[i];
                let Some(d) = c.signed_on else { continue };
                let m = d.month0() as usize;
                values[m] += c.value();
                counts[m] += 1;
                if m == 11 {
                    december.push(i);
                }
            }
            let total: f64 = values.iter().sum();
            if total <= 0.0 {
                continue;
            }
            let share = values[11] / total;
            let p_value = binomial_upper_p(counts[11], members.len(), EXPECTED_SHARE);
            let significance = -p_value.max(1e-300).log10();
            if share > FACTOR.at(p.sensitivity) * EXPECTED_SHARE && significance > SIGNIFICANCE.at(p.sensitivity) {
                let s = Series { organ, year, values, counts, total, share, p_value };
                let a = anomaly(ds, &s, &december, p);
                if a.confidence >= p.confidence_threshold {
                    out.push(a);
                }
            }
        }
        Ok(out)
    }
}

/// The monthly series of one organ-year.
struct Series<'a> {
    organ: &'a str,
    year: i32,
    values: [f64; 12],
    counts: [usize; 12],
    total: f64,
    share: f64,
    p_value: f64,
}

fn anomaly(ds: &Dataset, s: &Series<'_>, december: &[usize], p: &DetectionParams) -> Anomaly {
    let first = &ds.contracts[december[0]];
    let n: usize = s.counts.iter().sum();
    let count_share = s.counts[11] as f64 / n as f64;
    let excess = (s.values[11] - EXPECTED_SHARE * s.total).max(0.0);
    let confidence = confidence_for(s.share, p.sensitivity);
    let factor = FACTOR.at(p.sensitivity);
    let alpha = 10f64.powf(-SIGNIFICANCE.at(p.sensitivity));
    let organ = organ_name(first);
    let named = largest_contracts(ds, december.to_vec(), MAX_RELATED);
    let others = s.total - s.values[11];
    let mut a = Finding {
        detector: NAME,
        kind: AnomalyType::TemporalAnomaly,
        key: format!("{}-{}", s.organ, s.year),
        confidence,
        at_stake: excess,
        threshold: round4(factor * EXPECTED_SHARE),
        description: format!(
            "{} assinou em dezembro de {} {} do valor contratado no ano ({} de {}), em {} de {} contratos; \
             o esperado seria {}",
            organ,
            s.year,
            format_pct(s.share),
            format_brl(s.values[11]),
            format_brl(s.total),
            s.counts[11],
            n,
            format_pct(EXPECTED_SHARE)
        ),
        human_pt: format!(
            "Em dezembro de {}, {} fechou {} contratos que somam {} ({} do ano). Um mês típico teria cerca de {}. \
             Gastos concentrados no fim do ano costumam indicar pressa para usar o orçamento e merecem explicação. \
             (December holds {:.1}% of the year's value against 8.3% expected.)",
            s.year,
            organ,
            s.counts[11],
            format_brl(s.values[11]),
            format_pct(s.share),
            format_pct(EXPECTED_SHARE),
            s.share * 100.0
        ),
        human_en: String::new(),
        technical: format!(
            "December value share {:.4} > {:.4} ({:.2} x 1/12 at sensitivity {}; the literal rule is 2 x 1/12) and \
             December count {} of {} with one-sided binomial p = {:.3e} < {:.0e} (normal approximation, continuity \
             correction)",
            s.share,
            factor * EXPECTED_SHARE,
            factor,
            p.sensitivity,
            s.counts[11],
            n,
            s.p_value,
            alpha
        ),
        primary: organ_ref(first),
        related: named.iter().map(|&i| contract_ref(&ds.contracts[i])).collect(),
        data_points: (0..12)
            .map(|m| point("monthly_value", s.values[m], Some(format!("{}-{:02}", s.year, m + 1))))
            .collect(),
        patterns: vec![pattern(
            "end_of_year_rush",
            format!("December holds {} of the year's value", format_pct(s.share)),
            json!({"monthly_counts": s.counts}),
        )],
        method: "binomial_test_december_count",
        score: s.share / EXPECTED_SHARE,
        contamination: count_share,
        peer: None,
        regulatory: Some(json!({
            "rule": "Lei 4.320/1964, art. 35 (regime de competência do exercício financeiro)",
            "note": "empenhos concentrados no fim do exercício",
        })),
        factors: vec![
            ("december_share".into(), 0.7, format!("{} of the value against 8,3% expected", format_pct(s.share))),
            ("december_count".into(), 0.3, format!("{} December contracts, p = {:.2e}", s.counts[11], s.p_value)),
        ],
        details: vec![
            ("literal_threshold", json!(round4(SHARE_FACTOR * EXPECTED_SHARE))),
            ("sensitivity", json!(p.sensitivity)),
            ("baseline", json!("uniform_months_of_the_organ_year")),
            ("organ", json!(s.organ)),
            ("year", json!(s.year)),
            ("december_share", json!(round4(s.share))),
            ("expected_share", json!(round4(EXPECTED_SHARE))),
            ("december_value", json!(round2(s.values[11]))),
            ("year_total", json!(round2(s.total))),
            ("december_contracts", json!(s.counts[11])),
            ("year_contracts", json!(n)),
            ("december_count_share", json!(round4(count_share))),
            ("p_value", json!(s.p_value)),
            ("alpha", json!(alpha)),
            ("test", json!("binomial_upper_tail_normal_approximation")),
        ],
    }
    .build();
    a.context.historical_comparison = Some(json!({
        "other_months_mean_value": round2(others / 11.0),
        "december_value": round2(s.values[11]),
        "ratio": if others > 0.0 { round2(s.values[11] / (others / 11.0)) } else { 0.0 },
    }));
    a
}

#[cfg(test)]
#[path = "temporal_tests.rs"]
mod tests;
