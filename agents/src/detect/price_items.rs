//! The unit-price half of `price_zscore`: where a contract lists its items (the Portal's
//! `ItemCompra`: catalogue description, quantity, value), a price is compared with the prices of
//! the same catalogue item in other contracts, per unit, so a contract of 20 units is never
//! judged against one of 2.
//!
//! Items are grouped by their folded catalogue description (CATMAT/CATSER texts are a
//! controlled vocabulary: "FRUTA", "SERVIÇO ESPECIALIZADO DE LIMPEZA"); each contract gives the
//! group one vote (the median of its lines), and a group judges only with at least
//! [`MIN_ITEMS`] priced items from at least [`MIN_CONTRACTS`] contracts (one contract cannot
//! be its own baseline) and a homogeneous spread (1.4826 MAD of ln(unit price)
//! at most [`super::price_groups::MAX_SIGMA`]: one description covering different units of
//! measure or different goods has no central price). An item is flagged when the robust
//! z-scores of its ln(unit price) *and* of its ln(line total) (quantity x unit price) both
//! exceed the detector's threshold and its unit price is at least the detector's least ratio
//! times the median. The item files give no unit of measure: a unit price far above its peers
//! whose line total is ordinary is a different unit (a year priced as one unit, a kit as one
//! test), not a higher price; so is a quantity more than ten times from the group's usual
//! one ([`MAX_QUANTITY_GAP`]). The contract's finding
//! names its worst item, and the money at stake is the excess over the group median times the
//! quantity, summed over its flagged items. A contract with at least one item in a judging
//! group is judged here and not on its total. Linear in the items plus a sort per group.

use std::collections::HashMap;

use serde_json::json;

use super::common::{FxBuild, contract_ref, iso, round2, round4};
use super::finding::{Finding, pattern, point};
use super::object_signature::{fold_into, is_uninformative};
use super::price_groups::{MAX_SIGMA, MIN_SIGMA, robust};
use super::sensitivity::{margin_confidence, tidy};
use crate::model::anomaly::{Anomaly, AnomalyType};
use crate::model::contract::Contract;
use crate::model::dataset::Dataset;
use crate::text::{format_brl, format_decimal};

/// Fewest priced items of one description for a unit-price baseline.
pub const MIN_ITEMS: usize = 12;
/// Fewest distinct contracts behind a unit-price baseline (fewer give a median and spread
/// that one contract moves).
pub const MIN_CONTRACTS: usize = 10;
/// Most an item's quantity may differ from the group's median quantity, on the log scale (a
/// factor of 10), for its unit price to be compared: one unit of a thing usually bought by the
/// hundred (a building's painting priced as one global unit against prices per square metre)
/// is another unit of measure, which the item files do not give.
pub const MAX_QUANTITY_GAP: f64 = std::f64::consts::LN_10;
/// Most flagged items listed in a finding's evidence.
const MAX_LISTED: usize = 10;

/// The baseline of one catalogue description.
#[derive(Debug, Clone)]
pub struct ItemGroup {
    /// The description as the first item gives it.
    pub description: String,
    /// Priced items.
    pub size: usize,
    /// Distinct contracts.
    pub contracts: usize,
    /// Median ln(unit price).
    pub median_log: f64,
    /// 1.4826 MAD of ln(unit price), floored.
    pub sigma: f64,
    /// Median ln(quantity x unit price), the line total.
    pub median_line: f64,
    /// 1.4826 MAD of ln(line total), floored.
    pub sigma_line: f64,
    /// Median ln(quantity).
    pub median_qty: f64,
}

impl ItemGroup {
    /// Whether it may judge an item.
    pub fn judges(&self) -> bool {
        self.size >= MIN_ITEMS && self.contracts >= MIN_CONTRACTS && self.sigma <= MAX_SIGMA
    }
}

