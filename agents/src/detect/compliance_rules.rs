//! `compliance_rules`: contracts that break a rule of Lei 14.133/2021 (see [`super::legal`]
//! for the table and its sources). One anomaly per contract and rule (`technical_details.rule`):
//!
//! - `dispensa_above_limit`: a dispensa "by value" (art. 75 I/II, or no other inciso cited)
//!   whose `valorInicialCompra` exceeds the limit of its signing year for its nature
//!   (engineering or other), or the Lei 8.666 limit when it cites that law. Legal rule: fires at
//!   every sensitivity; confidence 0.90-0.98 with the excess, shifted 0.05 per unit of
//!   sensitivity.
//! - `amendment_above_cap`: `valorFinalCompra` more than 25% above `valorInicialCompra` (50%
//!   for reforma), art. 125. Legal rule; confidence 0.88-0.98 with the excess (price
//!   readjustments, which the cap does not bind, also raise the final value).
//! - `sanctioned_supplier`: the supplier's CNPJ root (or CPF) had a CEIS/CNEP sanction that
//!   bars contracting (impedimento, inidoneidade, suspensão) in force on the signing date.
//!   Fines and warnings do not bar. Legal rule; confidence 0.95.
//! - `invalid_document`: a 14-digit CNPJ or unmasked 11-digit CPF with wrong check digits.
//!   Legal rule; confidence 0.93.
//! - `extinct_modality`: convite or tomada de preços (revoked with Lei 8.666 on 30/12/2023)
//!   signed after a grace period for biddings opened before it: `365 * (1 - s) / 0.5` days at
//!   sensitivity `s` (219 days at 0.7, none at 1.0, a year at 0.5 and below), so raising the
//!   sensitivity only adds findings. Confidence 0.85-0.95, shifted like every detector's.
//! - `unjustified_inexigibility`: an inexigibilidade whose legal basis cites no inciso of art.
//!   74 and whose object states no single-supplier reason. Confidence 0.86, shifted with the
//!   sensitivity (dropped below 0.8 at sensitivity 0.45 and under).
//!
//! Agreements (convênios) are judged by [`super::agreement_rules`] (`sanctioned_grantee`,
//! `released_above_agreed`) with the same sanction index; their anomalies follow the contracts'.
//!
//! Pregão for an obra (art. 29) is not judged: the Portal does not say whether an engineering
//! service is "comum", and the demo's clean data uses pregão for them.
//!
//! Complexity: one pass over the contracts and one over the agreements with a hash index of the
//! sanctions by CNPJ root: O(n + a + s) time and memory.

use std::collections::HashMap;

use serde_json::json;

use super::Detector;
use super::common::{FxBuild, adjust_confidence, contract_ref, iso, organ_ref, supplier_ref};
use super::finding::{Finding, legal_confidence, pattern, point};
use super::legal::{self, Modality};
use super::shared::Shared;
use crate::agent::{AnalysisError, CancelFlag};
use crate::model::anomaly::DataPoint;
use crate::model::anomaly::{Anomaly, AnomalyType, EntityRef};
use crate::model::contract::Contract;
use crate::model::params::DetectionParams;
use crate::model::sanction::Sanction;
use crate::text::{format_brl, format_pct};

/// Detector name.
pub const NAME: &str = "compliance_rules";

/// The compliance rules detector.
#[derive(Debug, Clone, Copy, Default)]
pub struct ComplianceRules;

/// Days after 30/12/2023 during which a convite or tomada de preços is not reported.
pub fn grace_days(sensitivity: f64) -> i64 {
    (365.0 * (1.0 - sensitivity.clamp(0.0, 1.0)) / 0.5).round().clamp(0.0, 365.0) as i64
}

/// Whether an 11- or 14-digit unmasked document has wrong check digits.
pub fn invalid_document(doc: &str) -> bool {
    if !doc.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    match doc.len() {
        14 => !cnpj_digits_valid(doc.as_bytes()),
        11 => !cpf_is_valid(doc),
        _ => false,
    }
}

