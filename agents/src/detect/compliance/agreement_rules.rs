//! The agreement (convênio) rules of `compliance_rules`: federal transfers to states,
//! municipalities and non-profits that break a rule of the transfer regime. One anomaly per
//! agreement and rule (`technical_details.rule`), of type `compliance_violation`, after the
//! contracts' anomalies:
//!
//! - `sanctioned_grantee`: the grantee's (convenente's) CNPJ root, or its CPF, had a CEIS/CNEP
//!   sanction that bars contracting ([`Sanction::bars_contracting`]: impedimento,
//!   inidoneidade, suspensão, proibição) in force (both ends inclusive) and binding the
//!   granting organ ([`crate::detect::compliance::sanction_rule`]: sphere, sanctioning body) on the agreement's start: `dataInicioVigencia`, else `dataPublicacao`. Fines
//!   and warnings do not bar. Source: Decreto 11.531/2023 and Portaria Conjunta MGI/MF/CGU
//!   33/2023, which regulate transfers and require the grantee not to be barred (CEIS) when the
//!   agreement is signed; the CEIS itself lists sanctions under Lei 14.133/2021, art. 156.
//!   Legal rule: confidence 0.95 shifted 0.05 per unit of sensitivity (as `sanctioned_supplier`).
//!   Money at stake: the agreement's federal value (`valor`).
//! - `released_above_agreed`: `valorLiberado` above `valor` by more than a tolerance. Released
//!   money is the federal part, so it is compared with `valor`, not with `valor` plus the
//!   grantee's counterpart (`valorContrapartida`). The tolerance, [`released_tolerance`], is
//!   `(1 - s) / 6` at sensitivity `s`: 5% at the default 0.7, none at 1.0, 8.3% at 0.5, 16.7%
//!   at 0; it absorbs monetary corrections and amendments the Portal has not caught up with,
//!   and shrinks as the sensitivity rises, so raising it only adds findings. A release is above
//!   the tolerance when it exceeds `valor * (1 + tolerance)` by more than a cent. Source:
//!   Decreto 11.531/2023 and Portaria Conjunta 33/2023 (releases follow the disbursement
//!   schedule of the agreed value; a different value needs a termo aditivo). Confidence
//!   0.88-0.98 with the excess over `valor` (`0.88 + min(excess / 4, 0.10)`), shifted like the
//!   other legal rules. Money at stake: the amount released beyond `valor`.
//!
//! Entities: primary `{type: "agreement", id, name}`; related the grantee as
//! `{type: "grantee", id: CNPJ or CPF, name}` (a convenente is not a supplier, so the supplier
//! rankings leave it out), the granting organ, and the sanction when there is one.
//! `statistical_analysis.contamination` is the share of agreements breaking the same rule.
//!
//! Complexity: one pass over the agreements with the sanction index `compliance_rules` builds
//! (hash by CNPJ root): O(a) time on top of it, O(findings) memory.

use std::collections::HashMap;

use chrono::NaiveDate;
use serde_json::json;

use crate::cancel::{AnalysisError, CancelFlag};
use crate::detect::common::{FxBuild, iso, organ_entity};
use crate::detect::compliance::compliance_rules::{Breach, Subject, breach_anomaly};
use crate::detect::compliance::sanction_rule::{Verdict, judge, party_key};
use crate::detect::finding::{agreement_ref, grantee_ref, legal_confidence, point};
use crate::model::agreement::Agreement;
use crate::model::anomaly::Anomaly;
use crate::model::dataset::Dataset;
use crate::model::params::DetectionParams;
use crate::model::sanction::Sanction;
use crate::text::{format_brl, format_pct};

/// The barring sanctions by CNPJ root (or full document when it is not a CNPJ).
pub type Barring<'a> = HashMap<&'a str, Vec<&'a Sanction>, FxBuild>;

/// The rules, in the order their anomalies are emitted for one agreement.
pub const RULES: [&str; 2] = ["sanctioned_grantee", "released_above_agreed"];

/// Fraction of `valor` a release may exceed it by before it is reported: `(1 - s) / 6`,
/// rounded to millionths (so the default is exactly 5%).
pub fn released_tolerance(sensitivity: f64) -> f64 {
    ((1.0 - sensitivity.clamp(0.0, 1.0)) / 6.0 * 1e6).round() / 1e6
}

/// The date the agreement's rules are judged on: the start of its term, else its publication.
pub fn start_of(a: &Agreement) -> Option<NaiveDate> {
    a.valid_from.or(a.published_on)
}

const LAW_SANCTION: &str = "Decreto 11.531/2023 e Portaria Conjunta MGI/MF/CGU 33/2023 (convenente não pode estar impedido: CEIS); Lei 14.133/2021, art. 156";
const LAW_RELEASE: &str = "Decreto 11.531/2023 e Portaria Conjunta MGI/MF/CGU 33/2023 (liberação conforme o cronograma do valor pactuado; alteração por termo aditivo)";

/// Runs the agreement rules over `ds.agreements`, with the barring sanctions of `ds` indexed.
pub fn run(
    ds: &Dataset,
    barring: &Barring<'_>,
    p: &DetectionParams,
    cancel: &CancelFlag,
) -> Result<Vec<Anomaly>, AnalysisError> {
    let mut found = Vec::new();
    let mut counts = [0usize; RULES.len()];
    for (i, a) in ds.agreements.iter().enumerate() {
        if i % 4096 == 0 {
            cancel.check()?;
        }
        let breaches = [sanctioned_grantee(a, barring, p.sensitivity), released_above_agreed(a, p.sensitivity)];
        for (k, b) in breaches.into_iter().enumerate() {
            if let Some(b) = b.filter(|b| b.confidence >= p.confidence_threshold) {
                counts[k] += 1;
                found.push((a, k, b));
            }
        }
    }
    let n = ds.agreements.len().max(1) as f64;
    Ok(found.into_iter().map(|(a, k, b)| anomaly(a, b, counts[k] as f64 / n)).collect())
}

