//! Credentials other than the password: login sessions (one per login, carrying the refresh
//! token family), service API keys, and the failed-login record of an e-mail.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::user::UserId;

/// A login session: created by a login, renewed by refreshes, ended by logout, by the
/// session cap, by a password change, by refresh-token reuse, by idleness or by expiry.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Session {
    /// Session id (the `sid` claim; UUID v7, so a user's sessions sort by creation).
    pub id: Uuid,
    /// Owner.
    pub user_id: UserId,
    /// Login time.
    pub created_at: DateTime<Utc>,
    /// Last authenticated request (recorded at a coarse grain, see `service::auth`).
    pub last_activity: DateTime<Utc>,
    /// When the current refresh token expires; the session ends with it.
    pub expires_at: DateTime<Utc>,
    /// `jti` of the only refresh token that may renew this session; any other refresh token of
    /// the session is a rotated (stolen or replayed) one.
    pub refresh_jti: String,
    /// Renewals so far.
    pub renewals: u32,
    /// The client's `User-Agent`, shortened.
    pub device: Option<String>,
    /// The client's address at login.
    pub address: Option<String>,
}

impl Session {
    /// Whether the session still authenticates requests at `now`.
    pub fn is_active(&self, now: DateTime<Utc>, idle: chrono::Duration) -> bool {
        now < self.expires_at && now - self.last_activity < idle
    }
}

/// A service API key. The key itself is shown once at creation; the store keeps its SHA-256.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ApiKey {
    /// Id (to list and revoke it).
    pub id: Uuid,
    /// What it is for.
    pub name: String,
    /// The service account it authenticates as.
    pub user_id: UserId,
    /// Creation time.
    pub created_at: DateTime<Utc>,
}

/// Failed logins of one e-mail (known or not, so the answers do not reveal which e-mails
/// exist).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LoginAttempts {
    /// Consecutive failures.
    pub failures: u32,
    /// No attempt is considered before this time.
    pub next_allowed_at: Option<DateTime<Utc>>,
    /// Locked until this time (after the sixth failure).
    pub locked_until: Option<DateTime<Utc>>,
}
