//! Helpers shared by the detectors: the severity score, the sensitivity adjustment of
//! confidence, entity references and grouping of contracts by organ and year.

use std::collections::BTreeMap;

use chrono::{Datelike, NaiveDate};
use serde_json::{Map, Value, json};

use crate::model::anomaly::{EntityRef, Severity};
use crate::model::contract::{Contract, Organ};
use crate::model::dataset::Dataset;
use crate::organs::organ_by_code;

/// Severity from a finding's confidence and the money at stake (the scale the README
/// documents).
///
/// `score = 0.6 * confidence + 0.4 * money`, where `money = min(1, log10(1 + R$ at stake) / 7)`
/// (R$ 10 million or more counts fully, R$ 100 thousand counts 0.71). High from 0.70 with at
/// least [`HIGH_AT_STAKE`] at stake, medium from 0.55, low below. Critical needs both strong evidence and material money: confidence at
/// least [`CRITICAL_CONFIDENCE`] and at least [`CRITICAL_AT_STAKE`] at stake (and the score of
/// 0.85 that follows from them); anything short of that is high at most.
pub fn severity(confidence: f64, at_stake: f64) -> Severity {
    let money = ((1.0 + at_stake.max(0.0)).log10() / 7.0).min(1.0);
    let score = 0.6 * confidence.clamp(0.0, 1.0) + 0.4 * money;
    if score >= 0.85 && confidence >= CRITICAL_CONFIDENCE && at_stake >= CRITICAL_AT_STAKE {
        Severity::Critical
    } else if score >= 0.70 && at_stake >= HIGH_AT_STAKE {
        Severity::High
    } else if score >= 0.55 {
        Severity::Medium
    } else {
        Severity::Low
    }
}

/// The confidence a critical finding needs at the least.
pub const CRITICAL_CONFIDENCE: f64 = 0.9;

/// The money at stake (R$) a high finding needs at the least: below it a finding is medium at
/// most, however sure (two empenhos of R$ 1.702 for the same lamps are worth a question, not
/// an urgent case).
pub const HIGH_AT_STAKE: f64 = 50_000.0;

/// The money at stake (R$) a critical finding needs at the least.
pub const CRITICAL_AT_STAKE: f64 = 1_000_000.0;

/// The default sensitivity of [`crate::DetectionParams`], at which confidences are unchanged.
pub const DEFAULT_SENSITIVITY: f64 = 0.7;

/// Shifts a confidence with the requested sensitivity: +0.25 per unit of sensitivity above the
/// default 0.7 (so sensitivity 1.0 adds 0.075 and 0.3 removes 0.1), clamped to 0.01-0.99.
/// The flagging rule (the spec's literal threshold) never changes.
pub fn adjust_confidence(confidence: f64, sensitivity: f64) -> f64 {
    (confidence + 0.25 * (sensitivity.clamp(0.0, 1.0) - DEFAULT_SENSITIVITY)).clamp(0.01, 0.99)
}

/// Linear interpolation of `x` between `(x0, y0)` and `(x1, y1)`, clamped to the segment.
pub fn ramp(x: f64, x0: f64, y0: f64, x1: f64, y1: f64) -> f64 {
    if x <= x0 {
        y0
    } else if x >= x1 {
        y1
    } else {
        y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    }
}

/// `{type: "contract", id, name}` for a contract.
pub fn contract_ref(c: &Contract) -> EntityRef {
    EntityRef::new("contract", c.id.to_string(), c.display_name())
}

/// `{type: "supplier", id: CNPJ (14 digits) or CPF, name}`.
pub fn supplier_ref(c: &Contract) -> EntityRef {
    EntityRef::new("supplier", c.supplier.document.to_string(), c.supplier.name.to_string())
}

/// `{type: "organ", id: SIAFI code, name}` of a contract's organ; the name falls back to the
/// organ table.
pub fn organ_ref(c: &Contract) -> EntityRef {
    organ_entity(&c.organ)
}

