//! The conversational agents as runtime [`Agent`]s, so the host can load, call and measure
//! them like the detection agents. Each is a thin shell over the pure functions of senna,
//! nanã, abaporu and drummond: it reads `ctx.question` and returns an [`Artifact`] (`route`,
//! `memory`, `plan`, `answer`) with insights.

use std::sync::OnceLock;

use serde::Serialize;

use super::{AnswerFacts, Intent, Route, Senna, abaporu, drummond, nana};
use crate::agents::Agent;
use crate::agents::roster::AgentId;
use crate::cancel::AnalysisError;
use crate::detect::context::AnalysisContext;
use crate::detect::engine;
use crate::model::report::{AgentOutput, Artifact, Insight};

/// The router trained once for the process (training takes tens of milliseconds).
pub fn shared_senna() -> &'static Senna {
    static SENNA: OnceLock<Senna> = OnceLock::new();
    SENNA.get_or_init(Senna::new)
}

fn insight(agent: AgentId, text: String, confidence: f64, evidence: Vec<String>) -> Insight {
    Insight {
        agent: agent.as_str().into(),
        insight: text.into(),
        confidence,
        supporting_evidence: evidence.into(),
        insight_en: None,
    }
}

fn artifact(kind: &str, title: &str, content: &impl Serialize) -> Result<Artifact, AnalysisError> {
    let content = serde_json::to_value(content).map_err(|e| AnalysisError::InvalidInput(e.to_string()))?;
    Ok(Artifact { kind: kind.to_string(), title: title.to_string(), content })
}

/// What an agent that reads the question returns without one.
fn no_question(agent: AgentId) -> AgentOutput {
    AgentOutput {
        insights: vec![insight(
            agent,
            "Nenhuma pergunta foi enviada (campo question vazio): não há o que interpretar.".into(),
            1.0,
            Vec::new(),
        )],
        ..AgentOutput::default()
    }
}

/// Routes the question (or reports that there is none).
fn routed(ctx: &AnalysisContext<'_>) -> Result<Option<Route>, AnalysisError> {
    ctx.cancel.check()?;
    Ok(ctx.question.map(str::trim).filter(|q| !q.is_empty()).map(|q| shared_senna().route(q, None)))
}

macro_rules! conversational_agent {
    ($name:ident, $doc:literal) => {
        #[doc = $doc]
        #[derive(Debug, Clone, Copy, Default)]
        pub struct $name;

        impl $name {
            /// A new agent (the shared router is trained on first use).
            pub fn new() -> Self {
                $name
            }
        }
    };
}

conversational_agent!(SennaAgent, "Senna as an agent: the route of the question (`route`).");
conversational_agent!(NanaAgent, "Nanã as an agent: the session memory after the question (`memory`).");
conversational_agent!(AbaporuAgent, "Abaporu as an agent: the plan for the question (`plan`).");
conversational_agent!(
    DrummondAgent,
    "Drummond as an agent: the answer phrased from the findings over the dataset (`answer`)."
);

impl Agent for SennaAgent {
    fn id(&self) -> AgentId {
        AgentId::Senna
    }
    fn analyse(&self, ctx: &AnalysisContext<'_>) -> Result<AgentOutput, AnalysisError> {
        let Some(route) = routed(ctx)? else { return Ok(no_question(AgentId::Senna)) };
        (ctx.progress)(1.0);
        Ok(AgentOutput {
            insights: vec![insight(AgentId::Senna, route.reason.clone(), route.confidence, Vec::new())],
            artifacts: vec![artifact("route", "Rota da pergunta", &route)?],
            ..AgentOutput::default()
        })
    }
}

impl Agent for NanaAgent {
    fn id(&self) -> AgentId {
        AgentId::Nana
    }
    fn analyse(&self, ctx: &AnalysisContext<'_>) -> Result<AgentOutput, AnalysisError> {
        let Some(route) = routed(ctx)? else { return Ok(no_question(AgentId::Nana)) };
        let memory = nana::remember(None, &route, None);
        let text = match super::phrases::entities_phrase(&memory.entities, route.language) {
            Some(p) => format!("Guardado para as próximas perguntas: {p}."),
            None => "A pergunta não nomeia órgão, período, valor ou fornecedor: nada a guardar.".to_string(),
        };
        (ctx.progress)(1.0);
        Ok(AgentOutput {
            insights: vec![insight(AgentId::Nana, text, route.confidence, Vec::new())],
            artifacts: vec![artifact("memory", "Memória da sessão", &memory)?],
            ..AgentOutput::default()
        })
    }
}

impl Agent for AbaporuAgent {
    fn id(&self) -> AgentId {
        AgentId::Abaporu
    }
    fn analyse(&self, ctx: &AnalysisContext<'_>) -> Result<AgentOutput, AnalysisError> {
        let Some(route) = routed(ctx)? else { return Ok(no_question(AgentId::Abaporu)) };
        let plan = abaporu::plan(&route);
        let insights = plan
            .steps
            .iter()
            .enumerate()
            .map(|(k, s)| {
                let after: Vec<String> = s.depends_on.iter().map(|d| (d + 1).to_string()).collect();
                let when = if after.is_empty() {
                    "em paralelo".to_string()
                } else {
                    format!("depois de {}", after.join(", "))
                };
                insight(
                    AgentId::Abaporu,
                    format!("{}. {} ({when}): {}", k + 1, s.agent.display_name(), s.purpose),
                    route.confidence,
                    Vec::new(),
                )
            })
            .collect();
        (ctx.progress)(1.0);
        Ok(AgentOutput { insights, artifacts: vec![artifact("plan", "Plano", &plan)?], ..AgentOutput::default() })
    }
}

impl Agent for DrummondAgent {
    fn id(&self) -> AgentId {
        AgentId::Drummond
    }
    /// Answers over every detector's findings (from `ctx.findings` when other agents of the run
    /// computed them). Without a question it still summarises the findings, and says so.
    fn analyse(&self, ctx: &AnalysisContext<'_>) -> Result<AgentOutput, AnalysisError> {
        let route = routed(ctx)?;
        let (intent, entities, lang) = match &route {
            Some(r) => (r.intent, r.entities.clone(), r.language),
            None => (Intent::Investigation, Default::default(), Default::default()),
        };
        let anomalies = engine::detect_for(ctx, &[])?;
        let facts = AnswerFacts::from_findings(intent, entities, false, None, ctx.dataset, &anomalies);
        let chunks = match &route {
            Some(r) if !r.intent.needs_analysis() => drummond::direct_answer(r, None, Some(&facts)),
            _ => drummond::closing(&facts, lang),
        };
        let evidence: Vec<String> = facts.anomalies.iter().map(|a| a.id.clone()).collect();
        let confidence = route.as_ref().map_or(1.0, |r| r.confidence);
        let mut insights = vec![insight(AgentId::Drummond, chunks.join(" "), confidence, evidence)];
        if route.is_none() {
            insights.insert(0, no_question(AgentId::Drummond).insights.remove(0));
        }
        let answer = serde_json::json!({ "language": lang, "chunks": chunks, "facts": facts });
        (ctx.progress)(1.0);
        Ok(AgentOutput {
            insights,
            artifacts: vec![artifact("answer", "Resposta", &answer)?],
            ..AgentOutput::default()
        })
    }
}
