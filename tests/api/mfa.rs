//! MFA over HTTP with real TOTP codes computed here: setup, MFA_OBRIGATORIO, verification,
//! replay of a used step, backup codes that work once.

use serde_json::{Value, json};
use totp_rs::{Builder, Secret};

use crate::auth::pt_error;
use crate::helpers::{TestApp, TestUser, spawn_secure_app_with};

/// The code of `secret` at `offset_steps` 30-second steps from now.
fn totp(secret: &str, offset_steps: i64) -> String {
    let t = Builder::new()
        .with_secret(Secret::try_from_base32(secret).unwrap())
        .with_account_name("test")
        .with_issuer(Some("test"))
        .build()
        .unwrap();
    let now = chrono::Utc::now().timestamp() + offset_steps * 30;
    t.generate(now as u64).to_string()
}

/// Failed attempts (a replayed step, a wrong code) space the next ones; a tiny scale keeps the
/// tests quick.
async fn spawn() -> TestApp {
    spawn_secure_app_with(|c| c.auth.login_delay_scale = 0.001).await
}

async fn enrol(app: &TestApp) -> (TestUser, Value) {
    let u = app.user("analista").await;
    let r = app.post_as("/api/v1/auth/mfa/setup", &u.token, &json!({})).await;
    assert_eq!(r.status(), 200);
    (u, r.json().await.unwrap())
}

async fn verify(app: &TestApp, u: &TestUser, code: &str) -> reqwest::Response {
    app.post("/api/v1/auth/mfa/verify", &json!({"email": u.email, "senha": u.password, "codigo_totp": code})).await
}

#[tokio::test]
async fn setup_hands_out_a_secret_a_qr_code_and_backup_codes() {
    let app = spawn().await;
    let (u, v) = enrol(&app).await;
    assert!(Secret::try_from_base32(v["segredo"].as_str().unwrap()).is_ok());
    assert!(v["codigo_qr"].as_str().unwrap().starts_with("data:image/png;base64,"));
    assert_eq!(v["codigos_backup"].as_array().unwrap().len(), 10);
    let me: Value = app.get_as("/api/v1/auth/me", &u.token).await.json().await.unwrap();
    assert_eq!(me["mfa_ativado"], true);
}

#[tokio::test]
async fn a_login_without_a_code_is_mfa_obrigatorio_and_a_real_totp_signs_in_once_per_step() {
    let app = spawn().await;
    let (u, v) = enrol(&app).await;
    let secret = v["segredo"].as_str().unwrap();
    pt_error(app.login(&u.email, &u.password).await, 428, "MFA_OBRIGATORIO").await;
    let code = totp(secret, 0);
    let r = verify(&app, &u, &code).await;
    assert_eq!(r.status(), 200);
    let t: Value = r.json().await.unwrap();
    assert_eq!(app.get_as("/api/v1/auth/me", t["token_acesso"].as_str().unwrap()).await.status(), 200);
    // The same step cannot be used twice.
    let d = pt_error(verify(&app, &u, &code).await, 401, "CREDENCIAIS_INVALIDAS").await;
    assert_eq!(d["campo"], "codigo_totp");
    // The next step is accepted (one step of clock skew is allowed), also through login.
    let r = app
        .post("/api/v1/auth/login", &json!({"email": u.email, "senha": u.password, "codigo_totp": totp(secret, 1)}))
        .await;
    assert_eq!(r.status(), 200);
}

#[tokio::test]
async fn a_wrong_code_or_a_wrong_password_is_refused() {
    let app = spawn().await;
    let (u, v) = enrol(&app).await;
    let wrong = if totp(v["segredo"].as_str().unwrap(), 0) == "000000" { "111111" } else { "000000" };
    pt_error(verify(&app, &u, wrong).await, 401, "CREDENCIAIS_INVALIDAS").await;
    let r = app
        .post(
            "/api/v1/auth/mfa/verify",
            &json!({"email": u.email, "senha": "not-the-password", "codigo_totp": totp(v["segredo"].as_str().unwrap(), 0)}),
        )
        .await;
    pt_error(r, 401, "CREDENCIAIS_INVALIDAS").await;
}

#[tokio::test]
async fn a_backup_code_signs_in_exactly_once() {
    let app = spawn().await;
    let (u, v) = enrol(&app).await;
    let code = v["codigos_backup"][0].as_str().unwrap().to_string();
    let r = verify(&app, &u, &code).await;
    assert_eq!(r.status(), 200);
    pt_error(verify(&app, &u, &code).await, 401, "CREDENCIAIS_INVALIDAS").await;
    let other = v["codigos_backup"][1].as_str().unwrap().to_uppercase();
    assert_eq!(verify(&app, &u, &other).await.status(), 200, "another code still works, in any case");
}
