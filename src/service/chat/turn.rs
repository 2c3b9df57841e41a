//! One chat turn: accept (caller, rate limit, message, session), route, do the work of the
//! route's mode ([`super::work`]), then store the question, the answer and the session's
//! memory durably and send `complete`. Any failure after `start` ends the stream with one
//! `error` event (the question stored with it).

use chrono::Utc;
use uuid::Uuid;
use vigia_agents::AgentId;
use vigia_agents::conversation::{AnswerFacts, Route, SessionMemory, nana};

use super::events::{ChatEventKind, Phrasing, Sender};
use super::work::{self, Mode};
use super::{Caller, ChatRequest, ChatService};
use crate::domain::Principal;
use crate::domain::chat::{ChatMessage, ChatRole, ChatSessionId, MemoryJson, validate_message};
use crate::error::{Error, ErrorCode};
use crate::service::admin::resolve_agent;
use crate::storage::SessionIs;

/// A turn that passed the checks.
pub(super) struct Accepted {
    pub principal: Option<Principal>,
    pub session_id: ChatSessionId,
    pub owner: Uuid,
    pub memory: Option<SessionMemory>,
    pub explicit: Option<AgentId>,
    /// Whether the session is one the server just made (written without being read).
    pub session: SessionIs,
}

/// What the work of a turn produced.
pub(super) struct Done {
    pub agent: AgentId,
    pub anomalies: usize,
    pub confidence: f64,
    pub investigation_id: Option<String>,
    pub facts: Option<AnswerFacts>,
    /// completed, or completed_fallback when the upstream failed and demo data answered.
    pub data_status: &'static str,
    /// Who phrased the closing summary, when a language model is configured.
    pub phrasing: Option<Phrasing>,
}

/// Runs a whole turn, sending its events to `out`; `session` is [`SessionIs::New`] when its id
/// is one the server just made (no stored session can have it).
pub(super) async fn run(svc: &ChatService, req: ChatRequest, caller: Caller, session: SessionIs, mut out: Sender) {
    // Counted until the turn ends: its answer's flush is gathered with its siblings'.
    let _writer = svc.store.writer();
    let accepted = match accept(svc, &req, caller, session) {
        Ok(a) => a,
        Err(e) => {
            out.send(ChatEventKind::from_error(&e)).await;
            return;
        }
    };
    // Stored with the answer (or the error) when the turn ends: one write of the session, and
    // made durable by the same flush as before, which `complete` waits for.
    let user = ChatMessage::new(accepted.session_id.clone(), ChatRole::User, req.message.clone());
    out.send(ChatEventKind::Thinking {
        status: if accepted.explicit.is_some() { "analyzing" } else { "routing" }.into(),
        agent: accepted.explicit.unwrap_or(AgentId::Senna).as_str().into(),
        timestamp: Utc::now(),
    })
    .await;
    let mut route = match accepted.explicit {
        Some(agent) => svc.agents.senna.route_to(&req.message, accepted.memory.as_ref(), agent),
        None => svc.agents.senna.route(&req.message, accepted.memory.as_ref()),
    };
    if let Some(year) = req.filters.year {
        route.entities.year = Some(year);
    }
    if let Some(min) = req.filters.min_value {
        route.entities.min_value = Some(min);
    }
    if accepted.explicit.is_none() {
        out.send(ChatEventKind::AgentSelected {
            agent: route.agent.as_str().into(),
            reason: route.reason.clone(),
            intent: route.intent.as_str().into(),
            confidence: (route.confidence * 1000.0).round() / 1000.0,
        })
        .await;
    }
    let mode = Mode::of(accepted.explicit, &route);
    let result = work::answer(svc, &accepted, &req.message, &route, mode, &mut out).await;
    match result {
        Ok(done) => finish(svc, &accepted, &route, done, &user, out).await,
        Err(e) => {
            // The question stays in the history beside the error, and what the turn wrote is
            // durable before the error is told, like an answer: an investigation it started
            // left its end's durability to the turn (`start_watched`), and the error may name it.
            if let Err(stored) = svc.store.append_chat_message(accepted.owner, accepted.session, &user) {
                tracing::error!(error = %stored, "a chat message could not be stored");
            }
            if let Err(flush) = svc.store.flush().await {
                tracing::error!(error = %flush, "a failed chat turn's writes could not be made durable");
            }
            out.send(ChatEventKind::from_error(&e)).await
        }
    }
}

