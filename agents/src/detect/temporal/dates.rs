//! `date_inconsistency`: contracts whose dates are out of order.
//!
//! Signing comes first: the DOU publication follows it (often by weeks, which is normal; a
//! publication days *before* the signature is not), the validity normally starts on or after
//! it (a validity starting long before the signature makes the contract retroactive: services
//! rendered without a contract, which an auditor opens), and a validity cannot end before it
//! starts. Dates before 1950 are the sentinels of missing dates (1900-01-01) and are read as
//! missing. One anomaly per contract, naming every problem found
//! (`technical_details.problems`):
//!
//! - `published_before_signing`: `dataPublicacaoDOU` more than `P(s)` days before
//!   `dataAssinatura`;
//! - `validity_before_signing`: `dataInicioVigencia` more than `V(s)` days before
//!   `dataAssinatura`;
//! - `validity_ends_before_start`: `dataFimVigencia` more than `E(s)` days before
//!   `dataInicioVigencia`.
//!
//! A publication before signing and a validity that ends before it starts are most often a
//! date typed wrong: data-quality observations, low severity at most, with no money at stake.
//! A retroactive validity is the irregularity: its money at stake is the share of the
//! contract's value for the days of validity before the signature.
//!
//! Sensitivity `s` moves `P(s)` through 30 (s = 0), 3 (s = 0.7) and 0 (s = 1: any publication
//! before signing), `V(s)` through 365, 60 and 30 days, and `E(s)` through 30, 0 and 0. The
//! score is the largest gap over its threshold, in days; confidence =
//! `margin_confidence(gap - threshold, 30)`. Complexity: one pass, O(n).

use serde_json::json;

use crate::cancel::{AnalysisError, CancelFlag};
use crate::detect::Detector;
use crate::detect::common::{contract_ref, iso, organ_ref, round4};
use crate::detect::coverage::plausible;
use crate::detect::finding::{Finding, pattern, point};
use crate::detect::sensitivity::{Threshold, margin_confidence, tidy};
use crate::detect::shared::Shared;
use crate::model::anomaly::{Anomaly, AnomalyType, Severity};
use crate::model::contract::Contract;
use crate::model::params::DetectionParams;

/// Detector name.
pub const NAME: &str = "date_inconsistency";
/// Days of publication before signing, as sensitivity moves it.
pub const PUBLISHED: Threshold = Threshold::new(30.0, 3.0, 0.0);
/// Days of validity before signing, as sensitivity moves it.
pub const RETROACTIVE: Threshold = Threshold::new(365.0, 60.0, 30.0);
/// Days the validity ends before it starts, as sensitivity moves it.
pub const INVERTED: Threshold = Threshold::new(30.0, 0.0, 0.0);

/// The date consistency detector.
#[derive(Debug, Clone, Copy, Default)]
pub struct DateInconsistency;

/// One problem with a contract's dates: rule, gap in days, threshold in days.
pub type Problem = (&'static str, i64, f64);

/// The rule of a retroactive validity, the one problem that is more than data quality.
pub const RETROACTIVE_RULE: &str = "validity_before_signing";

/// The problems of a contract's dates at sensitivity `s` (implausible dates, the sentinels of
/// missing ones, are left out).
pub fn problems(c: &Contract, s: f64) -> Vec<Problem> {
    let real = |d: Option<chrono::NaiveDate>| d.filter(plausible);
    let (signed, published) = (real(c.signed_on), real(c.published_on));
    let (from, until) = (real(c.valid_from), real(c.valid_until));
    let mut out = Vec::new();
    if let (Some(signed), Some(published)) = (signed, published) {
        let gap = (signed - published).num_days();
        if gap as f64 > PUBLISHED.at(s) {
            out.push(("published_before_signing", gap, PUBLISHED.at(s)));
        }
    }
    if let (Some(signed), Some(from)) = (signed, from) {
        let gap = (signed - from).num_days();
        if gap as f64 > RETROACTIVE.at(s) {
            out.push((RETROACTIVE_RULE, gap, RETROACTIVE.at(s)));
        }
    }
    if let (Some(from), Some(until)) = (from, until) {
        let gap = (from - until).num_days();
        if gap as f64 > INVERTED.at(s) {
            out.push(("validity_ends_before_start", gap, INVERTED.at(s)));
        }
    }
    out
}

/// The money at stake in a contract's date problems: for a retroactive validity, the share of
/// its value for the days before the signature (all of it when the validity's length is
/// unknown); nothing for data-quality problems alone.
pub fn at_stake(c: &Contract, found: &[Problem]) -> f64 {
    let Some((_, gap, _)) = found.iter().find(|p| p.0 == RETROACTIVE_RULE) else { return 0.0 };
    let length = match (c.valid_from, c.valid_until) {
        (Some(from), Some(until)) if until > from => (until - from).num_days(),
        _ => return c.value(),
    };
    c.value() * (*gap as f64 / length as f64).min(1.0)
}

impl Detector for DateInconsistency {
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
        for (i, c) in ds.contracts.iter().enumerate() {
            if i % 16_384 == 0 {
                cancel.check()?;
            }
            let found = problems(c, p.sensitivity);
            let Some(margin) = found.iter().map(|(_, gap, t)| *gap as f64 - t).reduce(f64::max) else { continue };
            let confidence = tidy(margin_confidence(margin, 30.0));
            if confidence >= p.confidence_threshold {
                out.push(anomaly(c, &found, confidence, p.sensitivity));
            }
        }
        Ok(out)
    }
}

