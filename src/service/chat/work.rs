//! The work behind a chat answer, by mode: a real investigation streamed finding by finding
//! (detection agents, and reports), one agent's analysis over the data the question names
//! (aggregations, regional and equity analyses, the security review for admins), a
//! multi-agent plan (abaporu), or an answer that needs no analysis (greetings, help, memory,
//! the status of one's investigations). drummond phrases every answer from structured facts.

use vigia_agents::agents::roster::COVERAGE;
use vigia_agents::conversation::{AnomalyBrief, AnswerFacts, Intent, Route, abaporu, drummond};
use vigia_agents::{AgentId, Anomaly};

use super::ChatService;
use super::events::Sender;
use super::turn::{Accepted, Done};
use crate::domain::{AnomalyFound, EventKind, InvestigationRequest, Status};
use crate::error::{Error, ErrorCode, Result};
use crate::service::agent_request::AgentRequest;
use crate::service::investigations::ListQuery;

/// Findings listed one by one while an investigation runs; the closing summary counts them all.
const STREAMED_FINDINGS: usize = 8;

/// How a turn is answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    /// drummond answers from the route, the memory and the caller's investigations.
    Conversation,
    /// A real investigation; with `Some(agent)` restricted to the types that agent looks for.
    Investigation(Option<AgentId>),
    /// An investigation, then tiradentes' report of it.
    Report,
    /// One agent's own analysis over the data.
    Agent(AgentId),
    /// abaporu's plan, each step a direct agent call.
    Plan,
}

impl Mode {
    /// The mode for an explicitly named agent (if any) and the route.
    pub fn of(explicit: Option<AgentId>, route: &Route) -> Mode {
        let conversational = matches!(
            route.intent,
            Intent::Greeting | Intent::Help | Intent::About | Intent::MemoryRecall | Intent::Status
        );
        match explicit {
            // A follow-up about a fact the last answer holds ("and the biggest supplier?").
            _ if route.asks.is_some() => Mode::Conversation,
            Some(AgentId::Abaporu) => Mode::Plan,
            Some(AgentId::Nana) | Some(AgentId::Senna) | Some(AgentId::Drummond) | None if conversational => {
                Mode::Conversation
            }
            Some(_) if matches!(route.intent, Intent::Greeting | Intent::Help | Intent::About) => Mode::Conversation,
            Some(AgentId::Nana) => Mode::Conversation,
            Some(AgentId::Tiradentes) => Mode::Report,
            Some(a) if COVERAGE.iter().any(|(id, _)| *id == a) => Mode::Investigation(Some(a)),
            Some(AgentId::Senna) | Some(AgentId::Drummond) => Mode::of(None, route),
            Some(a) => Mode::Agent(a),
            None => match route.intent {
                Intent::OutOfScope => Mode::Conversation,
                Intent::Report => Mode::Report,
                _ if route.agent == AgentId::Abaporu => Mode::Plan,
                _ if !COVERAGE.iter().any(|(id, _)| *id == route.agent)
                    && !matches!(
                        route.agent,
                        AgentId::Drummond | AgentId::Senna | AgentId::Nana | AgentId::Tiradentes
                    ) =>
                {
                    Mode::Agent(route.agent)
                }
                _ => Mode::Investigation(None),
            },
        }
    }
}

/// Does the work of `mode`, streaming the answer into `out`.
pub(super) async fn answer(
    svc: &ChatService,
    acc: &Accepted,
    message: &str,
    route: &Route,
    mode: Mode,
    out: &mut Sender,
) -> Result<Done> {
    match mode {
        Mode::Conversation => conversation(svc, acc, route, out).await,
        Mode::Investigation(agent) => investigation(svc, acc, message, route, agent, out).await,
        Mode::Report => super::report::report(svc, acc, message, route, out).await,
        Mode::Agent(agent) => super::report::one_agent(svc, acc, message, route, agent, out).await,
        Mode::Plan => super::report::plan(svc, acc, message, route, out).await,
    }
}

