//! The roster of analysis agents: stable ids, display names and the aliases users type for
//! every agent of the platform; [`instantiate`] builds the ones whose analysis is implemented and
//! [`COVERAGE`] says which anomaly types each of them looks for.

use serde::{Deserialize, Serialize};

use crate::model::anomaly::AnomalyType;

macro_rules! agents {
    ($( $variant:ident => $id:literal, $name:literal, $role:literal, [$($alias:literal),*] );+ $(;)?) => {
        /// The id of an analysis agent. Serialised as its snake_case id.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, utoipa::ToSchema)]
        #[serde(rename_all = "snake_case")]
        pub enum AgentId { $( #[doc = $name] $variant ),+ }

        impl AgentId {
            /// Every agent, in registry order.
            pub const ALL: &'static [AgentId] = &[$(AgentId::$variant),+];
            /// The stable id (`zumbi`, `oscar_niemeyer`, ...).
            pub fn as_str(self) -> &'static str { match self { $(AgentId::$variant => $id),+ } }
            /// The display name ("Zumbi dos Palmares").
            pub fn display_name(self) -> &'static str { match self { $(AgentId::$variant => $name),+ } }
            /// One line on what the agent analyses.
            pub fn role(self) -> &'static str { match self { $(AgentId::$variant => $role),+ } }
            fn aliases(self) -> &'static [&'static str] { match self { $(AgentId::$variant => &[$($alias),*]),+ } }
        }
    };
}

agents! {
    Zumbi => "zumbi", "Zumbi dos Palmares", "anomaly investigator: prices, duplicates, end-of-year rushes, concentration", ["zumbi_dos_palmares", "investigator"];
    Anita => "anita", "Anita Garibaldi", "pattern and trend analyst: concentration and spending over time", ["anita_garibaldi", "analyst"];
    Tiradentes => "tiradentes", "Tiradentes", "report writer", ["joaquim_jose_da_silva_xavier", "reporter"];
    Drummond => "drummond", "Carlos Drummond de Andrade", "communicator: plain-language answers", ["carlos_drummond_de_andrade", "carlos_drummond", "communicator"];
    Machado => "machado", "Machado de Assis", "contract text analyst", ["machado_de_assis", "textual"];
    Bonifacio => "bonifacio", "José Bonifácio", "legal compliance analyst", ["jose_bonifacio", "legal"];
    MariaQuiteria => "maria_quiteria", "Maria Quitéria", "security auditor", ["quiteria", "security"];
    Oxossi => "oxossi", "Oxóssi", "fraud hunter: bid rigging, splitting, phantom suppliers", ["fraud_hunter"];
    OscarNiemeyer => "oscar_niemeyer", "Oscar Niemeyer", "data visualisation architect", ["niemeyer", "visualization"];
    Dandara => "dandara", "Dandara", "social equity analyst", ["dandara_dos_palmares", "social_justice"];
    Lampiao => "lampiao", "Lampião", "regional analyst", ["virgulino", "regional"];
    Nana => "nana", "Nanã", "memory keeper: past investigations", ["memory"];
    Ceuci => "ceuci", "Ceuci", "predictive analyst: spending forecasts", ["predictive", "etl"];
    Obaluaie => "obaluaie", "Obaluaiê", "corruption risk detector", ["corruption_detector"];
    Senna => "senna", "Ayrton Senna", "semantic router: picks the agent for a question", ["ayrton_senna", "router"];
    Abaporu => "abaporu", "Abaporu", "master orchestrator of multi-agent investigations", ["master", "orchestrator"];
}

impl AgentId {
    /// Resolves what a user typed: the id, an alias or the display name, in any case, with
    /// accents, spaces or hyphens (`"Ayrton Senna"`, `"ayrton-senna"`, `"Oxóssi"` all work).
    pub fn parse(input: &str) -> Option<AgentId> {
        let key = normalise(input);
        if key.is_empty() {
            return None;
        }
        AgentId::ALL
            .iter()
            .copied()
            .find(|a| a.as_str() == key || normalise(a.display_name()) == key || a.aliases().contains(&key.as_str()))
    }
}

impl std::fmt::Display for AgentId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for AgentId {
    type Err = UnknownAgent;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        AgentId::parse(s).ok_or_else(|| UnknownAgent(s.to_string()))
    }
}

/// A name that resolves to no agent.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("unknown agent '{0}'")]
pub struct UnknownAgent(pub String);

/// Lower-case, accents folded, runs of spaces and hyphens turned into one underscore.
fn normalise(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.trim().chars().flat_map(char::to_lowercase) {
        let c = match c {
            'á' | 'à' | 'â' | 'ã' | 'ä' => 'a',
            'é' | 'ê' | 'è' | 'ë' => 'e',
            'í' | 'î' | 'ì' | 'ï' => 'i',
            'ó' | 'ô' | 'õ' | 'ò' | 'ö' => 'o',
            'ú' | 'û' | 'ù' | 'ü' => 'u',
            'ç' => 'c',
            ' ' | '-' | '.' => '_',
            c => c,
        };
        if c == '_' && out.ends_with('_') {
            continue;
        }
        out.push(c);
    }
    out.trim_matches('_').to_string()
}

