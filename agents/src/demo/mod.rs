//! Deterministic synthetic contracts with planted, labelled anomalies: what demo mode analyses
//! and what the detectors are tested against.
//!
//! Clean data follows real patterns (log-normal values per object category, real SIAFI organ
//! and UG codes, suppliers with valid CNPJs and skewed popularity, mild December seasonality,
//! boilerplate object texts with varied items, quantities and references). Planted anomalies
//! come at small fixed rates, at least one of each kind from 200 contracts on: contracts priced
//! 5-20 times their peer median (`price_zscore`), a supplier given contracts of an organ-year
//! until it holds 40-60% of its value (`supplier_concentration`), an organ-year whose contracts
//! are moved into December until December holds 35-50% of its value (`end_of_year`), and
//! near-copies of contracts (`duplicate_contracts`). Every other record kind (biddings, expenses,
//! agreements, servants, supplier registry facts, sanctions) and the relationship and compliance
//! plants come from [`records`]; the agreements and their plants from [`plant_agreements`]. The
//! same spec always gives the same data; the count is exact (copies are taken out of the clean
//! budget).

pub mod balance;
pub mod catalog;
pub mod clean;
pub mod mix;
pub mod objects;
pub mod plant;
pub mod plant_agreements;
pub mod plant_compliance;
pub mod plant_patterns;
pub mod plant_relations;
pub mod plant_temporal;
pub mod records;
pub mod registry;
pub mod suppliers;

use std::collections::HashSet;

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::model::anomaly::AnomalyType;
use crate::model::dataset::Dataset;
use crate::organs::{ORGANS, OrganInfo, organ_by_code};
use catalog::PROFILES;
use clean::{World, cumulative};
use mix::{ORGAN_WEIGHTS, organ_affinity};

/// What to generate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DemoSpec {
    /// Seed of every random choice.
    pub seed: u64,
    /// Number of contracts (planted ones included).
    pub contracts: usize,
    /// SIAFI codes of the organs to generate for; empty (or no known code) means all organs.
    pub organ_codes: Vec<String>,
    /// The year to generate; `None` means 2024 and 2025.
    pub year: Option<i32>,
}

impl Default for DemoSpec {
    fn default() -> Self {
        Self { seed: 42, contracts: 2000, organ_codes: Vec::new(), year: None }
    }
}

/// One planted anomaly: what should find it and which records it concerns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Planted {
    /// The detector expected to find it.
    pub detector: &'static str,
    /// Its anomaly type.
    pub kind: AnomalyType,
    /// Ids of the contracts involved.
    pub record_ids: Vec<String>,
    /// Supplier CNPJ or organ code, for anomalies about a group.
    pub entity_id: Option<String>,
}

/// Generated data and its labels.
#[derive(Debug, Clone)]
pub struct DemoData {
    /// The contracts.
    pub dataset: Dataset,
    /// What was planted in them.
    pub planted: Vec<Planted>,
}

/// The organs a spec asks for (all when none is known).
fn organs_of(spec: &DemoSpec) -> Vec<(usize, &'static OrganInfo)> {
    let chosen: Vec<(usize, &'static OrganInfo)> = ORGANS
        .iter()
        .enumerate()
        .filter(|(_, o)| spec.organ_codes.iter().any(|c| organ_by_code(c).is_some_and(|k| k.code == o.code)))
        .collect();
    if chosen.is_empty() { ORGANS.iter().enumerate().collect() } else { chosen }
}

/// Builds the world a spec generates from.
pub fn world(spec: &DemoSpec) -> World {
    let organs = organs_of(spec);
    let organ_cum = cumulative(organs.iter().map(|(i, _)| ORGAN_WEIGHTS.get(*i).copied().unwrap_or(0.05)));
    let cat_cum = organs
        .iter()
        .map(|(_, o)| cumulative(PROFILES.iter().map(|p| p.weight * organ_affinity(o.code, p.category))))
        .collect();
    World {
        organs: organs.into_iter().map(|(_, o)| o).collect(),
        organ_cum,
        cat_cum,
        years: spec.year.map_or_else(|| vec![2024, 2025], |y| vec![y]),
        pools: suppliers::pools(spec.seed, suppliers::pool_size(spec.contracts)),
        templates: objects::compile_all(),
        texts: fixed_texts(),
    }
}

/// Every fixed text the generator puts in records, registered once so that records share it.
fn fixed_texts() -> crate::model::intern::Interner {
    let mut texts = crate::model::intern::Interner::new();
    for o in ORGANS.iter() {
        for t in [o.code, o.acronym, o.name] {
            texts.get(t);
        }
        for u in o.units {
            texts.get(u.code);
            texts.get(u.name);
        }
    }
    for (modality, legal) in mix::MODALITIES {
        texts.get(modality);
        texts.get(legal);
    }
    for p in PROFILES.iter() {
        texts.get(records::element_of(p.category));
    }
    for t in ["Empenho", "Pagamento", "Liquidação"] {
        texts.get(t);
    }
    texts
}

/// Generates the data of a spec. Identical output for identical specs.
pub fn generate(spec: &DemoSpec) -> DemoData {
    let world = world(spec);
    let mut rng = ChaCha8Rng::seed_from_u64(spec.seed ^ 0x0BAD_5EED_0000_0001);
    let plan = plant::plan(&world, spec.contracts, &mut rng);
    let n_clean = spec.contracts.saturating_sub(plan.extras());
    let (mut contracts, mut metas) = clean::generate(&world, spec.seed, n_clean, spec.contracts);
    let groups = balance::organ_years(&metas);
    balance::enforce_caps(&mut contracts, &mut metas, &groups, &world, &mut rng);
    let mut field = plant::Field { contracts, metas, world: &world, used: HashSet::new(), groups };
    let mut planted = plant::price(&mut field, plan.price, &mut rng);
    planted.extend(plant::duplicates(&mut field, plan.duplicates, &mut rng));
    for g in &plan.concentration {
        plant::concentration(&mut field, g, &mut rng);
    }
    for g in &plan.end_of_year {
        plant::end_of_year(&mut field, g, &mut rng);
    }
    planted.extend(plant::group_labels(&field, &plan));
    let mut pattern_rng = ChaCha8Rng::seed_from_u64(spec.seed ^ 0x9A77_E125_0000_0004);
    planted.extend(plant_patterns::plant(&mut field, &plan, &mut pattern_rng));
    let mut dataset = records::complete(field, &plan, spec.seed, &mut planted);
    dataset.shrink_to_fit();
    DemoData { dataset, planted }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
