//! The audit trail over HTTP (logins, lock, refresh, 401, 403 and admin actions, with actor,
//! address, request id and time, newest first, paginated), and the promise that no secret
//! ever reaches a log line.

use std::io::Write;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use serde_json::{Value, json};

use crate::helpers::{ADMIN_EMAIL, ADMIN_PASSWORD, TestApp, spawn_secure_app, spawn_secure_app_with};

async fn audit(app: &TestApp, token: &str, query: &str) -> Value {
    let r = app.get_as(&format!("/api/v1/audit?{query}"), token).await;
    assert_eq!(r.status(), 200);
    r.json().await.unwrap()
}

fn find<'a>(entries: &'a [Value], action: &str, outcome: &str) -> &'a Value {
    entries
        .iter()
        .find(|e| e["action"] == action && e["outcome"] == outcome)
        .unwrap_or_else(|| panic!("no {action}/{outcome} in {entries:?}"))
}

#[tokio::test]
async fn logins_refusals_refreshes_and_admin_actions_are_audited_newest_first() {
    let app = spawn_secure_app_with(|c| c.auth.login_delay_scale = 0.001).await;
    let analyst = app.user("analista").await;
    let admin = app.admin_token().await;
    for _ in 0..6 {
        app.login(&analyst.email, "wrong-password").await;
        tokio::time::sleep(Duration::from_millis(310)).await;
    }
    app.get("/api/v1/auth/me").await;
    app.get_as("/api/v1/audit", &analyst.token).await;
    app.post("/api/v1/auth/refresh", &json!({"token_renovacao": analyst.refresh})).await;
    let add = app
        .client
        .post(app.url("/api/v1/admin/ip-whitelist/add"))
        .bearer_auth(&admin)
        .header("x-request-id", "audit-test-1")
        .json(&json!({"ip_address": "198.51.100.7", "description": "audit"}))
        .send()
        .await
        .unwrap();
    assert_eq!(add.status(), 201);
    let v = audit(&app, &admin, "limit=100").await;
    let entries = v["data"].as_array().unwrap().clone();
    let times: Vec<&str> = entries.iter().map(|e| e["timestamp"].as_str().unwrap()).collect();
    assert!(times.windows(2).all(|w| w[0] >= w[1]), "newest first: {times:?}");
    assert!(entries.iter().all(|e| e["address"] == "127.0.0.1" && e["request_id"].is_string()));
    let ok = find(&entries, "login", "success");
    assert!(ok["actor"]["user_id"].is_string() && ok["actor"]["email"].is_string());
    assert_eq!(find(&entries, "login", "failure")["actor"]["email"], analyst.email);
    assert_eq!(find(&entries, "account_locked", "success")["actor"]["email"], analyst.email);
    assert_eq!(find(&entries, "token_refresh", "success")["actor"]["email"], analyst.email);
    assert_eq!(find(&entries, "unauthorized_access", "failure")["details"]["path"], "/api/v1/auth/me");
    let denied = find(&entries, "forbidden_access", "denied");
    assert_eq!(
        (denied["actor"]["email"].as_str(), denied["details"]["path"].as_str()),
        (Some(analyst.email.as_str()), Some("/api/v1/audit"))
    );
    let action = find(&entries, "admin_action", "success");
    assert_eq!(action["request_id"], "audit-test-1");
    assert_eq!(action["actor"]["email"], ADMIN_EMAIL);
    assert_eq!(action["details"]["path"], "/api/v1/admin/ip-whitelist/add");
}

#[tokio::test]
async fn the_audit_log_pages_with_meta_and_links() {
    let app = spawn_secure_app().await;
    let admin = app.admin_token().await;
    app.admin_token().await;
    let total = audit(&app, &admin, "limit=100").await["meta"]["total"].as_u64().unwrap();
    assert!(total >= 2);
    let v = audit(&app, &admin, "page=1&limit=1").await;
    assert_eq!(v["meta"], json!({"page": 1, "limit": 1, "total": total, "pages": total}));
    assert_eq!(v["links"]["next"], "/api/v1/audit?page=2&limit=1");
    assert!(v["links"]["prev"].is_null());
    let r = app.get_as("/api/v1/audit?limit=101", &admin).await;
    assert_eq!(r.status(), 400);
}

