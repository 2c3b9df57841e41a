//! Accounts: registration by an admin, the bootstrap admin, password change, MFA setup, the
//! caller's own record, and the admin's unlock and service API keys.

use chrono::Utc;
use uuid::Uuid;

use super::{AuthService, blocking};
use crate::auth::mfa::{self, Enrolment};
use crate::auth::{password, secret};
use crate::domain::{
    ApiKey, AuditEntry, ClientContext, Email, MfaState, Outcome, Permission, Principal, Role, User, UserId,
};
use crate::error::{Error, ErrorCode, Result};

/// A registration. Never logged.
pub struct NewUser {
    /// E-mail as sent.
    pub email: String,
    /// Password.
    pub password: String,
    /// Role name (Portuguese or English).
    pub role: String,
    /// Premium rate tier.
    pub premium: bool,
}

/// A password change. Never logged.
pub struct PasswordChange {
    /// The current password.
    pub current: String,
    /// The new one.
    pub new: String,
}

fn user_not_found(id: UserId) -> Error {
    Error::new(ErrorCode::ResourceNotFound, format!("user {id} not found")).with("id", id.to_string())
}

impl AuthService {
    /// Creates a user (the caller must manage users). CONFLICT when the e-mail is taken.
    pub async fn register(&self, by: &Principal, new: NewUser) -> Result<User> {
        by.require(Permission::ManageUsers)?;
        let email = Email::parse(&new.email, "email")?;
        let role = Role::parse(&new.role)
            .ok_or_else(|| Error::validation("funcao", "must be admin, analista, visualizador or servico"))?;
        password::check_policy(&new.password).map_err(|r| Error::validation("senha", r))?;
        self.create_user(email, new.password, role, new.premium).await
    }

    async fn create_user(&self, email: Email, pw: String, role: Role, premium: bool) -> Result<User> {
        let password_hash = blocking(move || password::hash(&pw)).await??;
        let user = User {
            id: UserId::new(),
            email,
            password_hash,
            role,
            is_admin: role == Role::Admin,
            premium,
            mfa: MfaState::default(),
            created_at: Utc::now(),
        };
        if !self.store.create_user(&user).map_err(Error::internal)? {
            return Err(
                Error::new(ErrorCode::Conflict, "a user with this e-mail already exists").with("field", "email")
            );
        }
        Ok(user)
    }

