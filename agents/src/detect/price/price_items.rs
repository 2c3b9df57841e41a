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
//! at most [`crate::detect::price::price_groups::MAX_SIGMA`]: one description covering different units of
//! measure or different goods has no central price). The item files give no unit of measure,
//! and a catalogue description is a class of goods (a bus and a sedan are both "VEÍCULO
//! TRANSPORTE PESSOAL"): a unit price far above its peers is overpricing only when nothing
//! else explains it. An item is flagged on either of two tests:
//!
//! - corroborated: the robust z-scores of its ln(unit price) *and* of its ln(line total)
//!   (quantity x unit price) both exceed the detector's threshold, and the unit price is at
//!   least the detector's least ratio ([`crate::detect::price::zscore::MIN_RATIO`], three times at the default)
//!   times the median: the organ spent on the line as far beyond its peers as the price is;
//! - precise: the unit price stands at least [`PRECISE`] robust deviations above its peers
//!   (five at the default: no product priced by its peers' market comes near) and between
//!   [`MIN_RATIO`] (twice at the default, the classic overpricing screen for the same item)
//!   and [`UNIT_GAP`] times the median, with a line total above the group's usual one (robust
//!   z above 0), and its complementary description names no specification the group's other
//!   items do not share ([`crate::detect::price::item_specs`]). A price ten times its peers' with an ordinary
//!   line is another unit (a cylinder priced against prices per kilogram), not a price.
//!
//! Under both, a unit price whose line total is ordinary or smaller is a different unit (a
//! year priced as one unit, a box as one piece), and so is a quantity more than ten times
//! from the group's usual one ([`MAX_QUANTITY_GAP`]). The contract's finding ([`crate::detect::price::price_item_finding`])
//! names its worst item, and the money at stake is the excess over the group median times the
//! quantity, summed over its flagged items. A contract with at least one item in a judging
//! group is judged here and not on its total. Linear in the items plus a sort per group.

use std::collections::HashMap;

use crate::detect::common::FxBuild;
use crate::detect::object_signature::{fold_into, is_uninformative};
use crate::detect::price::item_specs::{SpecCounts, spec_words};
use crate::detect::price::price_groups::{MAX_SIGMA, MIN_SIGMA, robust};
use crate::detect::sensitivity::Threshold;
use crate::model::contract::Contract;
use crate::model::dataset::Dataset;

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
/// Least ratio of an item's unit price to its catalogue peers' median under the precise test,
/// as sensitivity moves it (flagged at or above): three times (s = 0), twice (s = 0.7), any
/// (s = 1, the spec's literal rule, where the z-score alone decides).
pub const MIN_RATIO: Threshold = Threshold::new(3.0, 2.0, 1.0);
/// Least robust z-score of an item's unit price under the precise test, as sensitivity moves it.
pub const PRECISE: Threshold = Threshold::new(8.0, 5.0, 3.0);
/// Least robust z-score of an item's line total under the precise test: above the group's
/// usual line total.
pub const MIN_LINE_Z: f64 = 0.0;
/// Ratio to the median from which a unit price with an uncorroborated line total is taken for
/// another unit of measure under the precise test.
pub const UNIT_GAP: f64 = 10.0;

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
    /// The test that flagged it: "corroborated" or "precise" (see the module doc).
    pub test: &'static str,
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
    /// Per group: how many items name each specification word.
    specs: SpecCounts,
}

/// Unit prices of a contract's items: `Valor Item` is the unit price when quantity x value adds
/// up to the contract's value (as in the Portal's download), or the item's total when the
/// values alone add up to it and the products do not.
pub fn unit_prices(c: &Contract) -> Vec<f64> {
    let total = crate::detect::price::price_groups::price_of(c);
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
        // Per description text as written: its group (`u32::MAX` for an uninformative one).
        let mut raw: HashMap<&str, u32, FxBuild> = HashMap::default();
        // Per description: (contract, ln unit price), (contract, ln line total), (contract, ln quantity).
        let mut entries: Vec<[Vec<(u32, f64)>; 3]> = Vec::new();
        let mut names: Vec<String> = Vec::new();
        let (mut item_group, mut units) = (Vec::new(), Vec::new());
        let (mut item_start, mut unit_start) = (Vec::with_capacity(ds.contracts.len() + 1), Vec::new());
        item_start.push(0u32);
        unit_start.reserve(ds.contracts.len() + 1);
        unit_start.push(0u32);
        let mut key = String::new();
        let mut specs = SpecCounts::default();
        for (i, c) in ds.contracts.iter().enumerate() {
            if c.items.is_empty() {
                item_start.push(item_group.len() as u32);
                unit_start.push(units.len() as u32);
                continue;
            }
            let u = unit_prices(c);
            let groups = c.items.iter().zip(&u).map(|(it, unit)| {
                if !unit.is_finite() {
                    return u32::MAX;
                }
                // Each distinct description text is read once (catalogue texts repeat).
                let g = *raw.entry(it.description.as_str()).or_insert_with(|| {
                    if is_uninformative(&it.description) {
                        return u32::MAX;
                    }
                    // Folded into one buffer; a key is allocated only for a new description.
                    fold_into(it.description.trim(), &mut key);
                    match ids.get(key.as_str()) {
                        Some(&g) => g,
                        None => {
                            let g = ids.len() as u32;
                            ids.insert(key.clone(), g);
                            entries.push(Default::default());
                            names.push(it.description.to_string());
                            g
                        }
                    }
                });
                if g == u32::MAX {
                    return g;
                }
                let e = &mut entries[g as usize];
                e[0].push((i as u32, unit.ln()));
                e[1].push((i as u32, (unit * it.quantity).ln()));
                e[2].push((i as u32, it.quantity.ln()));
                specs.add(g as usize, &spec_words(it));
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
        ItemBaselines { groups, item_group, item_start, units, unit_start, specs }
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

    /// The items of contract `i` flagged by the corroborated test (z-scores above `threshold`,
    /// at least `ratio` times the median) or the precise test at sensitivity `s` (see the module
    /// doc), worst first.
    pub fn flags(&self, ds: &Dataset, i: usize, threshold: f64, ratio: f64, s: f64) -> Vec<ItemFlag> {
        let (precise, precise_ratio) = (PRECISE.at(s).max(threshold), MIN_RATIO.at(s).ln());
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
                let log_ratio = unit.ln() - grp.median_log;
                let z = log_ratio / grp.sigma;
                let quantity = c.items[k].quantity;
                let z_line = ((unit * quantity).ln() - grp.median_line) / grp.sigma_line;
                let usual_quantity = (quantity.ln() - grp.median_qty).abs() <= MAX_QUANTITY_GAP;
                let corroborated = z > threshold && z_line > threshold && log_ratio >= ratio.ln();
                let precise = z > precise
                    && z_line > MIN_LINE_Z
                    && log_ratio >= precise_ratio
                    && log_ratio < UNIT_GAP.ln()
                    && self.specs.shared(g as usize, &spec_words(&c.items[k]));
                ((corroborated || precise) && usual_quantity).then(|| ItemFlag {
                    item: k,
                    group: g as usize,
                    unit,
                    z,
                    z_line,
                    excess: (unit - grp.median_log.exp()) * c.items[k].quantity,
                    test: if corroborated { "corroborated" } else { "precise" },
                })
            })
            .collect();
        out.sort_by(|a, b| b.z.total_cmp(&a.z).then(a.item.cmp(&b.item)));
        out
    }
}