/// Every log line of the test process, from the moment the first caller asks.
fn captured_logs() -> Arc<Mutex<Vec<u8>>> {
    static LOGS: OnceLock<Arc<Mutex<Vec<u8>>>> = OnceLock::new();
    LOGS.get_or_init(|| {
        let buf = Arc::new(Mutex::new(Vec::new()));
        let sink = buf.clone();
        let subscriber = tracing_subscriber::fmt()
            .json()
            .with_env_filter(tracing_subscriber::EnvFilter::new("vigia=trace,debug"))
            .with_writer(move || Sink(sink.clone()))
            .finish();
        tracing::subscriber::set_global_default(subscriber).expect("the only global subscriber");
        buf
    })
    .clone()
}

struct Sink(Arc<Mutex<Vec<u8>>>);

impl Write for Sink {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn s(v: &Value) -> String {
    v.as_str().unwrap().to_string()
}

#[tokio::test]
async fn no_password_token_totp_secret_backup_code_or_key_reaches_the_logs() {
    let logs = captured_logs();
    let app = spawn_secure_app_with(|c| c.auth.login_delay_scale = 0.001).await;
    let admin = app.admin_token().await;
    let service = app.user("servico").await;
    let u = app.user("analista").await;
    let mut secrets =
        vec![ADMIN_PASSWORD.to_string(), admin.clone(), service.password, service.token, u.password.clone()];
    secrets.extend([u.token.clone(), u.refresh.clone(), "wrong-guess-42".into(), "brand-new-password".into()]);
    app.login(&u.email, "wrong-guess-42").await;
    tokio::time::sleep(Duration::from_millis(20)).await;
    let r: Value = app.post("/api/v1/auth/refresh", &json!({"token_renovacao": u.refresh})).await.json().await.unwrap();
    secrets.extend([s(&r["token_acesso"]), s(&r["token_renovacao"])]);
    let m: Value = app.post_as("/api/v1/auth/mfa/setup", &u.token, &json!({})).await.json().await.unwrap();
    secrets.push(s(&m["segredo"]));
    secrets.extend(m["codigos_backup"].as_array().unwrap().iter().map(s));
    let body = json!({"email": u.email, "senha": u.password, "codigo_totp": s(&m["codigos_backup"][0])});
    let v: Value = app.post("/api/v1/auth/mfa/verify", &body).await.json().await.unwrap();
    secrets.push(s(&v["token_acesso"]));
    let change = json!({"senha_atual": u.password, "nova_senha": "brand-new-password"});
    assert_eq!(app.post_as("/api/v1/auth/change-password", &u.token, &change).await.status(), 200);
    let k: Value = app
        .post_as("/api/v1/admin/api-keys", &admin, &json!({"name": "etl", "user_id": service.id}))
        .await
        .json()
        .await
        .unwrap();
    secrets.push(s(&k["api_key"]));
    let me = app.client.get(app.url("/api/v1/auth/me")).header("x-api-key", s(&k["api_key"])).send().await.unwrap();
    assert_eq!(me.status(), 200);
    let pem = std::fs::read_to_string(app.dir.as_ref().unwrap().path().join("keys/jwt_rs256_private.pem")).unwrap();
    secrets.extend(pem.lines().filter(|l| !l.starts_with("-----")).map(str::to_string));
    let text = String::from_utf8_lossy(&logs.lock().unwrap()).to_string();
    assert!(text.contains("created the bootstrap admin"), "the capture works");
    for secret in secrets.iter().filter(|s| s.len() >= 8) {
        assert!(!text.contains(secret.as_str()), "a secret reached the logs: {}...", &secret[..4]);
    }
}
