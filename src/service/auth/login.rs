//! Login and MFA verification: the failed-login schedule first (an early attempt is refused
//! without looking at the password), then the password (an unknown e-mail costs the same as a
//! wrong password), then the second factor, then a new session.

use chrono::Utc;

use super::{AuthService, Issued, blocking};
use crate::auth::lockout::{self, Refusal};
use crate::auth::{mfa, password};
use crate::domain::{AuditEntry, ClientContext, Email, LoginAttempts, Outcome, User};
use crate::error::{Error, ErrorCode, Result};

/// What a login carries. Never logged.
pub struct LoginRequest {
    /// E-mail as sent.
    pub email: String,
    /// Password.
    pub password: String,
    /// TOTP or backup code, for accounts with MFA.
    pub code: Option<String>,
}

fn invalid_credentials() -> Error {
    Error::new(ErrorCode::InvalidCredentials, "wrong e-mail or password")
}

impl AuthService {
    /// Signs in: a token pair, or CREDENCIAIS_INVALIDAS, CONTA_BLOQUEADA, MFA_OBRIGATORIO or
    /// LIMITE_TAXA_EXCEDIDO (too soon after a failure).
    pub async fn login(&self, req: LoginRequest, client: &ClientContext) -> Result<Issued> {
        let email = Email::parse(&req.email, "email")?;
        let (user, before) = self.check_password(&email, req.password, client).await?;
        if user.mfa.enabled {
            let Some(code) = req.code.filter(|c| !c.trim().is_empty()) else {
                // The password was right: this attempt does not count, but it does not clear
                // earlier failures either (so guessing codes stays throttled).
                self.store.set_login_attempts(&email, before.as_ref()).map_err(Error::internal)?;
                self.audit.record(self.login_entry(Outcome::Failure, &email, Some(&user), client, "mfa_required"));
                return Err(Error::new(ErrorCode::MfaRequired, "this account uses MFA: send codigo_totp"));
            };
            if !self.spend_second_factor(&user, &code)? {
                return Err(self
                    .failed(&email, Some(&user), client, "invalid second factor")
                    .with("campo", "codigo_totp"));
            }
        }
        self.store.set_login_attempts(&email, None).map_err(Error::internal)?;
        self.audit.record(self.login_entry(Outcome::Success, &email, Some(&user), client, "ok"));
        self.open_session(user, client)
    }

    /// Checks the password under the failed-login schedule. On success returns the user and
    /// the failure record as it was before this attempt (this attempt is still counted until
    /// the caller clears or restores it).
    pub(super) async fn check_password(
        &self,
        email: &Email,
        password: String,
        client: &ClientContext,
    ) -> Result<(User, Option<LoginAttempts>)> {
        let now = Utc::now();
        let (mut refusal, mut before) = (None, None);
        self.store
            .update_login_attempts(email, |current| {
                match lockout::begin(current.as_ref(), now, self.settings.delay_scale) {
                    Ok(next) => {
                        (refusal, before) = (None, current);
                        Some(next)
                    }
                    Err(r) => {
                        refusal = Some(r);
                        current
                    }
                }
            })
            .map_err(Error::internal)?;
        if let Some(r) = refusal {
            self.audit.record(self.login_entry(Outcome::Failure, email, None, client, "refused before checking"));
            return Err(refused(r));
        }
        let user = self.store.user_by_email(email).map_err(Error::internal)?;
        let hash = user.as_ref().map(|u| u.password_hash.clone());
        let matches = blocking(move || match hash {
            Some(h) => password::verify(&password, &h),
            None => {
                password::verify_dummy(&password);
                false
            }
        })
        .await?;
        match user {
            Some(user) if matches => Ok((user, before)),
            user => Err(self.failed(email, user.as_ref(), client, "wrong e-mail or password")),
        }
    }

    /// A counted failure: CONTA_BLOQUEADA when it was the locking one, else
    /// CREDENCIAIS_INVALIDAS.
    fn failed(&self, email: &Email, user: Option<&User>, client: &ClientContext, reason: &str) -> Error {
        self.audit.record(self.login_entry(Outcome::Failure, email, user, client, reason));
        match self.store.login_attempts(email) {
            Ok(Some(a)) if lockout::just_locked(&a) => {
                self.audit.record(
                    AuditEntry::new("account_locked", Outcome::Success, client)
                        .actor(user.map(|u| u.id), Some(email.as_str()))
                        .detail("failures", a.failures),
                );
                refused(Refusal::Locked { until: a.locked_until.unwrap_or_else(Utc::now) })
            }
            _ => invalid_credentials(),
        }
    }

    /// Accepts a TOTP code of a step newer than the last accepted one, or an unused backup
    /// code, and records its use atomically.
    fn spend_second_factor(&self, user: &User, code: &str) -> Result<bool> {
        let now = Utc::now().timestamp().max(0) as u64;
        let mut accepted = false;
        self.store
            .update_user(user.id, |u| {
                accepted = false;
                if mfa::is_totp_code(code) {
                    let secret = u.mfa.secret_base32.as_deref().unwrap_or_default();
                    if let Some(step) = mfa::check_totp(secret, code, u.mfa.last_step, now) {
                        u.mfa.last_step = Some(step);
                        accepted = true;
                    }
                } else {
                    accepted = mfa::spend_backup_code(&mut u.mfa.backup_code_hashes, code);
                }
            })
            .map_err(Error::internal)?;
        Ok(accepted)
    }

    fn login_entry(
        &self,
        outcome: Outcome,
        email: &Email,
        user: Option<&User>,
        client: &ClientContext,
        reason: &str,
    ) -> AuditEntry {
        AuditEntry::new("login", outcome, client)
            .actor(user.map(|u| u.id), Some(email.as_str()))
            .detail("reason", reason)
    }
}

/// CONTA_BLOQUEADA (423) or LIMITE_TAXA_EXCEDIDO (429) with `retry_after` (whole seconds,
/// rounded up) and `retry_after_ms`.
fn refused(r: Refusal) -> Error {
    let (err, wait) = match r {
        Refusal::Locked { until } => (
            Error::new(ErrorCode::AccountLocked, "too many failed logins: the account is locked")
                .with("bloqueado_ate", until.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)),
            until - Utc::now(),
        ),
        Refusal::TooSoon { retry_after } => {
            (Error::new(ErrorCode::RateLimitExceeded, "too soon after a failed login; wait and try again"), retry_after)
        }
    };
    let ms = wait.num_milliseconds().max(0);
    err.with("retry_after", (ms as f64 / 1000.0).ceil() as u64).with("retry_after_ms", ms)
}