/// One item above its peers.
#[derive(Debug, Clone)]
pub struct ItemFlag {
    /// Position in the contract's items.
    pub item: usize,
    /// Its baseline.
    pub group: usize,
    /// Unit price in R$.
    pub unit: f64,
    /// Robust z-score of ln(unit price).
    pub z: f64,
    /// Robust z-score of ln(line total).
    pub z_line: f64,
    /// (unit price - group median) x quantity.
    pub excess: f64,
}

/// Every item baseline, and each item's group.
pub struct ItemBaselines {
    /// The baselines.
    pub groups: Vec<ItemGroup>,
    /// Every contract's items' groups (`u32::MAX` for an item that is not priced), back to
    /// back: contract `i`'s are `item_group[item_start[i]..item_start[i + 1]]` (one flat array,
    /// not a list per contract: most contracts list no item).
    item_group: Vec<u32>,
    item_start: Vec<u32>,
    /// Every contract's items' unit prices, back to back, the same way.
    units: Vec<f64>,
    unit_start: Vec<u32>,
}

/// Unit prices of a contract's items: `Valor Item` is the unit price when quantity x value adds
/// up to the contract's value (as in the Portal's download), or the item's total when the
/// values alone add up to it and the products do not.
pub fn unit_prices(c: &Contract) -> Vec<f64> {
    let total = super::price_groups::price_of(c);
    let near = |x: f64| total > 0.0 && (x - total).abs() <= 0.01 * total;
    let products: f64 = c.items.iter().map(|it| it.quantity * it.value).sum();
    let sums: f64 = c.items.iter().map(|it| it.value).sum();
    let totals = near(sums) && !near(products);
    c.items
        .iter()
        .map(|it| {
            let unit = if totals && it.quantity > 0.0 { it.value / it.quantity } else { it.value };
            if unit > 0.0 && unit.is_finite() && it.quantity > 0.0 { unit } else { f64::NAN }
        })
        .collect()
}

/// The median of each contract's values in a run of `(contract, value)` entries grouped by
/// contract: one vote per contract, so a contract listing a hundred lines of one item does not
/// make the baseline alone.
fn per_contract(entries: &[(u32, f64)]) -> Vec<f64> {
    let mut out = Vec::new();
    let mut scratch = Vec::new();
    let mut at = 0;
    while at < entries.len() {
        let owner = entries[at].0;
        scratch.clear();
        while at < entries.len() && entries[at].0 == owner {
            scratch.push(entries[at].1);
            at += 1;
        }
        out.push(crate::detect::stats::median_in_place(&mut scratch));
    }
    out
}

/// Median and spread of one contract-level series, or none for an empty one.
fn baseline(values: &mut [f64]) -> (f64, f64) {
    if values.is_empty() { (f64::NAN, MIN_SIGMA) } else { robust(values) }
}

impl ItemBaselines {
    /// Builds the baselines of every catalogue description of a dataset.
    pub fn build(ds: &Dataset) -> ItemBaselines {
        let mut ids: HashMap<String, u32, FxBuild> = HashMap::default();
        // Per description: (contract, ln unit price), (contract, ln line total), (contract, ln quantity).
        let mut entries: Vec<[Vec<(u32, f64)>; 3]> = Vec::new();
        let mut names: Vec<String> = Vec::new();
        let (mut item_group, mut units) = (Vec::new(), Vec::new());
        let (mut item_start, mut unit_start) = (Vec::with_capacity(ds.contracts.len() + 1), Vec::new());
        item_start.push(0u32);
        unit_start.reserve(ds.contracts.len() + 1);
        unit_start.push(0u32);
        let mut key = String::new();
        for (i, c) in ds.contracts.iter().enumerate() {
            if c.items.is_empty() {
                item_start.push(item_group.len() as u32);
                unit_start.push(units.len() as u32);
                continue;
            }
            let u = unit_prices(c);
            let groups = c.items.iter().zip(&u).map(|(it, unit)| {
                if !unit.is_finite() || is_uninformative(&it.description) {
                    return u32::MAX;
                }
                // Folded into one buffer; a key is allocated only for a new description.
                fold_into(it.description.trim(), &mut key);
                let g = match ids.get(key.as_str()) {
                    Some(&g) => g,
                    None => {
                        let g = ids.len() as u32;
                        ids.insert(key.clone(), g);
                        entries.push(Default::default());
                        names.push(it.description.to_string());
                        g
                    }
                };
                let e = &mut entries[g as usize];
                e[0].push((i as u32, unit.ln()));
                e[1].push((i as u32, (unit * it.quantity).ln()));
                e[2].push((i as u32, it.quantity.ln()));
                g
            });
            item_group.extend(groups);
            item_start.push(item_group.len() as u32);
            units.extend(u);
            unit_start.push(units.len() as u32);
        }
        let groups = entries
            .into_iter()
            .zip(names)
            .map(|(e, description)| {
                let size = e[0].len();
                let (mut unit, mut line, mut qty) = (per_contract(&e[0]), per_contract(&e[1]), per_contract(&e[2]));
                let contracts = unit.len();
                let (median_log, sigma) = baseline(&mut unit);
                let (median_line, sigma_line) = baseline(&mut line);
                let (median_qty, _) = baseline(&mut qty);
                ItemGroup { description, size, contracts, median_log, sigma, median_line, sigma_line, median_qty }
            })
            .collect();
        ItemBaselines { groups, item_group, item_start, units, unit_start }
    }

