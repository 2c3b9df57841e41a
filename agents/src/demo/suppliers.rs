//! Supplier pools of the demo data: per category, companies with valid CNPJs and a skewed
//! (Zipf-like) popularity.

use std::collections::HashSet;

use rand::Rng;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::catalog::{NAME_WORDS, Profile};
use crate::model::cnpj::cnpj_from_parts;
use crate::model::contract::Party;
use crate::model::intern::ArcStr;

/// One company.
#[derive(Debug, Clone, PartialEq)]
pub struct Supplier {
    /// Company name.
    pub name: ArcStr,
    /// CNPJ, 14 digits, valid check digits.
    pub cnpj: ArcStr,
}

impl Supplier {
    /// The company as a contract's party (sharing its texts).
    pub fn party(&self) -> Party {
        Party { name: self.name.clone(), document: self.cnpj.clone() }
    }
}

/// The suppliers of one category, most popular first.
#[derive(Debug, Clone)]
pub struct Pool {
    /// The companies.
    pub suppliers: Vec<Supplier>,
    /// Cumulative popularity, ending at 1.0.
    cumulative: Vec<f64>,
}

impl Pool {
    /// The supplier index for a uniform draw in [0, 1).
    pub fn pick(&self, u: f64) -> usize {
        self.cumulative.partition_point(|c| *c <= u).min(self.suppliers.len().saturating_sub(1))
    }
    /// Popularity share of the supplier at this index.
    pub fn share(&self, i: usize) -> f64 {
        self.cumulative[i] - if i == 0 { 0.0 } else { self.cumulative[i - 1] }
    }
}

/// Popularity exponent: supplier `k` (from 0) has weight `1 / (k + 1)^0.8`.
const ZIPF: f64 = 0.8;

/// How many suppliers each category has for a dataset of `contracts` records.
pub fn pool_size(contracts: usize) -> usize {
    (contracts / 150).clamp(15, 300)
}

/// Builds one pool per profile, deterministically from the seed.
pub fn pools(seed: u64, size: usize, profiles: &[Profile]) -> Vec<Pool> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0xC0FF_EE00_1234_5678);
    let mut roots = HashSet::new();
    let w = NAME_WORDS.len();
    profiles
        .iter()
        .enumerate()
        .map(|(c, profile)| {
            let suppliers: Vec<Supplier> = (0..size)
                .map(|k| {
                    let root = loop {
                        let r: u32 = rng.gen_range(1_000_000..99_999_999);
                        if roots.insert(r) {
                            break r;
                        }
                    };
                    let word = if k < w {
                        NAME_WORDS[(k + 7 * c) % w].to_string()
                    } else {
                        format!("{} {}", NAME_WORDS[(k + 7 * c) % w], NAME_WORDS[(k / w + 3 * c + k) % w])
                    };
                    let pattern = profile.supplier_patterns[k % profile.supplier_patterns.len()];
                    Supplier { name: pattern.replace("{N}", &word).into(), cnpj: cnpj_from_parts(root, 1).into() }
                })
                .collect();
            let weights: Vec<f64> = (0..size).map(|k| 1.0 / ((k + 1) as f64).powf(ZIPF)).collect();
            let total: f64 = weights.iter().sum();
            let mut acc = 0.0;
            let mut cumulative: Vec<f64> = weights
                .iter()
                .map(|x| {
                    acc += x / total;
                    acc
                })
                .collect();
            if let Some(last) = cumulative.last_mut() {
                *last = 1.0;
            }
            Pool { suppliers, cumulative }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::cnpj::cnpj_is_valid;

    #[test]
    fn every_supplier_has_a_valid_unique_cnpj_and_popularity_is_skewed() {
        let pools = pools(42, 40, super::super::catalog::PROFILES);
        let mut seen = HashSet::new();
        for p in &pools {
            assert_eq!(p.suppliers.len(), 40);
            for s in &p.suppliers {
                assert!(cnpj_is_valid(&s.cnpj), "{}", s.cnpj);
                assert!(seen.insert(s.cnpj.clone()));
            }
            assert!(p.share(0) > p.share(39) * 5.0);
            assert!(p.share(0) < 0.2);
            assert_eq!(p.pick(0.0), 0);
            assert_eq!(p.pick(0.999_999), 39);
        }
    }
}
