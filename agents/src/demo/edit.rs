//! Small edits plants make to generated contracts (rescaling a value, giving a contract to
//! another supplier) and the organ-year grouping they work on. Clean data is left as drawn: no
//! pass keeps it away from any detector's threshold.

use std::collections::BTreeMap;

use super::clean::{Meta, World};
use crate::model::contract::Contract;

/// Contract positions grouped by (organ index, year), in key order.
pub fn organ_years(metas: &[Meta]) -> Groups {
    let mut groups: BTreeMap<(usize, i32), Vec<usize>> = BTreeMap::new();
    for (i, m) in metas.iter().enumerate() {
        groups.entry((m.organ, m.year)).or_default().push(i);
    }
    groups
}

/// Total value of the contracts at these positions.
pub fn total(metas: &[Meta], idx: &[usize]) -> f64 {
    idx.iter().map(|&i| metas[i].value).sum()
}

/// Multiplies a contract's values by `f`, keeping cents (and its metadata in step).
pub fn scale(c: &mut Contract, m: &mut Meta, f: f64) {
    c.initial_value = (c.initial_value * f * 100.0).round() / 100.0;
    c.final_value = (c.final_value * f * 100.0).round() / 100.0;
    for item in &mut c.items {
        // The same unit price for more or less of the item.
        item.quantity *= f;
        item.value = (item.value * f * 100.0).round() / 100.0;
    }
    for a in &mut c.amendments {
        a.new_global_value = a.new_global_value.map(|v| (v * f * 100.0).round() / 100.0);
    }
    m.value = c.value();
}

/// Gives a contract to supplier `supplier` of pool `pool`.
pub fn reassign(c: &mut Contract, m: &mut Meta, world: &World, pool: usize, supplier: usize) {
    let s = &world.pools[pool].suppliers[supplier];
    c.supplier = s.party();
    m.pool = pool;
    m.supplier = supplier;
}

/// Contract positions per organ-year.
pub type Groups = BTreeMap<(usize, i32), Vec<usize>>;