/// CNPJ check digits of 14 ASCII digits, without allocating (see [`crate::model::cnpj`]).
fn cnpj_digits_valid(d: &[u8]) -> bool {
    const W1: [u32; 12] = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
    const W2: [u32; 13] = [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
    if d.len() != 14 || d.iter().all(|x| *x == d[0]) {
        return false;
    }
    let v = |i: usize| u32::from(d[i] - b'0');
    let digit = |sum: u32| if sum % 11 < 2 { 0 } else { 11 - sum % 11 };
    let d1 = digit((0..12).map(|i| v(i) * W1[i]).sum());
    let d2 = digit((0..12).map(|i| v(i) * W2[i]).sum::<u32>() + d1 * W2[12]);
    v(12) == d1 && v(13) == d2
}

/// CPF check digits (weights 10..2 and 11..2, `11 - sum mod 11`, 0 when that is 10 or 11).
pub fn cpf_is_valid(doc: &str) -> bool {
    let d: Vec<u32> = doc.bytes().filter(u8::is_ascii_digit).map(|b| u32::from(b - b'0')).collect();
    if d.len() != 11 || d.iter().all(|x| *x == d[0]) {
        return false;
    }
    let check = |len: usize| {
        let s: u32 = d[..len].iter().enumerate().map(|(i, x)| x * (len as u32 + 1 - i as u32)).sum();
        let r = 11 - s % 11;
        if r >= 10 { 0 } else { r }
    };
    check(9) == d[9] && check(10) == d[10]
}

/// One broken rule (of a contract's or, in [`super::agreement_rules`], an agreement's),
/// before it becomes an anomaly.
pub(super) struct Breach<'a> {
    pub rule: &'static str,
    pub confidence: f64,
    pub at_stake: f64,
    pub threshold: f64,
    pub observed: f64,
    pub law: String,
    pub pt: String,
    pub en: String,
    pub technical: String,
    pub sanction: Option<&'a Sanction>,
}

