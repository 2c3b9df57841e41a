//! Authentication and accounts: login (with the failed-login schedule and MFA), sessions and
//! their token pairs, refresh rotation, request authentication (bearer tokens and legacy API
//! keys), registration, password change, MFA setup, and the bootstrap admin.
//!
//! Session rules: an access token lives `auth.access_token_ttl_secs` (15 min), a refresh token
//! `auth.refresh_token_ttl_secs` (7 days); a session allows at most [`MAX_RENEWALS`] renewals;
//! a user holds at most [`MAX_SESSIONS`] sessions (a new login ends the oldest); a session
//! with no request for `auth.session_idle_secs` (2 h) ends. An access token is honoured only
//! while its session is active and its `jti` is not revoked. Refresh rotates the pair; a
//! refresh token that was already rotated ends the whole session (its token family).

mod account;
mod hashers;
mod login;
mod tokens;

use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};
use uuid::Uuid;

pub use account::{NewUser, PasswordChange};
pub use login::LoginRequest;

use super::audit::AuditService;
use crate::auth::{AuthError, Claims, JwtKeys, TokenKind};
use crate::config::AuthConfig;
use crate::domain::{AuditEntry, ClientContext, Outcome, Session, User, UserId};
use crate::error::{Error, Result};
use crate::storage::Store;

/// Most concurrent sessions per user.
pub const MAX_SESSIONS: usize = 3;
/// Most renewals of one session.
pub const MAX_RENEWALS: u32 = 5;

/// A fresh token pair and the user it was issued to.
pub struct Issued {
    /// Access token.
    pub access_token: String,
    /// Refresh token.
    pub refresh_token: String,
    /// Seconds the access token lives.
    pub expires_in: u64,
    /// The user.
    pub user: User,
}

/// Timing settings, from `[auth]`.
#[derive(Debug, Clone)]
struct Settings {
    access_ttl: Duration,
    refresh_ttl: Duration,
    idle: Duration,
    delay_scale: f64,
}

/// The authentication facade.
pub struct AuthService {
    store: Store,
    keys: Arc<JwtKeys>,
    audit: Arc<AuditService>,
    settings: Settings,
}

use hashers::blocking;

impl AuthService {
    /// Builds the facade over the store and the signing keys.
    pub fn new(store: Store, keys: Arc<JwtKeys>, audit: Arc<AuditService>, config: &AuthConfig) -> Self {
        let secs = |s: u64| Duration::seconds(i64::try_from(s).unwrap_or(i64::MAX / 1000));
        let settings = Settings {
            access_ttl: secs(config.access_token_ttl_secs),
            refresh_ttl: secs(config.refresh_token_ttl_secs),
            idle: secs(config.session_idle_secs),
            delay_scale: config.login_delay_scale,
        };
        AuthService { store, keys, audit, settings }
    }

    /// The public signing keys as a JWK set (`/.well-known/jwks.json`).
    pub fn jwks(&self) -> serde_json::Value {
        serde_json::to_value(self.keys.jwks()).unwrap_or_default()
    }

    /// Forgets revoked token ids whose tokens have expired anyway (run at start).
    pub fn purge_expired_revocations(&self) -> Result<usize> {
        self.store.purge_revoked_tokens(Utc::now()).map_err(Error::internal)
    }

    fn claims(&self, user: &User, sid: Uuid, kind: TokenKind, jti: String, exp: DateTime<Utc>) -> Claims {
        Claims {
            sub: user.id.0,
            email: user.email.as_str().to_string(),
            role: user.role.as_str().to_string(),
            permissoes: user.role.permissions().iter().map(|p| p.as_str().to_string()).collect(),
            iat: Utc::now().timestamp(),
            exp: exp.timestamp(),
            jti,
            iss: self.keys.issuer().to_string(),
            sid,
            typ: kind,
        }
    }

    /// Signs an access token and the session's current refresh token.
    fn issue(&self, user: User, session: &Session) -> Result<Issued> {
        let access_exp = Utc::now() + self.settings.access_ttl;
        let access = self.claims(&user, session.id, TokenKind::Access, Uuid::new_v4().to_string(), access_exp);
        let refresh =
            self.claims(&user, session.id, TokenKind::Refresh, session.refresh_jti.clone(), session.expires_at);
        Ok(Issued {
            access_token: self.keys.sign(&access)?,
            refresh_token: self.keys.sign(&refresh)?,
            expires_in: self.settings.access_ttl.num_seconds().max(0) as u64,
            user,
        })
    }

    /// Opens a session for a successful login, ends the oldest beyond the cap, and issues the
    /// first token pair.
    fn open_session(&self, user: User, client: &ClientContext) -> Result<Issued> {
        let now = Utc::now();
        let session = Session {
            id: Uuid::now_v7(),
            user_id: user.id,
            created_at: now,
            last_activity: now,
            expires_at: now + self.settings.refresh_ttl,
            refresh_jti: Uuid::new_v4().to_string(),
            renewals: 0,
            device: client.user_agent.as_ref().map(|ua| ua.chars().take(200).collect()),
            address: client.address.map(|a| a.to_string()),
        };
        self.store.put_session(&session).map_err(Error::internal)?;
        let active = self.active_sessions(user.id)?;
        for old in active.iter().take(active.len().saturating_sub(MAX_SESSIONS)) {
            self.store.remove_session(user.id, old.id).map_err(Error::internal)?;
            self.audit.record(
                AuditEntry::new("session_ended", Outcome::Success, client)
                    .actor(Some(user.id), Some(user.email.as_str()))
                    .detail("session_id", old.id.to_string())
                    .detail("reason", "concurrent session limit"),
            );
        }
        self.issue(user, &session)
    }

    /// A user's active sessions, oldest first; ended ones found on the way are removed.
    fn active_sessions(&self, user: UserId) -> Result<Vec<Session>> {
        let now = Utc::now();
        let (active, ended): (Vec<Session>, Vec<Session>) = self
            .store
            .sessions_of(user)
            .map_err(Error::internal)?
            .into_iter()
            .partition(|s| s.is_active(now, self.settings.idle));
        for s in ended {
            self.store.remove_session(user, s.id).map_err(Error::internal)?;
        }
        Ok(active)
    }

    /// Whether a session exists, is active and may still be renewed.
    fn renewable(&self, user: UserId, sid: Uuid) -> bool {
        self.store
            .session(user, sid)
            .ok()
            .flatten()
            .is_some_and(|s| s.is_active(Utc::now(), self.settings.idle) && s.renewals < MAX_RENEWALS)
    }

    /// TOKEN_EXPIRADO with `expirou_em` and whether the session's refresh token still works.
    fn expired(&self, claims: Box<Claims>) -> Error {
        let renewable = self.renewable(UserId(claims.sub), claims.sid);
        Error::from(AuthError::Expired(claims)).with("token_renovacao_valido", renewable)
    }
}
