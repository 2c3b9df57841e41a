//! `price_zscore`: a contract whose price is out of line with its peers.
//!
//! Price is about price. Where a contract lists its items with quantities, its unit prices are
//! compared with the same catalogue item in other contracts ([`crate::detect::price::price_items`]).
//! Otherwise its total is compared within its learned peer group
//! ([`crate::detect::peer_groups`]: contracts whose object texts say they buy the same thing, learned
//! from the dataset's own texts, with the purchase modality when the group is large enough;
//! see [`crate::detect::price::price_groups`]), and only when the group holds at least 30 contracts whose
//! totals have a central mass; a contract unlike enough others, a secret or boilerplate
//! object, gives no finding. Contract values are heavily right-skewed, so every score is taken
//! on `ln(value)`. Two rules, each with a threshold sensitivity `s` moves (see
//! [`crate::detect::sensitivity`]):
//!
//! - robust (the calibrated default): the peer z-score `rz = (ln v - median) / (1.4826 MAD)`
//!   must exceed `T(s)` = 6.0 (s = 0), 2.4 (s = 0.7) and 1.5 (s = 1), and the contract must
//!   also stand out from where its supplier usually prices, `ez > T(s) - 1`: `ez` is the
//!   z-score of `ln(v / peer median)` against the supplier's own contracts in the group
//!   (at least 5, spread shrunk towards the peers'), or, for a supplier with fewer, against the
//!   cluster of suppliers its other contracts price like (k-means over supplier median and
//!   spread, Rosie's fallback), or the peer group alone when it has no other contract. The
//!   supplier baseline vetoes contracts that are normal for a supplier that always prices
//!   high; it never adds a flag.
//! - literal (the spec's rule of [1]): the classic z-score of `ln v` (mean and standard
//!   deviation of the peer baseline) must exceed `L(s)` = 8.0 (s = 0), 4.0 (s = 0.7) and the
//!   spec's 1.5 (s = 1).
//!
//! Where a group's totals grow with the vigência (least-squares slope of ln(total) on
//! ln(days) at least [`TERM_SLOPE`], as for continuing services), a total is compared only when
//! the contract's vigência is at most twice the group's median ([`MAX_TERM_RATIO`]): a
//! five-year service is not overpriced against one-year ones. Either rule also needs the price at least `R(s)` times the peer median: 5 (s = 0), 3 (s =
//! 0.7), none at s = 1. Severity is high at most: a statistical outlier asks for the organ's
//! price research; it does not prove overpricing.
//!
//! Confidence = `margin_confidence(score - threshold, 0.75)` of the rule that fired (the larger
//! if both), times 0.97 for a group baseline of mixed modalities and 0.95 for baselines of fewer
//! than 50 contracts. Severity from [`crate::detect::common::severity`]; the money at stake is the
//! value above the peer median. The evidence names the group (its defining terms, size,
//! median), the contract's ratio to the median and the supplier baseline. Complexity: linear in
//! the contracts plus the learned groups (near-linear, shared with other detectors) and k-means
//! over the suppliers (fitted on at most 20,000 of them). The value judged is
//! `valorInicialCompra`, the price agreed at signing (amendments are `compliance_rules`'
//! business).

use serde_json::json;

use crate::cancel::{AnalysisError, CancelFlag};
use crate::detect::Detector;
use crate::detect::common::{contract_ref, details, iso, round2, round4, severity};
use crate::detect::price::price_baselines::{Baselines, Entity, Group, Level, price_of};
use crate::detect::price::price_item_finding;
use crate::detect::price::price_items::ItemBaselines;
use crate::detect::sensitivity::{Threshold, margin_confidence, tidy};
use crate::detect::shared::Shared;
use crate::model::anomaly::{
    AffectedEntities, Anomaly, AnomalyType, Context, DataPoint, Evidence, Explanation, Factor, Severity,
    StatisticalEvidence,
};
use crate::model::dataset::Dataset;
use crate::model::params::DetectionParams;
use crate::text::{format_brl, format_decimal, format_pct};

pub use crate::detect::price::price_baselines::MIN_GROUP;

