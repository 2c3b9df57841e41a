//! The contract-text detectors (Machado de Assis's findings):
//!
//! - `vague_object` (pattern_anomaly): an object that says what kind of purchase it is but
//!   not what is bought ("AQUISIÇÃO DE MATERIAL", "PRESTAÇÃO DE SERVIÇOS DIVERSOS"): at most
//!   `W(s)` specific words (content words that are neither generic purchase words nor numbers)
//!   in a contract of at least `V(s)` reais. Sensitivity moves `W(s)` through 0 (s = 0), 0 (s
//!   = 0.7) and 1 (s = 1) specific words, and `V(s)` through R$ 1.000.000, R$ 50.000 and
//!   R$ 10.000. Below sensitivity 0.9 the value must also exceed the direct-purchase limit for
//!   goods and services of the law in force at signing ([`routine_limit`]: R$ 59.906,02 in
//!   2024, R$ 62.725,59 in 2025 under Lei 14.133): under it a one-line summary is the usual
//!   record of a small purchase. A contract whose items are listed is specified by them; an
//!   object with no word beyond "Objeto:" is missing data, not vague. Confidence =
//!   `margin_confidence(ln(value / floor) + (W(s) - specific words), 1.5)`, `floor` the larger
//!   of `V(s)` and that limit.
//! - `brand_restriction` (compliance_violation): an object that names a brand without
//!   accepting an equivalent (Lei 14.133/2021, art. 41, I: a brand may be indicated only
//!   exceptionally, with a technical justification, and "ou similar" keeps competition open).
//!   Score ([`crate::detect::contract_text::TextFacts::brand_score`]): 2 for "MARCA <name>", 1 per
//!   known brand (at most 2), 1 for an exclusivity word; 0 when "ou similar", "ou equivalente"
//!   or "de melhor qualidade" appears, or when what the object buys (its opening words) serves
//!   equipment or software in place (maintenance, support, parts, licences), where the maker
//!   identifies the object.
//!   Below sensitivity 0.9 the brand must be demanded (an exclusivity word or a refusal of
//!   similars): a contract that merely names the product it bought records the award.
//!   Severity is medium at most: a contract names the product it bought, and whether the
//!   edital restricted the brand without justification is for the organ to show. Flagged when the score reaches `B(s)`: 3 (s = 0), 2 (s =
//!   0.7: "MARCA X" alone) and 1 (s = 1: any known brand). Confidence =
//!   `margin_confidence(score - B(s), 1)`.
//!
//! Both are one pass over the objects' words: O(total words).

use chrono::NaiveDate;
use serde_json::json;

use crate::cancel::{AnalysisError, CancelFlag};
use crate::detect::Detector;
use crate::detect::common::{contract_ref, organ_ref, round2, round4, supplier_ref};
use crate::detect::contract_text::{TextFacts, read};
use crate::detect::finding::{Finding, pattern, point};
use crate::detect::law_limits;
use crate::detect::sensitivity::{Threshold, margin_confidence, tidy};
use crate::detect::shared::{Shared, TextScan};
use crate::model::anomaly::{Anomaly, AnomalyType, Severity};
use crate::model::contract::Contract;
use crate::model::params::DetectionParams;
use crate::text::format_brl;

/// Name of the vague object detector.
pub const VAGUE: &str = "vague_object";
/// Name of the brand restriction detector.
pub const BRAND: &str = "brand_restriction";
/// Most specific words of a vague object, as sensitivity moves it (flagged at or below).
pub const WORDS: Threshold = Threshold::new(0.0, 0.0, 1.0);
/// Smallest value of a vague object worth reporting, as sensitivity moves it.
pub const VALUE: Threshold = Threshold::new(1_000_000.0, 50_000.0, 10_000.0);
/// Brand score needed, as sensitivity moves it (flagged at or above).
pub const BRAND_SCORE: Threshold = Threshold::new(3.0, 2.0, 1.0);

/// The vague object detector.
#[derive(Debug, Clone, Copy, Default)]
pub struct VagueObject;

/// The brand restriction detector.
#[derive(Debug, Clone, Copy, Default)]
pub struct BrandRestriction;

/// Below this sensitivity a vague object must also be worth more than the direct-purchase
/// limit in force at signing ([`routine_limit`]).
pub const ROUTINE_BELOW: f64 = 0.9;

/// The direct-purchase limit for goods and services ("em razão do valor") of the law in force
/// on `signed`: under it a purchase needs no competition, and a short summary is its usual
/// record. `None` without a date.
pub fn routine_limit(signed: Option<NaiveDate>) -> Option<f64> {
    let d = signed?;
    law_limits::limits(&law_limits::law_in_force(d), d).map(|l| l.other)
}

