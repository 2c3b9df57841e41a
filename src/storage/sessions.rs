//! Login sessions (keyed by user id then session id, so a user's sessions are one prefix scan
//! in creation order), revoked token ids (with their expiry, so they can be purged), and
//! failed-login records by e-mail.

use chrono::{DateTime, Utc};
use uuid::Uuid;

use super::{StorageError, Store, get, put, scan, update};
use crate::domain::{Email, LoginAttempts, Session, UserId};

fn session_key(user: UserId, sid: Uuid) -> [u8; 32] {
    let mut key = [0u8; 32];
    key[..16].copy_from_slice(user.0.as_bytes());
    key[16..].copy_from_slice(sid.as_bytes());
    key
}

impl Store {
    /// Inserts or replaces a session.
    pub fn put_session(&self, s: &Session) -> Result<(), StorageError> {
        put(&self.sessions, session_key(s.user_id, s.id), s)
    }

    /// One session.
    pub fn session(&self, user: UserId, sid: Uuid) -> Result<Option<Session>, StorageError> {
        get(&self.sessions, session_key(user, sid))
    }

    /// A user's sessions, oldest first.
    pub fn sessions_of(&self, user: UserId) -> Result<Vec<Session>, StorageError> {
        scan(&self.sessions, user.0.as_bytes())
    }

    /// Atomically changes (or, returning `None`, ends) a session; returns what was written.
    pub fn update_session(
        &self,
        user: UserId,
        sid: Uuid,
        f: impl FnMut(Option<Session>) -> Option<Session>,
    ) -> Result<Option<Session>, StorageError> {
        update(&self.sessions, &session_key(user, sid), f)
    }

    /// Ends a session; `false` when it did not exist.
    pub fn remove_session(&self, user: UserId, sid: Uuid) -> Result<bool, StorageError> {
        Ok(self.sessions.remove(session_key(user, sid))?.is_some())
    }

    /// Revokes a token id until `expires_at` (after which the token is dead anyway).
    pub fn revoke_token(&self, jti: &str, expires_at: DateTime<Utc>) -> Result<(), StorageError> {
        self.revoked_tokens.insert(jti, &expires_at.timestamp().to_be_bytes())?;
        Ok(())
    }

    /// Whether a token id was revoked.
    pub fn is_token_revoked(&self, jti: &str) -> Result<bool, StorageError> {
        Ok(self.revoked_tokens.contains_key(jti)?)
    }

    /// Forgets revoked ids whose tokens have expired; returns how many.
    pub fn purge_revoked_tokens(&self, now: DateTime<Utc>) -> Result<usize, StorageError> {
        let mut purged = 0;
        for entry in self.revoked_tokens.iter() {
            let (jti, exp) = entry?;
            let exp = <[u8; 8]>::try_from(exp.as_ref()).map(i64::from_be_bytes).unwrap_or(0);
            if exp < now.timestamp() {
                self.revoked_tokens.remove(jti)?;
                purged += 1;
            }
        }
        Ok(purged)
    }

    /// Atomically changes the failed-login record of an e-mail; returns what was written.
    pub fn update_login_attempts(
        &self,
        email: &Email,
        f: impl FnMut(Option<LoginAttempts>) -> Option<LoginAttempts>,
    ) -> Result<Option<LoginAttempts>, StorageError> {
        update(&self.login_attempts, email.as_str().as_bytes(), f)
    }

    /// Replaces (or, with `None`, clears) the failed-login record of an e-mail.
    pub fn set_login_attempts(&self, email: &Email, a: Option<&LoginAttempts>) -> Result<(), StorageError> {
        match a {
            Some(a) => put(&self.login_attempts, email.as_str(), a),
            None => self.login_attempts.remove(email.as_str()).map(|_| ()).map_err(StorageError::from),
        }
    }

    /// The failed-login record of an e-mail.
    pub fn login_attempts(&self, email: &Email) -> Result<Option<LoginAttempts>, StorageError> {
        get(&self.login_attempts, email.as_str())
    }
}
