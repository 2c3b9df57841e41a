//! Sessions over HTTP: refresh rotation and reuse detection, the renewal limit, the cap of
//! three concurrent sessions, logout, the inactivity timeout and the session list.

use std::time::Duration;

use serde_json::{Value, json};

use crate::auth::pt_error;
use crate::helpers::{TestApp, spawn_secure_app, spawn_secure_app_with};

async fn refresh(app: &TestApp, token: &str) -> reqwest::Response {
    app.post("/api/v1/auth/refresh", &json!({"token_renovacao": token})).await
}

fn field(v: &Value, key: &str) -> String {
    v[key].as_str().unwrap().to_string()
}

#[tokio::test]
async fn refresh_rotates_the_pair_and_a_reused_refresh_token_revokes_the_whole_session() {
    let app = spawn_secure_app().await;
    let u = app.user("analista").await;
    let r = refresh(&app, &u.refresh).await;
    assert_eq!(r.status(), 200);
    let second: Value = r.json().await.unwrap();
    assert_ne!(field(&second, "token_renovacao"), u.refresh);
    assert_eq!(second["tipo_token"], "Bearer");
    let access = field(&second, "token_acesso");
    assert_eq!(app.get_as("/api/v1/auth/me", &access).await.status(), 200);
    // The first refresh token was rotated: presenting it again is a replay.
    let d = pt_error(refresh(&app, &u.refresh).await, 401, "TOKEN_INVALIDO").await;
    assert!(d["reason"].as_str().unwrap().contains("revoked"), "{d}");
    // ...which ended the whole family: the newest pair is dead too.
    pt_error(app.get_as("/api/v1/auth/me", &access).await, 401, "TOKEN_INVALIDO").await;
    pt_error(refresh(&app, &field(&second, "token_renovacao")).await, 401, "TOKEN_INVALIDO").await;
    pt_error(app.get_as("/api/v1/auth/me", &u.token).await, 401, "TOKEN_INVALIDO").await;
}

#[tokio::test]
async fn a_session_allows_five_renewals_and_no_sixth() {
    let app = spawn_secure_app().await;
    let u = app.user("visualizador").await;
    let mut token = u.refresh.clone();
    for n in 1..=5 {
        let r = refresh(&app, &token).await;
        assert_eq!(r.status(), 200, "renewal {n}");
        token = field(&r.json().await.unwrap(), "token_renovacao");
    }
    let d = pt_error(refresh(&app, &token).await, 401, "TOKEN_INVALIDO").await;
    assert_eq!(d["max_renewals"], 5);
}

#[tokio::test]
async fn a_fourth_login_ends_the_oldest_of_three_sessions() {
    let app = spawn_secure_app().await;
    let u = app.user("analista").await;
    let mut tokens = vec![u.token.clone()];
    for _ in 0..3 {
        tokens.push(field(&app.tokens(&u.email, &u.password).await, "token_acesso"));
    }
    pt_error(app.get_as("/api/v1/auth/me", &tokens[0]).await, 401, "TOKEN_INVALIDO").await;
    for t in &tokens[1..] {
        assert_eq!(app.get_as("/api/v1/auth/me", t).await.status(), 200);
    }
    let v: Value = app.get_as("/api/v1/auth/sessions", &tokens[3]).await.json().await.unwrap();
    let sessions = v["sessoes"].as_array().unwrap();
    assert_eq!(sessions.len(), 3);
    assert_eq!(sessions.iter().filter(|s| s["atual"] == true).count(), 1);
    assert_eq!(sessions.last().unwrap()["atual"], true, "the newest session is the caller's");
}

#[tokio::test]
async fn the_session_list_describes_each_session() {
    let app = spawn_secure_app().await;
    let u = app.user("servico").await;
    let r = app
        .client
        .post(app.url("/api/v1/auth/login"))
        .header("user-agent", "vigia-test/1.0")
        .json(&json!({"email": u.email, "senha": u.password}))
        .send()
        .await
        .unwrap();
    let token = field(&r.json().await.unwrap(), "token_acesso");
    let v: Value = app.get_as("/api/v1/auth/sessions", &token).await.json().await.unwrap();
    let current = v["sessoes"].as_array().unwrap().iter().find(|s| s["atual"] == true).unwrap().clone();
    assert_eq!(current["dispositivo"], "vigia-test/1.0");
    assert_eq!(current["endereco_ip"], "127.0.0.1");
    assert_eq!(current["localizacao"], "local");
    assert!(current["ultima_atividade"].as_str().unwrap().ends_with('Z'));
    assert!(uuid::Uuid::parse_str(current["id"].as_str().unwrap()).is_ok());
}

#[tokio::test]
async fn logout_ends_the_session_and_its_tokens() {
    let app = spawn_secure_app().await;
    let u = app.user("analista").await;
    let r = app.post_as("/api/v1/auth/logout", &u.token, &json!({})).await;
    assert_eq!(r.status(), 200);
    pt_error(app.get_as("/api/v1/auth/me", &u.token).await, 401, "TOKEN_INVALIDO").await;
    pt_error(refresh(&app, &u.refresh).await, 401, "TOKEN_INVALIDO").await;
}

#[tokio::test]
async fn a_session_idle_longer_than_the_timeout_ends() {
    let app = spawn_secure_app_with(|c| c.auth.session_idle_secs = 1).await;
    let u = app.user("analista").await;
    assert_eq!(app.get_as("/api/v1/auth/me", &u.token).await.status(), 200);
    // Activity keeps it alive...
    for _ in 0..4 {
        tokio::time::sleep(Duration::from_millis(400)).await;
        assert_eq!(app.get_as("/api/v1/auth/me", &u.token).await.status(), 200);
    }
    // ...and a pause longer than the timeout ends it.
    tokio::time::sleep(Duration::from_millis(1300)).await;
    pt_error(app.get_as("/api/v1/auth/me", &u.token).await, 401, "TOKEN_INVALIDO").await;
    pt_error(refresh(&app, &u.refresh).await, 401, "TOKEN_INVALIDO").await;
}
