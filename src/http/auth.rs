//! The nine authentication routes under `/api/v1/auth` (login, refresh, register,
//! change-password, mfa/setup, mfa/verify, sessions, logout, me) with the spec's Portuguese
//! field names (English aliases accepted), and the public key set at
//! `/.well-known/jwks.json`. Request bodies hold secrets, so none of them derives `Debug`.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use utoipa::ToSchema;
use utoipa_axum::routes;

use super::AppState;
use super::auth_extract::{AdminUser, AuthUser, Client};
use super::auth_views::{
    AccountView, Mensagem, MfaSetupView, PasswordChanged, SessionsView, TokensView, account_view, session_view,
    tokens_view,
};
use super::error::ApiError;
use super::extract::ApiJson;
use super::openapi::ApiRouter;
use crate::service::auth::{LoginRequest, NewUser, PasswordChange};

type ApiResult = Result<Response, ApiError>;

/// The authentication routes and the JWKS.
pub fn router() -> ApiRouter {
    ApiRouter::new()
        .routes(routes!(login))
        .routes(routes!(refresh))
        .routes(routes!(register))
        .routes(routes!(change_password))
        .routes(routes!(mfa_setup))
        .routes(routes!(mfa_verify))
        .routes(routes!(sessions))
        .routes(routes!(logout))
        .routes(routes!(me))
        .routes(routes!(jwks))
}

#[derive(Deserialize, ToSchema)]
#[schema(example = json!({"email": "analista@example.gov.br", "senha": "uma senha longa e forte", "codigo_totp": "123456"}))]
struct LoginBody {
    email: String,
    #[serde(alias = "password")]
    senha: String,
    #[serde(default, alias = "totp_code")]
    codigo_totp: Option<String>,
}

#[derive(Deserialize, ToSchema)]
struct MfaVerifyBody {
    email: String,
    #[serde(alias = "password")]
    senha: String,
    #[serde(alias = "totp_code")]
    codigo_totp: String,
}

#[derive(Deserialize, ToSchema)]
struct RefreshBody {
    #[serde(alias = "refresh_token")]
    token_renovacao: String,
}

#[derive(Deserialize, ToSchema)]
#[schema(example = json!({"email": "nova@example.gov.br", "senha": "uma senha longa e forte", "funcao": "analista"}))]
struct RegisterBody {
    email: String,
    #[serde(alias = "password")]
    senha: String,
    #[serde(alias = "role")]
    funcao: String,
    #[serde(default)]
    premium: bool,
}

#[derive(Deserialize, ToSchema)]
struct ChangePasswordBody {
    #[serde(alias = "current_password")]
    senha_atual: String,
    #[serde(alias = "new_password")]
    nova_senha: String,
}

/// Signs in with e-mail and password (and a TOTP or backup code when MFA is on).
#[utoipa::path(post, path = "/api/v1/auth/login", tag = "auth", request_body = LoginBody, responses(
    (status = 200, description = "Signed in", body = TokensView),
    (status = 400, description = "VALIDATION_ERROR"),
    (status = 401, description = "CREDENCIAIS_INVALIDAS"),
    (status = 423, description = "CONTA_BLOQUEADA"),
    (status = 428, description = "MFA_OBRIGATORIO"),
))]
async fn login(State(st): State<AppState>, Client(c): Client, ApiJson(b): ApiJson<LoginBody>) -> ApiResult {
    let req = LoginRequest { email: b.email, password: b.senha, code: b.codigo_totp };
    let issued = st.services.auth.login(req, &c).await?;
    Ok(Json(tokens_view(&issued)).into_response())
}

/// Signs in with the second factor.
#[utoipa::path(post, path = "/api/v1/auth/mfa/verify", tag = "auth", request_body = MfaVerifyBody, responses(
    (status = 200, description = "Signed in", body = TokensView),
    (status = 400, description = "VALIDATION_ERROR"),
    (status = 401, description = "CREDENCIAIS_INVALIDAS"),
    (status = 423, description = "CONTA_BLOQUEADA"),
))]
async fn mfa_verify(State(st): State<AppState>, Client(c): Client, ApiJson(b): ApiJson<MfaVerifyBody>) -> ApiResult {
    let req = LoginRequest { email: b.email, password: b.senha, code: Some(b.codigo_totp) };
    let issued = st.services.auth.login(req, &c).await?;
    Ok(Json(tokens_view(&issued)).into_response())
}

