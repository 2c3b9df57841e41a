//! Login, tokens and accounts over HTTP: the login answer, every authentication error code with
//! its status, the JWKS, expired and forged tokens, registration, password change, and the
//! failed-login delay and lock schedule.

use std::time::Duration;

use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde_json::{Value, json};

use crate::helpers::{ADMIN_EMAIL, ADMIN_PASSWORD, TestApp, spawn_app, spawn_secure_app, spawn_secure_app_with};

/// Asserts the Portuguese envelope with `code` and returns its details.
pub async fn pt_error(r: reqwest::Response, status: u16, code: &str) -> Value {
    assert_eq!(r.status(), status, "expected {code}");
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["erro"]["codigo"], code, "{v}");
    assert!(v["erro"]["id_requisicao"].is_string(), "{v}");
    v["erro"]["detalhes"].clone()
}

/// Asserts the English envelope with `code` and returns its details.
pub async fn en_error(r: reqwest::Response, status: u16, code: &str) -> Value {
    assert_eq!(r.status(), status, "expected {code}");
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["error"]["code"], code, "{v}");
    v["error"]["details"].clone()
}

#[tokio::test]
async fn login_answers_the_spec_shape_and_its_token_authenticates_me() {
    let app = spawn_secure_app().await;
    let v = app.tokens(ADMIN_EMAIL, ADMIN_PASSWORD).await;
    assert_eq!(v["tipo_token"], "Bearer");
    assert_eq!(v["expira_em"], 900);
    assert!(v["token_renovacao"].is_string());
    assert_eq!(v["usuario"]["email"], ADMIN_EMAIL);
    assert_eq!(v["usuario"]["funcao"], "admin");
    assert_eq!(v["usuario"]["permissoes"].as_array().unwrap().len(), 10);
    let me: Value = app.get_as("/api/v1/auth/me", v["token_acesso"].as_str().unwrap()).await.json().await.unwrap();
    assert_eq!(me["id"], v["usuario"]["id"]);
    assert_eq!(me["is_admin"], true);
    assert_eq!(me["mfa_ativado"], false);
}

#[tokio::test]
async fn english_field_names_are_accepted_as_aliases() {
    let app = spawn_secure_app().await;
    let r = app.post("/api/v1/auth/login", &json!({"email": ADMIN_EMAIL, "password": ADMIN_PASSWORD})).await;
    assert_eq!(r.status(), 200);
    let v: Value = r.json().await.unwrap();
    let r = app.post("/api/v1/auth/refresh", &json!({"refresh_token": v["token_renovacao"]})).await;
    assert_eq!(r.status(), 200);
    assert!(r.json::<Value>().await.unwrap()["token_acesso"].is_string());
}

#[tokio::test]
async fn a_wrong_password_and_an_unknown_email_are_the_same_invalid_credentials() {
    let app = spawn_secure_app().await;
    pt_error(app.login(ADMIN_EMAIL, "not-the-password").await, 401, "CREDENCIAIS_INVALIDAS").await;
    pt_error(app.login("nobody@vigia.test", "whatever-123").await, 401, "CREDENCIAIS_INVALIDAS").await;
    let d = pt_error(app.post("/api/v1/auth/login", &json!({"email": "x"})).await, 400, "ERRO_VALIDACAO").await;
    assert!(d["reason"].as_str().unwrap().contains("senha"), "{d}");
}

#[tokio::test]
async fn protected_routes_without_credentials_are_unauthorized() {
    let app = spawn_secure_app().await;
    pt_error(app.get("/api/v1/auth/me").await, 401, "UNAUTHORIZED").await;
    en_error(app.get("/api/v1/audit").await, 401, "UNAUTHORIZED").await;
    en_error(app.get("/api/v1/admin/ip-whitelist/list").await, 401, "UNAUTHORIZED").await;
}