async fn conversation(svc: &ChatService, acc: &Accepted, route: &Route, out: &mut Sender) -> Result<Done> {
    let mut facts = facts_for(svc, route);
    if route.intent == Intent::Status {
        facts.status_lines = status_lines(svc, acc);
    }
    let parts = drummond::direct_answer(route, acc.memory.as_ref(), Some(&facts));
    let n = parts.len().max(1) as f64;
    for (k, part) in parts.into_iter().enumerate() {
        out.chunk(part, 100.0 * (k + 1) as f64 / n).await;
    }
    let agent = if route.intent == Intent::MemoryRecall || route.intent == Intent::Status {
        AgentId::Nana
    } else {
        AgentId::Drummond
    };
    Ok(Done {
        agent,
        anomalies: 0,
        confidence: route.confidence,
        investigation_id: None,
        facts: None,
        data_status: "completed",
        phrasing: None,
    })
}

/// Empty facts for the route (no analysis behind them).
pub(super) fn facts_for(svc: &ChatService, route: &Route) -> AnswerFacts {
    AnswerFacts::empty(route.intent, route.entities.clone(), svc.demo)
}

/// One line per recent investigation of the caller (or of the session, for anonymous callers).
fn status_lines(svc: &ChatService, acc: &Accepted) -> Vec<String> {
    let mut invs = match &acc.principal {
        Some(p) => {
            let q = ListQuery { sort: ("created_at".into(), true), page: 1, limit: 5, ..Default::default() };
            svc.investigations.list(&q, Some(p)).map(|p| p.items).unwrap_or_default()
        }
        None => acc
            .memory
            .iter()
            .flat_map(|m| m.investigation_ids.iter().rev().take(5))
            .filter_map(|id| crate::domain::InvestigationId::parse(id))
            .filter_map(|id| svc.investigations.head(id, None).ok())
            .collect(),
    };
    invs.truncate(5);
    invs.iter()
        .map(|i| {
            format!(
                "{} — {} — {} ({} anomalias, {:.0}%)",
                i.id,
                i.status.as_str(),
                i.query,
                i.anomalies_found,
                i.progress.percentage
            )
        })
        .collect()
}

/// The investigation request a route amounts to.
pub(super) fn request_for(message: &str, route: &Route, only: Option<AgentId>) -> Result<InvestigationRequest> {
    let ask = AgentRequest { orgao: None, ..super::report::agent_request(message, route) };
    let mut req = ask.to_investigation()?;
    req.filters.organizations = route.entities.organ_codes.clone();
    // The types the answering agents look for: the agent named, or the detection agents of
    // abaporu's plan for the route (what the opening announces); every type when neither has one.
    let agents: Vec<AgentId> = match only {
        Some(a) => vec![a],
        None => abaporu::plan(route).steps.iter().map(|s| s.agent).collect(),
    };
    let mut types: Vec<&str> = COVERAGE
        .iter()
        .filter(|(id, _)| agents.contains(id))
        .flat_map(|(_, types)| types.iter().map(|t| t.as_str()))
        .collect();
    types.sort_unstable();
    types.dedup();
    req.anomaly_types = types.into_iter().map(str::to_string).collect();
    req.validate()?;
    Ok(req)
}

/// Starts a real investigation and streams its findings; returns the finished investigation's
/// facts.
async fn investigation(
    svc: &ChatService,
    acc: &Accepted,
    message: &str,
    route: &Route,
    only: Option<AgentId>,
    out: &mut Sender,
) -> Result<Done> {
    let (facts, confidence, data_status) = run_investigation(svc, acc, message, route, only, out, 90.0).await?;
    let phrasing = super::phrasing::closing(svc, route, &facts, out).await;
    Ok(Done {
        agent: only.unwrap_or(route.agent),
        anomalies: facts.total_anomalies,
        confidence,
        investigation_id: facts.investigation_id.clone(),
        facts: Some(facts),
        data_status,
        phrasing,
    })
}

