//! The events of a chat turn. Serialised with their name in `type` (clients of the service
//! Vigia replaces read only `data:` lines and dispatch on it); the SSE `event:` line and the
//! WebSocket message carry the same payload. Numbered from 1 per turn (the SSE `id:`).

use std::pin::Pin;
use std::task::{Context, Poll};

use chrono::{DateTime, Utc};
use futures::Stream;
use serde::Serialize;
use tokio::sync::mpsc;

/// One event with its number in the turn. Its JSON is its kind's (the number goes in the
/// SSE `id:`); the transports serialise the kind alone, which serde writes directly rather than
/// through the flattening map.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChatEvent {
    /// 1, 2, ... within the turn.
    #[serde(skip)]
    pub seq: u64,
    /// The payload.
    #[serde(flatten)]
    pub kind: ChatEventKind,
}

/// The chat stream's events (spec "Chat stream"), plus `start`, which names the session.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ChatEventKind {
    /// The turn was received: the conversation it belongs to. Sent before any check, so a
    /// client learns its session at once; a refusal follows as `error`.
    Start {
        /// The conversation (new when the client sent none).
        session_id: String,
    },
    /// Work began.
    Thinking {
        /// What is happening (`routing`, `analyzing`).
        status: String,
        /// Who is working.
        agent: String,
        /// When.
        timestamp: DateTime<Utc>,
    },
    /// Automatic routing chose an agent.
    AgentSelected {
        /// The agent's id.
        agent: String,
        /// Why, in the user's language.
        reason: String,
        /// The intent recognised.
        intent: String,
        /// The router's confidence, 0-1.
        confidence: f64,
    },
    /// A piece of the answer.
    Chunk {
        /// Text (Markdown).
        content: String,
        /// 0-100, never decreasing within a turn.
        progress: f64,
        /// The text continues the previous chunk's (a language model's piece) instead of
        /// starting a paragraph: how the one-document answer joins them (not sent).
        #[serde(skip)]
        continues: bool,
    },
    /// The answer is complete and stored.
    Complete {
        /// `completed`.
        status: String,
        /// Anomalies behind the answer.
        anomalies: usize,
        /// Confidence of the answer, 0-1.
        confidence: f64,
        /// The investigation the turn started, if any.
        investigation_id: Option<String>,
        /// The conversation.
        session_id: String,
        /// The stored assistant message's id.
        message_id: String,
        /// The stored user message's id.
        user_message_id: String,
        /// The agent that answered.
        agent: String,
        /// How the closing summary was phrased; present only when a language model is
        /// configured (`llm.base_url`) and the turn has a summary to phrase.
        #[serde(skip_serializing_if = "Option::is_none")]
        phrasing: Option<Phrasing>,
    },
    /// The turn failed; nothing follows.
    Error {
        /// Short kind (`rate_limited`, `unauthorized`, `validation`, `unavailable`, ...).
        error: String,
        /// What went wrong, safe to show.
        message: String,
        /// The stable error code (`RATE_LIMIT_EXCEEDED`, `UNAUTHORIZED`, `VALIDATION_ERROR`, ...).
        code: String,
        /// Seconds to wait before retrying (rate limits).
        #[serde(skip_serializing_if = "Option::is_none")]
        retry_after: Option<u64>,
    },
}

/// Who phrased an answer's closing summary (`complete.phrasing`).
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct Phrasing {
    /// `model` (the configured language model's text, every figure checked against the
    /// facts) or `built_in` (drummond's own phrasing).
    pub source: String,
    /// The model asked (`llm.model`).
    pub model: String,
    /// Why the model's text was not used (`invented_figure`, `empty_answer`, `connect_error`,
    /// `http_error`, `timeout`, `malformed_stream`, `truncated`); absent when it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
}

impl ChatEventKind {
    /// The event name (`thinking`, `chunk`, ...).
    pub fn name(&self) -> &'static str {
        match self {
            ChatEventKind::Start { .. } => "start",
            ChatEventKind::Thinking { .. } => "thinking",
            ChatEventKind::AgentSelected { .. } => "agent_selected",
            ChatEventKind::Chunk { .. } => "chunk",
            ChatEventKind::Complete { .. } => "complete",
            ChatEventKind::Error { .. } => "error",
        }
    }

    /// Whether the turn ends with it.
    pub fn is_terminal(&self) -> bool {
        matches!(self, ChatEventKind::Complete { .. } | ChatEventKind::Error { .. })
    }

    /// The `error` event of a service error.
    pub fn from_error(e: &crate::error::Error) -> Self {
        use crate::error::ErrorCode as C;
        let kind = match e.code {
            C::RateLimitExceeded => "rate_limited",
            C::Unauthorized | C::TokenInvalid | C::TokenExpired => "unauthorized",
            C::InsufficientPermissions => "forbidden",
            C::Validation => "validation",
            C::AgentNotFound | C::InvestigationNotFound | C::ResourceNotFound => "not_found",
            C::InsufficientData => "insufficient_data",
            C::Internal => "internal",
            _ => "unavailable",
        };
        ChatEventKind::Error {
            error: kind.into(),
            message: e.message.clone(),
            code: e.code.as_str().into(),
            retry_after: e.details.get("retry_after").and_then(|v| v.as_f64()).map(|s| s.ceil() as u64),
        }
    }
}

