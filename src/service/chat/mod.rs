//! Chat: one conversation turn at a time, streamed as it happens. A turn stores the user's
//! message, routes it (senna, unless the client named an agent), does the real work the route
//! asks for (an investigation, one agent's analysis, a plan of several agents, or an answer
//! from memory) and streams `start`, `thinking`, `agent_selected`, `chunk`s and `complete` (or
//! `error`). The answer is stored with the session's memory (nana) and made durable before
//! `complete` is sent. Each turn runs in its own task, so an answer is finished and stored even
//! if the client goes away mid-stream.
//!
//! - [`events`]: the turn's events as every transport sends them.
//! - [`turn`]: what a turn does, intent by intent.
//! - [`history`]: the caller's sessions and the cursor pages of a session's messages.
//! - `phrasing`: the closing summary, by the optional language model when it holds to the
//!   facts, else by drummond's built-in phrasing.

pub mod events;
pub mod history;
mod phrasing;
mod report;
mod turn;
mod work;

use std::sync::Arc;

use serde::Deserialize;
use tokio::sync::mpsc;

use crate::storage::SessionIs;

pub use events::{ChatEvent, ChatEventKind, TurnEvents};

use super::reports::ReportService;
use super::{AgentService, InvestigationService};
use crate::domain::bounded::Derived;
use crate::domain::chat::ChatSessionId;
use crate::domain::{AnomalyFound, Principal};
use crate::error::Error;
use crate::storage::Store;
use crate::upstream::llm::LlmClient;
use vigia_agents::conversation::Language;

/// Events a slow client may have queued before the turn waits for it.
const EVENT_BUFFER: usize = 64;

/// `filters` of a chat request.
#[derive(Debug, Clone, Default, Deserialize, serde::Serialize, utoipa::ToSchema)]
#[serde(default)]
pub struct ChatFilters {
    /// Year of the contracts.
    #[serde(alias = "ano")]
    pub year: Option<i32>,
    /// Smallest contract value.
    #[serde(alias = "valor_minimo")]
    pub min_value: Option<f64>,
}

/// One turn as clients send it: `{message, agent_name, stream, filters, session_id}`, or the
/// older `{message, session_id, agent_id, context}` (an absent or unknown `agent_id` means
/// automatic routing; an unknown `agent_name` is an error).
#[derive(Debug, Clone, Default, Deserialize, serde::Serialize, utoipa::ToSchema)]
#[serde(default)]
#[schema(example = json!({"message": "Quais contratos do Ministério da Saúde em 2024 parecem caros?", "agent_name": "auto", "stream": true}))]
pub struct ChatRequest {
    /// What the user wrote.
    #[serde(alias = "mensagem")]
    pub message: String,
    /// `auto`, an agent id or an alias.
    #[serde(alias = "agente")]
    pub agent_name: Option<String>,
    /// The older clients' agent field.
    pub agent_id: Option<String>,
    /// Whether to stream (the SSE route answers one JSON document when false).
    pub stream: Option<bool>,
    /// Year and minimum value.
    pub filters: ChatFilters,
    /// The conversation; a new one when absent.
    #[serde(alias = "sessao_id")]
    pub session_id: Option<String>,
    /// The older clients' free-form context (kept for compatibility, not interpreted).
    pub context: Option<serde_json::Value>,
}

/// What the transport knows about the caller of a turn.
#[derive(Debug, Clone)]
pub struct Caller {
    /// The signed-in user, if any; `Err` when the credentials presented were invalid.
    pub principal: Result<Option<Principal>, Error>,
    /// Set when the rate limiter refused the request (the stream reports it).
    pub refused: Option<Error>,
}

/// The chat facade.
pub struct ChatService {
    pub(crate) store: Store,
    pub(crate) investigations: Arc<InvestigationService>,
    pub(crate) agents: Arc<AgentService>,
    pub(crate) reports: Arc<ReportService>,
    pub(crate) demo: bool,
    /// The language model that phrases closing summaries, when `llm.base_url` is set.
    pub(crate) llm: Option<Arc<LlmClient>>,
    /// The line citing a finding as a turn streams it, by the finding's event and the answer's
    /// language: turns answered from the analysis cache stream the very findings (the same
    /// events) of the turn before them.
    pub(crate) finding_lines: Derived<AnomalyFound, Language, String>,
}

/// Finding lines kept (see [`Derived`] for what goes when more are made).
const FINDING_LINES: usize = 4096;

impl ChatService {
    /// Builds the facade (routing with the agents' router).
    pub fn new(
        store: Store,
        investigations: Arc<InvestigationService>,
        agents: Arc<AgentService>,
        reports: Arc<ReportService>,
        demo: bool,
    ) -> Self {
        let finding_lines = Derived::new(FINDING_LINES);
        ChatService { store, investigations, agents, reports, demo, llm: None, finding_lines }
    }

    /// Lets `llm` (if any) phrase the closing summaries of analysed answers.
    pub fn with_llm(mut self, llm: Option<LlmClient>) -> Self {
        if let Some(l) = &llm {
            tracing::info!(model = l.model(), "a language model phrases chat summaries (llm.base_url)");
        }
        self.llm = llm.map(Arc::new);
        self
    }

    /// tiradentes' report of a finished investigation, cut into the sections a chat answer
    /// streams.
    pub(crate) fn report_sections(&self, id: &str, viewer: Option<&Principal>) -> crate::error::Result<Vec<String>> {
        let report = self.reports.investigation(id, viewer)?;
        Ok(super::reports::sections(&report.markdown))
    }

    /// Runs one turn in its own task and returns its events as they happen. The stream always
    /// ends with `complete` or `error`.
    pub fn turn(self: &Arc<Self>, mut req: ChatRequest, caller: Caller) -> TurnEvents {
        let (tx, rx) = mpsc::channel(EVENT_BUFFER);
        let mut out = events::Sender::new(tx);
        // `start` goes out before the turn's task is scheduled: the first event does not wait
        // behind other turns' work.
        let named = req.session_id.clone().filter(|s| !s.is_empty());
        let session = if named.is_none() { SessionIs::New } else { SessionIs::Named };
        let session_id = named.unwrap_or_else(|| ChatSessionId::new().to_string());
        req.session_id = Some(session_id.clone());
        out.send_now(ChatEventKind::Start { session_id });
        let this = self.clone();
        // The turn runs on the work pool, below the request threads' priority.
        crate::runtime::work::spawn(async move { turn::run(&this, req, caller, session, out).await });
        TurnEvents::new(rx)
    }
}
