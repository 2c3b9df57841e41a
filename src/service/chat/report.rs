//! The chat modes that call agents directly: tiradentes' report of a fresh investigation, one
//! agent's own analysis over the data the question names, and abaporu's multi-agent plan.

use futures::StreamExt;
use vigia_agents::AgentId;
use vigia_agents::conversation::{Route, abaporu, drummond};

use super::ChatService;
use super::events::Sender;
use super::turn::{Accepted, Done};
use super::work::{facts_for, mean_confidence, run_investigation};
use crate::error::Result;
use crate::service::agent_request::AgentRequest;
use crate::service::agents::AgentAnswer;
use crate::service::orchestration;

/// The direct-call request a route amounts to (its first organ).
pub(super) fn agent_request(message: &str, route: &Route) -> AgentRequest {
    let e = &route.entities;
    AgentRequest {
        orgao: e.organ_codes.first().cloned(),
        ano: e.year,
        mes: e.month.filter(|_| e.year.is_some()),
        // A follow-up ("e em 2023?") says little alone: its query is what it carried over.
        query: Some(if route.follow_up { e.as_query() } else { message.to_string() }),
        min_value: e.min_value,
        max_value: e.max_value,
        ..Default::default()
    }
}

/// The chunks of one agent's answer: its insights, recommendations and what artifacts it made.
/// An English answer takes the English of each insight where the agent wrote one, and says so
/// before quoting what the agent wrote only in Portuguese.
fn answer_parts(a: &AgentAnswer, pt: bool) -> Vec<String> {
    let mut parts: Vec<String> = Vec::with_capacity(a.insights.len() + 3);
    if !pt && a.insights.iter().any(|i| i.insight_en.is_none()) {
        parts.push(format!("{}'s analysis, as the agent writes it (in Portuguese):", a.agent_name));
    }
    parts.extend(a.insights.iter().map(|i| match (&i.insight_en, pt) {
        (Some(en), false) => en.to_string(),
        _ => i.insight.to_string(),
    }));
    if !a.recommendations.is_empty() {
        let head = if pt { "**Recomendações**" } else { "**Recommendations** (in Portuguese)" };
        parts.push(format!(
            "{head}\n{}",
            a.recommendations.iter().map(|r| format!("- {r}")).collect::<Vec<_>>().join("\n")
        ));
    }
    if !a.artifacts.is_empty() {
        let head = if pt { "**Produtos da análise**" } else { "**Analysis products**" };
        let list: Vec<String> = a.artifacts.iter().map(|x| format!("- {} ({})", x.title, x.kind)).collect();
        let tail = if pt {
            format!("Os dados completos: POST /api/v1/agents/{}/investigate", a.agent)
        } else {
            format!("Full data: POST /api/v1/agents/{}/investigate", a.agent)
        };
        parts.push(format!("{head}\n{}\n\n{tail}", list.join("\n")));
    }
    parts
}

/// One agent's own analysis over the data the question names.
pub(super) async fn one_agent(
    svc: &ChatService,
    acc: &Accepted,
    message: &str,
    route: &Route,
    agent: AgentId,
    out: &mut Sender,
) -> Result<Done> {
    out.chunk(drummond::opening(route, svc.demo), 2.0).await;
    let ask = agent_request(message, route);
    let answer = svc.agents.investigate_as(agent, &ask, acc.principal.as_ref()).await?;
    let parts = answer_parts(&answer, route.language == vigia_agents::conversation::Language::Pt);
    let n = parts.len().max(1) as f64;
    for (k, part) in parts.into_iter().enumerate() {
        out.chunk(part, 10.0 + 90.0 * (k + 1) as f64 / n).await;
    }
    let mut facts = facts_for(svc, route);
    facts.demo = answer.demo_mode;
    facts.records_analysed = answer.records_analyzed;
    answer.anomalies.iter().for_each(|a| facts.push(a));
    facts.total_anomalies = answer.anomalies_found;
    Ok(Done {
        agent,
        anomalies: answer.anomalies_found,
        confidence: if answer.confidence > 0.0 { answer.confidence } else { route.confidence },
        investigation_id: None,
        facts: Some(facts),
        data_status: answer.status,
        phrasing: None,
    })
}

