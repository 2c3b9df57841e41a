//! Using tokens: authenticating a request (bearer token or API key), refresh rotation with
//! reuse detection, logout and the session list.

use chrono::{Duration, Utc};
use uuid::Uuid;

use super::{AuthService, Issued, MAX_RENEWALS};
use crate::auth::{AuthError, TokenKind, secret};
use crate::domain::user::invalid_token;
use crate::domain::{AuditEntry, AuthMethod, ClientContext, Outcome, Permission, Principal, Role, Session, UserId};
use crate::error::{Error, Result};

/// What a refresh found in the session.
enum Rotation {
    Rotated(Box<Session>),
    Gone,
    Reused,
    Exhausted,
}

impl AuthService {
    /// Authenticates a bearer access token: signature, issuer, expiry, kind, an active session
    /// and a non-revoked `jti`. Records the session's activity (at a coarse grain, so most
    /// requests do not write).
    pub fn authenticate_bearer(&self, token: &str) -> Result<Principal> {
        let claims = match self.keys.verify(token) {
            Ok(c) => c,
            Err(AuthError::Expired(claims)) => return Err(self.expired(claims)),
            Err(e) => return Err(e.into()),
        };
        if claims.typ != TokenKind::Access {
            return Err(invalid_token("a refresh token cannot authenticate requests"));
        }
        let user_id = UserId(claims.sub);
        let now = Utc::now();
        let session = self.store.session(user_id, claims.sid).map_err(Error::internal)?;
        let Some(session) = session.filter(|s| s.is_active(now, self.settings.idle)) else {
            return Err(invalid_token("the session has ended"));
        };
        if self.store.is_token_revoked(&claims.jti).map_err(Error::internal)? {
            return Err(invalid_token("the token was revoked"));
        }
        let user = self.store.user(user_id).map_err(Error::internal)?.ok_or_else(|| invalid_token("unknown user"))?;
        let role = Role::parse(&claims.role).ok_or_else(|| invalid_token("unknown role"))?;
        // A tenth of the idle timeout (at most a minute) is precise enough for the timeout and
        // spares a write on almost every request.
        let grain = (self.settings.idle / 10).min(Duration::minutes(1));
        if now - session.last_activity > grain {
            self.store
                .update_session(user_id, session.id, |s| {
                    s.map(|mut s| {
                        s.last_activity = now;
                        s
                    })
                })
                .map_err(Error::internal)?;
        }
        Ok(Principal {
            user_id,
            email: user.email,
            role,
            permissions: claims.permissoes.iter().filter_map(|p| Permission::parse(p)).collect(),
            is_admin: user.is_admin,
            premium: user.premium,
            session_id: Some(session.id),
            token_id: Some(claims.jti),
            method: AuthMethod::Bearer,
        })
    }

    /// Authenticates a legacy `X-API-Key` as the service account it was issued for.
    pub fn authenticate_api_key(&self, key: &str) -> Result<Principal> {
        let record = self.store.api_key_by_digest(&secret::sha256_hex(key)).map_err(Error::internal)?;
        let record = record.ok_or_else(|| invalid_token("unknown API key"))?;
        let user =
            self.store.user(record.user_id).map_err(Error::internal)?.ok_or_else(|| invalid_token("unknown user"))?;
        Ok(Principal {
            user_id: user.id,
            email: user.email,
            role: user.role,
            permissions: user.role.permissions().to_vec(),
            is_admin: user.is_admin,
            premium: user.premium,
            session_id: None,
            token_id: None,
            method: AuthMethod::ApiKey,
        })
    }

    /// Rotates a session's tokens. The old refresh token is revoked; presenting a refresh
    /// token that was already rotated ends the session (token family) and is TOKEN_INVALIDO.
    pub fn refresh(&self, token: &str, client: &ClientContext) -> Result<Issued> {
        let claims = match self.keys.verify(token) {
            Ok(c) => c,
            Err(AuthError::Expired(claims)) => return Err(self.expired(claims)),
            Err(e) => return Err(e.into()),
        };
        if claims.typ != TokenKind::Refresh {
            return Err(invalid_token("not a refresh token"));
        }
        let (user_id, now) = (UserId(claims.sub), Utc::now());
        let mut rotation = Rotation::Gone;
        let new_jti = Uuid::new_v4().to_string();
        self.store
            .update_session(user_id, claims.sid, |s| {
                let (next, r) = match s {
                    None => (None, Rotation::Gone),
                    Some(s) if !s.is_active(now, self.settings.idle) => (None, Rotation::Gone),
                    Some(s) if s.refresh_jti != claims.jti => (None, Rotation::Reused),
                    Some(s) if s.renewals >= MAX_RENEWALS => (Some(s), Rotation::Exhausted),
                    Some(mut s) => {
                        s.refresh_jti = new_jti.clone();
                        s.renewals += 1;
                        s.last_activity = now;
                        s.expires_at = now + self.settings.refresh_ttl;
                        (Some(s.clone()), Rotation::Rotated(Box::new(s)))
                    }
                };
                rotation = r;
                next
            })
            .map_err(Error::internal)?;
        let entry = |outcome, reason: &str| {
            AuditEntry::new("token_refresh", outcome, client)
                .actor(Some(user_id), Some(&claims.email))
                .detail("session_id", claims.sid.to_string())
                .detail("reason", reason)
        };
        let session = match rotation {
            Rotation::Rotated(s) => s,
            Rotation::Gone => return Err(invalid_token("the session has ended")),
            Rotation::Exhausted => {
                self.audit.record(entry(Outcome::Failure, "renewal limit reached"));
                return Err(invalid_token("the session reached its renewal limit; sign in again")
                    .with("max_renewals", MAX_RENEWALS));
            }
            Rotation::Reused => {
                self.audit.record(entry(Outcome::Failure, "rotated refresh token reused: session revoked"));
                return Err(invalid_token("refresh token already used: the session was revoked"));
            }
        };
        let revoke_until = chrono::DateTime::from_timestamp(claims.exp, 0).unwrap_or(now);
        self.store.revoke_token(&claims.jti, revoke_until).map_err(Error::internal)?;
        let user = self.store.user(user_id).map_err(Error::internal)?.ok_or_else(|| invalid_token("unknown user"))?;
        self.audit.record(entry(Outcome::Success, "rotated"));
        self.issue(user, &session)
    }

    /// Ends the caller's session and revokes its access token.
    pub fn logout(&self, who: &Principal, client: &ClientContext) -> Result<()> {
        let Some(sid) = who.session_id else {
            return Err(Error::validation("Authorization", "logout ends a bearer-token session; API keys have none"));
        };
        self.store.remove_session(who.user_id, sid).map_err(Error::internal)?;
        if let Some(jti) = &who.token_id {
            self.store.revoke_token(jti, Utc::now() + self.settings.access_ttl).map_err(Error::internal)?;
        }
        self.audit.record(
            AuditEntry::new("logout", Outcome::Success, client)
                .actor(Some(who.user_id), Some(who.email.as_str()))
                .detail("session_id", sid.to_string()),
        );
        Ok(())
    }

    /// The caller's active sessions, oldest first.
    pub fn sessions(&self, who: &Principal) -> Result<Vec<Session>> {
        self.active_sessions(who.user_id)
    }
}
