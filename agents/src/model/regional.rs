//! Reference figures about places that the regional analysts read beside the spending records:
//! resident population by state and municipality, and indicators of public services (health,
//! education) by state. In production the service fetches them from IBGE, DataSUS and INEP and
//! hands them in with the dataset; without them (demo mode, or a source that failed) the
//! analysts use the offline IBGE table shipped with the binary. The agents never fetch: these
//! are plain data.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

/// Population and service indicators by place, with where each figure came from.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RegionalFacts {
    /// Where the population figures came from, as the answers cite it (e.g. "IBGE API,
    /// agregado 6579, variável 9324 (2024)").
    pub population_source: String,
    /// Reference year of the population figures, when known.
    pub population_year: Option<i32>,
    /// Resident population by state acronym (`"MG"`).
    pub state_population: HashMap<String, u64>,
    /// Resident population by 7-digit IBGE municipality code (empty when not fetched).
    pub municipal_population: HashMap<u32, u64>,
    /// Service indicators by state (health, education), each with its source.
    pub indicators: Vec<Indicator>,
}

/// One indicator of a public service, by state.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Indicator {
    /// Short identifier (`literacy_rate`, `health_establishments`).
    pub key: String,
    /// What it counts, in Portuguese ("estabelecimentos de saúde").
    pub name: String,
    /// `health` or `education`.
    pub area: String,
    /// Where the figures came from.
    pub source: String,
    /// The count or value by state acronym.
    pub by_state: HashMap<String, f64>,
    /// Whether the values are already rates of the population (a percentage): compared as
    /// they are; otherwise they are counts, compared per 100,000 inhabitants.
    #[serde(default)]
    pub rate: bool,
}

impl RegionalFacts {
    /// The population of a state, when known.
    pub fn state(&self, uf: &str) -> Option<u64> {
        self.state_population.get(uf).copied()
    }

    /// The population of a municipality, when known.
    pub fn municipality(&self, code: u32) -> Option<u64> {
        self.municipal_population.get(&code).copied()
    }
}
