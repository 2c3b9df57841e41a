//! `phantom_suppliers`: companies that look set up to win public contracts rather than to do
//! business, from the registry facts of suppliers that won contracts.
//!
//! Red flags: `young` (opened at most `D` days before its first contract), `no_partners` (no
//! partner or administrator on record), `shared_address` (its door, CEP + number + complement,
//! hosts `K` or more suppliers), `shared_phone` (its phone is another supplier's). Each flag
//! alone is common and legitimate (a new firm, an empresário individual, an accounting office's
//! address), so a supplier is reported when it has `F` flags.
//!
//! Sensitivity `s`: `D` is 60 days at 0, 120 at 0.7 and 365 at 1.0; `K` is 3 below 1.0 and 2 at
//! 1.0; `F` is 3 below 0.85, 2 from 0.85 and 1 at 1.0; each step only adds findings.
//! Confidence: 0.5, 0.75, 0.9, 0.96 for 1-4 flags, then shifted with the sensitivity.
//!
//! Complexity: O(n + P) for n contracts and P profiles, with hash maps.

use std::collections::HashMap;

use chrono::NaiveDate;
use serde_json::json;

use crate::cancel::{AnalysisError, CancelFlag};
use crate::detect::Detector;
use crate::detect::common::{FxBuild, adjust_confidence, contract_ref, ramp, round2};
use crate::detect::finding::{Finding, pattern, point, profile_ref};
use crate::detect::shared::Shared;
use crate::model::anomaly::{Anomaly, AnomalyType, EntityRef};
use crate::model::dataset::Dataset;
use crate::model::params::DetectionParams;
use crate::text::format_brl;

/// Detector name.
pub const NAME: &str = "phantom_suppliers";

/// The phantom supplier detector.
#[derive(Debug, Clone, Copy, Default)]
pub struct PhantomSuppliers;

/// Days between opening and first contract that count as young, at this sensitivity.
pub fn young_days(s: f64) -> i64 {
    let s = s.clamp(0.0, 1.0);
    (if s <= 0.7 { ramp(s, 0.0, 60.0, 0.7, 120.0) } else { ramp(s, 0.7, 120.0, 1.0, 365.0) }).round() as i64
}

/// Suppliers at one door that make the address a flag, at this sensitivity.
pub fn shared_address_min(s: f64) -> usize {
    if s >= 1.0 { 2 } else { 3 }
}

/// Flags needed at this sensitivity.
pub fn flags_needed(s: f64) -> usize {
    if s >= 1.0 {
        1
    } else if s >= 0.85 {
        2
    } else {
        3
    }
}

/// Confidence for a number of flags, before the sensitivity shift.
pub fn confidence_for(flags: usize) -> f64 {
    match flags {
        0 => 0.0,
        1 => 0.5,
        2 => 0.75,
        3 => 0.9,
        _ => 0.96,
    }
}

/// A supplier's contracts: first signing date, count, value and positions.
#[derive(Default)]
struct Won {
    first: Option<NaiveDate>,
    value: f64,
    contracts: Vec<usize>,
}

impl Detector for PhantomSuppliers {
    fn name(&self) -> &'static str {
        NAME
    }
    fn kind(&self) -> AnomalyType {
        AnomalyType::RelationshipAnomaly
    }
    fn run_shared(
        &self,
        sh: &Shared<'_>,
        p: &DetectionParams,
        cancel: &CancelFlag,
    ) -> Result<Vec<Anomaly>, AnalysisError> {
        let ds = sh.dataset();
        let mut won: HashMap<&str, Won, FxBuild> = HashMap::default();
        for (i, c) in ds.contracts.iter().enumerate() {
            if i % 8192 == 0 {
                cancel.check()?;
            }
            if c.supplier.document.is_empty() {
                continue;
            }
            let w = won.entry(c.supplier.document.as_str()).or_default();
            w.first = match (w.first, c.signed_on) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            w.value += c.value();
            w.contracts.push(i);
        }
        let mut doors: HashMap<String, Vec<usize>, FxBuild> = HashMap::default();
        let mut phones: HashMap<&str, usize, FxBuild> = HashMap::default();
        // Profiles without a CNPJ name no entity: they neither share a door nor a phone.
        for (k, pr) in ds.suppliers.iter().enumerate().filter(|(_, pr)| !pr.cnpj.is_empty()) {
            if let Some(a) = pr.address.key() {
                doors.entry(a).or_default().push(k);
            }
            if let Some(ph) = pr.phone_key() {
                *phones.entry(ph).or_default() += 1;
            }
        }
        let (days, k_min, need) =
            (young_days(p.sensitivity), shared_address_min(p.sensitivity), flags_needed(p.sensitivity));
        let mut out = Vec::new();
        let mut judged = 0usize;
        let mut found = Vec::new();
        for (k, pr) in ds.suppliers.iter().enumerate() {
            if k % 8192 == 0 {
                cancel.check()?;
            }
            let Some(w) = won.get(pr.cnpj.as_str()) else { continue };
            judged += 1;
            let age = match (pr.opened_on, w.first) {
                (Some(o), Some(f)) => Some((f - o).num_days()),
                _ => None,
            };
            let young = age.is_some_and(|a| (0..=days).contains(&a));
            let no_partners = pr.partners.is_empty();
            let door = pr.address.key().and_then(|a| doors.get(&a)).filter(|v| v.len() >= k_min);
            let phone = pr.phone_key().is_some_and(|ph| phones.get(ph).is_some_and(|c| *c >= 2));
            let flags = [young, no_partners, door.is_some(), phone].iter().filter(|f| **f).count();
            if flags < need {
                continue;
            }
            let confidence = adjust_confidence(confidence_for(flags), p.sensitivity);
            if confidence >= p.confidence_threshold {
                found.push((
                    k,
                    w,
                    age,
                    [young, no_partners, door.is_some(), phone],
                    door.cloned().unwrap_or_default(),
                    confidence,
                ));
            }
        }
        let contamination = found.len() as f64 / judged.max(1) as f64;
        for (k, w, age, flags, door, confidence) in found {
            out.push(anomaly(ds, k, w, age, flags, &door, confidence, (days, need), contamination));
        }
        Ok(out)
    }
}

