//! Chat history: sessions (keyed by id), their messages (keyed by session id, a 0 byte, the
//! timestamp in big-endian microseconds and the message's UUID v7, so one prefix scan returns a
//! session's messages in the history's order: timestamp, then id) and an owner index (owner
//! UUID then session id) so a user's sessions are one prefix scan; anonymous sessions, read
//! only by their id, have no entry there.
//!
//! A turn's question and answer are one record, under the question's key: one write instead of
//! two (each write to the store costs a chat turn about a fiftieth of its server time). A
//! session's messages are read back one by one and put in the history's order (an answer
//! stored with its question may come after a question another turn asked meanwhile).

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::codec::{decode_one_or_many, json_of};
use super::{StorageError, Store, get, put, update};
use crate::domain::chat::{ChatMessage, ChatSession, ChatSessionId};

fn prefix(session: &ChatSessionId) -> Vec<u8> {
    let mut key = session.as_str().as_bytes().to_vec();
    key.push(0);
    key
}

fn message_key(m: &ChatMessage) -> Vec<u8> {
    let mut key = prefix(&m.session_id);
    // Offset so that timestamps before 1970 still sort (they never occur, but keys must order).
    let micros = (m.timestamp.timestamp_micros() as i128 - i64::MIN as i128) as u64;
    key.extend_from_slice(&micros.to_be_bytes());
    key.extend_from_slice(m.id.as_bytes());
    key
}

fn owner_key(owner: Uuid, session: &ChatSessionId) -> Vec<u8> {
    let mut key = owner.as_bytes().to_vec();
    key.extend_from_slice(session.as_str().as_bytes());
    key
}

/// Whether a turn's session may be stored already.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SessionIs {
    /// Its id was just made by the server: no stored session has it.
    New,
    /// Named by the client: stored already, unless this is its first turn.
    Named,
}

impl Store {
    /// Appends a message to its session, creating the session (owned by `owner`, nil for
    /// anonymous) on its first message. Returns the session as written.
    pub fn append_chat_message(
        &self,
        owner: Uuid,
        session: SessionIs,
        message: &ChatMessage,
    ) -> Result<ChatSession, StorageError> {
        self.append_chat_messages(owner, session, message, None, |_| {})
    }

    /// Appends `first` and `then` (a turn's question and answer) to their session and changes
    /// the session once for both (its count, its last activity and what `change` does: the
    /// memory the answer leaves), so a turn writes its session once. A session that does not
    /// exist is begun by `first`, owned by `owner`; a [`SessionIs::New`] one is written without
    /// being read. Returns the session as written.
    pub fn append_chat_messages(
        &self,
        owner: Uuid,
        session: SessionIs,
        first: &ChatMessage,
        then: Option<&ChatMessage>,
        mut change: impl FnMut(&mut ChatSession),
    ) -> Result<ChatSession, StorageError> {
        let messages = || std::iter::once(first).chain(then);
        match then {
            None => put(&self.chat_messages, message_key(first), first)?,
            Some(then) => {
                debug_assert_eq!(then.session_id, first.session_id, "messages of one session");
                put(&self.chat_messages, message_key(first), &[first, then])?;
            }
        }
        let mut changed = |mut s: ChatSession| {
            for m in messages() {
                s.message_count += 1;
                s.updated_at = s.updated_at.max(m.timestamp);
            }
            change(&mut s);
            s
        };
        let key = first.session_id.as_str().as_bytes();
        let (session, created) = match session {
            SessionIs::New => {
                let s = changed(ChatSession::new(first, owner));
                put(&self.chat_sessions, key, &s)?;
                (s, true)
            }
            SessionIs::Named => {
                let mut created = false;
                let written = update(&self.chat_sessions, key, |current| {
                    created = current.is_none();
                    Some(changed(current.unwrap_or_else(|| ChatSession::new(first, owner))))
                })?;
                (written.ok_or(StorageError::Closed)?, created)
            }
        };
        // Anonymous sessions (the nil owner) are read by their id only, never listed.
        if created && !session.owner.is_nil() {
            self.chat_by_owner.insert(owner_key(session.owner, &session.id), &[])?;
        }
        Ok(session)
    }

    /// One session.
    pub fn chat_session(&self, id: &ChatSessionId) -> Result<Option<ChatSession>, StorageError> {
        get(&self.chat_sessions, id.as_str().as_bytes())
    }

    /// Atomically changes a session (memory, read marker); returns what was written.
    pub fn update_chat_session(
        &self,
        id: &ChatSessionId,
        f: impl FnMut(Option<ChatSession>) -> Option<ChatSession>,
    ) -> Result<Option<ChatSession>, StorageError> {
        update(&self.chat_sessions, id.as_str().as_bytes(), f)
    }

    /// A session's messages, oldest first (timestamp, then id).
    pub fn chat_messages(&self, id: &ChatSessionId) -> Result<Vec<ChatMessage>, StorageError> {
        let mut out: Vec<ChatMessage> = Vec::new();
        for value in self.chat_messages.scan_prefix(prefix(id)).values() {
            // A record holds one message, or a turn's question and answer (a JSON array).
            decode_one_or_many(&json_of(&value?)?, &mut out)?;
        }
        out.sort_by(|a, b| (a.timestamp, &a.id).cmp(&(b.timestamp, &b.id)));
        Ok(out)
    }

