//! Every acknowledged change survives a crash: the real binary is killed with SIGKILL right
//! after the last acknowledgement, restarted on the same data directory, and each change is
//! there (a revoked token stays revoked, a changed password stays changed).

use std::process::Child;

use serde_json::{Value, json};

use crate::crash::{free_port, serve_with, wait_ready};
use crate::helpers::{ADMIN_EMAIL, ADMIN_PASSWORD};

struct Server {
    child: Child,
    base: String,
    client: reqwest::Client,
}

impl Server {
    async fn start(dir: &std::path::Path, port: u16) -> Server {
        let env = [("VIGIA_ADMIN_EMAIL", ADMIN_EMAIL), ("VIGIA_ADMIN_PASSWORD", ADMIN_PASSWORD)];
        let child = serve_with(dir, port, 600, &env);
        let (base, client) = (format!("http://127.0.0.1:{port}"), reqwest::Client::new());
        wait_ready(&client, &base).await;
        Server { child, base, client }
    }

    async fn send(
        &self,
        method: reqwest::Method,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> (u16, Value) {
        let mut r = self.client.request(method, format!("{}{path}", self.base));
        if let Some(t) = token {
            r = r.bearer_auth(t);
        }
        if let Some(b) = body {
            r = r.json(&b);
        }
        let resp = r.send().await.unwrap();
        let status = resp.status().as_u16();
        (status, resp.json().await.unwrap_or(Value::Null))
    }

    async fn login(&self, email: &str, password: &str) -> (u16, Value) {
        self.send(reqwest::Method::POST, "/api/v1/auth/login", None, Some(json!({"email": email, "senha": password})))
            .await
    }
}

impl Drop for Server {
    /// SIGKILL, also when an assertion fails first (no orphan server outlives the test).
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test]
async fn every_acknowledged_change_survives_a_kill() {
    use reqwest::Method;
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let s = Server::start(dir.path(), port).await;
    let admin = s.login(ADMIN_EMAIL, ADMIN_PASSWORD).await.1["token_acesso"].as_str().unwrap().to_string();
    let user = json!({"email": "durable@vigia.test", "senha": "first-password-1", "funcao": "analyst"});
    assert_eq!(s.send(Method::POST, "/api/v1/auth/register", Some(&admin), Some(user)).await.0, 201);
    let (_, session) = s.login("durable@vigia.test", "first-password-1").await;
    let user_token = session["token_acesso"].as_str().unwrap().to_string();
    let change = json!({"senha_atual": "first-password-1", "nova_senha": "second-password-2"});
    assert_eq!(s.send(Method::POST, "/api/v1/auth/change-password", Some(&user_token), Some(change)).await.0, 200);
    let (_, session) = s.login("durable@vigia.test", "second-password-2").await;
    let revoked = session["token_acesso"].as_str().unwrap().to_string();
    assert_eq!(s.send(Method::POST, "/api/v1/auth/logout", Some(&revoked), None).await.0, 200);
    let service = json!({"email": "robot@vigia.test", "senha": "robot-password-1", "funcao": "servico"});
    assert_eq!(s.send(Method::POST, "/api/v1/auth/register", Some(&admin), Some(service)).await.0, 201);
    let robot = s.login("robot@vigia.test", "robot-password-1").await.1["usuario"]["id"].as_str().unwrap().to_string();
    let key = json!({"name": "durable key", "user_id": robot});
    let (status, created) = s.send(Method::POST, "/api/v1/admin/api-keys", Some(&admin), Some(key)).await;
    assert_eq!(status, 201, "{created}");
    let entry = json!({"ip_address": "203.0.113.7", "description": "durable"});
    assert_eq!(s.send(Method::POST, "/api/v1/admin/ip-whitelist/add", Some(&admin), Some(entry)).await.0, 201);
    let config = json!({"max_loaded_agents": 3, "unload_after_minutes": 7.5});
    let lazy = "/api/v1/admin/agent-lazy-loading";
    assert_eq!(s.send(Method::PUT, &format!("{lazy}/config"), Some(&admin), Some(config)).await.0, 200);
    drop(s); // SIGKILL

    let s = Server::start(dir.path(), port).await;
    let (status, _) = s.send(Method::GET, "/api/v1/auth/me", Some(&revoked), None).await;
    assert_eq!(status, 401, "a token revoked by logout stays revoked");
    assert_eq!(s.login("durable@vigia.test", "second-password-2").await.0, 200, "the registration is there");
    assert_eq!(s.login("durable@vigia.test", "first-password-1").await.0, 401, "the old password stays changed");
    let admin = s.login(ADMIN_EMAIL, ADMIN_PASSWORD).await.1["token_acesso"].as_str().unwrap().to_string();
    let (_, keys) = s.send(Method::GET, "/api/v1/admin/api-keys", Some(&admin), None).await;
    assert!(keys.to_string().contains("durable key"), "{keys}");
    let (_, list) = s.send(Method::GET, "/api/v1/admin/ip-whitelist/list", Some(&admin), None).await;
    assert!(list.to_string().contains("203.0.113.7"), "{list}");
    let (_, status) = s.send(Method::GET, &format!("{lazy}/status"), Some(&admin), None).await;
    assert_eq!(status["config"]["max_loaded_agents"], 3, "{status}");
    assert_eq!(status["config"]["unload_after_minutes"], 7.5, "{status}");
    drop(s); // SIGKILL
}
