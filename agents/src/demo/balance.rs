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

/// Contract positions grouped by (organ index, year), in key order.
pub fn organ_years(metas: &[Meta]) -> BTreeMap<(usize, i32), Vec<usize>> {
    let mut groups: BTreeMap<(usize, i32), Vec<usize>> = BTreeMap::new();
    for (i, m) in metas.iter().enumerate() {
        groups.entry((m.organ, m.year)).or_default().push(i);
    }
    groups
}

/// Total value of the contracts at these positions.
pub fn total(contracts: &[Contract], idx: &[usize]) -> f64 {
    idx.iter().map(|&i| contracts[i].value()).sum()
}

/// Multiplies a contract's values by `f`, keeping cents.
pub fn scale(c: &mut Contract, f: f64) {
    c.initial_value = (c.initial_value * f * 100.0).round() / 100.0;
    c.final_value = (c.final_value * f * 100.0).round() / 100.0;
}

/// Gives a contract to another supplier of the same category.
pub fn reassign(c: &mut Contract, m: &mut Meta, world: &World, supplier: usize) {
    let s = &world.pools[m.cat].suppliers[supplier];
    c.supplier.name.clone_from(&s.name);
    c.supplier.document.clone_from(&s.cnpj);
    m.supplier = supplier;
}

/// Applies both caps to every organ-year.
pub fn enforce_caps(contracts: &mut [Contract], metas: &mut [Meta], world: &World, rng: &mut ChaCha8Rng) {
    for idx in organ_years(metas).into_values() {
        if idx.len() >= 15 {
            for _ in 0..3 {
                let cap = CONTRACT_CAP * total(contracts, &idx);
                for &i in &idx {
                    let v = contracts[i].value();
                    if v > cap {
                        let f = cap * rng.gen_range(0.6..0.95) / v;
                        scale(&mut contracts[i], f);
                    }
                }
            }
        }
        if idx.len() < 8 {
            continue;
        }
        for _ in 0..2 {
            let t = total(contracts, &idx);
            let mut per: BTreeMap<(usize, usize), f64> = BTreeMap::new();
            for &i in &idx {
                *per.entry((metas[i].cat, metas[i].supplier)).or_default() += contracts[i].value();
            }
            let heavy: Vec<((usize, usize), f64)> = per.iter().filter(|(_, v)| **v > SUPPLIER_CAP * t).map(|(k, v)| (*k, *v)).collect();
            for ((cat, supplier), mut value) in heavy {
                for &i in &idx {
                    if value <= 0.12 * t {
                        break;
                    }
                    if metas[i].cat != cat || metas[i].supplier != supplier {
                        continue;
                    }
                    let size = world.pools[cat].suppliers.len();
                    let other = (supplier + rng.gen_range(1..size.max(2))) % size;
                    value -= contracts[i].value();
                    reassign(&mut contracts[i], &mut metas[i], world, other);
                }
            }
        }
    }
}