/// A turn's events as its transports read them: they end with the terminal event (`complete`
/// or `error`), without waiting for the turn's task to let go of its sender, so a connection
/// writes the terminal event and the end of its body at once.
pub struct TurnEvents {
    rx: mpsc::Receiver<ChatEvent>,
    ended: bool,
}

impl TurnEvents {
    pub(super) fn new(rx: mpsc::Receiver<ChatEvent>) -> Self {
        TurnEvents { rx, ended: false }
    }
}

impl Stream for TurnEvents {
    type Item = ChatEvent;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<ChatEvent>> {
        if self.ended {
            return Poll::Ready(None);
        }
        let next = self.rx.poll_recv(cx);
        if let Poll::Ready(Some(e)) = &next {
            self.ended = e.kind.is_terminal();
        }
        next
    }
}

/// Numbers events, keeps chunk progress from going back, and remembers what the answer said.
/// A client that went away does not stop the turn: sends to it are dropped.
pub(crate) struct Sender {
    tx: mpsc::Sender<ChatEvent>,
    seq: u64,
    progress: f64,
    /// The chunks sent, joined: the stored answer.
    pub answer: String,
}

impl Sender {
    pub fn new(tx: mpsc::Sender<ChatEvent>) -> Self {
        Sender { tx, seq: 0, progress: 0.0, answer: String::new() }
    }

    /// Sends without waiting: for the first event, into a channel known to have room.
    pub fn send_now(&mut self, kind: ChatEventKind) {
        self.seq += 1;
        let _ = self.tx.try_send(ChatEvent { seq: self.seq, kind });
    }

    pub async fn send(&mut self, kind: ChatEventKind) {
        self.seq += 1;
        let _ = self.tx.send(ChatEvent { seq: self.seq, kind }).await;
    }

    /// Sends a piece of the answer at `progress` (raised to the last progress sent, capped at 100).
    /// Empty content only moves the progress on.
    pub async fn chunk(&mut self, content: String, progress: f64) {
        self.progress = progress.clamp(self.progress, 100.0);
        if content.trim().is_empty() {
            return;
        }
        if !self.answer.is_empty() {
            self.answer.push_str("\n\n");
        }
        self.answer.push_str(&content);
        let progress = (self.progress * 10.0).round() / 10.0;
        self.send(ChatEventKind::Chunk { content, progress, continues: false }).await;
    }

    /// Sends a piece of streamed text as it is (spaces kept): a new paragraph when `starts`,
    /// else the continuation of the last piece.
    pub async fn piece(&mut self, content: String, progress: f64, starts: bool) {
        self.progress = progress.clamp(self.progress, 100.0);
        if content.is_empty() {
            return;
        }
        if starts && !self.answer.is_empty() {
            self.answer.push_str("\n\n");
        }
        self.answer.push_str(&content);
        let progress = (self.progress * 10.0).round() / 10.0;
        self.send(ChatEventKind::Chunk { content, progress, continues: !starts }).await;
    }

    /// The progress reached so far.
    pub fn progress(&self) -> f64 {
        self.progress
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn chunks_never_go_back_in_progress_and_the_type_names_the_event() {
        let (tx, mut rx) = mpsc::channel(8);
        let mut s = Sender::new(tx);
        s.chunk("a".into(), 40.0).await;
        s.chunk("b".into(), 20.0).await;
        s.chunk("   ".into(), 90.0).await;
        s.chunk("c".into(), 140.0).await;
        let mut got = Vec::new();
        while let Ok(e) = rx.try_recv() {
            got.push(e);
        }
        let progress: Vec<f64> = got
            .iter()
            .map(|e| match e.kind {
                ChatEventKind::Chunk { progress, .. } => progress,
                _ => -1.0,
            })
            .collect();
        assert_eq!(progress, [40.0, 40.0, 100.0], "the empty chunk moved progress to 90 without being sent");
        assert_eq!(got.iter().map(|e| e.seq).collect::<Vec<_>>(), [1, 2, 3]);
        assert_eq!(s.answer, "a\n\nb\n\nc");
        let json = serde_json::to_value(&got[0]).unwrap();
        assert_eq!(json["type"], "chunk");
        assert_eq!(json["content"], "a");
        assert_eq!(json, serde_json::to_value(&got[0].kind).unwrap(), "an event's JSON is its kind's");
    }
}