/// Detector name.
pub const NAME: &str = "price_zscore";
/// The spec's literal threshold on the z-score.
pub const THRESHOLD: f64 = 1.5;
/// The robust peer z-score threshold as sensitivity moves it.
pub const ROBUST: Threshold = Threshold::new(6.0, 2.4, THRESHOLD);
/// The literal (mean and standard deviation) z-score threshold as sensitivity moves it.
pub const LITERAL: Threshold = Threshold::new(8.0, 4.0, THRESHOLD);
/// Least ratio of a price to its peer median for a finding, as sensitivity moves it (the
/// spec's literal rule at s = 1 has none): within a homogeneous group, a price under three
/// times the median is market spread (brand, region, scale), not a question for the organ.
pub const MIN_RATIO: Threshold = Threshold::new(5.0, 3.0, 1.0);
/// How far below the robust threshold the supplier baseline z-score may be and still let a
/// flag through.
pub const VETO_MARGIN: f64 = 1.0;
/// The highest severity of a price finding: a price far above its peers is a reason to ask
/// for the organ's price research, not proof of an irregularity.
pub const MAX_SEVERITY: Severity = Severity::High;
/// Scale of the confidence margin, in z units.
const MARGIN_SCALE: f64 = 0.75;

/// The price detector.
#[derive(Debug, Clone, Copy, Default)]
pub struct PriceZScore;

/// Why a contract was flagged.
#[derive(Debug, Clone, Copy)]
struct Flag {
    peer_z: f64,
    entity_z: f64,
    literal_z: f64,
    entity: Entity,
    robust: bool,
    literal: bool,
    confidence: f64,
}

/// Confidence multiplier of a baseline: coarser and smaller baselines say less.
pub fn baseline_factor(level: Level, size: usize) -> f64 {
    let level = match level {
        Level::GroupModality => 1.0,
        Level::Group => 0.97,
    };
    if size < 50 { level * 0.95 } else { level }
}

/// How many times its peers' usual vigência a contract may last and still be compared on its
/// total: a five-year continuing service costs five one-year ones.
pub const MAX_TERM_RATIO: f64 = 2.0;

/// Slope of ln(total) on ln(vigência) in a group from which totals count as growing with the
/// term (continuing services: two years cost about twice one).
pub const TERM_SLOPE: f64 = 0.5;

/// Whether a contract's total is comparable with its group's: in a group whose totals grow
/// with the vigência ([`TERM_SLOPE`]), a contract lasting more than [`MAX_TERM_RATIO`] times the
/// group's median vigência is not.
fn comparable_term(c: &crate::model::contract::Contract, g: &Group) -> bool {
    match crate::detect::price::price_groups::days_of(c) {
        Some(days) if g.median_days.is_finite() && g.term_slope >= TERM_SLOPE => days <= MAX_TERM_RATIO * g.median_days,
        _ => true,
    }
}

/// Scores one contract at sensitivity `s`; `None` when no rule fires.
fn judge(c: &crate::model::contract::Contract, b: &Baselines, i: usize, s: f64) -> Option<Flag> {
    let g = &b.groups[b.group_of[i] as usize];
    let (t, l) = (ROBUST.at(s), LITERAL.at(s));
    let peer_z = b.peer_z(i);
    let literal_z = b.literal_z(i);
    if (peer_z <= t && literal_z <= l) || b.ratio[i] < MIN_RATIO.at(s).ln() || !comparable_term(c, g) {
        return None;
    }
    let entity = b.entity(i);
    let entity_z = entity.z(b.ratio[i], peer_z);
    let robust = peer_z > t && entity_z > t - VETO_MARGIN;
    let literal = literal_z > l;
    if !robust && !literal {
        return None;
    }
    let margin = f64::max(if robust { peer_z - t } else { 0.0 }, if literal { literal_z - l } else { 0.0 });
    let confidence = tidy(margin_confidence(margin, MARGIN_SCALE) * baseline_factor(g.level, g.size));
    Some(Flag { peer_z, entity_z, literal_z, entity, robust, literal, confidence })
}

impl Detector for PriceZScore {
    fn name(&self) -> &'static str {
        NAME
    }
    fn kind(&self) -> AnomalyType {
        AnomalyType::PriceAnomaly
    }
    fn run_shared(
        &self,
        sh: &Shared<'_>,
        p: &DetectionParams,
        cancel: &CancelFlag,
    ) -> Result<Vec<Anomaly>, AnalysisError> {
        let ds = sh.dataset();
        let b = Baselines::build(ds, sh.object_groups(cancel)?, sh.categories(cancel)?, &sh.suppliers().ids, cancel)?;
        let items = ds.contracts.iter().any(|c| !c.items.is_empty()).then(|| ItemBaselines::build(ds));
        let texts = sh.texts(cancel)?;
        let mut flags = Vec::new();
        let mut by_items = Vec::new();
        let mut per_group = vec![0usize; b.groups.len()];
        for i in 0..ds.contracts.len() {
            if i % 8192 == 0 {
                cancel.check()?;
            }
            if let Some(items) = items.as_ref().filter(|it| it.judges(i)) {
                let t = ROBUST.at(p.sensitivity);
                let found = items.flags(ds, i, t, MIN_RATIO.at(p.sensitivity), p.sensitivity);
                by_items.extend(price_item_finding::anomaly(
                    ds,
                    items,
                    i,
                    &found,
                    t,
                    p.sensitivity,
                    p.confidence_threshold,
                ));
                continue;
            }
            // A boilerplate object ("AQUISIÇÃO DE MATERIAL DE CONSUMO") does not say what is
            // bought, so the contracts sharing it are no price peers of it.
            if b.group_of[i] == u32::MAX || texts[i].specific == 0 {
                continue;
            }
            if let Some(f) = judge(&ds.contracts[i], &b, i, p.sensitivity) {
                per_group[b.group_of[i] as usize] += 1;
                if f.confidence >= p.confidence_threshold {
                    flags.push((i, f));
                }
            }
        }
        let mut out: Vec<Anomaly> = flags
            .into_iter()
            .map(|(i, f)| {
                let g = b.group_of[i] as usize;
                let contamination = per_group[g] as f64 / b.groups[g].size.max(1) as f64;
                anomaly(ds, i, &b.groups[g], &f, contamination, p)
            })
            .collect();
        out.extend(by_items);
        Ok(out)
    }
}

