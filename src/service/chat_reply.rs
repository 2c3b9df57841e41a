//! A chat turn answered as one message: the turn's events (see [`super::chat::ChatService::turn`])
//! folded into the stored assistant message they describe, for transports that answer a turn
//! with one document rather than a stream (`/chat/message`, `stream: false`, GraphQL
//! `sendChatMessage`).

use std::sync::Arc;

use futures::StreamExt;

use super::chat::events::Phrasing;
use super::chat::{Caller, ChatEventKind, ChatRequest, ChatService};
use crate::error::{Error, ErrorCode, Result};

/// The assistant's answer to one turn.
#[derive(Debug, Clone, Default)]
pub struct ChatReply {
    /// The conversation.
    pub session_id: String,
    /// The stored assistant message's id.
    pub message_id: String,
    /// The stored user message's id.
    pub user_message_id: String,
    /// The agent that answered.
    pub agent: String,
    /// `completed`.
    pub status: String,
    /// The answer's text (its chunks, Markdown, joined by blank lines).
    pub content: String,
    /// Anomalies behind the answer.
    pub anomalies: usize,
    /// Confidence of the answer, 0-1.
    pub confidence: f64,
    /// The investigation the turn started, if any.
    pub investigation_id: Option<String>,
    /// How the router chose the agent (absent when the client named it).
    pub routing: Option<ReplyRouting>,
    /// How the closing summary was phrased (only with a language model configured).
    pub phrasing: Option<Phrasing>,
}

/// The router's choice, as the turn's `agent_selected` event gave it.
#[derive(Debug, Clone, Default)]
pub struct ReplyRouting {
    /// The agent chosen.
    pub agent: String,
    /// Why, in the user's language.
    pub reason: String,
    /// The intent recognised.
    pub intent: String,
    /// The router's confidence, 0-1.
    pub confidence: f64,
}

impl ChatService {
    /// Runs one turn to its end and returns the stored answer, or the turn's error (its code
    /// as the stream reports it; `retry_after` kept for rate limits).
    pub async fn reply(self: &Arc<Self>, req: ChatRequest, caller: Caller) -> Result<ChatReply> {
        let mut events = self.turn(req, caller);
        let mut reply = ChatReply::default();
        let mut chunks: Vec<String> = Vec::new();
        while let Some(e) = events.next().await {
            match e.kind {
                ChatEventKind::AgentSelected { agent, reason, intent, confidence } => {
                    reply.routing = Some(ReplyRouting { agent, reason, intent, confidence });
                }
                ChatEventKind::Chunk { content, continues: true, .. } if !chunks.is_empty() => {
                    chunks.last_mut().into_iter().for_each(|last| last.push_str(&content));
                }
                ChatEventKind::Chunk { content, .. } => chunks.push(content),
                ChatEventKind::Complete {
                    status,
                    anomalies,
                    confidence,
                    investigation_id,
                    session_id,
                    message_id,
                    user_message_id,
                    agent,
                    phrasing,
                } => {
                    return Ok(ChatReply {
                        session_id,
                        message_id,
                        user_message_id,
                        agent,
                        status,
                        content: chunks.join("\n\n"),
                        anomalies,
                        confidence,
                        investigation_id,
                        phrasing,
                        ..reply
                    });
                }
                ChatEventKind::Error { message, code, retry_after, .. } => {
                    let code = ErrorCode::parse(&code).unwrap_or(ErrorCode::ServiceUnavailable);
                    let err = Error::new(code, message);
                    return Err(match retry_after {
                        Some(secs) => err.with("retry_after", secs),
                        None => err,
                    });
                }
                ChatEventKind::Start { .. } | ChatEventKind::Thinking { .. } => {}
            }
        }
        Err(Error::new(ErrorCode::ServiceUnavailable, "the answer was interrupted (the server is stopping)"))
    }
}
