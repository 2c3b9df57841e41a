//! The service's own audit trail as the agents see it: one [`SecurityEvent`] per audited act
//! (logins, token renewals, lockouts, refused requests, admin actions), handed in by the host so
//! that the security auditor (Maria Quitéria) can review it without knowing how it is stored.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

/// One audited act, in plain values.
///
/// `action` carries the host's names (`login`, `account_locked`, `token_refresh`, `logout`,
/// `session_ended`, `password_change`, `mfa_setup`, `unauthorized_access`, `forbidden_access`,
/// `admin_action`, ...); `outcome` is `success` or `failure` (a refusal for lack of permission
/// counts as a failure).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SecurityEvent {
    /// When it happened.
    pub timestamp: DateTime<Utc>,
    /// Who acted or claimed to (an e-mail or user id), when known.
    pub actor: Option<String>,
    /// What was done.
    pub action: String,
    /// `success` or `failure`.
    pub outcome: String,
    /// The client's address, when known.
    pub ip: Option<String>,
    /// Anything else the host recorded (method and path of an admin action, a failure's reason).
    pub detail: Option<String>,
}

impl SecurityEvent {
    /// Whether the act failed (or was refused).
    pub fn failed(&self) -> bool {
        !self.outcome.eq_ignore_ascii_case("success")
    }
}