/// Starts the investigation, streams the opening and its first findings up to `until` percent,
/// and returns the facts of its results, their mean confidence and the data's status
/// (completed, or completed_fallback when demo data stood in for a failed upstream).
pub(super) async fn run_investigation(
    svc: &ChatService,
    acc: &Accepted,
    message: &str,
    route: &Route,
    only: Option<AgentId>,
    out: &mut Sender,
    until: f64,
) -> Result<(AnswerFacts, f64, &'static str)> {
    let req = request_for(message, route, only)?;
    // The opening names what is about to run: it goes out with the routing's events, before
    // the turn first waits (for the investigation's start).
    out.chunk(drummond::opening(route, svc.demo), 2.0).await;
    let (started, events) = svc.investigations.start_watched(req, acc.principal.as_ref()).await?;
    let id = started.investigation.id;
    let mut events = std::pin::pin!(events);
    let mut listed = 0;
    let scale = |pct: f64| 5.0 + pct * (until - 5.0) / 100.0;
    use futures::StreamExt;
    while let Some(event) = events.next().await {
        match event.kind {
            EventKind::Progress { percentage, .. } => out.chunk(String::new(), scale(percentage)).await,
            EventKind::Anomaly(found) => {
                if listed < STREAMED_FINDINGS {
                    listed += 1;
                    let lang = route.language;
                    let line =
                        svc.finding_lines.get_or(&found, lang, || drummond::finding_line(&brief_of(&found), lang));
                    let at = out.progress();
                    out.chunk(line, at).await;
                }
            }
            EventKind::Complete { .. } => break,
            EventKind::Error { code, message, .. } => {
                let code = ErrorCode::parse(&code).unwrap_or(ErrorCode::ServiceUnavailable);
                return Err(Error::new(code, message).with("investigation_id", id.to_string()));
            }
            EventKind::Cancelled { .. } => {
                return Err(Error::new(ErrorCode::ServiceUnavailable, "the investigation was cancelled")
                    .with("investigation_id", id.to_string()));
            }
            EventKind::Insight { .. } => {}
        }
    }
    // The run hands its results over as it completes; the store has them otherwise.
    let handed = svc.investigations.take_handed(id).map(|r| *r);
    let results = match handed {
        Some(results) => results,
        None => {
            // A run abandoned by a stopping service before its first write left no record.
            let inv = match svc.investigations.get(id, acc.principal.as_ref()) {
                Err(e) if e.code == ErrorCode::InvestigationNotFound => None,
                found => Some(found?),
            };
            inv.filter(|inv| inv.status == Status::Completed).and_then(|inv| inv.results).ok_or_else(|| {
                Error::new(
                    ErrorCode::ServiceUnavailable,
                    "the investigation ended without results (the service is stopping)",
                )
                .with("investigation_id", id.to_string())
            })?
        }
    };
    let confidence = mean_confidence(&results.anomalies).unwrap_or(route.confidence);
    let mut facts = AnswerFacts::empty(route.intent, route.entities.clone(), results.provenance.demo_mode);
    facts.investigation_id = Some(id.to_string());
    facts.records_analysed = results.records_analyzed;
    results.anomalies.iter().for_each(|a| facts.push(a));
    facts.top_suppliers = results.top_suppliers.clone();
    Ok((facts, confidence, results.provenance.data_status()))
}

/// The brief of a finding as its event shows it (the money at stake, else the contract's value).
fn brief_of(found: &AnomalyFound) -> AnomalyBrief {
    let AnomalyFound {
        id,
        anomaly_type,
        severity,
        description,
        description_en,
        contract_id,
        supplier,
        value,
        at_stake,
        ..
    } = found;
    AnomalyBrief {
        id: id.clone(),
        anomaly_type: anomaly_type.clone(),
        severity: severity.clone(),
        description: description.clone(),
        description_en: description_en.clone(),
        contract_id: contract_id.clone(),
        supplier: supplier.clone(),
        value: at_stake.or(*value),
    }
}

/// The mean confidence of findings, if any.
pub(super) fn mean_confidence(anomalies: &[impl std::borrow::Borrow<Anomaly>]) -> Option<f64> {
    (!anomalies.is_empty())
        .then(|| anomalies.iter().map(|a| a.borrow().confidence).sum::<f64>() / anomalies.len() as f64)
}
