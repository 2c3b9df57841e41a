//! The audit trail: who did what, from where, in which request, when, and how it ended.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use uuid::Uuid;

use super::user::UserId;

/// How an audited event ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// It happened.
    Success,
    /// It was attempted and failed (wrong password, invalid token, ...).
    Failure,
    /// It was refused for lack of permission.
    Denied,
}

/// One audit record.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AuditEntry {
    /// UUID v7: the tree sorts by time.
    pub id: Uuid,
    /// When.
    pub timestamp: DateTime<Utc>,
    /// What (`login`, `login_lock`, `token_refresh`, `unauthorized_access`, `forbidden_access`,
    /// `admin_action`, ...).
    pub action: String,
    /// How it ended.
    pub outcome: Outcome,
    /// The acting user, when known.
    pub actor_id: Option<UserId>,
    /// The acting (or claimed) e-mail, when known.
    pub actor_email: Option<String>,
    /// Client address.
    pub address: Option<String>,
    /// The request's `X-Request-ID`.
    pub request_id: Option<String>,
    /// Anything else worth keeping; never secrets.
    pub details: Map<String, Value>,
}

/// Who and where, as the transport knows it, for audit records and sessions.
#[derive(Debug, Clone, Default)]
pub struct ClientContext {
    /// Peer address.
    pub address: Option<std::net::IpAddr>,
    /// `User-Agent`.
    pub user_agent: Option<String>,
    /// `X-Request-ID`.
    pub request_id: Option<String>,
}

impl AuditEntry {
    /// A record stamped now, with the client's address and request id.
    pub fn new(action: &str, outcome: Outcome, client: &ClientContext) -> AuditEntry {
        AuditEntry {
            id: Uuid::now_v7(),
            timestamp: Utc::now(),
            action: action.to_string(),
            outcome,
            actor_id: None,
            actor_email: None,
            address: client.address.map(|a| a.to_string()),
            request_id: client.request_id.clone(),
            details: Map::new(),
        }
    }
    /// Sets the actor.
    pub fn actor(mut self, id: Option<UserId>, email: Option<&str>) -> AuditEntry {
        self.actor_id = id;
        self.actor_email = email.map(str::to_string);
        self
    }
    /// Adds a detail.
    pub fn detail(mut self, key: &str, value: impl Into<Value>) -> AuditEntry {
        self.details.insert(key.to_string(), value.into());
        self
    }
}