/// Builds the agent with this id. Every agent of the roster has its analysis; the `Option`
/// is the factory's shape, so hosts and tests can build a roster without some agent.
pub fn instantiate(id: AgentId) -> Option<Box<dyn super::Agent>> {
    match id {
        AgentId::Zumbi => Some(Box::new(super::zumbi::Zumbi::new())),
        AgentId::Anita => Some(Box::new(super::anita::Anita::new())),
        AgentId::Bonifacio => Some(Box::new(super::bonifacio::Bonifacio::new())),
        AgentId::Oxossi => Some(Box::new(super::oxossi::Oxossi::new())),
        AgentId::Obaluaie => Some(Box::new(super::obaluaie::Obaluaie::new())),
        AgentId::Machado => Some(Box::new(super::machado::Machado::new())),
        AgentId::Ceuci => Some(Box::new(super::ceuci::Ceuci::new())),
        AgentId::Lampiao => Some(Box::new(super::lampiao::Lampiao::new())),
        AgentId::Dandara => Some(Box::new(super::dandara::Dandara::new())),
        AgentId::OscarNiemeyer => Some(Box::new(super::oscar_niemeyer::OscarNiemeyer::new())),
        AgentId::Tiradentes => Some(Box::new(super::tiradentes::Tiradentes::new())),
        AgentId::MariaQuiteria => Some(Box::new(super::maria_quiteria::MariaQuiteria::new())),
        AgentId::Senna => Some(Box::new(crate::conversation::SennaAgent::new())),
        AgentId::Nana => Some(Box::new(crate::conversation::NanaAgent::new())),
        AgentId::Abaporu => Some(Box::new(crate::conversation::AbaporuAgent::new())),
        AgentId::Drummond => Some(Box::new(crate::conversation::DrummondAgent::new())),
    }
}

/// The anomaly types each implemented agent looks for, in the order an investigation runs them
/// (an investigation asks the agents whose types it wants).
pub const COVERAGE: &[(AgentId, &[AnomalyType])] = &[
    (AgentId::Zumbi, &[AnomalyType::PriceAnomaly, AnomalyType::PatternAnomaly, AnomalyType::TemporalAnomaly]),
    (AgentId::Anita, &[AnomalyType::PatternAnomaly, AnomalyType::TemporalAnomaly]),
    (AgentId::Oxossi, &[AnomalyType::PatternAnomaly, AnomalyType::RelationshipAnomaly]),
    (AgentId::Bonifacio, &[AnomalyType::ComplianceViolation]),
    (AgentId::Machado, &[AnomalyType::PatternAnomaly, AnomalyType::ComplianceViolation]),
    (AgentId::Ceuci, &[AnomalyType::TemporalAnomaly]),
    (AgentId::Obaluaie, &[AnomalyType::RelationshipAnomaly]),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_aliases_and_display_names_resolve_to_the_same_agent() {
        assert_eq!(AgentId::parse("zumbi"), Some(AgentId::Zumbi));
        assert_eq!(AgentId::parse("Zumbi dos Palmares"), Some(AgentId::Zumbi));
        assert_eq!(AgentId::parse("ayrton_senna"), Some(AgentId::Senna));
        assert_eq!(AgentId::parse("Ayrton-Senna"), Some(AgentId::Senna));
        assert_eq!(AgentId::parse("niemeyer"), Some(AgentId::OscarNiemeyer));
        assert_eq!(AgentId::parse("quiteria"), Some(AgentId::MariaQuiteria));
        assert_eq!(AgentId::parse("Oxóssi"), Some(AgentId::Oxossi));
        assert_eq!(AgentId::parse("Obaluaiê"), Some(AgentId::Obaluaie));
        assert_eq!(AgentId::parse("nobody"), None);
        assert_eq!(AgentId::parse(""), None);
    }

    #[test]
    fn the_registry_has_sixteen_agents_with_unique_ids() {
        let mut ids: Vec<_> = AgentId::ALL.iter().map(|a| a.as_str()).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), 16);
        for a in AgentId::ALL {
            assert_eq!(AgentId::parse(a.as_str()), Some(*a));
            assert_eq!(serde_json::to_value(a).unwrap(), a.as_str());
        }
    }

    #[test]
    fn every_implemented_agent_has_a_coverage_and_every_covered_agent_is_implemented() {
        // The conversational agents (senna, nana, abaporu, drummond) detect nothing: they are
        // built but have no coverage.
        let built: Vec<AgentId> = AgentId::ALL.iter().copied().filter(|a| instantiate(*a).is_some()).collect();
        // Neither do the analysts (reports, aggregations, regional figures, the security review).
        let talkers = [
            AgentId::Senna,
            AgentId::Nana,
            AgentId::Abaporu,
            AgentId::Drummond,
            AgentId::Tiradentes,
            AgentId::OscarNiemeyer,
            AgentId::Lampiao,
            AgentId::Dandara,
            AgentId::MariaQuiteria,
        ];
        assert_eq!(built.len(), 16, "every agent of the roster is built");
        for (a, _) in COVERAGE {
            assert!(built.contains(a), "{a} is covered but not implemented");
        }
        for a in &built {
            assert!(talkers.contains(a) || COVERAGE.iter().any(|(c, _)| c == a), "{a} has no coverage");
            assert_eq!(instantiate(*a).map(|x| x.id()), Some(*a));
        }
        assert!(COVERAGE.iter().all(|(_, types)| !types.is_empty()));
    }
}
