//! Spending placed on the map: agreements (the only records whose model carries a region: the
//! grantee's `uf` and municipality) totalled by municipality, state and region, with per-capita
//! figures and what could not be placed. Lampião and Dandara both read this one computation.
//! Population comes from the dataset's [`RegionalFacts`] when the service fetched them from
//! IBGE (states and, when fetched, municipalities), else from the offline table (states only,
//! Censo 2022): [`RegionalSpending::population_source`] says which.

use std::collections::HashMap;

use serde::Serialize;

use super::ibge::{Resolution, tables};
use super::inequality::Unit;
use crate::cancel::{AnalysisError, CancelFlag};
use crate::model::dataset::Dataset;
use crate::model::regional::RegionalFacts;

/// Most record ids kept as evidence per state.
const EVIDENCE_PER_STATE: usize = 5;
/// Most ids of agreements that could not be placed kept as evidence.
const UNPLACED_SAMPLE: usize = 20;

/// The money placed in one state.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StateSpending {
    /// Acronym.
    pub uf: &'static str,
    /// Name.
    pub name: &'static str,
    /// Region acronym.
    pub region: &'static str,
    /// Agreed value of the agreements placed here, R$.
    #[serde(serialize_with = "crate::detect::common::serialize_cents")]
    pub value: f64,
    /// How many agreements.
    pub records: usize,
    /// Resident population, when known (from [`RegionalSpending::population_source`]).
    pub population: Option<u64>,
    /// R$ per inhabitant, when the population is known.
    pub per_capita: Option<f64>,
    /// The largest agreements placed here (ids).
    pub top_records: Vec<String>,
}

/// The money placed in one region.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RegionSpending {
    /// Acronym.
    pub code: &'static str,
    /// Name.
    pub name: &'static str,
    /// R$.
    #[serde(serialize_with = "crate::detect::common::serialize_cents")]
    pub value: f64,
    /// Agreements.
    pub records: usize,
    /// Population of its states whose population is known.
    pub population: u64,
    /// R$ per inhabitant over the states with known population (`None` when there is none).
    pub per_capita: Option<f64>,
}

/// The money placed in one municipality.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MunicipalitySpending {
    /// 7-digit IBGE code.
    pub code: u32,
    /// Name.
    pub name: &'static str,
    /// State acronym.
    pub uf: &'static str,
    /// R$.
    #[serde(serialize_with = "crate::detect::common::serialize_cents")]
    pub value: f64,
    /// Agreements.
    pub records: usize,
    /// Resident population, when the facts handed in give it (the offline table has none).
    pub population: Option<u64>,
    /// R$ per inhabitant, when the population is known.
    pub per_capita: Option<f64>,
}

/// What could and could not be placed.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct Coverage {
    /// Agreements in the data.
    pub agreements: usize,
    /// Agreements placed in a state.
    pub placed: usize,
    /// Their value, R$.
    #[serde(serialize_with = "crate::detect::common::serialize_cents")]
    pub placed_value: f64,
    /// Placed by a municipality name unique in Brazil, the record giving no state.
    pub state_from_unique_name: usize,
    /// Placed in a state whose municipality could not be found by code or name.
    pub municipality_unresolved: usize,
    /// Agreements with neither a recognisable state nor a municipality.
    pub agreements_without_region: usize,
    /// Their value, R$.
    #[serde(serialize_with = "crate::detect::common::serialize_cents")]
    pub agreements_without_region_value: f64,
    /// Ids of some of them.
    pub unplaced_sample: Vec<String>,
    /// Contracts: their model carries no region (only the managing unit's code).
    pub contracts_without_region: usize,
    /// Expense documents: their model carries no region either.
    pub expenses_without_region: usize,
    /// Biddings whose `uf` names a state: counted, not summed (their value is the process's
    /// estimate, not money transferred).
    pub biddings_with_region: usize,
    /// Biddings without a recognisable state.
    pub biddings_without_region: usize,
}

/// Agreements totalled by state, region and municipality.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RegionalSpending {
    /// Every state (27), in the table's order.
    pub states: Vec<StateSpending>,
    /// Every region (5).
    pub regions: Vec<RegionSpending>,
    /// Every municipality that received something, largest value first.
    pub municipalities: Vec<MunicipalitySpending>,
    /// What was placed and what not.
    pub coverage: Coverage,
    /// Where the population figures came from.
    pub population_source: String,
    /// Whether they came from the facts handed in with the dataset (else the offline table).
    pub population_fetched: bool,
}

