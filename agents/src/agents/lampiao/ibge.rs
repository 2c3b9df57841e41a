//! The IBGE tables the regional agents read, embedded in the binary: the five regions, the 27
//! states with their 2022 Census population, and the 5,570 municipalities with their 7-digit
//! codes (`agents/data/ibge_ufs.tsv`, `agents/data/ibge_municipios.tsv`, sources in their
//! headers). Lookups resolve a state by acronym or name and a municipality by IBGE code or by
//! folded name and state.

use std::collections::HashMap;
use std::sync::OnceLock;

use crate::text::words;

const UFS: &str = include_str!("../../../data/ibge_ufs.tsv");
const MUNICIPIOS: &str = include_str!("../../../data/ibge_municipios.tsv");

/// One of the five regions (`N`, `NE`, `CO`, `SE`, `S`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    /// IBGE acronym.
    pub code: &'static str,
    /// Name ("Nordeste").
    pub name: &'static str,
}

/// One state (unidade da federação).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct State {
    /// Two-letter acronym.
    pub uf: &'static str,
    /// Name ("Minas Gerais").
    pub name: &'static str,
    /// Its region's acronym.
    pub region: &'static str,
    /// Resident population, Censo 2022; `None` where the table does not know it.
    pub population: Option<u64>,
}

/// One municipality.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Municipality {
    /// 7-digit IBGE code.
    pub code: u32,
    /// Its state's acronym.
    pub uf: &'static str,
    /// Name as IBGE spells it.
    pub name: &'static str,
}

/// The tables, with their indexes.
#[derive(Debug)]
pub struct Ibge {
    /// The regions, in the file's order.
    pub regions: Vec<Region>,
    /// The states, in the file's order (alphabetical by name).
    pub states: Vec<State>,
    /// The municipalities, by code.
    pub municipalities: Vec<Municipality>,
    state_by_key: HashMap<String, usize>,
    by_code: HashMap<u32, usize>,
    by_name_uf: HashMap<String, usize>,
    by_name: HashMap<String, Vec<usize>>,
}

/// A name as a lookup key: folded words joined by one space ("São João d'Aliança" and
/// "SAO JOAO D ALIANCA" meet).
pub fn name_key(name: &str) -> String {
    words(name).join(" ")
}

/// The embedded tables, parsed once. Malformed lines are skipped (the tests check every line
/// of the shipped files is read).
pub fn tables() -> &'static Ibge {
    static TABLES: OnceLock<Ibge> = OnceLock::new();
    TABLES.get_or_init(|| parse(UFS, MUNICIPIOS))
}

fn parse(ufs: &'static str, municipios: &'static str) -> Ibge {
    let mut regions = Vec::new();
    let mut states = Vec::new();
    for line in ufs.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&'static str> = line.split('\t').collect();
        match f.as_slice() {
            ["R", code, name] => regions.push(Region { code, name }),
            ["S", uf, name, region, population] => {
                states.push(State { uf, name, region, population: population.parse().ok() })
            }
            _ => {}
        }
    }
    let mut municipalities = Vec::new();
    for line in municipios.lines().filter(|l| !l.starts_with('#')) {
        if let [code, uf, name] = line.split('\t').collect::<Vec<&'static str>>().as_slice()
            && let Ok(code) = code.parse()
        {
            municipalities.push(Municipality { code, uf, name });
        }
    }
    let mut state_by_key = HashMap::new();
    for (k, s) in states.iter().enumerate() {
        state_by_key.insert(s.uf.to_ascii_lowercase(), k);
        state_by_key.insert(name_key(s.name), k);
    }
    let (mut by_code, mut by_name_uf, mut by_name) = (HashMap::new(), HashMap::new(), HashMap::new());
    for (k, m) in municipalities.iter().enumerate() {
        by_code.insert(m.code, k);
        let key = name_key(m.name);
        by_name_uf.insert(format!("{}|{key}", m.uf), k);
        by_name.entry(key).or_insert_with(Vec::new).push(k);
    }
    Ibge { regions, states, municipalities, state_by_key, by_code, by_name_uf, by_name }
}

/// How a municipality was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolution {
    /// By its IBGE code.
    Code,
    /// By its name within the state given.
    NameAndState,
    /// By its name alone, no state being given, the name being unique in Brazil.
    UniqueName,
}

impl Ibge {
    /// The state named by acronym or name, in any case and accents (`"mg"`, `"Minas Gerais"`).
    pub fn state(&self, text: &str) -> Option<&State> {
        let t = text.trim();
        if t.is_empty() {
            return None;
        }
        let key = if t.len() == 2 { t.to_ascii_lowercase() } else { name_key(t) };
        self.state_by_key.get(&key).map(|&k| &self.states[k])
    }

    /// A state's 2-digit IBGE code (the first two digits of its municipalities' codes).
    pub fn uf_code(&self, uf: &str) -> Option<u32> {
        self.municipalities.iter().find(|m| m.uf == uf).map(|m| m.code / 100_000)
    }