/// Trades a refresh token for new tokens (the old one is spent).
#[utoipa::path(post, path = "/api/v1/auth/refresh", tag = "auth", request_body = RefreshBody, responses(
    (status = 200, description = "New tokens", body = TokensView),
    (status = 400, description = "VALIDATION_ERROR"),
    (status = 401, description = "TOKEN_INVALIDO, TOKEN_EXPIRADO"),
))]
async fn refresh(State(st): State<AppState>, Client(c): Client, ApiJson(b): ApiJson<RefreshBody>) -> ApiResult {
    let issued = st.services.auth.refresh(&b.token_renovacao, &c)?;
    Ok(Json(tokens_view(&issued)).into_response())
}

/// Creates an account (administrators only).
#[utoipa::path(post, path = "/api/v1/auth/register", tag = "auth", request_body = RegisterBody, security(("bearer_jwt" = []), ("api_key" = [])), responses(
    (status = 201, description = "Created", body = AccountView),
    (status = 400, description = "VALIDATION_ERROR"),
    (status = 403, description = "PERMISSOES_INSUFICIENTES"),
    (status = 409, description = "CONFLICT"),
))]
async fn register(
    State(st): State<AppState>,
    AdminUser(admin): AdminUser,
    ApiJson(b): ApiJson<RegisterBody>,
) -> ApiResult {
    let new = NewUser { email: b.email, password: b.senha, role: b.funcao, premium: b.premium };
    let user = st.services.auth.register(&admin, new).await?;
    Ok((StatusCode::CREATED, Json(account_view(&user))).into_response())
}

/// Changes the caller's password and ends their other sessions.
#[utoipa::path(post, path = "/api/v1/auth/change-password", tag = "auth", request_body = ChangePasswordBody, security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Changed", body = PasswordChanged),
        (status = 400, description = "VALIDATION_ERROR"),
        (status = 401, description = "CREDENCIAIS_INVALIDAS"),
    ))]
async fn change_password(
    State(st): State<AppState>,
    AuthUser(who): AuthUser,
    Client(c): Client,
    ApiJson(b): ApiJson<ChangePasswordBody>,
) -> ApiResult {
    let change = PasswordChange { current: b.senha_atual, new: b.nova_senha };
    let ended = st.services.auth.change_password(&who, change, &c).await?;
    Ok(Json(PasswordChanged { mensagem: "senha alterada", sessoes_encerradas: ended }).into_response())
}

/// Enrols the caller in TOTP MFA: secret, QR code and backup codes.
#[utoipa::path(post, path = "/api/v1/auth/mfa/setup", tag = "auth", security(("bearer_jwt" = []), ("api_key" = [])), responses(
    (status = 200, description = "Enrolled", body = MfaSetupView),
    (status = 409, description = "CONFLICT"),
))]
async fn mfa_setup(State(st): State<AppState>, AuthUser(who): AuthUser, Client(c): Client) -> ApiResult {
    let e = st.services.auth.mfa_setup(&who, &c)?;
    let view = MfaSetupView { segredo: e.secret_base32, codigo_qr: e.qr_data_uri, codigos_backup: e.backup_codes };
    Ok(Json(view).into_response())
}

/// The caller's open sessions.
#[utoipa::path(get, path = "/api/v1/auth/sessions", tag = "auth", security(("bearer_jwt" = []), ("api_key" = [])), responses(
    (status = 200, description = "Sessions", body = SessionsView),
))]
async fn sessions(State(st): State<AppState>, AuthUser(who): AuthUser) -> ApiResult {
    let list = st.services.auth.sessions(&who)?;
    let sessoes = list.iter().map(|s| session_view(s, who.session_id)).collect();
    Ok(Json(SessionsView { sessoes }).into_response())
}

/// Ends the caller's session (its tokens stop working).
#[utoipa::path(post, path = "/api/v1/auth/logout", tag = "auth", security(("bearer_jwt" = []), ("api_key" = [])), responses(
    (status = 200, description = "Signed out", body = Mensagem),
))]
async fn logout(State(st): State<AppState>, AuthUser(who): AuthUser, Client(c): Client) -> ApiResult {
    st.services.auth.logout(&who, &c)?;
    Ok(Json(Mensagem { mensagem: "sessão encerrada" }).into_response())
}

/// The caller's account.
#[utoipa::path(get, path = "/api/v1/auth/me", tag = "auth", security(("bearer_jwt" = []), ("api_key" = [])), responses(
    (status = 200, description = "The account", body = AccountView),
))]
async fn me(State(st): State<AppState>, AuthUser(who): AuthUser) -> ApiResult {
    let user = st.services.auth.me(&who)?;
    Ok(Json(account_view(&user)).into_response())
}

/// The public keys that verify access tokens (RFC 7517).
#[utoipa::path(get, path = "/.well-known/jwks.json", tag = "auth", responses(
    (status = 200, description = "JSON Web Key Set `{keys: [...]}`", body = super::auth_views::JwkSetView),
))]
async fn jwks(State(st): State<AppState>) -> Response {
    Json(st.services.auth.jwks()).into_response()
}
