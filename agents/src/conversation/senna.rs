//! Ayrton Senna, the router: classifies a message's intent with the naive Bayes model of
//! [`super::classifier`], detects its language, extracts its entities, lets nanã carry the
//! previous turn's entities into a follow-up, and picks the agent that answers, with a reason
//! the user can read.

use super::classifier::{IntentModel, TRAINING, detect_language, parse_labelled};
use super::phrases::{entities_phrase, intent_label, pct};
use super::{Ask, Entities, Intent, Language, Route, SessionMemory, entities, nana};
use crate::agents::roster::AgentId;
use crate::text::words;

/// Below this probability senna does not trust its best guess and offers help (short or
/// entity-bearing messages) or says the request is out of scope. In 5-fold cross-validation on
/// the training file it keeps 311 of 316 right guesses and turns away 10 of 131 wrong ones
/// (`cross_validation_on_the_training_file_stays_well_above_chance` prints the figures).
pub const CONFIDENCE_FLOOR: f64 = 0.3;

/// Below this share of known features, senna does not trust the classifier at all: naive
/// Bayes answers a message of unknown words with the class priors, however confident they look.
pub const MIN_COVERAGE: f64 = 0.5;

/// Prior odds that a follow-up continues the previous substantive intent (or, when it asks
/// for a fact the last answer holds, that it is a question about the conversation): the
/// classifier's probabilities are multiplied by these odds and renormalised.
pub const FOLLOW_UP_ODDS: f64 = 10.0;

/// The router. Training happens once in [`Senna::new`]; the other methods take `&self`.
pub struct Senna {
    model: IntentModel,
}

impl Default for Senna {
    fn default() -> Self {
        Senna::new()
    }
}

impl Senna {
    /// Trains the intent classifier on `agents/data/intents.tsv`.
    pub fn new() -> Self {
        Senna { model: IntentModel::train(&parse_labelled(TRAINING)) }
    }

    /// The most probable intent, its probability and the message's language (Portuguese when
    /// the message gives no evidence).
    pub fn classify(&self, message: &str) -> (Intent, f64, Language) {
        let language = detect_language(message).unwrap_or_default();
        let (intent, p) = self.model.probabilities(message).first().copied().unwrap_or((Intent::OutOfScope, 0.0));
        (intent, p, language)
    }

    /// The entities of a message, reading numbers the way its language writes them.
    pub fn extract(&self, message: &str) -> Entities {
        entities::extract(message, detect_language(message).unwrap_or_default())
    }

    /// Routes a message. `memory` is what nanã kept for the session (`None` on a first turn).
    pub fn route(&self, message: &str, memory: Option<&SessionMemory>) -> Route {
        let language = detect_language(message).or(memory.map(|m| m.language)).unwrap_or_default();
        let current = entities::extract(message, language);
        let (entities, follow_up) = match memory {
            Some(m) => nana::carry_over(&m.entities, &current, message),
            None => (current, false),
        };
        let holds_facts = memory.is_some_and(|m| m.last_answer_facts.is_some());
        let asks = asks_for(message).filter(|_| holds_facts);
        let scores = self.model.scores(message);
        let mut probs = scores.probabilities;
        let favoured = match (asks, memory.and_then(|m| m.last_intent)) {
            (Some(_), _) => Some(Intent::MemoryRecall),
            (None, Some(last)) if follow_up => Some(last),
            _ => None,
        };
        if follow_up {
            // Entities were carried: the message continues a question about data, so the
            // intents that take no entities (greeting, help, about, ...) are out.
            probs.retain(|(i, _)| i.needs_analysis() || *i == Intent::MemoryRecall);
            let total: f64 = probs.iter().map(|(_, p)| p).sum();
            probs.iter_mut().for_each(|(_, p)| *p /= total.max(f64::MIN_POSITIVE));
        }
        if let Some(f) = favoured {
            reweigh(&mut probs, f);
        }
        let (mut best, mut confidence) = probs.first().copied().unwrap_or((Intent::OutOfScope, 0.0));
        // A follow-up the classifier cannot place ("e o MEC?") continues the session's intent.
        if let Some(f) = favoured.filter(|f| *f != best && confidence < CONFIDENCE_FLOOR) {
            (best, confidence) = (f, probs.iter().find(|(i, _)| *i == f).map_or(0.0, |(_, p)| *p));
        }
        let unsure = favoured != Some(best) && (confidence < CONFIDENCE_FLOOR || scores.coverage < MIN_COVERAGE);
        let intent = if !unsure {
            best
        } else if words(message).len() <= 3 || !entities.is_empty() {
            Intent::Help
        } else {
            Intent::OutOfScope
        };
        let asks = asks.filter(|_| intent == Intent::MemoryRecall);
        let agent = if intent == Intent::Analysis { analyst_for(message) } else { agent_for(intent) };
        let why = Why { lang: language, intent, best, confidence, unsure, follow_up, agent, asked_for: None };
        let reason = why.sentence(&entities);
        Route { intent, confidence, language, entities, agent, reason, follow_up, explicit: false, unsure, asks }
    }

    /// Routes a message to an agent the user named: the intent, entities and follow-up are
    /// read as in [`Senna::route`], the agent is the one asked for.
    pub fn route_to(&self, message: &str, memory: Option<&SessionMemory>, agent: AgentId) -> Route {
        let mut route = self.route(message, memory);
        route.agent = agent;
        route.explicit = true;
        let why = Why {
            lang: route.language,
            intent: route.intent,
            best: route.intent,
            confidence: route.confidence,
            unsure: false,
            follow_up: route.follow_up,
            agent,
            asked_for: Some(agent),
        };
        route.reason = why.sentence(&route.entities);
        route
    }
}