/// The smallest value a finding on a contract signed on `signed` is worth at sensitivity `s`:
/// `threshold`, raised to the direct-purchase limit in force below [`ROUTINE_BELOW`].
pub fn value_floor(threshold: f64, signed: Option<NaiveDate>, s: f64) -> f64 {
    match routine_limit(signed) {
        Some(l) if s < ROUTINE_BELOW => threshold.max(l),
        _ => threshold,
    }
}

/// Confidence of a vague object with these word counts at sensitivity `s`, when it is one
/// (`specific_words` may be capped above 1: the rule never allows more than one), `floor` the
/// smallest value worth reporting ([`value_floor`] of [`VALUE`]).
pub fn vague_confidence(content_words: usize, specific_words: usize, value: f64, floor: f64, s: f64) -> Option<f64> {
    let (w, v) = (WORDS.at(s), floor);
    if content_words == 0 || specific_words as f64 > w + 1e-9 || value.is_nan() || value < v {
        return None;
    }
    Some(tidy(margin_confidence((value / v).ln() + (w - specific_words as f64), 1.5)))
}

/// Below this sensitivity a brand must be demanded ([`TextFacts::exclusive`]): a contract
/// that merely names the product it bought ("AQUISIÇÃO DE SORO FETAL DA MARCA LIFE") records
/// the award, not a restriction.
pub const DEMANDED_BELOW: f64 = 0.9;

/// Confidence of a brand restriction at sensitivity `s`, when it is one.
pub fn brand_confidence(f: &TextFacts, s: f64) -> Option<f64> {
    let (score, b) = (f.brand_score(), BRAND_SCORE.at(s));
    if s < DEMANDED_BELOW && !f.exclusive {
        return None;
    }
    (score > 0.0 && score >= b - 1e-9).then(|| tidy(margin_confidence(score - b, 1.0)))
}

fn scan(
    sh: &Shared<'_>,
    p: &DetectionParams,
    cancel: &CancelFlag,
    mut judge: impl FnMut(&Contract, &TextScan) -> Option<Anomaly>,
) -> Result<Vec<Anomaly>, AnalysisError> {
    let texts = sh.texts(cancel)?;
    let mut out = Vec::new();
    for (i, c) in sh.dataset().contracts.iter().enumerate() {
        if i % 16_384 == 0 {
            cancel.check()?;
        }
        if let Some(a) = judge(c, &texts[i]).filter(|a| a.confidence >= p.confidence_threshold) {
            out.push(a);
        }
    }
    Ok(out)
}

impl Detector for VagueObject {
    fn name(&self) -> &'static str {
        VAGUE
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
        scan(sh, p, cancel, |c, t| {
            // Items with catalogue descriptions specify what the contract buys, whatever its
            // object says.
            if !c.items.is_empty() {
                return None;
            }
            let floor = value_floor(VALUE.at(p.sensitivity), c.signed_on, p.sensitivity);
            let conf =
                vague_confidence(usize::from(t.has_content), usize::from(t.specific), c.value(), floor, p.sensitivity)?;
            let facts = read(&c.object);
            // An object with no word beyond "Objeto:" is missing data, not a vague purchase.
            (facts.content_words >= 2).then(|| vague(c, &facts, conf, floor, p.sensitivity))
        })
    }
}

impl Detector for BrandRestriction {
    fn name(&self) -> &'static str {
        BRAND
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
        scan(sh, p, cancel, |c, t| {
            // An inexigibilidade names the exclusive maker as its ground; whether that ground
            // holds is compliance_rules' question, not a restriction of a competition.
            if !t.brand
                || crate::detect::legal::modality(&c.modality) == crate::detect::legal::Modality::Inexigibilidade
            {
                return None;
            }
            let f = read(&c.object);
            // The contract names the product it bought: the restriction, if any, was in the
            // edital, which the record does not show. Worth a question, medium at most.
            brand_confidence(&f, p.sensitivity).map(|conf| brand(c, &f, conf, p.sensitivity).at_most(Severity::Medium))
        })
    }
}

fn number(c: &Contract) -> &str {
    if c.number.is_empty() { c.id.as_str() } else { c.number.as_str() }
}