    /// Creates the bootstrap admin unless a user with that e-mail exists; `true` if created.
    pub async fn bootstrap_admin(&self, email: &str, pw: &str) -> Result<bool> {
        let email = Email::parse(email, "VIGIA_ADMIN_EMAIL")?;
        if self.store.user_by_email(&email).map_err(Error::internal)?.is_some() {
            return Ok(false);
        }
        password::check_policy(pw).map_err(|r| Error::validation("VIGIA_ADMIN_PASSWORD", r))?;
        match self.create_user(email, pw.to_string(), Role::Admin, false).await {
            Ok(_) => Ok(true),
            Err(e) if e.code == ErrorCode::Conflict => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// On a first start (no user at all), creates the admin `email` with a generated password
    /// and returns that password, which is stored only as its hash; `None` once any user exists.
    pub async fn first_admin(&self, email: &str) -> Result<Option<String>> {
        if !self.store.has_no_users() {
            return Ok(None);
        }
        let email = Email::parse(email, "email")?;
        let pw = secret::new_password();
        match self.create_user(email, pw.clone(), Role::Admin, false).await {
            Ok(_) => Ok(Some(pw)),
            Err(e) if e.code == ErrorCode::Conflict => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Changes the caller's password after checking the current one (under the failed-login
    /// schedule) and ends every other session of theirs. Returns how many sessions ended.
    pub async fn change_password(
        &self,
        who: &Principal,
        change: PasswordChange,
        client: &ClientContext,
    ) -> Result<usize> {
        password::check_policy(&change.new).map_err(|r| Error::validation("nova_senha", r))?;
        let (user, _) = self.check_password(&who.email, change.current, client).await?;
        self.store.set_login_attempts(&who.email, None).map_err(Error::internal)?;
        let new = change.new;
        let hash = blocking(move || password::hash(&new)).await??;
        self.store.update_user(user.id, |u| u.password_hash = hash.clone()).map_err(Error::internal)?;
        let mut ended = 0;
        for s in self.store.sessions_of(user.id).map_err(Error::internal)? {
            if Some(s.id) != who.session_id && self.store.remove_session(user.id, s.id).map_err(Error::internal)? {
                ended += 1;
            }
        }
        self.audit.record(
            AuditEntry::new("password_change", Outcome::Success, client)
                .actor(Some(user.id), Some(user.email.as_str()))
                .detail("sessions_ended", ended),
        );
        Ok(ended)
    }

    /// Turns MFA on for the caller with a fresh secret and backup codes (a repeated setup
    /// replaces both).
    pub fn mfa_setup(&self, who: &Principal, client: &ClientContext) -> Result<Enrolment> {
        let enrolment = mfa::enrol(who.email.as_str(), self.keys.issuer())?;
        let updated = self
            .store
            .update_user(who.user_id, |u| {
                u.mfa = MfaState {
                    enabled: true,
                    secret_base32: Some(enrolment.secret_base32.clone()),
                    backup_code_hashes: enrolment.backup_code_hashes.clone(),
                    last_step: None,
                }
            })
            .map_err(Error::internal)?;
        updated.ok_or_else(|| user_not_found(who.user_id))?;
        self.audit.record(
            AuditEntry::new("mfa_setup", Outcome::Success, client).actor(Some(who.user_id), Some(who.email.as_str())),
        );
        Ok(enrolment)
    }

    /// The caller's own record.
    pub fn me(&self, who: &Principal) -> Result<User> {
        self.store.user(who.user_id).map_err(Error::internal)?.ok_or_else(|| user_not_found(who.user_id))
    }

    /// A user's record as `viewer` may see it: their own, or anyone's for an administrator;
    /// `None` for anyone else's and for an id no user has.
    pub fn user_visible_to(&self, viewer: &Principal, id: UserId) -> Result<Option<User>> {
        if viewer.user_id != id && !viewer.is_admin() {
            return Ok(None);
        }
        self.store.user(id).map_err(Error::internal)
    }

    /// Clears a user's failed logins and lock (admin). RESOURCE_NOT_FOUND for an unknown id.
    pub fn unlock(&self, by: &Principal, user_id: UserId) -> Result<User> {
        by.require(Permission::ManageUsers)?;
        let user = self.store.user(user_id).map_err(Error::internal)?.ok_or_else(|| user_not_found(user_id))?;
        self.store.set_login_attempts(&user.email, None).map_err(Error::internal)?;
        Ok(user)
    }

    /// Issues an API key for a service account (role `servico`); the key is returned once and
    /// only its digest is stored.
    pub fn create_api_key(&self, by: &Principal, name: &str, user_id: UserId) -> Result<(ApiKey, String)> {
        by.require(Permission::ManageUsers)?;
        let name = name.trim();
        if name.is_empty() || name.chars().count() > 100 {
            return Err(Error::validation("name", "must have 1 to 100 characters"));
        }
        let user = self.store.user(user_id).map_err(Error::internal)?.ok_or_else(|| user_not_found(user_id))?;
        if user.role != Role::Servico {
            return Err(Error::validation("user_id", "API keys are issued to service accounts (role servico) only"));
        }
        let key = secret::new_api_key();
        let record = ApiKey { id: Uuid::now_v7(), name: name.to_string(), user_id, created_at: Utc::now() };
        self.store.insert_api_key(&secret::sha256_hex(&key), &record).map_err(Error::internal)?;
        Ok((record, key))
    }

    /// Every API key (without secrets).
    pub fn api_keys(&self, by: &Principal) -> Result<Vec<ApiKey>> {
        by.require(Permission::ManageUsers)?;
        self.store.api_keys().map_err(Error::internal)
    }

    /// Revokes an API key. RESOURCE_NOT_FOUND for an unknown id.
    pub fn revoke_api_key(&self, by: &Principal, id: Uuid) -> Result<()> {
        by.require(Permission::ManageUsers)?;
        if self.store.remove_api_key(id).map_err(Error::internal)? {
            Ok(())
        } else {
            Err(Error::new(ErrorCode::ResourceNotFound, format!("API key {id} not found")).with("id", id.to_string()))
        }
    }
}
