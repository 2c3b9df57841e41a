//! `end_of_year`: an organ that crowds its spending into December.
//!
//! Per organ and year, December's share of the contracted value is compared with the expected
//! 1/12. A flag needs both: the value share above twice the expected (2/12), and a December
//! contract count significantly above 1/12 of the year's contracts (one-sided binomial test by
//! normal approximation, p < 0.01), so one large December contract alone does not fire it.
//! Organ-years with fewer than 12 contracts are not judged. The confidence grows with the
//! December share (0.45 at 2/12, 0.80 at 30%) and with the strength of the count test.

use chrono::Datelike;
use serde_json::json;

use super::Detector;
use super::common::{
    adjust_confidence, by_organ_year, contract_ref, details, organ_name, organ_ref, ramp, round2, round4, severity,
};
use super::stats::binomial_upper_p;
use crate::agent::{AnalysisError, CancelFlag};
use crate::model::anomaly::{
    AffectedEntities, Anomaly, AnomalyType, Context, DataPoint, Evidence, Explanation, Factor, StatisticalEvidence,
};
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

/// The end-of-year rush detector.
#[derive(Debug, Clone, Copy, Default)]
pub struct EndOfYear;

/// Confidence of a flag, before the sensitivity shift.
pub fn confidence_for(december_share: f64, p_value: f64) -> f64 {
    let s = ramp(december_share, SHARE_FACTOR * EXPECTED_SHARE, 0.45, 0.30, 0.80);
    let q = ramp(-p_value.max(1e-300).log10(), 2.0, 0.0, 6.0, 0.17);
    s + q
}

impl Detector for EndOfYear {
    fn name(&self) -> &'static str {
        NAME
    }
    fn kind(&self) -> AnomalyType {
        AnomalyType::TemporalAnomaly
    }
    fn run(&self, ds: &Dataset, p: &DetectionParams, cancel: &CancelFlag) -> Result<Vec<Anomaly>, AnalysisError> {
        let mut out = Vec::new();
        for ((organ, year), members) in by_organ_year(ds) {
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
            if share > SHARE_FACTOR * EXPECTED_SHARE && p_value < ALPHA {
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
    let confidence = adjust_confidence(confidence_for(s.share, s.p_value), p.sensitivity);
    let organ = organ_name(first);
    let mut td = details(NAME, SHARE_FACTOR * EXPECTED_SHARE, excess);
    td.insert("organ".into(), json!(s.organ));
    td.insert("year".into(), json!(s.year));
    td.insert("december_share".into(), json!(round4(s.share)));
    td.insert("expected_share".into(), json!(round4(EXPECTED_SHARE)));
    td.insert("december_value".into(), json!(round2(s.values[11])));
    td.insert("year_total".into(), json!(round2(s.total)));
    td.insert("december_contracts".into(), json!(s.counts[11]));
    td.insert("year_contracts".into(), json!(n));
    td.insert("december_count_share".into(), json!(round4(count_share)));
    td.insert("p_value".into(), json!(s.p_value));
    td.insert("alpha".into(), json!(ALPHA));
    td.insert("test".into(), json!("binomial_upper_tail_normal_approximation"));
    let data_points = (0..12)
        .map(|m| DataPoint {
            metric: "monthly_value".into(),
            value: round2(s.values[m]),
            timestamp: Some(format!("{}-{:02}", s.year, m + 1)),
        })
        .collect();
    let related = december.iter().map(|&i| contract_ref(&ds.contracts[i])).collect();
    let description = format!(
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
    );
    let human = format!(
        "Em dezembro de {}, {} fechou {} contratos que somam {} ({} do ano). Um mês típico teria cerca de {}. \
         Gastos concentrados no fim do ano costumam indicar pressa para usar o orçamento e merecem explicação.",
        s.year,
        organ,
        s.counts[11],
        format_brl(s.values[11]),
        format_pct(s.share),
        format_pct(EXPECTED_SHARE)
    );
    let technical = format!(
        "December value share {:.4} > {:.4} (2 x 1/12) and December count {} of {} with one-sided binomial \
         p = {:.3e} < {} (normal approximation, continuity correction)",
        s.share,
        SHARE_FACTOR * EXPECTED_SHARE,
        s.counts[11],
        n,
        s.p_value,
        ALPHA
    );
    let others = s.total - s.values[11];
    Anomaly {
        id: format!("{NAME}-{}-{}", s.organ, s.year),
        kind: AnomalyType::TemporalAnomaly,
        severity: severity(confidence, excess),
        confidence,
        description,
        technical_details: td,
        affected_entities: AffectedEntities { primary: organ_ref(first), related },
        evidence: Evidence {
            data_points,
            patterns: vec![json!({
                "name": "end_of_year_rush",
                "description": format!("December holds {} of the year's value", format_pct(s.share)),
                "monthly_counts": s.counts,
            })],
            statistical_analysis: Some(StatisticalEvidence {
                method: "binomial_test_december_count".into(),
                anomaly_score: round4(s.share / EXPECTED_SHARE),
                contamination: round4(count_share),
            }),
        },
        context: Context {
            historical_comparison: Some(json!({
                "other_months_mean_value": round2(others / 11.0),
                "december_value": round2(s.values[11]),
                "ratio": if others > 0.0 { round2(s.values[11] / (others / 11.0)) } else { 0.0 },
            })),
            regulatory_context: Some(json!({
                "rule": "Lei 4.320/1964, art. 35 (regime de competência do exercício financeiro)",
                "note": "empenhos concentrados no fim do exercício",
            })),
            ..Context::default()
        },
        explanation: Some(Explanation {
            human_readable: human,
            technical,
            contributing_factors: vec![
                Factor {
                    factor: "december_share".into(),
                    impact: 0.7,
                    description: format!("{} of the value against 8,3% expected", format_pct(s.share)),
                },
                Factor {
                    factor: "december_count".into(),
                    impact: 0.3,
                    description: format!("{} December contracts, p = {:.2e}", s.counts[11], s.p_value),
                },
            ],
        }),
    }
}

#[cfg(test)]
#[path = "temporal_tests.rs"]
mod tests;