fn vague(c: &Contract, f: &TextFacts, confidence: f64, v: f64, s: f64) -> Anomaly {
    let w = WORDS.at(s);
    let limit = routine_limit(c.signed_on);
    Finding {
        detector: VAGUE,
        kind: AnomalyType::PatternAnomaly,
        key: c.id.clone().to_string(),
        confidence,
        at_stake: c.value(),
        threshold: round4(w),
        description: format!(
            "Contrato {} de {} tem objeto genérico, sem dizer o que é comprado: \"{}\"",
            number(c),
            format_brl(c.value()),
            c.object
        ),
        human_pt: format!(
            "O objeto do contrato {} (\"{}\", {} com {}) não especifica itens, quantidades nem características. Um \
             objeto vago impede comparar preços e verificar a entrega; a Lei 14.133/2021 (art. 40 e 18) exige a \
             descrição precisa do objeto.",
            number(c),
            c.object,
            format_brl(c.value()),
            c.supplier.name
        ),
        human_en: format!(
            "Contract {} ({}) has an object that does not say what is bought: \"{}\".",
            number(c),
            format_brl(c.value()),
            c.object
        ),
        technical: format!(
            "{} content words, {} specific (neither generic purchase words nor numbers) <= {:.0}; value {:.2} >= {:.2} \
             (R$ {:.2} at sensitivity {s}, raised below {ROUTINE_BELOW} to the direct-purchase limit in force at \
             signing, {}; 1 word and R$ 10.000 at 1.0)",
            f.content_words,
            f.specific_words,
            w,
            c.value(),
            v,
            VALUE.at(s),
            limit.map_or("unknown: no signing date".to_string(), |l| format!("R$ {l:.2}"))
        ),
        primary: contract_ref(c),
        related: vec![supplier_ref(c), organ_ref(c)],
        data_points: vec![
            point("specific_words", f.specific_words as f64, None),
            point("content_words", f.content_words as f64, None),
            point("value", c.value(), None),
        ],
        patterns: vec![pattern("vague_object", "object without specification".into(), json!({"object": c.object}))],
        method: "object_specificity_words",
        score: f.specific_words as f64,
        contamination: 0.0,
        peer: None,
        regulatory: Some(json!({
            "rule": "Lei 14.133/2021, art. 18, II e art. 40, I (definição precisa do objeto)",
        })),
        factors: vec![
            ("specific_words".into(), 0.7, format!("{} specific words", f.specific_words)),
            ("value".into(), 0.3, format!("{} at stake", format_brl(c.value()))),
        ],
        details: vec![
            ("specific_words", json!(f.specific_words)),
            ("content_words", json!(f.content_words)),
            ("value_threshold", json!(round2(v))),
            ("direct_purchase_limit", json!(limit.map(round2))),
            ("sensitivity", json!(s)),
            ("baseline", json!("generic_purchase_lexicon")),
        ],
    }
    .build()
}

fn brand(c: &Contract, f: &TextFacts, confidence: f64, s: f64) -> Anomaly {
    let b = BRAND_SCORE.at(s);
    let brands = if f.brands.is_empty() { "marca indicada".to_string() } else { f.brands.join(", ").to_uppercase() };
    Finding {
        detector: BRAND,
        kind: AnomalyType::ComplianceViolation,
        key: c.id.clone().to_string(),
        confidence,
        at_stake: c.value(),
        threshold: round4(b),
        description: format!("Contrato {} exige marca ({}) sem admitir similar ou equivalente", number(c), brands),
        human_pt: format!(
            "O objeto do contrato {} (\"{}\") indica a marca {} sem a expressão \"ou similar\" ou \"ou equivalente\". \
             A indicação de marca restringe a competição e só é admitida excepcionalmente, com justificativa técnica \
             (Lei 14.133/2021, art. 41, I); o contrato nomeia o produto comprado, e se o edital exigiu a marca sem \
             justificativa é o que vale perguntar ao órgão.",
            number(c),
            c.object.chars().take(160).collect::<String>(),
            brands
        ),
        human_en: format!("Contract {} requires brand {} without accepting an equivalent.", number(c), brands),
        technical: format!(
            "brand score {:.0} >= {:.0} (\"marca\" + name: 2, known brand: 1 each up to 2, exclusivity word: 1; 0 when \
             an equivalent is accepted) at sensitivity {s}; brands {:?}, keyword {}, exclusive {}",
            f.brand_score(),
            b,
            f.brands,
            f.brand_keyword,
            f.exclusive
        ),
        primary: contract_ref(c),
        related: vec![supplier_ref(c), organ_ref(c)],
        data_points: vec![point("brand_score", f.brand_score(), None), point("value", c.value(), None)],
        patterns: vec![pattern(
            "brand_without_equivalent",
            format!("brand {brands} required"),
            json!({"brands": f.brands, "exclusive": f.exclusive}),
        )],
        method: "brand_lexicon_and_marca_keyword",
        score: f.brand_score(),
        contamination: 0.0,
        peer: None,
        regulatory: Some(json!({
            "rule": "Lei 14.133/2021, art. 41, I (indicação de marca excepcional e justificada)",
            "note": "sem \"ou similar\"/\"ou equivalente\"",
        })),
        factors: vec![
            ("brand".into(), 0.7, format!("brand {brands} named")),
            ("no_equivalent".into(), 0.3, "no equivalent accepted".into()),
        ],
        details: vec![
            ("brands", json!(f.brands)),
            ("brand_keyword", json!(f.brand_keyword)),
            ("exclusive", json!(f.exclusive)),
            ("sensitivity", json!(s)),
            ("baseline", json!("brand_lexicon")),
        ],
    }
    .build()
}

#[cfg(test)]
#[path = "text_flags_tests.rs"]
mod tests;
