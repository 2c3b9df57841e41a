//! `compliance_rules`: contracts that break a rule of procurement law, judged under the law in
//! force when they were signed and the legal ground they cite. One anomaly per contract and
//! rule (`technical_details.rule`):
//!
//! - `dispensa_above_limit` ([`crate::detect::compliance::dispensa_rule`]): a dispensa by value above the limit of
//!   its law and date; a dispensa on another ground has no value limit.
//! - `amendment_above_cap` ([`crate::detect::compliance::amendment_rule`]): acréscimos beyond 25% (50% for
//!   reforma) of the updated initial value, from the amendment records; prorrogações and
//!   reajustes are legal.
//! - `sanctioned_supplier` ([`crate::detect::compliance::sanction_rule`]): signed while a sanction that bars
//!   contracting and binds the contracting organ was in force. Confidence 0.95 (0.85 for an
//!   improbity prohibition, whose scope is the court order's). A match the list cannot decide
//!   (no start date, unreadable scope) is `sanction_undecidable`: a low-severity
//!   relationship observation (no money at stake), never a violation.
//! - `invalid_document` ([`crate::model::cnpj::document_kind`]): a 14-digit CNPJ (that is not a
//!   zero-padded CPF) or an 11-digit CPF with wrong check digits. A data-quality observation:
//!   confidence 0.90 and no money at stake, so low severity. UG codes, foreign ids, masked CPFs
//!   and the secret code are not judged.
//! - `extinct_modality`: convite or tomada de preços (revoked with Lei 8.666 on 30/12/2023)
//!   signed after a grace period for biddings opened before it: `365 * (1 - s) / 0.5` days at
//!   sensitivity `s` (219 days at 0.7, none at 1.0, a year at 0.5 and below), so raising the
//!   sensitivity only adds findings. Confidence 0.85-0.95, shifted like every detector's.
//! - `unjustified_inexigibility`: an inexigibilidade whose legal basis is present and cites no
//!   inexigibility ground (Lei 8.666 art. 25, Lei 14.133 arts. 74 and 79, Lei 13.303 art. 30),
//!   and whose object and supplier show none (exclusive supplier, notória especialização,
//!   lease, public body). Confidence 0.86 when the basis cites another ground (a contradiction),
//!   0.70 when it names only the law (incomplete); an empty basis is missing data, not a breach.
//! - `exclusivity_contradicted` ([`exclusivity`]): an inexigibilidade claiming an exclusive
//!   supplier (Lei 14.133 art. 74, I) for goods many other suppliers sell in the data's other
//!   purchases, where exclusivity is almost never claimed; confidence 0.82-0.88.
//!
//! Agreements (convênios) are judged by [`crate::detect::compliance::agreement_rules`] (`sanctioned_grantee`,
//! `released_above_agreed`) with the same sanction index; their anomalies follow the contracts'.
//!
//! Pregão for an obra (art. 29) is not judged: the Portal does not say whether an engineering
//! service is "comum".
//!
//! Complexity: one pass over the contracts with the legal bases parsed once per distinct text
//! and a hash index of the sanctions by CNPJ root: O(n + a + s) time and memory.

use std::collections::HashMap;

use serde_json::json;

use crate::cancel::{AnalysisError, CancelFlag};
use crate::detect::Detector;
use crate::detect::common::{FxBuild, adjust_confidence, contract_ref, iso, organ_ref, supplier_ref};
use crate::detect::compliance::sanction_rule;
use crate::detect::finding::{Finding, legal_confidence, pattern, point};
use crate::detect::legal::{self, Modality};
use crate::detect::legal_basis::{self, LegalBasis};
use crate::detect::legal_grounds::Ground;
use crate::detect::shared::Shared;
use crate::detect::{compliance::amendment_rule, compliance::dispensa_rule, legal_grounds};
use crate::model::anomaly::DataPoint;
use crate::model::anomaly::{Anomaly, AnomalyType, EntityRef};
use crate::model::cnpj::{DocumentKind, document_kind};
use crate::model::contract::Contract;
use crate::model::params::DetectionParams;
use crate::model::sanction::Sanction;
use crate::text::format_brl;

/// Detector name.
pub const NAME: &str = "compliance_rules";

/// The rule of a sanction match the list cannot decide (an observation, not a violation).
pub const UNDECIDABLE: &str = "sanction_undecidable";