#[allow(clippy::too_many_arguments)]
fn anomaly(
    ds: &Dataset,
    k: usize,
    w: &Won,
    age: Option<i64>,
    flags: [bool; 4],
    door: &[usize],
    confidence: f64,
    (days, need): (i64, usize),
    contamination: f64,
) -> Anomaly {
    let pr = &ds.suppliers[k];
    const NAMES: [&str; 4] = ["young", "no_partners", "shared_address", "shared_phone"];
    let on: Vec<&str> = NAMES.iter().zip(flags).filter(|(_, f)| *f).map(|(n, _)| *n).collect();
    let mut pt_flags = Vec::new();
    if flags[0] {
        pt_flags.push(format!("foi aberta {} dias antes do primeiro contrato", age.unwrap_or(0)));
    }
    if flags[1] {
        pt_flags.push("não tem sócios registrados".to_string());
    }
    if flags[2] {
        pt_flags.push(format!("divide o endereço com outras {} empresas", door.len().saturating_sub(1)));
    }
    if flags[3] {
        pt_flags.push("divide o telefone com outra empresa".to_string());
    }
    let mut related: Vec<EntityRef> = w.contracts.iter().take(50).map(|&i| contract_ref(&ds.contracts[i])).collect();
    related.extend(door.iter().filter(|&&d| d != k).take(20).map(|&d| profile_ref(&ds.suppliers[d])));
    let pt = format!(
        "A empresa {} (CNPJ {}) {}; mesmo assim recebeu {} contratos públicos somando {}. São sinais de empresa de fachada que merecem verificação no endereço.",
        pr.name,
        pr.cnpj,
        pt_flags.join(", "),
        w.contracts.len(),
        format_brl(w.value)
    );
    let en = format!(
        "{} ({}) shows {} red flags of a shell company ({}) and won {} public contracts worth {}.",
        pr.name,
        pr.cnpj,
        on.len(),
        on.join(", "),
        w.contracts.len(),
        format_brl(w.value)
    );
    let when = |d: Option<NaiveDate>| d.map(|d| d.format("%Y-%m-%d").to_string());
    Finding {
        detector: NAME,
        kind: AnomalyType::RelationshipAnomaly,
        key: pr.cnpj.clone(),
        confidence,
        at_stake: w.value,
        threshold: need as f64,
        description: format!("{} {} e recebeu {} em {} contratos", pr.name, pt_flags.join(", "), format_brl(w.value), w.contracts.len()),
        human_pt: pt,
        human_en: en,
        technical: format!(
            "registry red flags {:?} ({} of 4; young = opened <= {} days before the first contract); supplier won {} contracts",
            on, on.len(), days, w.contracts.len()
        ),
        primary: profile_ref(pr),
        related,
        data_points: vec![
            point("days_open_before_first_contract", age.unwrap_or(-1) as f64, when(w.first)),
            point("partners", pr.partners.len() as f64, when(pr.opened_on)),
            point("suppliers_at_address", door.len() as f64, None),
            point("contracts_value", w.value, when(w.first)),
        ],
        patterns: on.iter().map(|f| pattern(f, format!("red flag {f}"), json!({}))).collect(),
        method: "registry_red_flags",
        score: on.len() as f64,
        contamination,
        peer: Some(json!({"group": "suppliers that won contracts", "young_days": days, "flags": on})),
        regulatory: Some(json!({"rule": "Lei 14.133/2021, art. 62-70 (habilitação jurídica, fiscal e técnica)", "note": "indícios de empresa de fachada"})),
        factors: on.iter().map(|f| (f.to_string(), round2(1.0 / on.len() as f64), format!("red flag {f}"))).collect(),
        details: vec![
            ("supplier", json!(pr.cnpj)),
            ("supplier_name", json!(pr.name)),
            ("flags", json!(on)),
            ("opened_on", json!(when(pr.opened_on))),
            ("first_contract", json!(when(w.first))),
            ("contracts", json!(w.contracts.len())),
            ("organ", json!(w.contracts.first().map(|&i| ds.contracts[i].organ.code.clone()).unwrap_or_default())),
        ],
    }
    .build()
}

#[cfg(test)]
#[path = "phantom_tests.rs"]
mod tests;