/// Multiplies the favoured intent's probability by [`FOLLOW_UP_ODDS`] and renormalises.
fn reweigh(probs: &mut [(Intent, f64)], favoured: Intent) {
    let total: f64 = probs.iter().map(|(i, p)| if *i == favoured { p * FOLLOW_UP_ODDS } else { *p }).sum();
    if total <= 0.0 {
        return;
    }
    for (i, p) in probs.iter_mut() {
        *p = if *i == favoured { *p * FOLLOW_UP_ODDS } else { *p } / total;
    }
    probs.sort_by(|a, b| b.1.total_cmp(&a.1));
}

/// The fact a short question asks about: the biggest supplier, the money, the worst finding.
pub fn asks_for(message: &str) -> Option<Ask> {
    let w = words(message);
    if w.len() > 10 {
        return None;
    }
    let has = |set: &[&str]| w.iter().any(|x| set.contains(&x.as_str()));
    let joined = w.join(" ");
    if has(&["maior", "biggest", "largest", "top", "principal", "most"])
        && has(&["fornecedor", "fornecedores", "supplier", "suppliers", "empresa", "company", "recebeu", "received"])
    {
        Some(Ask::TopSupplier)
    } else if ["em jogo", "at stake", "valor total", "how much", "quanto dinheiro", "o total", "the total"]
        .iter()
        .any(|p| joined.contains(p))
    {
        Some(Ask::MoneyAtStake)
    } else if ["mais grave", "pior", "worst", "most severe", "most serious"].iter().any(|p| joined.contains(p)) {
        Some(Ask::MostSevere)
    } else {
        None
    }
}

/// Which analyst an analysis question is for, by what it asks to see (whole folded words):
/// inequality between regions (dandara), regions, states and municipalities (lampião), charts,
/// rankings and networks (oscar_niemeyer), forecasts (ceuci); trends and concentration
/// otherwise (anita). The intent itself is the classifier's; this only picks among analysts.
pub fn analyst_for(message: &str) -> AgentId {
    let w = words(message);
    let has = |set: &[&str]| w.iter().any(|x| set.contains(&x.as_str()));
    if has(&["desigualdade", "desigualdades", "equidade", "desigual", "inequality", "equity", "gini", "theil"]) {
        AgentId::Dandara
    } else if has(&[
        "regional",
        "regionais",
        "regiao",
        "regioes",
        "estado",
        "estados",
        "uf",
        "ufs",
        "municipio",
        "municipios",
        "capita",
        "region",
        "regions",
        "state",
        "states",
        "municipality",
        "municipalities",
    ]) {
        AgentId::Lampiao
    } else if has(&[
        "grafico",
        "graficos",
        "chart",
        "charts",
        "graph",
        "visualizacao",
        "visualization",
        "rede",
        "network",
        "ranking",
    ]) {
        AgentId::OscarNiemeyer
    } else if has(&["previsao", "previsoes", "prever", "projecao", "forecast", "forecasts", "predict", "prediction"]) {
        AgentId::Ceuci
    } else {
        AgentId::Anita
    }
}

/// Who answers an intent.
pub fn agent_for(intent: Intent) -> AgentId {
    match intent {
        Intent::Investigation => AgentId::Zumbi,
        Intent::Analysis => AgentId::Anita,
        Intent::Report => AgentId::Tiradentes,
        Intent::Status | Intent::MemoryRecall => AgentId::Nana,
        Intent::Greeting | Intent::Help | Intent::About | Intent::OutOfScope => AgentId::Drummond,
    }
}

/// What `agent_selected`'s reason says.
struct Why {
    lang: Language,
    intent: Intent,
    best: Intent,
    confidence: f64,
    unsure: bool,
    follow_up: bool,
    agent: AgentId,
    asked_for: Option<AgentId>,
}

impl Why {
    /// The sentence: what was understood, how sure, which entities, who answers.
    fn sentence(&self, e: &Entities) -> String {
        let (lang, en) = (self.lang, self.lang == Language::En);
        let (label, p) = (intent_label(self.intent, lang), pct(self.confidence));
        let mut s = match (self.asked_for, self.unsure, en) {
            (Some(a), _, true) => format!("You asked for {} directly; I read: {label} ({p}).", a.display_name()),
            (Some(a), _, false) => format!("Você pediu {} diretamente; entendi: {label} ({p}).", a.display_name()),
            (None, true, true) => {
                format!(
                    "I am not sure what you want (best guess: {}, {p}), so I answer with {label}.",
                    intent_label(self.best, lang)
                )
            }
            (None, true, false) => format!(
                "Não tenho certeza do que você quer (melhor palpite: {}, {p}); respondo com {label}.",
                intent_label(self.best, lang)
            ),
            (None, false, true) => format!("I read: {label} (confidence {p})."),
            (None, false, false) => format!("Entendi: {label} (confiança {p})."),
        };
        if let Some(phrase) = entities_phrase(e, lang) {
            s.push_str(&if en { format!(" About: {phrase}.") } else { format!(" Sobre: {phrase}.") });
        }
        if self.follow_up {
            s.push_str(if en {
                " Kept from your previous question."
            } else {
                " Mantive o que veio da pergunta anterior."
            });
        }
        if self.asked_for.is_none() {
            let name = self.agent.display_name();
            s.push_str(&if en { format!(" {name} answers.") } else { format!(" Quem responde: {name}.") });
        }
        s
    }
}