/// The compliance rules detector.
#[derive(Debug, Clone, Copy, Default)]
pub struct ComplianceRules;

/// Days after 30/12/2023 during which a convite or tomada de preços is not reported.
pub fn grace_days(sensitivity: f64) -> i64 {
    (365.0 * (1.0 - sensitivity.clamp(0.0, 1.0)) / 0.5).round().clamp(0.0, 365.0) as i64
}

/// Whether a supplier's document is a CNPJ or CPF with wrong check digits (see
/// [`crate::model::cnpj::document_kind`]: zero-padded and masked CPFs, UG codes and foreign ids
/// are not).
pub fn invalid_document(doc: &str) -> bool {
    document_kind(doc).is_invalid()
}

pub use crate::model::cnpj::cpf_is_valid;

/// One broken rule (of a contract's or, in [`crate::detect::compliance::agreement_rules`], an agreement's),
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
    // An entity without an id (a supplier with no document) is never named.
    let mut related: Vec<EntityRef> = s.related.into_iter().filter(|e| !e.id.trim().is_empty()).collect();
    related.extend(b.sanction.map(crate::detect::finding::sanction_ref));
    let mut data_points = s.data_points;
    data_points.push(point("observed", b.observed, s.when.clone()));
    data_points.push(point("legal_threshold", b.threshold, s.when));
    let mut details = vec![("rule", json!(b.rule)), ("observed", json!(crate::detect::common::round4(b.observed)))];
    details.extend(s.details);
    Finding {
        detector: NAME,
        kind: if b.rule == UNDECIDABLE { AnomalyType::RelationshipAnomaly } else { AnomalyType::ComplianceViolation },
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
            let key = sanction_rule::party_key(&s.document);
            if !key.is_empty() {
                barring.entry(key).or_default().push(s);
            }
        }
        // Each distinct legal basis is parsed and classified once.
        let mut bases: HashMap<&str, (LegalBasis, Ground), FxBuild> = HashMap::default();
        let mut out = Vec::new();
        let mut counts: HashMap<&str, usize> = HashMap::new();
        let mut claims = Vec::new();
        for (i, c) in ds.contracts.iter().enumerate() {
            if i % 4096 == 0 {
                cancel.check()?;
            }
            let (basis, ground) = bases.entry(c.legal_basis.as_str()).or_insert_with(|| {
                let b = legal_basis::parse(&c.legal_basis);
                let g = legal_grounds::ground(&b);
                (b, g)
            });
            for b in breaches(c, basis, ground, &barring, p) {
                if b.confidence >= p.confidence_threshold {
                    *counts.entry(b.rule).or_default() += 1;
                    out.push((i, b));
                }
            }
            if legal::modality(&c.modality) == Modality::Inexigibilidade
                && exclusivity::is_claim(c, basis, document_kind(&c.supplier.document) == DocumentKind::UgCode)
            {
                claims.push(i);
            }
        }
        // Claims of an exclusive supplier, judged against the other purchases of the same goods.
        for (&i, market) in claims.iter().zip(exclusivity::markets(sh, &claims, cancel)?) {
            let b = market.and_then(|m| exclusivity::breach(&ds.contracts[i], &m, p.sensitivity));
            if let Some(b) = b.filter(|b| b.confidence >= p.confidence_threshold) {
                *counts.entry(b.rule).or_default() += 1;
                out.push((i, b));
            }
        }
        let n = ds.contracts.len().max(1) as f64;
        let v = out.into_iter().map(|(i, b)| anomaly(&ds.contracts[i], b)).collect();
        let mut v = fix_contamination(v, &counts, n);
        v.extend(crate::detect::compliance::agreement_rules::run(ds, &barring, p, cancel)?);
        Ok(v)
    }
}

/// Sets each anomaly's contamination to the share of contracts breaking the same rule.
fn fix_contamination(mut v: Vec<Anomaly>, counts: &HashMap<&str, usize>, n: f64) -> Vec<Anomaly> {
    for a in &mut v {
        let rule = a.technical_details.get("rule").and_then(|r| r.as_str()).unwrap_or("");
        if let Some(s) = a.evidence.statistical_analysis.as_mut() {
            s.contamination = crate::detect::common::round4(counts.get(rule).copied().unwrap_or(0) as f64 / n);
        }
    }
    v
}

