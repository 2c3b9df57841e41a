//! Keeps the clean demo data clean: in each organ-year no single contract above 10% of the value
//! (for organ-years of 15 contracts or more) and no supplier above ~14%, so that the detectors'
//! findings come from the planted anomalies rather than from sampling accidents.

use std::collections::BTreeMap;

use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::clean::{Meta, World};
use crate::model::contract::Contract;

/// Largest share of an organ-year's value one clean contract may have.
const CONTRACT_CAP: f64 = 0.10;
/// Largest share of an organ-year's value one clean supplier may have.
const SUPPLIER_CAP: f64 = 0.14;
/// Share a heavy supplier is brought down to.
const SUPPLIER_TARGET: f64 = 0.12;

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

/// Applies both caps to every organ-year.
pub fn enforce_caps(
    contracts: &mut [Contract],
    metas: &mut [Meta],
    groups: &Groups,
    world: &World,
    rng: &mut ChaCha8Rng,
) {
    for idx in groups.values() {
        let mut values: Vec<f64> = idx.iter().map(|&i| metas[i].value).collect();
        if idx.len() >= 15 {
            for _ in 0..3 {
                let cap = CONTRACT_CAP * values.iter().sum::<f64>();
                for (k, &i) in idx.iter().enumerate() {
                    if values[k] > cap {
                        let f = cap * rng.gen_range(0.6..0.95) / values[k];
                        scale(&mut contracts[i], &mut metas[i], f);
                        values[k] = metas[i].value;
                    }
                }
            }
        }
        if idx.len() < 8 {
            continue;
        }
        let t: f64 = values.iter().sum();
        let width = world.pools.iter().map(|p| p.suppliers.len()).max().unwrap_or(0);
        let mut per = vec![0.0f64; width * world.pools.len()];
        for (k, &i) in idx.iter().enumerate() {
            per[metas[i].pool * width + metas[i].supplier] += values[k];
        }
        let heavy: Vec<(usize, usize, f64)> = per
            .iter()
            .enumerate()
            .filter(|(_, v)| **v > SUPPLIER_CAP * t)
            .map(|(slot, v)| (slot / width.max(1), slot % width.max(1), *v))
            .collect();
        for (pool, supplier, mut value) in heavy {
            let size = world.pools[pool].suppliers.len();
            for (k, &i) in idx.iter().enumerate() {
                if value <= SUPPLIER_TARGET * t {
                    break;
                }
                if metas[i].pool != pool || metas[i].supplier != supplier {
                    continue;
                }
                let other = (supplier + rng.gen_range(1..size.max(2))) % size;
                value -= values[k];
                reassign(&mut contracts[i], &mut metas[i], world, pool, other);
            }
        }
    }
}
