//! Deterministic synthetic contracts with planted, labelled anomalies: what demo mode analyses
//! and what the evaluation measures the detectors against.
//!
//! Clean data follows real patterns (log-normal values per trade, items bought at their market
//! unit price with a clean spread, real SIAFI organ and UG codes, suppliers with valid CNPJs and
//! skewed popularity, a large December in every organ) and carries the traps of real records
//! ([`traps`], [`amend`]): empty legal bases, direct purchases above the value limits on
//! non-value grounds, growth by prorrogações and reajustes, secret contracts, masked CPFs,
//! boilerplate objects, atas used by several units. Nothing keeps clean data away from any
//! detector's threshold.
//!
//! Plants follow the law ([`law`], written from the statutes) and the literature, never the
//! detectors: items marked up 2-5 times their market price, a supplier given 40-50% of an
//! organ-year, an organ-year crowded into December well beyond its own habit, repeated
//! contracts ([`plant`]); the pattern, temporal, compliance, relationship and agreement plants
//! of [`plant_patterns`], [`plant_temporal`], [`plant_compliance`], [`plant_relations`] and
//! [`plant_agreements`]. Each label ([`labels::Planted`]) records the scheme, the anomaly type,
//! the records and what was done, from the act of planting. The same spec always gives the same
//! data; the count is exact (copies are taken out of the clean budget). [`Flavour::Shifted`]
//! draws from a vocabulary and value distributions kept apart ([`catalog_shifted`]).

pub mod amend;
pub mod catalog;
pub mod catalog_shifted;
pub mod clean;
pub mod edit;
pub mod labels;
pub mod law;
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
pub mod trade;
pub mod traps;

use std::collections::HashSet;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::model::dataset::Dataset;
use crate::model::intern::ArcStr;
use crate::organs::{ORGANS, OrganInfo, organ_by_code};
use catalog::PROFILES;
use clean::{World, cumulative};
pub use labels::{Planted, Scheme};
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

/// Which catalogue and value distributions the data is drawn from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Flavour {
    /// The vocabulary and distributions the detectors were developed on.
    #[default]
    Normal,
    /// Object texts, items and supplier names from a vocabulary kept apart, other value
    /// distributions and another mix of trades ([`catalog_shifted`]).
    Shifted,
}

/// Builds the world a spec generates from.
pub fn world(spec: &DemoSpec, flavour: Flavour) -> World {
    let profiles = match flavour {
        Flavour::Normal => PROFILES,
        Flavour::Shifted => catalog_shifted::SHIFTED,
    };
    let organs = organs_of(spec);
    let organ_cum = cumulative(organs.iter().map(|(i, _)| ORGAN_WEIGHTS.get(*i).copied().unwrap_or(0.05)));
    let cat_cum = organs
        .iter()
        .map(|(_, o)| cumulative(profiles.iter().map(|p| p.weight * organ_affinity(o.code, p.category))))
        .collect();
    let mut rng = ChaCha8Rng::seed_from_u64(spec.seed ^ 0xDEC0_0000_0000_0012);
    let month_cum = organs.iter().map(|_| cumulative(mix::month_weights(rng.gen_range(mix::DECEMBER_SHARE)))).collect();
    World {
        organs: organs.into_iter().map(|(_, o)| o).collect(),
        organ_cum,
        profiles,
        cat_cum,
        month_cum,
        years: spec.year.map_or_else(|| vec![2024, 2025], |y| vec![y]),
        pools: suppliers::pools(spec.seed, suppliers::pool_size(spec.contracts), profiles),
        templates: objects::compile_all(profiles),
        item_texts: profiles.iter().map(|p| p.items.iter().map(|i| ArcStr::from(*i)).collect()).collect(),
        texts: fixed_texts(profiles),
    }
}

/// Every fixed text the generator puts in records, registered once so that records share it.
fn fixed_texts(profiles: &[catalog::Profile]) -> crate::model::intern::Interner {
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
    for p in profiles {
        texts.get(records::element_of(p.category));
        for item in p.items {
            texts.get(item);
        }
    }
    for year in 2016..=2026 {
        for engineering in [false, true] {
            if let Some((_, basis, _)) =
                chrono::NaiveDate::from_ymd_opt(year, 7, 1).and_then(|d| law::value_limit(d, engineering))
            {
                texts.get(&basis);
            }
        }
    }
    for t in ["Empenho", "Pagamento", "Liquidação"] {
        texts.get(t);
    }
    texts
}

/// Generates the data of a spec. Identical output for identical specs.
pub fn generate(spec: &DemoSpec) -> DemoData {
    generate_as(spec, Flavour::Normal)
}

/// Generates the data of a spec in a flavour. Identical output for identical arguments.
pub fn generate_as(spec: &DemoSpec, flavour: Flavour) -> DemoData {
    match generate_until(spec, flavour, &|| false) {
        Some(data) => data,
        // Never asked to stop: the generation always completes.
        None => DemoData { dataset: Dataset::default(), planted: Vec::new() },
    }
}

/// [`generate_as`], abandoned with `None` as soon as `stop` answers true: it is asked between
/// every chunk of clean contracts and between the phases, so a service shutting down does not
/// wait for a generation of millions of records.
pub fn generate_until(spec: &DemoSpec, flavour: Flavour, stop: &(dyn Fn() -> bool + Sync)) -> Option<DemoData> {
    let world = world(spec, flavour);
    let mut rng = ChaCha8Rng::seed_from_u64(spec.seed ^ 0x0BAD_5EED_0000_0001);
    let plan = plant::plan(&world, spec.contracts, &mut rng);
    let n_clean = spec.contracts.saturating_sub(plan.extras());
    let (contracts, metas) = clean::generate(&world, spec.seed, n_clean, spec.contracts, stop);
    if stop() {
        return None;
    }
    let groups = edit::organ_years(&metas);
    let mut field = plant::Field { contracts, metas, world: &world, used: HashSet::new(), groups };
    let mut trap_rng = ChaCha8Rng::seed_from_u64(spec.seed ^ 0x7EA9_0000_0000_0005);
    traps::apply(&mut field, &mut trap_rng);
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
    if stop() {
        return None;
    }
    let mut dataset = records::complete(field, &plan, spec.seed, &mut planted);
    dataset.shrink_to_fit();
    Some(DemoData { dataset, planted })
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
