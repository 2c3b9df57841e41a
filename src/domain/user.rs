//! Users and what they may do: ids, e-mails parsed at the edge, the four roles of the spec and
//! the ten permissions each role grants, MFA state, and the authenticated caller
//! ([`Principal`]) every transport hands to the services.
//!
//! Which role gets which permission (the spec names the roles and permissions but not the
//! mapping; this is the decision, also listed in the README):
//!
//! | Role | Permissions |
//! |---|---|
//! | `admin` | all ten |
//! | `analista` | ler/escrever/deletar:investigacoes, ler/escrever:analises, ler/escrever:relatorios |
//! | `visualizador` | ler:investigacoes, ler:relatorios |
//! | `servico` | ler/escrever:investigacoes, ler:analises, ler:relatorios |

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::error::{Error, ErrorCode};

/// A user id (UUID v7, so the users tree sorts by creation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct UserId(pub Uuid);

impl UserId {
    /// A new, time-ordered id.
    pub fn new() -> Self {
        Self(Uuid::now_v7())
    }
    /// Parses a path segment or claim; `None` when it is not a UUID.
    pub fn parse(s: &str) -> Option<Self> {
        Uuid::parse_str(s).ok().map(Self)
    }
}

impl Default for UserId {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Display for UserId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// An e-mail address, trimmed and lower-cased so lookups ignore case.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Email(String);

impl Email {
    /// Parses what a client sent; a VALIDATION_ERROR names `field` when it is not an address.
    pub fn parse(raw: &str, field: &str) -> Result<Email, Error> {
        let s = raw.trim().to_lowercase();
        let valid = s.len() <= 254
            && s.split_once('@').is_some_and(|(local, domain)| {
                !local.is_empty() && domain.contains('.') && !domain.starts_with('.') && !domain.ends_with('.')
            })
            && !s.chars().any(|c| c.is_whitespace() || c.is_control());
        if valid { Ok(Email(s)) } else { Err(Error::validation(field, "not a valid e-mail address")) }
    }
    /// The normalised address.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for Email {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The spec's permissions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Permission {
    /// `ler:investigacoes`
    ReadInvestigations,
    /// `escrever:investigacoes`
    WriteInvestigations,
    /// `deletar:investigacoes`
    DeleteInvestigations,
    /// `ler:analises`
    ReadAnalyses,
    /// `escrever:analises`
    WriteAnalyses,
    /// `ler:relatorios`
    ReadReports,
    /// `escrever:relatorios`
    WriteReports,
    /// `gerenciar:usuarios`
    ManageUsers,
    /// `ver:auditoria`
    ViewAudit,
    /// `configurar:sistema`
    ConfigureSystem,
}

impl Permission {
    /// Every permission, in the spec's order.
    pub const ALL: [Permission; 10] = [
        Permission::ReadInvestigations,
        Permission::WriteInvestigations,
        Permission::DeleteInvestigations,
        Permission::ReadAnalyses,
        Permission::WriteAnalyses,
        Permission::ReadReports,
        Permission::WriteReports,
        Permission::ManageUsers,
        Permission::ViewAudit,
        Permission::ConfigureSystem,
    ];
    /// The wire name (`ler:investigacoes`).
    pub fn as_str(self) -> &'static str {
        match self {
            Permission::ReadInvestigations => "ler:investigacoes",
            Permission::WriteInvestigations => "escrever:investigacoes",
            Permission::DeleteInvestigations => "deletar:investigacoes",
            Permission::ReadAnalyses => "ler:analises",
            Permission::WriteAnalyses => "escrever:analises",
            Permission::ReadReports => "ler:relatorios",
            Permission::WriteReports => "escrever:relatorios",
            Permission::ManageUsers => "gerenciar:usuarios",
            Permission::ViewAudit => "ver:auditoria",
            Permission::ConfigureSystem => "configurar:sistema",
        }
    }
    /// Parses a wire name; unknown names are `None` (and ignored in tokens).
    pub fn parse(s: &str) -> Option<Permission> {
        Permission::ALL.into_iter().find(|p| p.as_str() == s)
    }
}

/// The spec's roles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Full access.
    Admin,
    /// Creates investigations, analyses and reports.
    Analista,
    /// Read-only: investigations and public reports.
    Visualizador,
    /// Service account for integrations.
    Servico,
}

impl Role {
    /// The wire name (Portuguese, as the spec lists it).
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Admin => "admin",
            Role::Analista => "analista",
            Role::Visualizador => "visualizador",
            Role::Servico => "servico",
        }
    }
    /// Parses the Portuguese name or its English alias (`analyst`, `viewer`, `service`).
    pub fn parse(s: &str) -> Option<Role> {
        match s.trim().to_lowercase().as_str() {
            "admin" | "administrador" => Some(Role::Admin),
            "analista" | "analyst" => Some(Role::Analista),
            "visualizador" | "viewer" => Some(Role::Visualizador),
            "servico" | "serviço" | "service" => Some(Role::Servico),
            _ => None,
        }
    }
    /// The permissions this role grants (see the module table).
    pub fn permissions(self) -> &'static [Permission] {
        use Permission::*;
        match self {
            Role::Admin => &Permission::ALL,
            Role::Analista => &[
                ReadInvestigations,
                WriteInvestigations,
                DeleteInvestigations,
                ReadAnalyses,
                WriteAnalyses,
                ReadReports,
                WriteReports,
            ],
            Role::Visualizador => &[ReadInvestigations, ReadReports],
            Role::Servico => &[ReadInvestigations, WriteInvestigations, ReadAnalyses, ReadReports],
        }
    }
}