/// Checks the caller, the rate limit, the message, the session and the agent named.
fn accept(svc: &ChatService, req: &ChatRequest, caller: Caller, is: SessionIs) -> Result<Accepted, Error> {
    // Bad credentials are UNAUTHORIZED inside the stream, whatever made them bad.
    let principal = caller.principal.map_err(|e| {
        Error::new(ErrorCode::Unauthorized, format!("invalid credentials: {}", e.message))
            .with("reason", e.code.as_str())
    })?;
    if let Some(refusal) = caller.refused {
        return Err(refusal);
    }
    validate_message(&req.message)?;
    let session_id = match req.session_id.as_deref().filter(|s| !s.is_empty()) {
        Some(s) => ChatSessionId::parse(s)?,
        None => ChatSessionId::new(),
    };
    let session = match is {
        SessionIs::New => None,
        SessionIs::Named => svc.store.chat_session(&session_id).map_err(Error::internal)?,
    };
    if let Some(s) = &session
        && !s.visible_to(principal.as_ref())
    {
        return Err(Error::new(ErrorCode::Unauthorized, "this conversation belongs to another user")
            .with("session_id", session_id.as_str()));
    }
    let explicit = match req.agent_name.as_deref().map(str::trim) {
        None | Some("") | Some("auto") => req.agent_id.as_deref().and_then(AgentId::parse),
        Some(name) => Some(resolve_agent(name)?),
    };
    let memory = session.as_ref().and_then(|s| s.memory.read::<SessionMemory>());
    let owner = session.map_or_else(|| principal.as_ref().map_or(Uuid::nil(), |p| p.user_id.0), |s| s.owner);
    Ok(Accepted { principal, session_id, owner, memory, explicit, session: is })
}

/// Stores the question, the answer and the memory, makes them durable (and with them the
/// investigation the turn ran, whose start and end were left to this flush: `start_watched`),
/// then sends `complete`.
async fn finish(svc: &ChatService, acc: &Accepted, route: &Route, done: Done, user: &ChatMessage, mut out: Sender) {
    let mut reply = ChatMessage::new(acc.session_id.clone(), ChatRole::Assistant, out.answer.clone());
    reply.agent = Some(done.agent.as_str().into());
    reply.investigation_id = done.investigation_id.clone();
    let memory = nana::remember(acc.memory.clone(), route, done.facts.as_ref());
    let memory = MemoryJson::of(&memory).unwrap_or_default();
    let stored =
        svc.store.append_chat_messages(acc.owner, acc.session, user, Some(&reply), |s| s.memory = memory.clone());
    let durable = match stored {
        Ok(_) => svc.store.flush().await.map_err(|e| e.to_string()),
        Err(e) => Err(e.to_string()),
    };
    if let Err(e) = durable {
        tracing::error!(error = %e, "a chat answer could not be stored durably");
        let err = Error::new(ErrorCode::ServiceUnavailable, "the answer could not be saved; try again");
        out.send(ChatEventKind::from_error(&err)).await;
        return;
    }
    out.send(ChatEventKind::Complete {
        status: done.data_status.into(),
        anomalies: done.anomalies,
        confidence: (done.confidence * 1000.0).round() / 1000.0,
        investigation_id: done.investigation_id,
        session_id: acc.session_id.to_string(),
        message_id: reply.id,
        user_message_id: user.id.clone(),
        agent: done.agent.as_str().into(),
        phrasing: done.phrasing,
    })
    .await;
}