fn breaches<'a>(
    c: &Contract,
    basis: &LegalBasis,
    ground: &Ground,
    barring: &HashMap<&str, Vec<&'a Sanction>, FxBuild>,
    p: &DetectionParams,
) -> Vec<Breach<'a>> {
    let mut out = Vec::new();
    let s = p.sensitivity;
    let value = c.value();
    let modality = legal::modality(&c.modality);
    let number = if c.number.is_empty() { c.id.as_str() } else { c.number.as_str() };
    out.extend(dispensa_rule::dispensa_breach(c, ground, s));
    if let Some(d) = c.signed_on {
        let key = if barring.is_empty() { "" } else { sanction_rule::party_key(&c.supplier.document) };
        if let Some(list) = barring.get(key).filter(|_| !key.is_empty()) {
            out.extend(sanction_rule::sanction_breach(c, d, list, s));
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
    out.extend(amendment_rule::amendment_breach(c, s));
    if invalid_document(&c.supplier.document) {
        out.push(Breach {
            rule: "invalid_document",
            confidence: legal_confidence(0.90, s),
            at_stake: 0.0,
            threshold: 0.0,
            observed: 1.0,
            law: "Instrução Normativa RFB 2.119/2022 (dígitos verificadores do CNPJ); Lei 14.133/2021, art. 68".into(),
            pt: format!("O fornecedor do contrato {} tem documento {} com dígitos verificadores inválidos: o CNPJ/CPF não existe como informado (qualidade do dado).", number, c.supplier.document),
            en: format!("The supplier of contract {} has document {} whose check digits are invalid: no such CNPJ/CPF exists as recorded (data quality).", number, c.supplier.document),
            technical: format!("check digits of '{}' do not match (mod 11); not a zero-padded CPF", c.supplier.document),
            sanction: None,
        });
    }
    if modality == Modality::Inexigibilidade {
        out.extend(inexigibility_breach(c, basis, number, value, s));
    }
    out
}

fn inexigibility_breach(c: &Contract, basis: &LegalBasis, number: &str, value: f64, s: f64) -> Option<Breach<'static>> {
    let public = document_kind(&c.supplier.document) == DocumentKind::UgCode;
    if basis.missing
        || legal_grounds::cites_inexigibility(basis)
        || legal_grounds::inferred_ground(&c.object, &c.supplier.name, public).is_some()
    {
        return None;
    }
    let incomplete = legal_grounds::names_only_a_law(basis) || basis.citations.is_empty();
    let cited = basis.citations.iter().map(|c| c.label()).collect::<Vec<_>>().join("; ");
    Some(Breach {
        rule: "unjustified_inexigibility",
        confidence: adjust_confidence(if incomplete { 0.70 } else { 0.86 }, s),
        at_stake: value,
        threshold: 0.0,
        observed: 1.0,
        law: "Lei 14.133/2021, art. 74; Lei 8.666/1993, art. 25".into(),
        pt: format!(
            "O contrato {} ({}) foi feito por inexigibilidade, mas o fundamento legal informado ('{}') não cita inexigibilidade (art. 74 da Lei 14.133 ou art. 25 da Lei 8.666), e o objeto não indica fornecedor exclusivo.",
            number,
            format_brl(value),
            c.legal_basis
        ),
        en: format!(
            "Contract {} ({}) skipped bidding as 'inexigibilidade', but its legal basis ('{}') cites no inexigibility ground.",
            number,
            format_brl(value),
            c.legal_basis
        ),
        technical: format!(
            "modality inexigibilidade; basis '{}' parsed as [{}]: no inexigibility article{}",
            c.legal_basis,
            cited,
            if incomplete { " (names only a law: incomplete)" } else { "" }
        ),
        sanction: None,
    })
}

fn anomaly(c: &Contract, b: Breach<'_>) -> Anomaly {
    let when = iso(c.signed_on);
    let related = vec![supplier_ref(c), organ_ref(c)];
    let subject = Subject {
        id: c.id.to_string(),
        primary: contract_ref(c),
        related,
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

#[path = "exclusivity_rule.rs"]
pub mod exclusivity;

#[cfg(test)]
#[path = "compliance_rules_tests.rs"]
mod tests;
