//! Chat conversations: a session (owned by a user, or anonymous and reachable only by its id),
//! its messages with server-assigned ids, and the session id clients may choose.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::error::{Error, ErrorCode};

/// Longest message a user may send, in characters.
pub const MAX_MESSAGE_CHARS: usize = 4000;

/// A chat session id: chosen by the client (1-128 characters of letters, digits, `-`, `_`,
/// `.`, `:`) or assigned by the server (a UUID).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ChatSessionId(String);

impl ChatSessionId {
    /// A fresh server-assigned id: a UUID v7 whose 74 bits after the millisecond timestamp are
    /// all random (`Uuid::now_v7` spends some of them on a counter). Anyone holding an
    /// anonymous session's id may read it, so the id must not be guessable from another; and
    /// ids that sort by creation put a new session's records at the end of the store's trees,
    /// where the pages are already in memory, not on a random page of a large tree that the
    /// store must read back from disk first (a random UUID v4 did that on every new turn).
    pub fn new() -> Self {
        let millis = Utc::now().timestamp_millis().max(0) as u64;
        // A v4 UUID's bytes 6 and 8 carry its version and variant: the other ten are random.
        let random = Uuid::new_v4().into_bytes();
        let mut tail = [0u8; 10];
        tail[..6].copy_from_slice(&random[..6]);
        tail[6..].copy_from_slice(&random[9..13]);
        ChatSessionId(uuid::Builder::from_unix_timestamp_millis(millis, &tail).into_uuid().to_string())
    }

    /// Parses a client-chosen id; VALIDATION_ERROR naming `session_id` otherwise.
    pub fn parse(s: &str) -> Result<Self, Error> {
        let ok = !s.is_empty()
            && s.len() <= 128
            && s.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'));
        if ok {
            Ok(ChatSessionId(s.to_string()))
        } else {
            Err(Error::validation("session_id", "1-128 characters: letters, digits, '-', '_', '.', ':'"))
        }
    }

    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Default for ChatSessionId {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Display for ChatSessionId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ChatRole {
    /// The person asking.
    User,
    /// Vigia's answer.
    Assistant,
}

/// One stored message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatMessage {
    /// Server-assigned, time-ordered (UUID v7).
    pub id: String,
    /// Its session.
    pub session_id: ChatSessionId,
    /// Who wrote it.
    pub role: ChatRole,
    /// The text.
    pub content: String,
    /// When it was written.
    pub timestamp: DateTime<Utc>,
    /// The agent that answered (assistant messages).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The investigation the answer started, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub investigation_id: Option<String>,
}

impl ChatMessage {
    /// A new message stamped now.
    pub fn new(session_id: ChatSessionId, role: ChatRole, content: String) -> Self {
        ChatMessage {
            id: Uuid::now_v7().to_string(),
            session_id,
            role,
            content,
            timestamp: Utc::now(),
            agent: None,
            investigation_id: None,
        }
    }

    /// The cursor key: timestamp, then id.
    pub fn key(&self) -> (DateTime<Utc>, String) {
        (self.timestamp, self.id.clone())
    }
}

/// A conversation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatSession {
    /// Its id.
    pub id: ChatSessionId,
    /// The signed-in user who owns it; nil for an anonymous session.
    pub owner: Uuid,
    /// When its first message arrived.
    pub created_at: DateTime<Utc>,
    /// When its last message arrived.
    pub updated_at: DateTime<Utc>,
    /// The first user message, shortened: a title for session lists.
    pub title: String,
    /// Messages stored.
    pub message_count: usize,
    /// The newest message a history page has shown (timestamp, id): later assistant messages
    /// are unread.
    #[serde(default)]
    pub read_upto: Option<(DateTime<Utc>, String)>,
    /// What the memory agent (nana) keeps between turns, as it wrote it.
    #[serde(default)]
    pub memory: MemoryJson,
}

/// nana's memory of a session as the JSON text it was written as (`null` before the first
/// answer). Kept as text, not as a tree of values: a turn writes it with its answer and reads it
/// back at the next turn, and building, copying and dropping a tree each time cost a tenth of
/// a chat investigation turn's own work. Stored inline in the session's record as before.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(transparent)]
pub struct MemoryJson(Box<serde_json::value::RawValue>);

impl MemoryJson {
    /// The memory `value` as JSON text.
    pub fn of<T: Serialize>(value: &T) -> Result<MemoryJson, serde_json::Error> {
        serde_json::value::to_raw_value(value).map(MemoryJson)
    }

    /// The memory read back, if it is one of `T` (`null` and other shapes are not).
    pub fn read<T: serde::de::DeserializeOwned>(&self) -> Option<T> {
        serde_json::from_str(self.0.get()).ok()
    }

    /// The JSON text.
    pub fn as_str(&self) -> &str {
        self.0.get()
    }
}

impl Default for MemoryJson {
    fn default() -> Self {
        MemoryJson(serde_json::value::RawValue::NULL.to_owned())
    }
}