/// The source the offline table's state populations are cited as.
pub const OFFLINE_POPULATION_SOURCE: &str = "IBGE, Censo Demográfico 2022 (tabela offline embarcada; populações \
     estaduais transcritas à mão, só o total nacional de 203.080.756 conferido)";

impl RegionalSpending {
    /// The states with known population as units of a distribution (for the inequality
    /// measures), in the order of [`RegionalSpending::states`] without those left out.
    pub fn state_units(&self) -> Vec<Unit> {
        self.states.iter().filter_map(|s| s.population.map(|p| Unit { population: p as f64, value: s.value })).collect()
    }
    /// The states whose per-capita is left out for want of a population figure.
    pub fn states_without_population(&self) -> Vec<&'static str> {
        self.states.iter().filter(|s| s.population.is_none()).map(|s| s.uf).collect()
    }
}

/// Places every agreement of `ds` by its `uf` and municipality, in one pass (cancellation is
/// checked every 4,096 records).
pub fn regional_spending(ds: &Dataset, cancel: &CancelFlag) -> Result<RegionalSpending, AnalysisError> {
    let t = tables();
    let facts: Option<&RegionalFacts> = ds.regional.as_deref().filter(|f| !f.state_population.is_empty());
    let mut states: Vec<StateSpending> = t
        .states
        .iter()
        .map(|s| StateSpending {
            uf: s.uf,
            name: s.name,
            region: s.region,
            value: 0.0,
            records: 0,
            population: match facts {
                Some(f) => f.state(s.uf),
                None => s.population,
            },
            per_capita: None,
            top_records: Vec::new(),
        })
        .collect();
    let index: HashMap<&str, usize> = states.iter().enumerate().map(|(k, s)| (s.uf, k)).collect();
    let mut top: Vec<Vec<(f64, &str)>> = vec![Vec::new(); states.len()];
    let mut cities: HashMap<u32, MunicipalitySpending> = HashMap::new();
    let biddings_with_region = ds.biddings.iter().filter(|b| t.state(&b.uf).is_some()).count();
    let mut cov = Coverage {
        agreements: ds.agreements.len(),
        biddings_with_region,
        biddings_without_region: ds.biddings.len() - biddings_with_region,
        contracts_without_region: ds.contracts.len(),
        expenses_without_region: ds.expenses.len(),
        ..Coverage::default()
    };
    for (n, a) in ds.agreements.iter().enumerate() {
        if n % 4096 == 0 {
            cancel.check()?;
        }
        let value = a.value.max(0.0);
        let state = t.state(&a.uf).map(|s| s.uf);
        // The IBGE code, when the record gives one, names the municipality without doubt.
        let city = Some(a.municipality_code.as_str())
            .filter(|c| !c.is_empty())
            .and_then(|c| t.municipality(c, None))
            .or_else(|| t.municipality(&a.municipality, state));
        let uf = match (state, city) {
            (Some(uf), _) => uf,
            (None, Some((m, _))) => m.uf,
            (None, None) => {
                cov.agreements_without_region += 1;
                cov.agreements_without_region_value += value;
                if cov.unplaced_sample.len() < UNPLACED_SAMPLE {
                    cov.unplaced_sample.push(a.id.clone());
                }
                continue;
            }
        };
        let Some(&k) = index.get(uf) else { continue };
        cov.placed += 1;
        cov.placed_value += value;
        states[k].value += value;
        states[k].records += 1;
        keep_largest(&mut top[k], (value, a.id.as_str()));
        match city {
            Some((m, how)) => {
                if how == Resolution::UniqueName && state.is_none() {
                    cov.state_from_unique_name += 1;
                }
                let e = cities.entry(m.code).or_insert(MunicipalitySpending {
                    code: m.code,
                    name: m.name,
                    uf: m.uf,
                    value: 0.0,
                    records: 0,
                    population: ds.regional.as_deref().and_then(|f| f.municipality(m.code)),
                    per_capita: None,
                });
                e.value += value;
                e.records += 1;
            }
            None => cov.municipality_unresolved += 1,
        }
    }
    for (s, top) in states.iter_mut().zip(top) {
        s.per_capita = s.population.filter(|p| *p > 0).map(|p| s.value / p as f64);
        s.top_records = top.into_iter().map(|(_, id)| id.to_string()).collect();
    }
    let regions = t
        .regions
        .iter()
        .map(|r| {
            let mine = states.iter().filter(|s| s.region == r.code);
            let (mut value, mut records, mut population, mut value_known) = (0.0, 0, 0u64, 0.0);
            for s in mine {
                value += s.value;
                records += s.records;
                if let Some(p) = s.population {
                    population += p;
                    value_known += s.value;
                }
            }
            let per_capita = (population > 0).then(|| value_known / population as f64);
            RegionSpending { code: r.code, name: r.name, value, records, population, per_capita }
        })
        .collect();
    let mut municipalities: Vec<MunicipalitySpending> = cities.into_values().collect();
    for m in &mut municipalities {
        m.per_capita = m.population.filter(|p| *p > 0).map(|p| m.value / p as f64);
    }
    municipalities.sort_by(|a, b| b.value.total_cmp(&a.value).then(a.code.cmp(&b.code)));
    let population_source = match facts {
        Some(f) => f.population_source.clone(),
        None => OFFLINE_POPULATION_SOURCE.to_string(),
    };
    Ok(RegionalSpending {
        states,
        regions,
        municipalities,
        coverage: cov,
        population_source,
        population_fetched: facts.is_some(),
    })
}