fn describe(rule: &str, gap: i64) -> (String, String) {
    match rule {
        "published_before_signing" => (
            format!("publicado no DOU {gap} dias antes da assinatura"),
            format!("published in the DOU {gap} days before it was signed"),
        ),
        "validity_before_signing" => (
            format!("vigência iniciada {gap} dias antes da assinatura"),
            format!("validity starting {gap} days before signing"),
        ),
        _ => (
            format!("vigência termina {gap} dias antes de começar"),
            format!("validity ending {gap} days before it starts"),
        ),
    }
}

fn anomaly(c: &Contract, found: &[Problem], confidence: f64, sensitivity: f64) -> Anomaly {
    let (pt, en): (Vec<String>, Vec<String>) = found.iter().map(|(r, g, _)| describe(r, *g)).unzip();
    let number = if c.number.is_empty() { c.id.as_str() } else { c.number.as_str() };
    let worst = found.iter().map(|(_, g, t)| *g as f64 - t).fold(0.0, f64::max);
    let quality_only = found.iter().all(|p| p.0 != RETROACTIVE_RULE);
    Finding {
        detector: NAME,
        kind: AnomalyType::TemporalAnomaly,
        key: c.id.clone().to_string(),
        confidence,
        at_stake: at_stake(c, found),
        threshold: found[0].2,
        description: format!("Contrato {} com datas fora de ordem: {}", number, pt.join("; ")),
        human_pt: format!(
            "O contrato {} ({}) tem datas incoerentes: {}. {}",
            number,
            c.object.chars().take(100).collect::<String>(),
            pt.join("; "),
            if quality_only {
                "Provavelmente uma data foi registrada errada: é uma questão de qualidade do dado, a corrigir no \
                 sistema de origem."
            } else {
                "Vigência anterior à assinatura significa serviço prestado sem contrato: vale conferir no processo a \
                 justificativa (Lei 14.133/2021, art. 95, § 2º; Lei 8.666/1993, art. 60, parágrafo único)."
            }
        ),
        human_en: format!("Contract {number} has dates out of order: {}.", en.join("; ")),
        technical: format!(
            "date order checks at sensitivity {}: {}",
            sensitivity,
            found.iter().map(|(r, g, t)| format!("{r}: {g} days > {t:.1}")).collect::<Vec<_>>().join("; ")
        ),
        primary: contract_ref(c),
        related: vec![organ_ref(c)],
        data_points: vec![
            point("signed_on", 0.0, iso(c.signed_on)),
            point("published_on", 0.0, iso(c.published_on)),
            point("valid_from", 0.0, iso(c.valid_from)),
            point("valid_until", 0.0, iso(c.valid_until)),
        ],
        patterns: found.iter().map(|(r, g, _)| pattern(r, describe(r, *g).1, json!({"days": g}))).collect(),
        method: "date_order_rules",
        score: worst,
        contamination: 0.0,
        peer: None,
        regulatory: Some(json!({
            "rule": "Lei 14.133/2021, art. 94 (divulgação no PNCP como condição de eficácia) e art. 105",
            "note": "a publicação e a vigência decorrem da assinatura",
        })),
        factors: found
            .iter()
            .map(|(r, g, t)| ((*r).to_string(), 1.0 / found.len() as f64, format!("{g} days against {t:.0} allowed")))
            .collect(),
        details: vec![
            ("problems", json!(found.iter().map(|(r, _, _)| *r).collect::<Vec<_>>())),
            ("gaps_days", json!(found.iter().map(|(_, g, _)| *g).collect::<Vec<_>>())),
            ("sensitivity", json!(sensitivity)),
            ("margin_days", json!(round4(worst))),
            ("baseline", json!("signing_date")),
            ("data_quality_only", json!(quality_only)),
            ("contract_value", json!(c.value())),
        ],
    }
    .build()
    // A date typed wrong is a data-quality observation: low severity at most.
    .at_most(if quality_only { Severity::Low } else { Severity::Critical })
}

#[cfg(test)]
#[path = "dates_tests.rs"]
mod tests;