    /// The state acronym of a 2-digit IBGE code.
    pub fn uf_of_code(&self, code: u32) -> Option<&'static str> {
        self.municipalities.iter().find(|m| m.code / 100_000 == code).map(|m| m.uf)
    }

    /// The region with this acronym.
    pub fn region(&self, code: &str) -> Option<&Region> {
        self.regions.iter().find(|r| r.code == code)
    }

    /// The municipality a record names: by 7-digit code when `text` is one, else by folded name
    /// within `uf` when a state is given, else by name alone when it is unique in the country.
    pub fn municipality(&self, text: &str, uf: Option<&str>) -> Option<(&Municipality, Resolution)> {
        let t = text.trim();
        if t.len() == 7 && t.bytes().all(|b| b.is_ascii_digit()) {
            let code: u32 = t.parse().ok()?;
            return self.by_code.get(&code).map(|&k| (&self.municipalities[k], Resolution::Code));
        }
        let key = name_key(t);
        if key.is_empty() {
            return None;
        }
        match uf {
            Some(uf) => self
                .by_name_uf
                .get(&format!("{uf}|{key}"))
                .map(|&k| (&self.municipalities[k], Resolution::NameAndState)),
            None => match self.by_name.get(&key).map(Vec::as_slice) {
                Some([k]) => Some((&self.municipalities[*k], Resolution::UniqueName)),
                _ => None,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_of_the_shipped_tables_is_read() {
        let t = tables();
        assert_eq!((t.regions.len(), t.states.len(), t.municipalities.len()), (5, 27, 5570));
        let data_lines = |s: &str| s.lines().filter(|l| !l.starts_with('#')).count();
        assert_eq!(data_lines(UFS), 32);
        assert_eq!(data_lines(MUNICIPIOS), 5570);
        assert!(t.states.iter().all(|s| t.region(s.region).is_some()));
        assert!(t.municipalities.iter().all(|m| t.state(m.uf).is_some()));
    }

    /// The shared real records (`../shared/real/ibge`, IBGE localidades), when the checkout has
    /// them: the table's states, regions and municipalities are exactly theirs. They carry no
    /// population, so the state figures cannot be checked against them (see `ibge_ufs.tsv`).
    #[test]
    fn the_tables_match_the_ibge_localidades_in_the_shared_real_records() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/real/ibge");
        let read = |f: &str| std::fs::read_to_string(dir.join(f)).ok();
        let (Some(states), Some(cities)) = (read("estados.json"), read("cidades.json")) else { return };
        let states: Vec<serde_json::Value> = serde_json::from_str(&states).unwrap();
        let cities: Vec<serde_json::Value> = serde_json::from_str(&cities).unwrap();
        let t = tables();
        assert_eq!((states.len(), cities.len()), (t.states.len(), t.municipalities.len()));
        for s in &states {
            let ours = t.state(s["sigla"].as_str().unwrap()).unwrap();
            assert_eq!((ours.name, ours.region), (s["nome"].as_str().unwrap(), s["regiao"].as_str().unwrap()));
        }
        for c in &cities {
            let (m, _) = t.municipality(&c["id"].to_string(), None).unwrap();
            assert_eq!((m.name, m.uf), (c["nome"].as_str().unwrap(), c["uf"].as_str().unwrap()));
        }
    }

    #[test]
    fn the_state_populations_add_up_to_the_census_total() {
        let total: u64 = tables().states.iter().filter_map(|s| s.population).sum();
        assert_eq!(total, 203_080_756);
    }

    #[test]
    fn states_resolve_by_acronym_or_name_and_municipalities_by_code_or_name() {
        let t = tables();
        assert_eq!(t.state("mg").map(|s| s.name), Some("Minas Gerais"));
        assert_eq!(t.state("SAO PAULO").map(|s| s.uf), Some("SP"));
        assert_eq!(t.state("Brasil"), None);
        assert_eq!(
            (t.uf_code("MG"), t.uf_of_code(31), t.uf_of_code(53), t.uf_of_code(99)),
            (Some(31), Some("MG"), Some("DF"), None)
        );
        let (m, how) = t.municipality("3106200", None).unwrap();
        assert_eq!((m.name, m.uf, how), ("Belo Horizonte", "MG", Resolution::Code));
        let (m, how) = t.municipality("SAO JOSE DOS CAMPOS", Some("SP")).unwrap();
        assert_eq!((m.code, how), (3549904, Resolution::NameAndState));
        // "Bom Jesus" exists in several states: without the state it is not guessed.
        assert!(t.municipality("Bom Jesus", None).is_none());
        assert_eq!(t.municipality("Bom Jesus", Some("PI")).map(|m| m.0.uf), Some("PI"));
        assert_eq!(t.municipality("BRASILIA", None).map(|m| (m.0.code, m.1)), Some((5300108, Resolution::UniqueName)));
    }
}