impl PartialEq for MemoryJson {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl ChatSession {
    /// A new session owned by `owner` (nil: anonymous), begun by its first message: its id,
    /// its time and (shortened) its title.
    pub fn new(first: &ChatMessage, owner: Uuid) -> Self {
        let mut title: String = first.content.chars().take(80).collect();
        if first.content.chars().count() > 80 {
            title.push('…');
        }
        ChatSession {
            id: first.session_id.clone(),
            owner,
            created_at: first.timestamp,
            updated_at: first.timestamp,
            title,
            message_count: 0,
            read_upto: None,
            memory: MemoryJson::default(),
        }
    }

    /// Whether `viewer` (None: anonymous) may read it: its owner, an admin, or anyone holding
    /// the id of an anonymous session.
    pub fn visible_to(&self, viewer: Option<&crate::domain::Principal>) -> bool {
        self.owner.is_nil() || viewer.is_some_and(|p| p.user_id.0 == self.owner || p.is_admin())
    }
}

/// Checks a user's message: not blank, at most [`MAX_MESSAGE_CHARS`].
pub fn validate_message(message: &str) -> Result<(), Error> {
    if message.trim().is_empty() {
        return Err(Error::validation("message", "must not be empty"));
    }
    let n = message.chars().count();
    if n > MAX_MESSAGE_CHARS {
        return Err(Error::new(
            ErrorCode::Validation,
            format!("message has {n} characters; at most {MAX_MESSAGE_CHARS}"),
        )
        .with("field", "message")
        .with("reason", "too long")
        .with("max_length", MAX_MESSAGE_CHARS));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_keeps_its_memory_as_written_and_reads_records_with_or_without_one() {
        let first = ChatMessage::new(ChatSessionId::new(), ChatRole::User, "olá".into());
        let mut s = ChatSession::new(&first, Uuid::nil());
        assert_eq!(s.memory.as_str(), "null");
        assert_eq!(s.memory.read::<std::collections::BTreeMap<String, u32>>(), None);
        s.memory = MemoryJson::of(&serde_json::json!({"turns": 2, "language": "pt"})).unwrap();
        let stored = serde_json::to_string(&s).unwrap();
        assert!(stored.contains(r#""memory":{"language":"pt","turns":2}"#), "inline, as before: {stored}");
        let back: ChatSession = serde_json::from_str(&stored).unwrap();
        assert_eq!(back, s);
        assert_eq!(back.memory.read::<serde_json::Value>().unwrap()["turns"], 2);
        // A record written before the field existed, and one with a null memory.
        let mut old: serde_json::Value = serde_json::from_str(&stored).unwrap();
        old.as_object_mut().unwrap().remove("memory");
        let without: ChatSession = serde_json::from_value(old.clone()).unwrap();
        assert_eq!(without.memory, MemoryJson::default());
        old["memory"] = serde_json::Value::Null;
        let null: ChatSession = serde_json::from_slice(&serde_json::to_vec(&old).unwrap()).unwrap();
        assert_eq!(null.memory.as_str(), "null");
    }

    #[test]
    fn client_session_ids_are_checked_and_server_ids_are_uuids() {
        assert!(ChatSessionId::parse("abc-123_x.y:z").is_ok());
        assert!(ChatSessionId::parse("").is_err());
        assert!(ChatSessionId::parse("has space").is_err());
        assert!(ChatSessionId::parse(&"a".repeat(129)).is_err());
        assert!(Uuid::parse_str(ChatSessionId::new().as_str()).is_ok());
    }

    #[test]
    fn server_session_ids_sort_by_creation_and_are_not_guessable_from_each_other() {
        let ids: Vec<ChatSessionId> = (0..64)
            .map(|k| {
                if k % 16 == 15 {
                    std::thread::sleep(std::time::Duration::from_millis(2));
                }
                ChatSessionId::new()
            })
            .collect();
        let uuids: Vec<Uuid> = ids.iter().map(|i| Uuid::parse_str(i.as_str()).unwrap()).collect();
        assert!(uuids.iter().all(|u| u.get_version_num() == 7));
        let millis = |u: &Uuid| {
            let (secs, nanos) = u.get_timestamp().unwrap().to_unix();
            secs * 1000 + u64::from(nanos) / 1_000_000
        };
        assert!(uuids.windows(2).all(|w| millis(&w[0]) <= millis(&w[1])), "creation order");
        let later = (0..ids.len()).find(|&k| millis(&uuids[k]) > millis(&uuids[0])).unwrap();
        assert!(ids[0] < ids[later], "a later millisecond sorts after");
        // Within one millisecond nothing is a counter: the random tails differ everywhere.
        let tails: std::collections::HashSet<[u8; 8]> =
            uuids.iter().map(|u| u.as_bytes()[8..].try_into().unwrap()).collect();
        assert_eq!(tails.len(), uuids.len());
        let lows: std::collections::HashSet<u8> = uuids.iter().map(|u| u.as_bytes()[15]).collect();
        assert!(lows.len() > 16, "the last byte varies like a random one, not like a counter");
    }

    #[test]
    fn blank_and_over_long_messages_are_refused() {
        assert!(validate_message("  \n").is_err());
        assert!(validate_message(&"a".repeat(MAX_MESSAGE_CHARS + 1)).is_err());
        assert!(validate_message("contratos da saúde em 2024").is_ok());
    }
}