    /// The sessions `owner` started, most recently active first.
    pub fn chat_sessions_of(&self, owner: Uuid) -> Result<Vec<ChatSession>, StorageError> {
        let mut out = Vec::new();
        for key in self.chat_by_owner.scan_prefix(owner.as_bytes()).keys() {
            let key = key?;
            let id = String::from_utf8_lossy(&key[16..]).into_owned();
            if let Some(s) = get::<ChatSession>(&self.chat_sessions, id.as_bytes())? {
                out.push(s);
            }
        }
        out.sort_by(|a, b| b.updated_at.cmp(&a.updated_at).then_with(|| a.id.cmp(&b.id)));
        Ok(out)
    }

    /// Removes the sessions inactive since before `before`, with their messages; returns how
    /// many sessions went.
    pub fn prune_chat(&self, before: DateTime<Utc>) -> Result<usize, StorageError> {
        let mut removed = 0;
        for kv in self.chat_sessions.iter() {
            let (key, value) = kv?;
            let s: ChatSession = super::decode(&value)?;
            if s.updated_at >= before {
                continue;
            }
            for k in self.chat_messages.scan_prefix(prefix(&s.id)).keys() {
                self.chat_messages.remove(k?)?;
            }
            self.chat_by_owner.remove(owner_key(s.owner, &s.id))?;
            self.chat_sessions.remove(key)?;
            removed += 1;
        }
        Ok(removed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::chat::ChatRole;

    #[test]
    fn messages_come_back_in_time_order_and_sessions_are_listed_per_owner() {
        let store = Store::temporary().unwrap();
        let owner = Uuid::now_v7();
        let sid = ChatSessionId::parse("s1").unwrap();
        // "s1" must not capture the messages of "s10" (the 0 byte ends the prefix).
        let other = ChatSessionId::parse("s10").unwrap();
        for k in 0..5 {
            let m = ChatMessage::new(
                sid.clone(),
                if k % 2 == 0 { ChatRole::User } else { ChatRole::Assistant },
                format!("m{k}"),
            );
            store.append_chat_message(owner, SessionIs::Named, &m).unwrap();
        }
        store
            .append_chat_message(
                Uuid::nil(),
                SessionIs::New,
                &ChatMessage::new(other.clone(), ChatRole::User, "x".into()),
            )
            .unwrap();
        let msgs = store.chat_messages(&sid).unwrap();
        assert_eq!(msgs.iter().map(|m| m.content.as_str()).collect::<Vec<_>>(), ["m0", "m1", "m2", "m3", "m4"]);
        let s = store.chat_session(&sid).unwrap().unwrap();
        assert_eq!((s.message_count, s.owner, s.title.as_str()), (5, owner, "m0"));
        assert_eq!(store.chat_sessions_of(owner).unwrap().len(), 1);
        assert!(store.chat_sessions_of(Uuid::nil()).unwrap().is_empty(), "anonymous sessions are not listed");
        assert_eq!(store.chat_session(&other).unwrap().map(|s| s.owner), Some(Uuid::nil()));
        assert_eq!(store.prune_chat(Utc::now() + chrono::Duration::seconds(1)).unwrap(), 2);
        assert!(store.chat_messages(&sid).unwrap().is_empty());
    }

    #[test]
    fn a_turns_question_and_answer_make_one_session_begun_at_the_question() {
        let store = Store::temporary().unwrap();
        let owner = Uuid::now_v7();
        let sid = ChatSessionId::new();
        let question = ChatMessage::new(sid.clone(), ChatRole::User, "quem mais recebeu?".into());
        let answer = ChatMessage::new(sid.clone(), ChatRole::Assistant, "a Alfa".into());
        let s = store
            .append_chat_messages(owner, SessionIs::New, &question, Some(&answer), |s| {
                s.title.push_str(" (changed once)")
            })
            .unwrap();
        assert_eq!(s.message_count, 2);
        assert_eq!((s.created_at, s.updated_at), (question.timestamp, answer.timestamp));
        assert_eq!(s.title, "quem mais recebeu? (changed once)");
        assert_eq!(store.chat_messages(&sid).unwrap(), vec![question, answer]);
        assert_eq!(store.chat_sessions_of(owner).unwrap().len(), 1, "listed for its owner");
    }

    #[test]
    fn a_turns_question_and_answer_are_one_record_and_read_back_in_order_among_other_turns() {
        let store = Store::temporary().unwrap();
        let sid = ChatSessionId::new();
        let ask = |text: &str| ChatMessage::new(sid.clone(), ChatRole::User, text.into());
        let (q1, q2) = (ask("primeira"), ask("segunda, enquanto a primeira corre"));
        let (a2, a1) = (ask("resposta à segunda"), ask("resposta à primeira"));
        store.append_chat_messages(Uuid::nil(), SessionIs::New, &q1, Some(&a1), |_| {}).unwrap();
        store.append_chat_messages(Uuid::nil(), SessionIs::Named, &q2, Some(&a2), |_| {}).unwrap();
        assert_eq!(store.chat_messages.len(), 2, "one record per turn");
        assert_eq!(store.chat_messages(&sid).unwrap(), vec![q1, q2, a2, a1], "timestamp order");
        assert_eq!(store.chat_session(&sid).unwrap().map(|s| s.message_count), Some(4));
    }
}