#[tokio::test]
async fn registration_needs_an_admin_and_answers_201_once_per_email() {
    let app = spawn_secure_app().await;
    let admin = app.admin_token().await;
    let body = json!({"email": "Nova@Vigia.test", "senha": "uma-senha-boa", "funcao": "analista"});
    pt_error(app.post("/api/v1/auth/register", &body).await, 401, "UNAUTHORIZED").await;
    let analyst = app.user("analista").await;
    let r = app.post_as("/api/v1/auth/register", &analyst.token, &body).await;
    pt_error(r, 403, "PERMISSOES_INSUFICIENTES").await;
    let r = app.post_as("/api/v1/auth/register", &admin, &body).await;
    assert_eq!(r.status(), 201);
    let v: Value = r.json().await.unwrap();
    assert_eq!(v["email"], "nova@vigia.test");
    assert_eq!(v["funcao"], "analista");
    assert_eq!(v["is_admin"], false);
    let r = app.post_as("/api/v1/auth/register", &admin, &body).await;
    assert_eq!(r.status(), 409);
    let short = json!({"email": "b@vigia.test", "senha": "curta", "funcao": "analista"});
    let d = pt_error(app.post_as("/api/v1/auth/register", &admin, &short).await, 400, "ERRO_VALIDACAO").await;
    assert_eq!(d["field"], "senha");
    let role = json!({"email": "c@vigia.test", "password": "long-enough", "role": "chefe"});
    let d = pt_error(app.post_as("/api/v1/auth/register", &admin, &role).await, 400, "ERRO_VALIDACAO").await;
    assert_eq!(d["field"], "funcao");
    app.tokens("nova@vigia.test", "uma-senha-boa").await;
}

#[tokio::test]
async fn forged_malformed_and_misused_tokens_are_token_invalido() {
    let app = spawn_secure_app().await;
    let t = app.tokens(ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let access = t["token_acesso"].as_str().unwrap();
    let refresh = t["token_renovacao"].as_str().unwrap();
    let claims: Value = jsonwebtoken::dangerous::insecure_decode(access).unwrap().claims;
    let hs256 =
        jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &EncodingKey::from_secret(b"guess")).unwrap();
    let b64 = |v: &Value| {
        use base64::Engine;
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string())
    };
    let none = format!("{}.{}.", b64(&json!({"alg": "none", "typ": "JWT"})), b64(&claims));
    let mut forged = claims.clone();
    forged["role"] = json!("admin");
    forged["email"] = json!("intruder@vigia.test");
    let parts: Vec<&str> = access.split('.').collect();
    let tampered = format!("{}.{}.{}", parts[0], b64(&forged), parts[2]);
    for bad in ["garbage", hs256.as_str(), none.as_str(), tampered.as_str(), refresh] {
        let d = pt_error(app.get_as("/api/v1/auth/me", bad).await, 401, "TOKEN_INVALIDO").await;
        assert!(d["reason"].is_string(), "{d}");
    }
    let basic = app.client.get(app.url("/api/v1/auth/me")).header("authorization", "Basic YTpi").send().await.unwrap();
    pt_error(basic, 401, "TOKEN_INVALIDO").await;
    let r = app.post("/api/v1/auth/refresh", &json!({"token_renovacao": access})).await;
    pt_error(r, 401, "TOKEN_INVALIDO").await;
    // Optional authentication still refuses a bad token.
    let r = app.get_as("/api/v1/investigations", "garbage").await;
    en_error(r, 401, "TOKEN_INVALIDO").await;
}

#[tokio::test]
async fn an_expired_access_token_is_token_expirado_with_its_details() {
    let app = spawn_secure_app_with(|c| c.auth.access_token_ttl_secs = 1).await;
    let t = app.tokens(ADMIN_EMAIL, ADMIN_PASSWORD).await;
    let access = t["token_acesso"].as_str().unwrap();
    let mut r = app.get_as("/api/v1/auth/me", access).await;
    for _ in 0..60 {
        if r.status() == 401 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        r = app.get_as("/api/v1/auth/me", access).await;
    }
    let d = pt_error(r, 401, "TOKEN_EXPIRADO").await;
    assert!(d["expirou_em"].as_str().unwrap().ends_with('Z'), "{d}");
    assert_eq!(d["token_renovacao_valido"], true);
    let r = app.post("/api/v1/auth/refresh", &json!({"token_renovacao": t["token_renovacao"]})).await;
    assert_eq!(r.status(), 200, "the refresh token still renews the session");
}

#[tokio::test]
async fn the_published_jwks_verifies_an_issued_token() {
    let app = spawn_secure_app().await;
    let access = app.admin_token().await;
    let jwks: jsonwebtoken::jwk::JwkSet = app.get("/.well-known/jwks.json").await.json().await.unwrap();
    let header = jsonwebtoken::decode_header(&access).unwrap();
    assert_eq!(header.alg, Algorithm::RS256);
    let jwk = jwks.find(header.kid.as_deref().unwrap()).expect("the token's kid is published");
    let mut validation = Validation::new(Algorithm::RS256);
    validation.set_issuer(&["vigia"]);
    let data = jsonwebtoken::decode::<Value>(&access, &DecodingKey::from_jwk(jwk).unwrap(), &validation).unwrap();
    let c = data.claims;
    for key in ["sub", "email", "role", "permissoes", "iat", "exp", "jti", "iss"] {
        assert!(c.get(key).is_some(), "{key} in {c}");
    }
    assert_eq!(c["email"], ADMIN_EMAIL);
    assert!(uuid::Uuid::parse_str(c["sub"].as_str().unwrap()).is_ok());
}

