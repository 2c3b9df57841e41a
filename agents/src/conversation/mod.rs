//! The conversational brain of the chat, pure and host-agnostic: [`senna`] routes a message
//! (a naive Bayes intent classifier trained at start from `agents/data/intents.tsv`, language
//! detection, entity extraction), [`nana`] keeps what a session said so follow-ups reuse it,
//! [`abaporu`] plans which agents answer, and [`drummond`] phrases answers from structured
//! facts only. The host (HTTP, WebSocket, sled) stores [`SessionMemory`] and runs the plans.
//! The shared vocabulary (intents, entities, routes, facts) is defined here.

pub mod abaporu;
mod agents;
mod classifier;
pub mod drummond;
mod entities;
mod facts;
mod features;
pub mod nana;
mod phrases;
pub mod senna;

pub use agents::{AbaporuAgent, DrummondAgent, NanaAgent, SennaAgent, shared_senna};
pub use facts::{AnomalyBrief, AnswerFacts, SessionMemory, top_suppliers};
pub use senna::Senna;

pub use crate::lang::Language;

use serde::{Deserialize, Serialize};

use crate::agents::roster::AgentId;

/// What a message asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Intent {
    /// Hello, thanks.
    Greeting,
    /// How to use the service.
    Help,
    /// What Vigia is, its data and agents.
    About,
    /// Look for anomalies in some spending.
    Investigation,
    /// Trends, totals, rankings, forecasts.
    Analysis,
    /// A written report of findings.
    Report,
    /// How a running investigation or the service is doing.
    Status,
    /// What was said or found earlier in the session.
    MemoryRecall,
    /// Anything Vigia does not do.
    OutOfScope,
}

impl Intent {
    /// Every intent, in the order of the enum.
    pub const ALL: [Intent; 9] = [
        Intent::Greeting,
        Intent::Help,
        Intent::About,
        Intent::Investigation,
        Intent::Analysis,
        Intent::Report,
        Intent::Status,
        Intent::MemoryRecall,
        Intent::OutOfScope,
    ];

    /// The snake_case name (as in the training file).
    pub fn as_str(self) -> &'static str {
        match self {
            Intent::Greeting => "greeting",
            Intent::Help => "help",
            Intent::About => "about",
            Intent::Investigation => "investigation",
            Intent::Analysis => "analysis",
            Intent::Report => "report",
            Intent::Status => "status",
            Intent::MemoryRecall => "memory_recall",
            Intent::OutOfScope => "out_of_scope",
        }
    }

    /// Parses the snake_case name.
    pub fn parse(s: &str) -> Option<Intent> {
        Intent::ALL.into_iter().find(|i| i.as_str() == s.trim())
    }

    /// Whether answering needs an analysis of records (as opposed to a direct answer).
    pub fn needs_analysis(self) -> bool {
        matches!(self, Intent::Investigation | Intent::Analysis | Intent::Report)
    }
}

/// What a message names: organs, period, value range, a company.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Entities {
    /// SIAFI codes of the organs named, in order of mention.
    pub organ_codes: Vec<String>,
    /// Their full names, in the same order.
    pub organ_names: Vec<String>,
    /// A year 2000-2099.
    pub year: Option<i32>,
    /// A month 1-12 (Portuguese or English name).
    pub month: Option<u32>,
    /// Lower bound in R$ ("acima de 500 mil", "over R$ 2 million").
    pub min_value: Option<f64>,
    /// Upper bound in R$ ("até R$ 100 mil", "below 1 million").
    pub max_value: Option<f64>,
    /// A CNPJ with valid check digits, 14 digits without punctuation.
    pub cnpj: Option<String>,
    /// A supplier's name as typed ("fornecedor Alfa Engenharia").
    pub supplier: Option<String>,
}

impl Entities {
    /// Whether nothing was named.
    pub fn is_empty(&self) -> bool {
        *self == Entities::default()
    }

    /// A Portuguese query that says these entities, for an investigation started from chat:
    /// [`crate::query::interpret`] reads its organs, year, month and minimum back exactly,
    /// so a follow-up ("e em 2023?") investigates what it carried, not only what it said.
    pub fn as_query(&self) -> String {
        let mut q = String::from("contratos");
        for code in &self.organ_codes {
            q.push_str(&format!(" do órgão {code}"));
        }
        if let Some(m) = self.month.and_then(|m| crate::text::MONTHS_PT.get(m.saturating_sub(1) as usize)) {
            q.push_str(&format!(" em {m}"));
        }
        if let Some(y) = self.year {
            q.push_str(&format!(" de {y}"));
        }
        if let Some(v) = self.min_value {
            q.push_str(&format!(" acima de {}", crate::text::format_brl(v)));
        }
        if let Some(v) = self.max_value {
            q.push_str(&format!(" até {}", crate::text::format_brl(v)));
        }
        if let Some(s) = &self.supplier {
            q.push_str(&format!(" do fornecedor {s}"));
        }
        if let Some(c) = &self.cnpj {
            q.push_str(&format!(" CNPJ {}", crate::model::cnpj::format_cnpj(c)));
        }
        q
    }

    /// The same filters as the investigation driver's [`crate::query::QueryIntent`].
    pub fn query_intent(&self) -> crate::query::QueryIntent {
        crate::query::QueryIntent {
            organ_codes: self.organ_codes.clone(),
            year: self.year,
            month: self.month,
            min_value: self.min_value,
        }
    }
}

/// A fact a short follow-up asks about that the last answer already holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Ask {
    /// "and the biggest supplier?"
    TopSupplier,
    /// "and the total?", "how much was at stake?"
    MoneyAtStake,
    /// "and the worst one?"
    MostSevere,
}

/// Where a message goes and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Route {
    /// The intent chosen.
    pub intent: Intent,
    /// The classifier's probability of that intent (after the session prior on follow-ups).
    pub confidence: f64,
    /// The language of the message; answers use it.
    pub language: Language,
    /// The entities of the message, with what a follow-up carried from the previous turn.
    pub entities: Entities,
    /// The agent that answers.
    pub agent: AgentId,
    /// Why, in the user's language (intent, confidence, entities seen), for `agent_selected`.
    pub reason: String,
    /// Entities were carried from the previous turn.
    pub follow_up: bool,
    /// The agent was asked for by name, not routed.
    #[serde(default)]
    pub explicit: bool,
    /// Senna did not trust its best guess (below the confidence floor, or words it never saw)
    /// and answered with help or out of scope instead.
    #[serde(default)]
    pub unsure: bool,
    /// The fact a follow-up asks about, when the last answer holds it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asks: Option<Ask>,
}

/// A multi-agent plan: steps whose dependencies come earlier.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Plan {
    /// The steps, in an order that respects `depends_on`.
    pub steps: Vec<PlanStep>,
}

/// One agent's part in a plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct PlanStep {
    /// Who does it.
    pub agent: AgentId,
    /// What for, in English (a log line, not an answer).
    pub purpose: String,
    /// Indices of the steps whose results it needs; steps with none run in parallel.
    pub depends_on: Vec<usize>,
}

#[cfg(test)]
mod tests;