/// `{type: "organ", id: SIAFI code, name}`; the name falls back to the organ table.
pub fn organ_entity(o: &Organ) -> EntityRef {
    EntityRef::new("organ", o.code.to_string(), organ_label(o))
}

/// A contract's organ's name ([`organ_label`]).
pub fn organ_name(c: &Contract) -> String {
    organ_label(&c.organ)
}

/// The organ's name as the record gives it, else from the organ table, else its code.
pub fn organ_label(o: &Organ) -> String {
    if !o.name.is_empty() {
        o.name.to_string()
    } else if let Some(known) = organ_by_code(&o.code) {
        known.name.to_string()
    } else {
        format!("órgão {}", o.code)
    }
}

/// The cores this process may use, read once (the standard library asks the OS, cgroup
/// files included, on every call).
pub fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// ISO date string.
pub fn iso(d: Option<NaiveDate>) -> Option<String> {
    d.map(|d| d.format("%Y-%m-%d").to_string())
}

/// `technical_details` with `detector`, `threshold` and `value_at_stake` set.
pub fn details(detector: &str, threshold: f64, value_at_stake: f64) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("detector".into(), json!(detector));
    m.insert("threshold".into(), json!(threshold));
    m.insert("value_at_stake".into(), json!(round2(value_at_stake)));
    m
}

/// Rounds to cents (and other values to two decimals) for readable output.
pub fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// Serialises an amount of money rounded to cents (sums of floating-point values carry
/// digits like `15751077.239999998` otherwise); `#[serde(serialize_with = ...)]`.
pub fn serialize_cents<S: serde::Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_f64(round2(*x))
}

/// Rounds to four decimals.
pub fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

/// Contract indices grouped by (organ code, signing year), in key order. Contracts without an
/// organ code, a signing date or a positive value are left out.
pub fn by_organ_year(ds: &Dataset) -> BTreeMap<(&str, i32), Vec<usize>> {
    let mut groups: std::collections::HashMap<(&str, i32), Vec<usize>, FxBuild> = Default::default();
    for (i, c) in ds.contracts.iter().enumerate() {
        let (Some(d), false) = (c.signed_on, c.organ.code.is_empty()) else { continue };
        if c.value() <= 0.0 || !c.value().is_finite() {
            continue;
        }
        groups.entry((c.organ.code.as_str(), d.year())).or_default().push(i);
    }
    groups.into_iter().collect()
}

/// `HashMap` build-hasher for the detectors' internal maps: `rustc-hash`'s Fx hash (fast on
/// short keys, not DoS-resistant, which these maps over records already read do not need).
pub type FxBuild = rustc_hash::FxBuildHasher;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn severity_grows_with_confidence_and_money_at_stake() {
        assert_eq!(severity(0.95, 20_000_000.0), Severity::Critical);
        assert_eq!(severity(0.9, 100_000.0), Severity::High);
        assert_eq!(severity(0.6, 50_000.0), Severity::Medium);
        assert_eq!(severity(0.4, 1_000.0), Severity::Low);
    }

    #[test]
    fn critical_needs_both_strong_evidence_and_material_money() {
        assert_eq!(severity(0.99, 900_000.0), Severity::High);
        assert_eq!(severity(0.89, 50_000_000.0), Severity::High);
        assert_eq!(severity(0.9, 1_000_000.0), Severity::Critical);
        assert_eq!(severity(0.99, 1_702.40), Severity::Medium);
    }

    #[test]
    fn sensitivity_shifts_confidence_around_the_default() {
        assert_eq!(adjust_confidence(0.5, 0.7), 0.5);
        assert!(adjust_confidence(0.5, 1.0) > 0.5);
        assert!(adjust_confidence(0.5, 0.1) < 0.5);
        assert_eq!(adjust_confidence(2.0, 1.0), 0.99);
        assert_eq!(ramp(5.0, 0.0, 0.0, 10.0, 1.0), 0.5);
        assert_eq!(ramp(50.0, 0.0, 0.0, 10.0, 1.0), 1.0);
    }
}