#[tokio::test]
async fn changing_the_password_ends_the_other_sessions() {
    // A wrong current password counts as a failed login; a tiny scale keeps the test quick.
    let app = spawn_secure_app_with(|c| c.auth.login_delay_scale = 0.001).await;
    let u = app.user("analista").await;
    let other = app.tokens(&u.email, &u.password).await["token_acesso"].as_str().unwrap().to_string();
    let wrong = json!({"senha_atual": "not-it-at-all", "nova_senha": "a-brand-new-one"});
    let r = app.post_as("/api/v1/auth/change-password", &u.token, &wrong).await;
    pt_error(r, 401, "CREDENCIAIS_INVALIDAS").await;
    let change = json!({"current_password": u.password, "new_password": "a-brand-new-one"});
    let r = app.post_as("/api/v1/auth/change-password", &u.token, &change).await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.json::<Value>().await.unwrap()["sessoes_encerradas"], 1);
    pt_error(app.get_as("/api/v1/auth/me", &other).await, 401, "TOKEN_INVALIDO").await;
    assert_eq!(app.get_as("/api/v1/auth/me", &u.token).await.status(), 200);
    pt_error(app.login(&u.email, &u.password).await, 401, "CREDENCIAIS_INVALIDAS").await;
    app.tokens(&u.email, "a-brand-new-one").await;
}

/// Logs in, sleeping out every "too soon" refusal; returns the first real answer.
async fn login_when_allowed(app: &TestApp, email: &str, password: &str) -> reqwest::Response {
    loop {
        let r = app.login(email, password).await;
        if r.status() != 429 {
            return r;
        }
        let d: Value = r.json().await.unwrap();
        tokio::time::sleep(Duration::from_millis(d["erro"]["detalhes"]["retry_after_ms"].as_u64().unwrap() + 5)).await;
    }
}

#[tokio::test]
async fn failed_logins_are_spaced_by_the_schedule_and_the_sixth_locks_until_an_admin_unlocks() {
    let app = spawn_secure_app_with(|c| c.auth.login_delay_scale = 0.01).await;
    let u = app.user("analista").await;
    for _ in 0..4 {
        pt_error(login_when_allowed(&app, &u.email, "wrong-password").await, 401, "CREDENCIAIS_INVALIDAS").await;
    }
    // After four failures the next attempt waits 60 s x 0.01: even the right password is
    // refused without being checked.
    let r = app.login(&u.email, &u.password).await;
    assert!(r.headers().contains_key("retry-after"));
    let d = pt_error(r, 429, "LIMITE_TAXA_EXCEDIDO").await;
    let wait = d["retry_after_ms"].as_u64().unwrap();
    assert!(wait > 300 && wait <= 600, "{d}");
    assert_eq!(d["retry_after"], 1);
    pt_error(login_when_allowed(&app, &u.email, "wrong-password").await, 401, "CREDENCIAIS_INVALIDAS").await;
    let d = pt_error(app.login(&u.email, "wrong-password").await, 429, "LIMITE_TAXA_EXCEDIDO").await;
    assert!(d["retry_after_ms"].as_u64().unwrap() > 2000, "300 s x 0.01 before the sixth attempt: {d}");
    let d = pt_error(login_when_allowed(&app, &u.email, "wrong-password").await, 423, "CONTA_BLOQUEADA").await;
    assert!(d["bloqueado_ate"].is_string());
    pt_error(app.login(&u.email, &u.password).await, 423, "CONTA_BLOQUEADA").await;
    let admin = app.admin_token().await;
    let r = app.post_as(&format!("/api/v1/admin/users/{}/unlock", u.id), &admin, &json!({})).await;
    assert_eq!(r.status(), 200);
    app.tokens(&u.email, &u.password).await;
}

#[tokio::test]
async fn an_unknown_email_follows_the_same_schedule_as_a_known_one() {
    let app = spawn_app().await;
    pt_error(app.login("ghost@vigia.test", "guess-one-two").await, 401, "CREDENCIAIS_INVALIDAS").await;
    let d = pt_error(app.login("ghost@vigia.test", "guess-one-two").await, 429, "LIMITE_TAXA_EXCEDIDO").await;
    assert!(d["retry_after_ms"].as_u64().unwrap() <= 1000, "{d}");
}
