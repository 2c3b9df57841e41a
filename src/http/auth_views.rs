//! How the authentication routes' answers look on the wire (the spec's Portuguese names), as
//! typed structs so the OpenAPI document derives their schemas.

use serde::Serialize;
use utoipa::ToSchema;

use super::views::ts;
use crate::domain::whitelist::canonical_ip;
use crate::domain::{Session, User};
use crate::service::auth::Issued;

/// A user as the auth routes show it.
#[derive(Debug, Serialize, ToSchema)]
pub struct UserView {
    /// User id.
    pub id: String,
    /// E-mail address.
    pub email: String,
    /// Role (`admin`, `analyst`, `viewer`, ...).
    pub funcao: &'static str,
    /// The role's permissions, e.g. `ler:investigacoes`.
    pub permissoes: Vec<&'static str>,
}

/// Tokens issued by login, MFA verification and refresh.
#[derive(Debug, Serialize, ToSchema)]
pub struct TokensView {
    /// RS256 access token.
    pub token_acesso: String,
    /// Refresh token (single use).
    pub token_renovacao: String,
    /// Always `Bearer`.
    #[schema(example = "Bearer")]
    pub tipo_token: &'static str,
    /// Seconds the access token lives.
    pub expira_em: u64,
    /// The signed-in user.
    pub usuario: UserView,
}

/// The account (`/me`, `/register`).
#[derive(Debug, Serialize, ToSchema)]
pub struct AccountView {
    /// Id, e-mail, role and permissions.
    #[serde(flatten)]
    pub usuario: UserView,
    /// Whether the account is an administrator.
    pub is_admin: bool,
    /// Premium tier (higher rate limits).
    pub premium: bool,
    /// Whether the account uses a second factor.
    pub mfa_ativado: bool,
    /// When the account was created (RFC 3339).
    pub criado_em: String,
}

/// One open session.
#[derive(Debug, Serialize, ToSchema)]
pub struct SessionView {
    /// Session id.
    pub id: String,
    /// User agent that opened it.
    pub dispositivo: Option<String>,
    /// Address it was opened from.
    pub endereco_ip: Option<String>,
    /// `local`, `rede privada` or null (no geolocation database ships with Vigia).
    pub localizacao: Option<&'static str>,
    /// Last use (RFC 3339).
    pub ultima_atividade: String,
    /// When it was opened (RFC 3339).
    pub criada_em: String,
    /// Whether this request came with it.
    pub atual: bool,
}

/// The caller's open sessions.
#[derive(Debug, Serialize, ToSchema)]
pub struct SessionsView {
    /// Sessions, newest activity first.
    pub sessoes: Vec<SessionView>,
}

/// A password change.
#[derive(Debug, Serialize, ToSchema)]
pub struct PasswordChanged {
    /// `senha alterada`.
    pub mensagem: &'static str,
    /// Other sessions ended by the change.
    pub sessoes_encerradas: usize,
}

/// An MFA enrolment.
#[derive(Debug, Serialize, ToSchema)]
pub struct MfaSetupView {
    /// TOTP secret (base32).
    pub segredo: String,
    /// QR code of the otpauth URI (`data:image/png;base64,...`).
    pub codigo_qr: String,
    /// Single-use backup codes.
    pub codigos_backup: Vec<String>,
}

/// A confirmation message.
#[derive(Debug, Serialize, ToSchema)]
pub struct Mensagem {
    /// What happened.
    pub mensagem: &'static str,
}

/// The user view.
pub fn user_view(u: &User) -> UserView {
    UserView {
        id: u.id.to_string(),
        email: u.email.as_str().to_string(),
        funcao: u.role.as_str(),
        permissoes: u.role.permissions().iter().map(|p| p.as_str()).collect(),
    }
}

/// The tokens view.
pub fn tokens_view(t: &Issued) -> TokensView {
    TokensView {
        token_acesso: t.access_token.clone(),
        token_renovacao: t.refresh_token.clone(),
        tipo_token: "Bearer",
        expira_em: t.expires_in,
        usuario: user_view(&t.user),
    }
}

/// The account view.
pub fn account_view(u: &User) -> AccountView {
    AccountView {
        usuario: user_view(u),
        is_admin: u.is_admin,
        premium: u.premium,
        mfa_ativado: u.mfa.enabled,
        criado_em: ts(&u.created_at),
    }
}

/// No geolocation database ships with Vigia: the location names the kind of network for
/// loopback and private addresses and is null for public ones.
fn location(address: Option<&str>) -> Option<&'static str> {
    match address.and_then(|a| a.parse::<std::net::IpAddr>().ok()).map(canonical_ip) {
        Some(ip) if ip.is_loopback() => Some("local"),
        Some(std::net::IpAddr::V4(v4)) if v4.is_private() || v4.is_link_local() => Some("rede privada"),
        _ => None,
    }
}

/// One session's view; `current` is the session the request came with.
pub fn session_view(s: &Session, current: Option<uuid::Uuid>) -> SessionView {
    SessionView {
        id: s.id.to_string(),
        dispositivo: s.device.clone(),
        endereco_ip: s.address.clone(),
        localizacao: location(s.address.as_deref()),
        ultima_atividade: ts(&s.last_activity),
        criada_em: ts(&s.created_at),
        atual: Some(s.id) == current,
    }
}

/// The JSON Web Key Set of `/.well-known/jwks.json` (RFC 7517), as the document shows it
/// (jsonwebtoken's `JwkSet` writes it).
#[derive(ToSchema)]
#[allow(dead_code)] // documents the answer: jsonwebtoken's own type writes it
pub struct JwkSetView {
    /// The keys that verify access tokens (one: the service's RSA key).
    keys: Vec<JwkView>,
}

/// One public key.
#[derive(ToSchema)]
#[allow(dead_code)] // documents the answer: jsonwebtoken's own type writes it
struct JwkView {
    /// `sig`.
    #[schema(rename = "use")]
    use_: String,
    /// `RS256`.
    alg: String,
    /// The key's id (its SHA-256 thumbprint), the `kid` of the tokens it signs.
    kid: String,
    /// `RSA`.
    kty: String,
    /// Modulus, base64url.
    n: String,
    /// Exponent, base64url.
    e: String,
}
