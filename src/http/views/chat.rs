//! How the chat routes answer in JSON: a turn as one document, the caller's conversations and
//! a page of one conversation's history. Typed so the OpenAPI document derives their schemas;
//! the keys are the ones the routes answered before they were typed.

use chrono::{DateTime, Utc};
use serde::Serialize;
use utoipa::ToSchema;

use crate::domain::chat::{ChatRole, ChatSession};
use crate::domain::cursor::Direction;
use crate::service::chat::history::{HistoryItem, HistoryMetadata, HistoryPage};

/// How automatic routing chose the agent that answered.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ChatRouting {
    /// The agent's id.
    pub agent: String,
    /// Why, in the user's language.
    pub reason: String,
    /// The intent recognised.
    pub intent: String,
    /// The router's confidence, 0-1.
    pub confidence: f64,
}

/// A turn answered as one document (`/chat/message`, or `/chat/stream` with `stream: false`).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ChatAnswer {
    /// The conversation (new when the request named none).
    pub session_id: String,
    /// Present when the agent was chosen automatically.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub routing: Option<ChatRouting>,
    /// `completed`.
    pub status: String,
    /// The stored assistant message's id.
    pub message_id: String,
    /// The agent that answered.
    pub agent: String,
    /// Anomalies behind the answer.
    pub anomalies: usize,
    /// Confidence of the answer, 0-1.
    pub confidence: f64,
    /// The investigation the turn started, if any.
    pub investigation_id: Option<String>,
    /// `assistant`.
    pub role: ChatRole,
    /// The answer's text (Markdown), its chunks joined by blank lines.
    pub content: String,
    /// How the closing summary was phrased; present only with a language model configured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phrasing: Option<crate::service::chat::events::Phrasing>,
}

/// One of the caller's conversations.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ChatSessionView {
    /// Its id.
    pub session_id: String,
    /// The first user message, shortened.
    pub title: String,
    /// When its first message arrived.
    pub created_at: DateTime<Utc>,
    /// When its last message arrived.
    pub updated_at: DateTime<Utc>,
    /// Messages stored.
    pub message_count: usize,
}

/// The caller's conversations, most recently active first.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ChatSessions {
    /// The conversations.
    pub sessions: Vec<ChatSessionView>,
    /// How many.
    pub total: usize,
}

/// The caller's conversations as listed.
pub fn sessions(list: &[ChatSession]) -> ChatSessions {
    let sessions: Vec<ChatSessionView> = list
        .iter()
        .map(|s| ChatSessionView {
            session_id: s.id.to_string(),
            title: s.title.clone(),
            created_at: s.created_at,
            updated_at: s.updated_at,
            message_count: s.message_count,
        })
        .collect();
    ChatSessions { total: sessions.len(), sessions }
}

/// A message of a history page.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ChatHistoryItem {
    /// Message id.
    pub id: String,
    /// `user` or `assistant`.
    pub role: ChatRole,
    /// Text.
    pub content: String,
    /// When.
    pub timestamp: DateTime<Utc>,
    /// The agent that answered (assistant messages).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The investigation the answer started.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub investigation_id: Option<String>,
}

/// A history page's metadata.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ChatHistoryMetadata {
    /// Items asked for.
    pub page_size: usize,
    /// `next` or `prev`.
    pub direction: Direction,
    /// The conversation.
    pub session_id: String,
    /// Timestamp of the conversation's first message.
    pub oldest_message: Option<DateTime<Utc>>,
    /// Timestamp of its last message.
    pub newest_message: Option<DateTime<Utc>>,
    /// Assistant messages no earlier page showed.
    pub unread_count: usize,
}

/// A cursor page of one conversation, oldest message first.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ChatHistoryPage {
    /// The messages, oldest first.
    pub items: Vec<ChatHistoryItem>,
    /// Where newer messages continue.
    pub next_cursor: Option<String>,
    /// Where older messages continue.
    pub prev_cursor: Option<String>,
    /// More messages in the page's direction.
    pub has_more: bool,
    /// Messages in the conversation.
    pub total_items: usize,
    /// Page size, direction, conversation, first and last message, unread answers.
    pub metadata: ChatHistoryMetadata,
}

impl From<HistoryItem> for ChatHistoryItem {
    fn from(i: HistoryItem) -> Self {
        let HistoryItem { id, role, content, timestamp, agent, investigation_id } = i;
        ChatHistoryItem { id, role, content, timestamp, agent, investigation_id }
    }
}

impl From<HistoryMetadata> for ChatHistoryMetadata {
    fn from(m: HistoryMetadata) -> Self {
        let HistoryMetadata { page_size, direction, session_id, oldest_message, newest_message, unread_count } = m;
        ChatHistoryMetadata { page_size, direction, session_id, oldest_message, newest_message, unread_count }
    }
}

impl From<HistoryPage> for ChatHistoryPage {
    fn from(p: HistoryPage) -> Self {
        let HistoryPage { items, next_cursor, prev_cursor, has_more, total_items, metadata } = p;
        ChatHistoryPage {
            items: items.into_iter().map(Into::into).collect(),
            next_cursor,
            prev_cursor,
            has_more,
            total_items,
            metadata: metadata.into(),
        }
    }
}