/// abaporu's plan: each step's part streamed as it finishes, then drummond's closing.
pub(super) async fn plan(
    svc: &ChatService,
    _acc: &Accepted,
    message: &str,
    route: &Route,
    out: &mut Sender,
) -> Result<Done> {
    let plan = abaporu::plan(route);
    let pt = route.language == vigia_agents::conversation::Language::Pt;
    let steps: Vec<String> = plan.steps.iter().map(|s| format!("{} ({})", s.agent.display_name(), s.purpose)).collect();
    let head = if pt { "Plano" } else { "Plan" };
    out.chunk(format!("{} **{head}:** {}", drummond::opening(route, svc.demo), steps.join(" → ")), 3.0).await;
    let ask = agent_request(message, route);
    let (dataset, provenance, params) = svc.agents.data(&ask).await?;
    let total = plan.steps.len().max(1) as f64;
    let mut done = 0.0;
    let mut anomalies = Vec::new();
    let mut results = std::pin::pin!(orchestration::execute(
        svc.agents.as_ref().clone(),
        plan,
        dataset.clone(),
        params,
        Some(message.to_string()),
        provenance.clone()
    ));
    while let Some(step) = results.next().await {
        done += 1.0;
        let text = match &step.result {
            Some(a) => {
                anomalies.extend(a.anomalies.iter().cloned());
                let first = a.insights.first().map_or(String::new(), |i| format!(": {}", i.insight));
                format!(
                    "**{}** — {} {}{first}",
                    step.agent,
                    a.anomalies_found,
                    if pt { "anomalias" } else { "anomalies" }
                )
            }
            None => format!("**{}** — {}", step.agent, step.error.clone().unwrap_or_default()),
        };
        out.chunk(text, 5.0 + 85.0 * done / total).await;
    }
    vigia_agents::engine::sort(&mut anomalies);
    anomalies.dedup_by(|a, b| a.id == b.id);
    let mut facts = facts_for(svc, route);
    facts.demo = provenance.demo_mode;
    facts.records_analysed = dataset.len();
    anomalies.iter().for_each(|a| facts.push(a));
    facts.top_suppliers = vigia_agents::conversation::top_suppliers(&dataset, 10);
    let phrasing = super::phrasing::closing(svc, route, &facts, out).await;
    Ok(Done {
        agent: AgentId::Abaporu,
        anomalies: facts.total_anomalies,
        confidence: mean_confidence(&anomalies).unwrap_or(route.confidence),
        investigation_id: None,
        facts: Some(facts),
        data_status: provenance.data_status(),
        phrasing,
    })
}

/// An investigation, then tiradentes' report of its results, streamed section by section.
pub(super) async fn report(
    svc: &ChatService,
    acc: &Accepted,
    message: &str,
    route: &Route,
    out: &mut Sender,
) -> Result<Done> {
    let (facts, confidence, data_status) = run_investigation(svc, acc, message, route, None, out, 70.0).await?;
    let id = facts.investigation_id.clone().unwrap_or_default();
    let mut sections = svc.report_sections(&id, acc.principal.as_ref())?;
    // tiradentes writes its reports in Portuguese: an English answer says so before them.
    if route.language == vigia_agents::conversation::Language::En {
        sections.insert(0, "Tiradentes' report, as the agent writes it (in Portuguese):".to_string());
    }
    let n = sections.len().max(1) as f64;
    for (k, s) in sections.into_iter().enumerate() {
        out.chunk(s, 72.0 + 28.0 * (k + 1) as f64 / n).await;
    }
    Ok(Done {
        agent: AgentId::Tiradentes,
        anomalies: facts.total_anomalies,
        confidence,
        investigation_id: facts.investigation_id.clone(),
        facts: Some(facts),
        data_status,
        phrasing: None,
    })
}
