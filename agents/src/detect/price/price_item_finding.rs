//! The finding of `price_zscore`'s unit-price rule ([`crate::detect::price::price_items`]): a contract with
//! flagged items, named by its worst item, with every flagged item (up to ten) in the
//! evidence, the test that flagged it, and the money at stake (the excess over the peer median
//! times the quantity, summed over the flagged items).

use serde_json::json;

use crate::detect::common::{contract_ref, iso, round2, round4};
use crate::detect::finding::{Finding, pattern, point};
use crate::detect::price::price_groups::MAX_SIGMA;
use crate::detect::price::price_items::{ItemBaselines, ItemFlag, MIN_LINE_Z, MIN_RATIO, PRECISE, UNIT_GAP};
use crate::detect::sensitivity::{margin_confidence, tidy};
use crate::model::anomaly::{Anomaly, AnomalyType};
use crate::model::dataset::Dataset;
use crate::text::{format_brl, format_decimal};

/// Most flagged items listed in a finding's evidence.
const MAX_LISTED: usize = 10;

/// The finding of a contract with flagged items; `None` below `min_confidence`.
pub fn anomaly(
    ds: &Dataset,
    b: &ItemBaselines,
    i: usize,
    flags: &[ItemFlag],
    threshold: f64,
    s: f64,
    min_confidence: f64,
) -> Option<Anomaly> {
    let worst = flags.first()?;
    let c = &ds.contracts[i];
    let g = &b.groups[worst.group];
    let small = if g.size < 50 { 0.95 } else { 1.0 };
    let confidence = tidy(margin_confidence(worst.z - threshold, 0.75) * small);
    if confidence < min_confidence {
        return None;
    }
    let median = g.median_log.exp();
    let ratio = worst.unit / median;
    let at_stake: f64 = flags.iter().map(|f| f.excess.max(0.0)).sum();
    let item = &c.items[worst.item];
    let number = if c.number.is_empty() { c.id.as_str() } else { c.number.as_str() };
    let supplier = if c.supplier.name.is_empty() { "fornecedor não informado" } else { c.supplier.name.as_str() };
    let listed: Vec<serde_json::Value> = flags
        .iter()
        .take(MAX_LISTED)
        .map(|f| {
            let grp = &b.groups[f.group];
            pattern(
                "unit_price_above_like_items",
                format!(
                    "{} at {:.1}x the median unit price",
                    c.items[f.item].description,
                    f.unit / grp.median_log.exp()
                ),
                json!({
                    "item": c.items[f.item].code,
                    "description": c.items[f.item].description,
                    "quantity": c.items[f.item].quantity,
                    "unit_price": round2(f.unit),
                    "peer_median_unit_price": round2(grp.median_log.exp()),
                    "peer_items": grp.size,
                    "peer_contracts": grp.contracts,
                    "z_score": round4(f.z),
                    "line_total_z_score": round4(f.z_line),
                }),
            )
        })
        .collect();
    Some(
        Finding {
            detector: crate::detect::price::zscore::NAME,
            kind: AnomalyType::PriceAnomaly,
            key: c.id.to_string(),
            confidence,
            at_stake,
            threshold: round4(threshold),
            description: format!(
                "Contrato {number} com {supplier}: o item \"{}\" custa {} por unidade, {} vezes a mediana de {} dos \
                 {} itens iguais em {} contratos (z robusto = {})",
                item.description,
                format_brl(worst.unit),
                format_decimal(ratio, 1),
                format_brl(median),
                g.size,
                g.contracts,
                format_decimal(worst.z, 2)
            ),
            human_pt: format!(
                "No contrato {number} ({}), {supplier} cobra {} por unidade de \"{}\" ({} unidades), {} vezes o preço \
                 unitário típico do mesmo item em {} outros contratos. {} item(ns) do contrato estão acima dos pares; \
                 a diferença soma {}. Vale pedir ao órgão a pesquisa de preços.",
                c.object.chars().take(100).collect::<String>(),
                format_brl(worst.unit),
                item.description,
                format_decimal(item.quantity, 0),
                format_decimal(ratio, 1),
                g.contracts.saturating_sub(1),
                flags.len(),
                format_brl(at_stake)
            ),
            human_en: format!(
                "The unit price of '{}' is {ratio:.1} times the median unit price of the same catalogue item in {} \
                 contracts; the excess over the median, times the quantities, is {}.",
                item.description,
                g.contracts,
                format_brl(at_stake)
            ),
            technical: format!(
                "Rule 'unit_price' ({} test) at sensitivity {s}: robust z of ln(unit price) among the {} priced items \
                 of the description '{}' ({} contracts; median ln = {:.3}, 1.4826 MAD = {:.3}, homogeneous: at most \
                 {MAX_SIGMA}) = {:.3}, unit price {:.2} times the median, robust z of ln(line total) = {:.3}. \
                 Corroborated: both z above {:.3} and at least {:.2} times the median; precise: z above {:.3}, {:.2} \
                 to {UNIT_GAP} times the median, line total z above {MIN_LINE_Z}, no specification its peers lack.",
                worst.test,
                g.size,
                g.description,
                g.contracts,
                g.median_log,
                g.sigma,
                worst.z,
                ratio,
                worst.z_line,
                threshold,
                crate::detect::price::zscore::MIN_RATIO.at(s),
                PRECISE.at(s).max(threshold),
                MIN_RATIO.at(s),
            ),
            primary: contract_ref(c),
            related: Vec::new(),
            data_points: vec![
                point("unit_price", worst.unit, iso(c.signed_on)),
                point("peer_median_unit_price", median, iso(c.signed_on)),
                point("z_score", worst.z, iso(c.signed_on)),
            ],
            patterns: listed,
            method: "robust_zscore_log_unit_price",
            score: worst.z,
            contamination: flags.len() as f64 / c.items.len().max(1) as f64,
            peer: Some(json!({
                "group": g.description,
                "baseline": "catalogue_item",
                "size": g.size,
                "contracts": g.contracts,
                "median": round2(median),
                "median_log": round4(g.median_log),
                "sigma_log": round4(g.sigma),
            })),
            regulatory: None,
            factors: vec![
                ("z_score".into(), 0.6, format!("ln(unit price) is {:.2} robust deviations above its peers", worst.z)),
                ("ratio_to_median".into(), 0.3, format!("unit price is {ratio:.1} times the peer median")),
                ("flagged_items".into(), 0.1, format!("{} item(s) above their peers", flags.len())),
            ],
            details: vec![
                ("rule", json!("unit_price")),
                ("test", json!(worst.test)),
                ("sensitivity", json!(s)),
                ("baseline", json!("catalogue_item")),
                ("z_score", json!(round4(worst.z))),
                ("peer_group", json!(g.description)),
                ("peer_size", json!(g.size)),
                ("peer_contracts", json!(g.contracts)),
                ("peer_median", json!(round2(median))),
                ("value", json!(round2(worst.unit))),
                ("quantity", json!(item.quantity)),
                ("ratio_to_median", json!(round2(ratio))),
                ("flagged_items", json!(flags.len())),
                ("organ", json!(c.organ.code)),
                ("supplier", json!(c.supplier.document)),
            ],
        }
        .build(),
    )
    .map(|a| a.at_most(crate::detect::price::zscore::MAX_SEVERITY))
}