/// Multi-factor state. The secret and the backup-code hashes never leave the store except the
/// secret once, in the setup answer.
#[derive(Clone, Default, Serialize, Deserialize)]
pub struct MfaState {
    /// Whether logins need a TOTP or backup code.
    pub enabled: bool,
    /// The TOTP secret, base32.
    pub secret_base32: Option<String>,
    /// SHA-256 (hex) of each unused backup code.
    pub backup_code_hashes: Vec<String>,
    /// The last accepted TOTP step; a code of this step or an earlier one is refused (replay).
    pub last_step: Option<u64>,
}

impl std::fmt::Debug for MfaState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MfaState")
            .field("enabled", &self.enabled)
            .field("backup_codes_left", &self.backup_code_hashes.len())
            .finish_non_exhaustive()
    }
}

/// A stored user.
#[derive(Clone, Serialize, Deserialize)]
pub struct User {
    /// Id.
    pub id: UserId,
    /// Normalised e-mail (unique).
    pub email: Email,
    /// Argon2id PHC string.
    pub password_hash: String,
    /// Role.
    pub role: Role,
    /// The store's admin flag, checked on every admin route besides the token's role.
    pub is_admin: bool,
    /// Premium rate tier.
    pub premium: bool,
    /// MFA.
    pub mfa: MfaState,
    /// Creation time.
    pub created_at: DateTime<Utc>,
}

impl std::fmt::Debug for User {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("User")
            .field("id", &self.id)
            .field("email", &self.email)
            .field("role", &self.role)
            .field("is_admin", &self.is_admin)
            .finish_non_exhaustive()
    }
}

/// How a caller proved who it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthMethod {
    /// `Authorization: Bearer <access token>`.
    Bearer,
    /// Legacy `X-API-Key` of a service account.
    ApiKey,
}

/// An authenticated caller.
#[derive(Debug, Clone)]
pub struct Principal {
    /// The user.
    pub user_id: UserId,
    /// Their e-mail.
    pub email: Email,
    /// Their role (from the token; the store's for API keys).
    pub role: Role,
    /// What the credential grants.
    pub permissions: Vec<Permission>,
    /// The store's admin flag.
    pub is_admin: bool,
    /// Premium rate tier.
    pub premium: bool,
    /// The session of a bearer token.
    pub session_id: Option<Uuid>,
    /// The access token's id (for logout).
    pub token_id: Option<String>,
    /// Bearer or API key.
    pub method: AuthMethod,
}

impl Principal {
    /// Whether the caller is an administrator: admin role in the credential AND in the store.
    pub fn is_admin(&self) -> bool {
        self.role == Role::Admin && self.is_admin
    }
    /// Whether the credential grants `p`.
    pub fn has(&self, p: Permission) -> bool {
        self.permissions.contains(&p)
    }
    /// PERMISSOES_INSUFICIENTES unless the credential grants `p`.
    pub fn require(&self, p: Permission) -> Result<(), Error> {
        if self.has(p) { Ok(()) } else { Err(forbidden(format!("permission '{}' is required", p.as_str()))) }
    }
    /// The resource rule: its owner or an admin, else PERMISSOES_INSUFICIENTES.
    pub fn require_owner_or_admin(&self, owner: Uuid) -> Result<(), Error> {
        if self.user_id.0 == owner || self.is_admin() {
            Ok(())
        } else {
            Err(forbidden("only the owner or an admin may access this resource"))
        }
    }
}

/// PERMISSOES_INSUFICIENTES with a reason.
pub fn forbidden(reason: impl Into<String>) -> Error {
    let reason = reason.into();
    Error::new(ErrorCode::InsufficientPermissions, format!("insufficient permissions: {reason}")).with("reason", reason)
}

/// TOKEN_INVALIDO with a client-safe reason (never the token).
pub fn invalid_token(reason: impl Into<String>) -> Error {
    Error::new(ErrorCode::TokenInvalid, "the token is invalid").with("reason", reason.into())
}

/// UNAUTHORIZED: credentials are required here and none were sent.
pub fn unauthenticated() -> Error {
    Error::new(ErrorCode::Unauthorized, "authentication required: send Authorization: Bearer <token> or X-API-Key")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_grant_the_documented_permissions() {
        assert_eq!(Role::Admin.permissions().len(), 10);
        assert!(Role::Analista.permissions().contains(&Permission::DeleteInvestigations));
        assert!(!Role::Analista.permissions().contains(&Permission::ViewAudit));
        assert_eq!(Role::Visualizador.permissions(), &[Permission::ReadInvestigations, Permission::ReadReports]);
        assert!(Role::Servico.permissions().contains(&Permission::WriteInvestigations));
        assert!(!Role::Servico.permissions().contains(&Permission::DeleteInvestigations));
    }

    #[test]
    fn permission_names_round_trip_and_roles_accept_english_aliases() {
        for p in Permission::ALL {
            assert_eq!(Permission::parse(p.as_str()), Some(p));
        }
        assert_eq!(Role::parse("viewer"), Some(Role::Visualizador));
        assert_eq!(Role::parse("Analista"), Some(Role::Analista));
        assert_eq!(Role::parse("root"), None);
    }

    #[test]
    fn emails_are_normalised_and_nonsense_is_refused() {
        assert_eq!(Email::parse("  Ana@Example.ORG ", "email").unwrap().as_str(), "ana@example.org");
        for bad in ["", "ana", "ana@", "@x.org", "ana@org", "a b@x.org"] {
            assert!(Email::parse(bad, "email").is_err(), "{bad}");
        }
    }
}
