//! The nine authentication routes under `/api/v1/auth` (login, refresh, register,
//! change-password, mfa/setup, mfa/verify, sessions, logout, me) with the spec's Portuguese
//! field names (English aliases accepted), and the public key set at
//! `/.well-known/jwks.json`. Request bodies hold secrets, so none of them derives `Debug`.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Deserialize;
use serde_json::{Value, json};

use super::AppState;
use super::auth_extract::{AdminUser, AuthUser, Client};
use super::error::ApiError;
use super::extract::ApiJson;
use super::views::ts;
use crate::domain::whitelist::canonical_ip;
use crate::domain::{Session, User};
use crate::service::auth::{Issued, LoginRequest, NewUser, PasswordChange};

type ApiResult = Result<Response, ApiError>;

/// The authentication routes and the JWKS.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/v1/auth/login", post(login))
        .route("/api/v1/auth/refresh", post(refresh))
        .route("/api/v1/auth/register", post(register))
        .route("/api/v1/auth/change-password", post(change_password))
        .route("/api/v1/auth/mfa/setup", post(mfa_setup))
        .route("/api/v1/auth/mfa/verify", post(mfa_verify))
        .route("/api/v1/auth/sessions", get(sessions))
        .route("/api/v1/auth/logout", post(logout))
        .route("/api/v1/auth/me", get(me))
        .route("/.well-known/jwks.json", get(jwks))
}

#[derive(Deserialize)]
struct LoginBody {
    email: String,
    #[serde(alias = "password")]
    senha: String,
    #[serde(default, alias = "totp_code")]
    codigo_totp: Option<String>,
}

#[derive(Deserialize)]
struct MfaVerifyBody {
    email: String,
    #[serde(alias = "password")]
    senha: String,
    #[serde(alias = "totp_code")]
    codigo_totp: String,
}

#[derive(Deserialize)]
struct RefreshBody {
    #[serde(alias = "refresh_token")]
    token_renovacao: String,
}

#[derive(Deserialize)]
struct RegisterBody {
    email: String,
    #[serde(alias = "password")]
    senha: String,
    #[serde(alias = "role")]
    funcao: String,
    #[serde(default)]
    premium: bool,
}

#[derive(Deserialize)]
struct ChangePasswordBody {
    #[serde(alias = "current_password")]
    senha_atual: String,
    #[serde(alias = "new_password")]
    nova_senha: String,
}

fn user_view(u: &User) -> Value {
    json!({
        "id": u.id.to_string(),
        "email": u.email.as_str(),
        "funcao": u.role.as_str(),
        "permissoes": u.role.permissions().iter().map(|p| p.as_str()).collect::<Vec<_>>(),
    })
}

fn tokens_view(t: &Issued) -> Value {
    json!({
        "token_acesso": t.access_token,
        "token_renovacao": t.refresh_token,
        "tipo_token": "Bearer",
        "expira_em": t.expires_in,
        "usuario": user_view(&t.user),
    })
}

fn account_view(u: &User) -> Value {
    let mut v = user_view(u);
    v["is_admin"] = json!(u.is_admin);
    v["premium"] = json!(u.premium);
    v["mfa_ativado"] = json!(u.mfa.enabled);
    v["criado_em"] = json!(ts(&u.created_at));
    v
}

/// No geolocation database ships with Vigia: the location names the kind of network for
/// loopback and private addresses and is null for public ones.
fn location(address: Option<&str>) -> Value {
    match address.and_then(|a| a.parse::<std::net::IpAddr>().ok()).map(canonical_ip) {
        Some(ip) if ip.is_loopback() => json!("local"),
        Some(std::net::IpAddr::V4(v4)) if v4.is_private() || v4.is_link_local() => json!("rede privada"),
        _ => Value::Null,
    }
}

fn session_view(s: &Session, current: Option<uuid::Uuid>) -> Value {
    json!({
        "id": s.id.to_string(),
        "dispositivo": s.device,
        "endereco_ip": s.address,
        "localizacao": location(s.address.as_deref()),
        "ultima_atividade": ts(&s.last_activity),
        "criada_em": ts(&s.created_at),
        "atual": Some(s.id) == current,
    })
}

async fn login(State(st): State<AppState>, Client(c): Client, ApiJson(b): ApiJson<LoginBody>) -> ApiResult {
    let req = LoginRequest { email: b.email, password: b.senha, code: b.codigo_totp };
    let issued = st.services.auth.login(req, &c).await?;
    Ok(Json(tokens_view(&issued)).into_response())
}

async fn mfa_verify(State(st): State<AppState>, Client(c): Client, ApiJson(b): ApiJson<MfaVerifyBody>) -> ApiResult {
    let req = LoginRequest { email: b.email, password: b.senha, code: Some(b.codigo_totp) };
    let issued = st.services.auth.login(req, &c).await?;
    Ok(Json(tokens_view(&issued)).into_response())
}

async fn refresh(State(st): State<AppState>, Client(c): Client, ApiJson(b): ApiJson<RefreshBody>) -> ApiResult {
    let issued = st.services.auth.refresh(&b.token_renovacao, &c)?;
    Ok(Json(tokens_view(&issued)).into_response())
}

async fn register(
    State(st): State<AppState>,
    AdminUser(admin): AdminUser,
    ApiJson(b): ApiJson<RegisterBody>,
) -> ApiResult {
    let new = NewUser { email: b.email, password: b.senha, role: b.funcao, premium: b.premium };
    let user = st.services.auth.register(&admin, new).await?;
    Ok((StatusCode::CREATED, Json(account_view(&user))).into_response())
}

async fn change_password(
    State(st): State<AppState>,
    AuthUser(who): AuthUser,
    Client(c): Client,
    ApiJson(b): ApiJson<ChangePasswordBody>,
) -> ApiResult {
    let change = PasswordChange { current: b.senha_atual, new: b.nova_senha };
    let ended = st.services.auth.change_password(&who, change, &c).await?;
    Ok(Json(json!({"mensagem": "senha alterada", "sessoes_encerradas": ended})).into_response())
}

async fn mfa_setup(State(st): State<AppState>, AuthUser(who): AuthUser, Client(c): Client) -> ApiResult {
    let e = st.services.auth.mfa_setup(&who, &c)?;
    Ok(Json(json!({"segredo": e.secret_base32, "codigo_qr": e.qr_data_uri, "codigos_backup": e.backup_codes}))
        .into_response())
}

async fn sessions(State(st): State<AppState>, AuthUser(who): AuthUser) -> ApiResult {
    let list = st.services.auth.sessions(&who)?;
    let sessoes: Vec<Value> = list.iter().map(|s| session_view(s, who.session_id)).collect();
    Ok(Json(json!({ "sessoes": sessoes })).into_response())
}

async fn logout(State(st): State<AppState>, AuthUser(who): AuthUser, Client(c): Client) -> ApiResult {
    st.services.auth.logout(&who, &c)?;
    Ok(Json(json!({"mensagem": "sessão encerrada"})).into_response())
}

async fn me(State(st): State<AppState>, AuthUser(who): AuthUser) -> ApiResult {
    let user = st.services.auth.me(&who)?;
    Ok(Json(account_view(&user)).into_response())
}

async fn jwks(State(st): State<AppState>) -> Response {
    Json(st.services.auth.jwks()).into_response()
}