/// What a breach's anomaly says about the record it concerns.
pub(super) struct Subject {
    /// The record's id (the anomaly's key is `rule-id`).
    pub id: String,
    pub primary: EntityRef,
    /// Related entities (the sanction, when there is one, is added after them).
    pub related: Vec<EntityRef>,
    /// The date the rule is judged on.
    pub when: Option<String>,
    /// The record's own data points (the observed value and the legal threshold follow).
    pub data_points: Vec<DataPoint>,
    /// What the rule's pattern records about the record.
    pub pattern: serde_json::Value,
    pub contamination: f64,
    /// The record's technical details (`rule` and `observed` are added).
    pub details: Vec<(&'static str, serde_json::Value)>,
}

/// The anomaly of a broken legal rule.
pub(super) fn breach_anomaly(b: Breach<'_>, s: Subject) -> Anomaly {
    let mut related = s.related;
    related.extend(b.sanction.map(super::finding::sanction_ref));
    let mut data_points = s.data_points;
    data_points.push(point("observed", b.observed, s.when.clone()));
    data_points.push(point("legal_threshold", b.threshold, s.when));
    let mut details = vec![("rule", json!(b.rule)), ("observed", json!(super::common::round4(b.observed)))];
    details.extend(s.details);
    Finding {
        detector: NAME,
        kind: AnomalyType::ComplianceViolation,
        key: format!("{}-{}", b.rule, s.id),
        confidence: b.confidence,
        at_stake: b.at_stake,
        threshold: b.threshold,
        description: b.pt.clone(),
        human_pt: b.pt,
        human_en: b.en,
        technical: b.technical,
        primary: s.primary,
        related,
        data_points,
        patterns: vec![pattern(b.rule, b.law.clone(), s.pattern)],
        method: "legal_rule",
        score: b.observed,
        contamination: s.contamination,
        peer: Some(json!({"rule": b.rule, "baseline": "legal threshold", "threshold": b.threshold})),
        regulatory: Some(json!({"rule": b.rule, "law": b.law})),
        factors: vec![
            (b.rule.to_string(), 0.8, b.law),
            ("value".to_string(), 0.2, format!("{} at stake", format_brl(b.at_stake))),
        ],
        details,
    }
    .build()
}

impl Detector for ComplianceRules {
    fn name(&self) -> &'static str {
        NAME
    }
    fn kind(&self) -> AnomalyType {
        AnomalyType::ComplianceViolation
    }
    fn run_shared(
        &self,
        sh: &Shared<'_>,
        p: &DetectionParams,
        cancel: &CancelFlag,
    ) -> Result<Vec<Anomaly>, AnalysisError> {
        let ds = sh.dataset();
        let mut barring: HashMap<&str, Vec<&Sanction>, FxBuild> = HashMap::default();
        for s in ds.sanctions.iter().filter(|s| s.bars_contracting()) {
            let key = s.root().unwrap_or(s.document.as_str());
            if !key.is_empty() {
                barring.entry(key).or_default().push(s);
            }
        }
        let mut out = Vec::new();
        let mut counts: HashMap<&str, usize> = HashMap::new();
        for (i, c) in ds.contracts.iter().enumerate() {
            if i % 4096 == 0 {
                cancel.check()?;
            }
            for b in breaches(c, &barring, p) {
                if b.confidence >= p.confidence_threshold {
                    *counts.entry(b.rule).or_default() += 1;
                    out.push((i, b));
                }
            }
        }
        let n = ds.contracts.len().max(1) as f64;
        let v = out.into_iter().map(|(i, b)| anomaly(&ds.contracts[i], b)).collect();
        let mut v = fix_contamination(v, &counts, n);
        v.extend(super::agreement_rules::run(ds, &barring, p, cancel)?);
        Ok(v)
    }
}

/// Sets each anomaly's contamination to the share of contracts breaking the same rule.
fn fix_contamination(mut v: Vec<Anomaly>, counts: &HashMap<&str, usize>, n: f64) -> Vec<Anomaly> {
    for a in &mut v {
        let rule = a.technical_details.get("rule").and_then(|r| r.as_str()).unwrap_or("");
        if let Some(s) = a.evidence.statistical_analysis.as_mut() {
            s.contamination = super::common::round4(counts.get(rule).copied().unwrap_or(0) as f64 / n);
        }
    }
    v
}