    /// Contract `i`'s items' groups.
    fn groups_of(&self, i: usize) -> &[u32] {
        &self.item_group[self.item_start[i] as usize..self.item_start[i + 1] as usize]
    }

    /// Contract `i`'s items' unit prices.
    fn units_of(&self, i: usize) -> &[f64] {
        &self.units[self.unit_start[i] as usize..self.unit_start[i + 1] as usize]
    }

    /// Whether contract `i` has an item in a judging group (then it is judged on unit prices).
    pub fn judges(&self, i: usize) -> bool {
        self.groups_of(i).iter().any(|&g| g != u32::MAX && self.groups[g as usize].judges())
    }

    /// The items of contract `i` whose unit price and line total both have a robust z-score
    /// above `threshold` and whose unit price is at least `min_ratio` times the median, worst
    /// first.
    pub fn flags(&self, ds: &Dataset, i: usize, threshold: f64, min_ratio: f64) -> Vec<ItemFlag> {
        let c = &ds.contracts[i];
        let units = self.units_of(i);
        let mut out: Vec<ItemFlag> = self
            .groups_of(i)
            .iter()
            .enumerate()
            .filter(|&(_, &g)| g != u32::MAX && self.groups[g as usize].judges())
            .filter_map(|(k, &g)| {
                let grp = &self.groups[g as usize];
                let unit = units[k];
                let z = (unit.ln() - grp.median_log) / grp.sigma;
                let quantity = c.items[k].quantity;
                let z_line = ((unit * quantity).ln() - grp.median_line) / grp.sigma_line;
                let far = unit.ln() - grp.median_log >= min_ratio.ln();
                let usual_quantity = (quantity.ln() - grp.median_qty).abs() <= MAX_QUANTITY_GAP;
                (z > threshold && z_line > threshold && far && usual_quantity).then(|| ItemFlag {
                    item: k,
                    group: g as usize,
                    unit,
                    z,
                    z_line,
                    excess: (unit - grp.median_log.exp()) * c.items[k].quantity,
                })
            })
            .collect();
        out.sort_by(|a, b| b.z.total_cmp(&a.z).then(a.item.cmp(&b.item)));
        out
    }
}

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
            detector: super::price::NAME,
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
                "Rule 'unit_price' at sensitivity {s}: robust z of ln(unit price) among the {} priced items of the \
                 description '{}' ({} contracts; median ln = {:.3}, 1.4826 MAD = {:.3}, homogeneous: at most {MAX_SIGMA}) \
                 = {:.3}, and of ln(line total) = {:.3} (threshold {:.3} for both).",
                g.size, g.description, g.contracts, g.median_log, g.sigma, worst.z, worst.z_line, threshold
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
    .map(|a| a.at_most(super::price::MAX_SEVERITY))
}