fn anomaly(ds: &Dataset, i: usize, g: &Group, f: &Flag, contamination: f64, p: &DetectionParams) -> Anomaly {
    let c = &ds.contracts[i];
    let s = p.sensitivity;
    let value = price_of(c);
    let at_stake = (value - g.median_value).max(0.0);
    let ratio = if g.median_value > 0.0 { value / g.median_value } else { f64::INFINITY };
    let (t, l) = (ROBUST.at(s), LITERAL.at(s));
    let rule = match (f.robust, f.literal) {
        (true, true) => "robust_and_literal",
        (true, false) => "robust",
        _ => "literal",
    };
    let mut td = details(NAME, round4(if f.robust { t } else { l }), at_stake);
    td.insert("rule".into(), json!(rule));
    td.insert("sensitivity".into(), json!(s));
    td.insert("robust_threshold".into(), json!(round4(t)));
    td.insert("literal_threshold".into(), json!(round4(l)));
    td.insert("spec_threshold".into(), json!(THRESHOLD));
    td.insert("z_score".into(), json!(round4(f.peer_z)));
    td.insert("literal_z_score".into(), json!(round4(f.literal_z)));
    td.insert("entity_z_score".into(), json!(round4(f.entity_z)));
    td.insert("peer_group".into(), json!(g.label));
    td.insert("peer_terms".into(), json!(g.terms));
    td.insert("peer_coherence".into(), json!(round4(g.coherence)));
    td.insert("peer_size".into(), json!(g.size));
    td.insert("baseline".into(), json!(g.level.as_str()));
    td.insert("entity_baseline".into(), json!(f.entity.as_str()));
    if let Entity::Cluster { cluster, .. } = f.entity {
        td.insert("supplier_cluster".into(), json!(cluster));
    }
    td.insert("peer_median".into(), json!(round2(g.median_value)));
    td.insert("value".into(), json!(round2(value)));
    td.insert("ratio_to_median".into(), json!(round2(ratio)));
    td.insert("organ".into(), json!(c.organ.code));
    td.insert("supplier".into(), json!(c.supplier.document));
    let when = iso(c.signed_on);
    let supplier = if c.supplier.name.is_empty() { "fornecedor não informado" } else { c.supplier.name.as_str() };
    let number = if c.number.is_empty() { c.id.as_str() } else { c.number.as_str() };
    let description = format!(
        "Contrato {} com {} de {} custa {} vezes a mediana de {} dos {} contratos comparáveis ({}; z robusto = {})",
        number,
        supplier,
        format_brl(value),
        format_decimal(ratio, 1),
        format_brl(g.median_value),
        g.size,
        g.label,
        format_decimal(f.peer_z, 2)
    );
    let entity_text = match f.entity {
        Entity::Supplier { size, median_ratio, .. } => format!(
            "Mesmo em relação aos {} contratos do próprio fornecedor nesta categoria (que costumam custar {} vezes a \
             mediana), o valor se destaca.",
            size,
            format_decimal(median_ratio.exp(), 2)
        ),
        Entity::Cluster { size, median_ratio, .. } => format!(
            "O fornecedor tem poucos contratos; comparado aos {} contratos de fornecedores com preços parecidos \
             (que costumam custar {} vezes a mediana), o valor também se destaca.",
            size,
            format_decimal(median_ratio.exp(), 2)
        ),
        Entity::PeerOnly => "O fornecedor não tem outros contratos nesta categoria para comparação.".to_string(),
    };
    let human = format!(
        "O contrato {} ({}) foi assinado por {} com {}, valor {} vezes maior que o contrato típico do mesmo \
         tipo ({} contratos de {}). {} A diferença para a mediana é de {}; vale pedir ao órgão a pesquisa de preços. \
         (The contract costs {:.1} times the median of comparable contracts; {} above it.)",
        number,
        c.object.chars().take(120).collect::<String>(),
        format_brl(value),
        supplier,
        format_decimal(ratio, 1),
        g.size,
        g.label,
        entity_text,
        format_brl(at_stake),
        ratio,
        format_brl(at_stake)
    );
    let technical = format!(
        "Rule '{}' at sensitivity {}: robust z of ln(value) in the {} baseline '{}' (n = {}, median ln = {:.3}, \
         1.4826 MAD = {:.3}) = {:.3} (threshold {:.3}); {} baseline z = {:.3} (veto below {:.3}); literal z (mean ln \
         = {:.3}, sd ln = {:.3}) = {:.3} (threshold {:.3}; the spec's {}). {} of the baseline is flagged by the same \
         rules.",
        rule,
        s,
        g.level.as_str(),
        g.label,
        g.size,
        g.median_log,
        g.sigma,
        f.peer_z,
        t,
        f.entity.as_str(),
        f.entity_z,
        t - VETO_MARGIN,
        g.mean_log,
        g.std_log,
        f.literal_z,
        l,
        THRESHOLD,
        format_pct(contamination)
    );
    let entity_context = match f.entity {
        Entity::Supplier { size, median_ratio, sigma } => json!({
            "baseline": "supplier", "size": size, "median_ratio": round4(median_ratio.exp()), "sigma_log": round4(sigma),
        }),
        Entity::Cluster { cluster, size, median_ratio, sigma } => json!({
            "baseline": "supplier_cluster", "cluster": cluster, "size": size,
            "median_ratio": round4(median_ratio.exp()), "sigma_log": round4(sigma),
        }),
        Entity::PeerOnly => json!({"baseline": "none"}),
    };
    Anomaly {
        id: format!("{NAME}-{}", c.id),
        kind: AnomalyType::PriceAnomaly,
        severity: severity(f.confidence, at_stake).min(MAX_SEVERITY),
        confidence: f.confidence,
        description,
        technical_details: td,
        affected_entities: AffectedEntities { primary: contract_ref(c), related: Vec::new() },
        evidence: Evidence {
            data_points: vec![
                DataPoint { metric: "value".into(), value: round2(value), timestamp: when.clone() },
                DataPoint { metric: "peer_median".into(), value: round2(g.median_value), timestamp: when.clone() },
                DataPoint { metric: "z_score".into(), value: round4(f.peer_z), timestamp: when.clone() },
                DataPoint { metric: "entity_z_score".into(), value: round4(f.entity_z), timestamp: when },
            ],
            patterns: vec![json!({
                "name": "price_above_peer_group",
                "description": format!("{:.1}x the peer median", ratio),
                "ratio_to_median": round2(ratio),
            })],
            statistical_analysis: Some(StatisticalEvidence {
                method: if f.robust { "robust_zscore_log_median_mad" } else { "zscore_log_peer_group" }.into(),
                anomaly_score: round4(if f.robust { f.peer_z } else { f.literal_z }),
                contamination: round4(contamination),
            }),
        },
        context: Context {
            peer_comparison: Some(json!({
                "group": g.label,
                "terms": g.terms,
                "coherence": round4(g.coherence),
                "baseline": g.level.as_str(),
                "size": g.size,
                "median": round2(g.median_value),
                "median_log": round4(g.median_log),
                "sigma_log": round4(g.sigma),
                "mean_log": round4(g.mean_log),
                "std_log": round4(g.std_log),
            })),
            historical_comparison: Some(entity_context),
            ..Context::default()
        },
        explanation: Some(Explanation {
            human_readable: human,
            technical,
            contributing_factors: vec![
                Factor {
                    factor: "z_score".into(),
                    impact: 0.6,
                    description: format!("ln(value) is {:.2} robust deviations above the peer median", f.peer_z),
                },
                Factor {
                    factor: "ratio_to_median".into(),
                    impact: 0.2,
                    description: format!("value is {ratio:.1} times the peer median"),
                },
                Factor {
                    factor: "supplier_baseline".into(),
                    impact: 0.1,
                    description: format!("{:.2} deviations above the {} baseline", f.entity_z, f.entity.as_str()),
                },
                Factor {
                    factor: "baseline".into(),
                    impact: 0.1,
                    description: format!("compared with the {} baseline of {} contracts", g.level.as_str(), g.size),
                },
            ],
        }),
    }
}

#[cfg(test)]
#[path = "zscore_tests.rs"]
mod tests;