fn breaches<'a>(
    c: &Contract,
    barring: &HashMap<&str, Vec<&'a Sanction>, FxBuild>,
    p: &DetectionParams,
) -> Vec<Breach<'a>> {
    let mut out = Vec::new();
    let s = p.sensitivity;
    let value = c.value();
    let modality = legal::modality(&c.modality);
    let number = if c.number.is_empty() { c.id.as_str() } else { c.number.as_str() };
    if let Some(d) = c.signed_on {
        if modality == Modality::Dispensa
            && legal::is_dispensa_by_value(&c.legal_basis)
            && let Some((limit, table, eng)) = legal::limit_if_exceeded(d, c.initial_value, &c.object, &c.legal_basis)
        {
            let excess = c.initial_value / limit - 1.0;
            let nature = if eng { "obras e serviços de engenharia" } else { "compras e outros serviços" };
            out.push(Breach {
                rule: "dispensa_above_limit",
                confidence: legal_confidence(0.90 + (excess * 0.4).min(0.08), s),
                at_stake: c.initial_value,
                threshold: limit,
                observed: c.initial_value,
                law: format!("{} ({}, {})", table.act, nature, d.format("%Y")),
                pt: format!(
                    "O contrato {} foi feito por dispensa de licitação por {}, acima do limite de {} vigente em {} para {} ({}). Acima do limite a lei exige licitação.",
                    number, format_brl(c.initial_value), format_brl(limit), d.format("%Y"), nature, table.act
                ),
                en: format!(
                    "Contract {} was a direct purchase (dispensa) of {}, above the {} limit of {} for {} ({}); above it the law requires a competitive bidding.",
                    number, format_brl(c.initial_value), d.format("%Y"), format_brl(limit), if eng { "engineering works" } else { "other purchases" }, table.act
                ),
                technical: format!("dispensa by value (basis '{}'): valorInicialCompra {:.2} > limit {:.2} ({}, {}), excess {:.1}%", c.legal_basis, c.initial_value, limit, table.act, d.format("%Y"), excess * 100.0),
                sanction: None,
            });
        }
        let key = c.supplier.cnpj_root().unwrap_or(c.supplier.document.as_str());
        if let Some(list) = barring.get(key)
            && let Some(sanc) = list.iter().find(|x| x.active_on(d))
        {
            let until = sanc.ends_on.map_or("prazo indeterminado".to_string(), |e| e.format("%d/%m/%Y").to_string());
            out.push(Breach {
                rule: "sanctioned_supplier",
                confidence: legal_confidence(0.95, s),
                at_stake: value,
                threshold: 0.0,
                observed: value,
                law: "Lei 14.133/2021, art. 14, III e art. 156; cadastros CEIS/CNEP".into(),
                pt: format!(
                    "O contrato {} foi assinado em {} com {}, que estava sancionada no {} ({}, de {} a {}) e impedida de contratar com a administração.",
                    number, d.format("%d/%m/%Y"), c.supplier.name, sanc.register, sanc.kind,
                    sanc.starts_on.map_or(String::new(), |x| x.format("%d/%m/%Y").to_string()), until
                ),
                en: format!(
                    "Contract {} was signed on {} with {}, which was under a {} sanction ({}) barring it from public contracts.",
                    number, d.format("%Y-%m-%d"), c.supplier.name, sanc.register, sanc.kind
                ),
                technical: format!("supplier root {} matches sanction {} ({}, {}) active on the signing date {}", key, sanc.id, sanc.register, sanc.kind, d),
                sanction: Some(sanc),
            });
        }
        let end = legal::old_modalities_end();
        if matches!(modality, Modality::Convite | Modality::TomadaDePrecos) {
            let days = (d - end).num_days();
            let grace = grace_days(s);
            if days > grace {
                out.push(Breach {
                    rule: "extinct_modality",
                    confidence: adjust_confidence(0.85 + (((days - grace) as f64) / 365.0 * 0.2).min(0.1), s),
                    at_stake: value,
                    threshold: grace as f64,
                    observed: days as f64,
                    law: "Lei 14.133/2021, art. 28 e art. 193, II (Lei 8.666/1993 revogada em 30/12/2023)".into(),
                    pt: format!(
                        "O contrato {} ({}) foi assinado em {} na modalidade {}, que deixou de existir com a revogação da Lei 8.666 em 30/12/2023.",
                        number, format_brl(value), d.format("%d/%m/%Y"), c.modality
                    ),
                    en: format!("Contract {} was signed on {} under '{}', a modality abolished with Lei 8.666 on 2023-12-30.", number, d.format("%Y-%m-%d"), c.modality),
                    technical: format!("modality '{}' signed {} days after 2023-12-30 (> grace of {} days at sensitivity {:.2})", c.modality, days, grace, s),
                    sanction: None,
                });
            }
        }
    }
    let over = |cap: f64| c.initial_value > 0.0 && c.final_value > c.initial_value * (1.0 + cap) + 0.01;
    let cap = if over(legal::AMENDMENT_CAP) && legal::is_renovation(&c.object) {
        legal::AMENDMENT_CAP_RENOVATION
    } else {
        legal::AMENDMENT_CAP
    };
    if over(cap) {
        let growth = c.final_value / c.initial_value - 1.0;
        out.push(Breach {
            rule: "amendment_above_cap",
            confidence: legal_confidence(0.88 + ((growth - cap) * 0.3).min(0.1), s),
            at_stake: c.final_value - c.initial_value * (1.0 + cap),
            threshold: cap,
            observed: growth,
            law: "Lei 14.133/2021, art. 125".into(),
            pt: format!(
                "O valor do contrato {} passou de {} para {} ({} a mais), acima do limite legal de {} para aditivos.",
                number,
                format_brl(c.initial_value),
                format_brl(c.final_value),
                format_pct(growth),
                format_pct(cap)
            ),
            en: format!(
                "Contract {} grew from {} to {} (+{:.1}%), beyond the {:.0}% amendment cap.",
                number,
                format_brl(c.initial_value),
                format_brl(c.final_value),
                growth * 100.0,
                cap * 100.0
            ),
            technical: format!(
                "valorFinalCompra / valorInicialCompra - 1 = {:.4} > cap {} (art. 125{})",
                growth,
                cap,
                if cap > 0.3 { ", reforma" } else { "" }
            ),
            sanction: None,
        });
    }
    if invalid_document(&c.supplier.document) {
        out.push(Breach {
            rule: "invalid_document",
            confidence: legal_confidence(0.93, s),
            at_stake: value,
            threshold: 0.0,
            observed: 1.0,
            law: "Instrução Normativa RFB 2.119/2022 (dígitos verificadores do CNPJ); Lei 14.133/2021, art. 68".into(),
            pt: format!("O fornecedor do contrato {} tem documento {} com dígitos verificadores inválidos: o CNPJ/CPF não existe como informado.", number, c.supplier.document),
            en: format!("The supplier of contract {} has document {} whose check digits are invalid: no such CNPJ/CPF exists.", number, c.supplier.document),
            technical: format!("check digits of '{}' do not match (mod 11)", c.supplier.document),
            sanction: None,
        });
    }
    if modality == Modality::Inexigibilidade && !legal::inexigibility_justified(&c.object, &c.legal_basis) {
        out.push(Breach {
            rule: "unjustified_inexigibility",
            confidence: adjust_confidence(0.86, s),
            at_stake: value,
            threshold: 0.0,
            observed: 1.0,
            law: "Lei 14.133/2021, art. 74 (incisos I a V)".into(),
            pt: format!("O contrato {} ({}) foi feito por inexigibilidade sem citar o motivo (inciso do art. 74) nem fornecedor exclusivo no objeto.", number, format_brl(value)),
            en: format!("Contract {} ({}) skipped bidding as 'inexigibilidade' without citing a reason (an inciso of art. 74) or an exclusive supplier.", number, format_brl(value)),
            technical: format!("modality inexigibilidade, legal basis '{}' has no inciso of art. 74 and the object has no single-supplier phrase", c.legal_basis),
            sanction: None,
        });
    }
    out
}

fn anomaly(c: &Contract, b: Breach<'_>) -> Anomaly {
    let when = iso(c.signed_on);
    let subject = Subject {
        id: c.id.to_string(),
        primary: contract_ref(c),
        related: vec![supplier_ref(c), organ_ref(c)],
        data_points: vec![
            point("valor_inicial", c.initial_value, when.clone()),
            point("valor_final", c.final_value, when.clone()),
        ],
        when,
        pattern: json!({"modality": c.modality, "legal_basis": c.legal_basis}),
        contamination: 0.0,
        details: vec![
            ("organ", json!(c.organ.code)),
            ("supplier", json!(c.supplier.document)),
            ("supplier_name", json!(c.supplier.name)),
            ("signed_on", json!(iso(c.signed_on))),
        ],
    };
    breach_anomaly(b, subject)
}

#[cfg(test)]
#[path = "compliance_rules_tests.rs"]
mod tests;