fn number_of(a: &Agreement) -> &str {
    if a.number.is_empty() { a.id.as_str() } else { a.number.as_str() }
}

fn sanctioned_grantee<'a>(a: &Agreement, barring: &Barring<'a>, s: f64) -> Option<Breach<'a>> {
    let start = start_of(a)?;
    let key = party_key(&a.grantee.document);
    let names = [a.organ.name.as_str(), a.organ.acronym.as_str()];
    // Only a sanction in force and binding the granting organ is a breach; an undecidable
    // match is not reported for transfers.
    let Some(Verdict::Barred(sanc, conf)) = judge(barring.get(key)?, start, &names) else { return None };
    let day = |d: NaiveDate| d.format("%d/%m/%Y").to_string();
    let until = sanc.ends_on.map_or_else(|| "prazo indeterminado".to_string(), day);
    let number = number_of(a);
    Some(Breach {
        rule: RULES[0],
        confidence: legal_confidence(conf, s),
        at_stake: a.value,
        threshold: 0.0,
        observed: a.value,
        law: LAW_SANCTION.into(),
        pt: format!(
            "O convênio {} ({}) com {} começou em {}, quando o convenente estava sancionado no {} ({}, de {} a {}) e impedido de contratar com a administração. O Decreto 11.531/2023 e a Portaria Conjunta MGI/MF/CGU 33/2023 vedam transferências a quem está impedido (CEIS).",
            number,
            format_brl(a.value),
            a.grantee.name,
            day(start),
            sanc.register,
            sanc.kind,
            sanc.starts_on.map_or_else(String::new, day),
            until
        ),
        en: format!(
            "Agreement {} ({}) with {} started on {} while the grantee was under a {} sanction ({}) barring it from dealings with the administration; Decreto 11.531/2023 and Portaria Conjunta MGI/MF/CGU 33/2023 bar transfers to barred entities (CEIS).",
            number,
            format_brl(a.value),
            a.grantee.name,
            start.format("%Y-%m-%d"),
            sanc.register,
            sanc.kind
        ),
        technical: format!(
            "grantee root {} matches sanction {} ({}, {}, {} to {}) active on the agreement's start {} ({})",
            key,
            sanc.id,
            sanc.register,
            sanc.kind,
            iso(sanc.starts_on).unwrap_or_default(),
            iso(sanc.ends_on).unwrap_or_else(|| "open".into()),
            start,
            if a.valid_from.is_some() { "dataInicioVigencia" } else { "dataPublicacao" }
        ),
        sanction: Some(sanc),
    })
}

fn released_above_agreed(a: &Agreement, s: f64) -> Option<Breach<'static>> {
    let tolerance = released_tolerance(s);
    if a.value <= 0.0 || a.released <= a.value * (1.0 + tolerance) + 0.01 {
        return None;
    }
    let excess = a.released / a.value - 1.0;
    let number = number_of(a);
    Some(Breach {
        rule: RULES[1],
        confidence: legal_confidence(0.88 + (excess * 0.25).min(0.10), s),
        at_stake: a.released - a.value,
        threshold: tolerance,
        observed: excess,
        law: LAW_RELEASE.into(),
        pt: format!(
            "O convênio {} com {} teve {} liberados pela União, {} acima do valor pactuado de {} (a contrapartida de {} é do convenente): {} a mais do que o acordado.",
            number,
            a.grantee.name,
            format_brl(a.released),
            format_pct(excess),
            format_brl(a.value),
            format_brl(a.counterpart),
            format_brl(a.released - a.value)
        ),
        en: format!(
            "Agreement {} with {} had {} released by the federal government, {:.1}% above its agreed value of {}: {} more than agreed.",
            number,
            a.grantee.name,
            format_brl(a.released),
            excess * 100.0,
            format_brl(a.value),
            format_brl(a.released - a.value)
        ),
        technical: format!(
            "valorLiberado / valor - 1 = {:.4} > tolerance {:.4} ((1 - sensitivity) / 6 at sensitivity {:.2}); valorContrapartida {:.2} not counted",
            excess, tolerance, s, a.counterpart
        ),
        sanction: None,
    })
}

fn anomaly(a: &Agreement, b: Breach<'_>, contamination: f64) -> Anomaly {
    let when = iso(start_of(a));
    let subject = Subject {
        id: a.id.clone(),
        primary: agreement_ref(a),
        related: vec![grantee_ref(a), organ_entity(&a.organ)],
        data_points: vec![
            point("valor", a.value, when.clone()),
            point("valor_liberado", a.released, iso(a.last_release_on).or_else(|| when.clone())),
            point("valor_contrapartida", a.counterpart, when.clone()),
        ],
        when,
        pattern: json!({"record": "agreement", "situation": a.situation}),
        contamination,
        details: vec![
            ("record", json!("agreement")),
            ("organ", json!(a.organ.code)),
            ("grantee", json!(a.grantee.document)),
            ("grantee_name", json!(a.grantee.name)),
            ("starts_on", json!(iso(start_of(a)))),
        ],
    };
    breach_anomaly(b, subject)
}

#[cfg(test)]
#[path = "agreement_rules_tests.rs"]
mod tests;