/// Keeps the few largest (value, id) pairs, largest first.
fn keep_largest<'a>(top: &mut Vec<(f64, &'a str)>, item: (f64, &'a str)) {
    let at = top.iter().position(|t| item.0 > t.0).unwrap_or(top.len());
    if at < EVIDENCE_PER_STATE {
        top.insert(at, item);
        top.truncate(EVIDENCE_PER_STATE);
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::agreement::Agreement;
    use crate::model::contract::{Organ, Party};

    /// An agreement of `value` with a grantee in `municipality` / `uf`.
    pub fn agreement(id: &str, uf: &str, municipality: &str, value: f64) -> Agreement {
        Agreement {
            id: id.into(),
            number: id.into(),
            object: "APOIO".into(),
            situation: "EM EXECUÇÃO".into(),
            grantee: Party { name: format!("MUNICIPIO DE {municipality}").into(), document: "".into() },
            organ: Organ { code: "36000".into(), acronym: "MS".into(), name: "Ministério da Saúde".into() },
            value,
            released: 0.0,
            counterpart: 0.0,
            valid_from: None,
            valid_until: None,
            published_on: None,
            last_release_on: None,
            uf: uf.into(),
            municipality: municipality.into(),
            municipality_code: String::new(),
        }
    }

    #[test]
    fn agreements_are_placed_by_state_and_municipality_and_the_rest_is_counted() {
        let ds = Dataset {
            agreements: vec![
                agreement("1", "MG", "BELO HORIZONTE", 2_000_000.0),
                agreement("2", "Minas Gerais", "Contagem", 1_000_000.0),
                agreement("3", "", "BRASILIA", 500_000.0),
                agreement("4", "PI", "Cidade Que Nao Existe", 300_000.0),
                agreement("5", "", "Bom Jesus", 100_000.0),
                agreement("6", "", "", 50.0),
                {
                    let mut by_code = agreement("7", "", "NOME ILEGIVEL", 1_000.0);
                    by_code.municipality_code = "2927408".into();
                    by_code
                },
            ],
            ..Dataset::from_contracts(vec![crate::testutil::contract("c", "X", "S", "36000", 1.0, (2024, 1, 1))])
        };
        let r = regional_spending(&ds, &CancelFlag::new()).unwrap();
        let mg = r.states.iter().find(|s| s.uf == "MG").unwrap();
        assert_eq!((mg.value, mg.records), (3_000_000.0, 2));
        assert_eq!(mg.top_records, vec!["1", "2"]);
        assert!((mg.per_capita.unwrap() - 3_000_000.0 / 20_539_989.0).abs() < 1e-12);
        let c = &r.coverage;
        assert_eq!((c.placed, c.state_from_unique_name, c.municipality_unresolved), (5, 1, 1));
        assert_eq!(r.states.iter().find(|s| s.uf == "BA").map(|s| s.records), Some(1), "Salvador by its code");
        assert_eq!((c.agreements_without_region, c.unplaced_sample.clone()), (2, vec!["5".into(), "6".into()]));
        assert_eq!((c.contracts_without_region, c.expenses_without_region), (1, 0));
        let placed: f64 = r.states.iter().map(|s| s.value).sum();
        assert_eq!(placed, c.placed_value);
        assert_eq!(r.regions.iter().map(|g| g.value).sum::<f64>(), placed);
        let se = r.regions.iter().find(|g| g.code == "SE").unwrap();
        assert_eq!(se.population, 20_539_989 + 3_833_712 + 16_055_174 + 44_411_238);
        assert_eq!(r.municipalities[0].name, "Belo Horizonte");
        assert_eq!(r.municipalities.iter().map(|m| m.value).sum::<f64>(), 3_501_000.0);
    }
}
