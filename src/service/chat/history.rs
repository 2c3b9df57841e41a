//! Chat history: the caller's sessions, and a session's messages in cursor pages (timestamp
//! then id, newest last; see [`crate::domain::cursor`]). A session is readable by its owner
//! (and admins); an anonymous session by anyone holding its id. `unread_count` counts the
//! assistant messages newer than the newest message any earlier page showed; a page that
//! shows the newest message marks the session read.

use serde::Serialize;

use super::ChatService;
use crate::domain::Principal;
use crate::domain::chat::{ChatMessage, ChatRole, ChatSession, ChatSessionId};
use crate::domain::cursor::{self, Cursor, CursorPage, Direction};
use crate::domain::user::unauthenticated;
use crate::error::{Error, ErrorCode, Result};

/// Page size bounds of the history.
pub const MAX_PAGE: usize = 100;

/// One page of a session's history with the spec's metadata.
#[derive(Debug, Clone, Serialize)]
pub struct HistoryPage {
    /// The messages, oldest first.
    pub items: Vec<HistoryItem>,
    /// Where newer messages continue.
    pub next_cursor: Option<String>,
    /// Where older messages continue.
    pub prev_cursor: Option<String>,
    /// More messages in the page's direction.
    pub has_more: bool,
    /// Messages in the session.
    pub total_items: usize,
    /// `{page_size, direction, session_id, oldest_message, newest_message, unread_count}`.
    pub metadata: HistoryMetadata,
}

/// A history item (the spec's fields plus the agent and investigation of answers).
#[derive(Debug, Clone, Serialize)]
pub struct HistoryItem {
    /// Message id.
    pub id: String,
    /// `user` or `assistant`.
    pub role: ChatRole,
    /// Text.
    pub content: String,
    /// When.
    pub timestamp: chrono::DateTime<chrono::Utc>,
    /// The agent that answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The investigation the answer started.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub investigation_id: Option<String>,
}

impl From<ChatMessage> for HistoryItem {
    fn from(m: ChatMessage) -> Self {
        HistoryItem {
            id: m.id,
            role: m.role,
            content: m.content,
            timestamp: m.timestamp,
            agent: m.agent,
            investigation_id: m.investigation_id,
        }
    }
}

/// The page's metadata.
#[derive(Debug, Clone, Serialize)]
pub struct HistoryMetadata {
    /// Items asked for.
    pub page_size: usize,
    /// `next` or `prev`.
    pub direction: Direction,
    /// The session.
    pub session_id: String,
    /// Timestamp of the session's first message.
    pub oldest_message: Option<chrono::DateTime<chrono::Utc>>,
    /// Timestamp of its last message.
    pub newest_message: Option<chrono::DateTime<chrono::Utc>>,
    /// Assistant messages no earlier page showed.
    pub unread_count: usize,
}

impl ChatService {
    /// The sessions of the signed-in caller, most recently active first. Anonymous sessions
    /// have no owner to list them by: they are reachable only by their id.
    pub fn sessions(&self, viewer: Option<&Principal>) -> Result<Vec<ChatSession>> {
        let p = viewer.ok_or_else(|| {
            unauthenticated().with("reason", "sign in to list your conversations; an anonymous one is read by its id")
        })?;
        self.store.chat_sessions_of(p.user_id.0).map_err(Error::internal)
    }

    /// A page of a session's history.
    pub fn history(
        &self,
        session: &str,
        cursor: Option<&str>,
        direction: Direction,
        limit: usize,
        viewer: Option<&Principal>,
    ) -> Result<HistoryPage> {
        if !(1..=MAX_PAGE).contains(&limit) {
            return Err(Error::validation("limit", format!("between 1 and {MAX_PAGE}")));
        }
        let cursor = match cursor.filter(|c| !c.is_empty()) {
            Some(c) => {
                Some(Cursor::decode(c).ok_or_else(|| Error::validation("cursor", "not a cursor this service wrote"))?)
            }
            None => None,
        };
        let id = ChatSessionId::parse(session)?;
        let not_found =
            || Error::new(ErrorCode::ResourceNotFound, format!("no conversation '{session}'")).with("id", session);
        let s = self.store.chat_session(&id).map_err(Error::internal)?.ok_or_else(not_found)?;
        if !s.visible_to(viewer) {
            return Err(not_found());
        }
        let messages = self.store.chat_messages(&id).map_err(Error::internal)?;
        let page: CursorPage<ChatMessage> =
            cursor::page(&messages, ChatMessage::key, cursor.as_ref(), direction, limit);
        let unread = messages
            .iter()
            .filter(|m| m.role == ChatRole::Assistant && s.read_upto.as_ref().is_none_or(|r| m.key() > *r))
            .count();
        if let (Some(last), Some(newest)) = (page.items.last(), messages.last())
            && last.id == newest.id
            && s.read_upto.as_ref() != Some(&newest.key())
        {
            let mark = newest.key();
            let _ = self.store.update_chat_session(&id, |cur| {
                cur.map(|mut c| {
                    c.read_upto = Some(mark.clone());
                    c
                })
            });
        }
        Ok(HistoryPage {
            next_cursor: page.next_cursor,
            prev_cursor: page.prev_cursor,
            has_more: page.has_more,
            total_items: page.total_items,
            metadata: HistoryMetadata {
                page_size: limit,
                direction: page.direction,
                session_id: id.to_string(),
                oldest_message: messages.first().map(|m| m.timestamp),
                newest_message: messages.last().map(|m| m.timestamp),
                unread_count: unread,
            },
            items: page.items.into_iter().map(HistoryItem::from).collect(),
        })
    }
}
