//! A crash: the real binary is killed with SIGKILL after acknowledging an investigation (or a
//! chat answer); the next start reopens the store and the investigation completes (the answer
//! and the run behind it are there).

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use crate::helpers::{ADMIN_EMAIL, ADMIN_PASSWORD};

pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn serve(dir: &std::path::Path, port: u16, records: usize) -> Child {
    serve_with(dir, port, records, &[])
}

/// The release-like binary serving demo data of `records` contracts, with `env` on top.
pub fn serve_with(dir: &std::path::Path, port: u16, records: usize, env: &[(&str, &str)]) -> Child {
    serve_command(dir, port, records)
        .env("VIGIA_LOG", "warn")
        .env("VIGIA_ADMIN_EMAIL", ADMIN_EMAIL)
        .env("VIGIA_ADMIN_PASSWORD", ADMIN_PASSWORD)
        .envs(env.iter().copied())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary starts")
}

/// `vigia serve` on `port` over `dir` with demo data of `records` contracts and nothing else
/// from the environment.
pub fn serve_command(dir: &std::path::Path, port: u16, records: usize) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_vigia"));
    c.arg("serve")
        .env_clear()
        .env("VIGIA_CONFIG", "/dev/null")
        .env("VIGIA_ADDR", format!("127.0.0.1:{port}"))
        .env("VIGIA_DATA_DIR", dir)
        .env("VIGIA__DEMO__RECORDS", records.to_string())
        // The test polls faster than the anonymous burst allows.
        .env("VIGIA__RATE_LIMIT__ENABLED", "false");
    c
}

/// The binary at debug level with `env` on top, everything it prints written to a file; it
/// is ready when this returns. The child, its base URL and its whole output (read once it
/// stopped) through [`LoggedServer::logs`].
pub async fn serve_logged(client: &reqwest::Client, env: &[(&str, &str)]) -> LoggedServer {
    let dir = tempfile::tempdir().unwrap();
    let log_path = dir.path().join("stderr.log");
    let log = std::fs::File::create(&log_path).unwrap();
    let port = free_port();
    let child = serve_command(&dir.path().join("data"), port, 300)
        .env("VIGIA_LOG", "debug")
        .envs(env.iter().copied())
        .stdout(Stdio::from(log.try_clone().unwrap()))
        .stderr(Stdio::from(log))
        .spawn()
        .unwrap();
    let base = format!("http://127.0.0.1:{port}");
    wait_ready(client, &base).await;
    LoggedServer { child, base, log_path, _dir: dir }
}

/// A server started by [`serve_logged`].
pub struct LoggedServer {
    pub child: Child,
    pub base: String,
    log_path: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

impl LoggedServer {
    /// Stops the server and returns everything it printed.
    pub fn logs(mut self) -> String {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
        std::fs::read_to_string(&self.log_path).unwrap()
    }
}

pub async fn wait_ready(client: &reqwest::Client, base: &str) {
    for _ in 0..1000 {
        if let Ok(r) = client.get(format!("{base}/health/ready")).send().await
            && r.status() == 200
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the server never became ready");
}

/// Signs the bootstrap admin of [`serve_with`] in; an access token.
pub async fn admin_token(client: &reqwest::Client, base: &str) -> String {
    let body = json!({"email": ADMIN_EMAIL, "senha": ADMIN_PASSWORD});
    let r = client.post(format!("{base}/api/v1/auth/login")).json(&body).send().await.unwrap();
    assert_eq!(r.status(), 200);
    r.json::<Value>().await.unwrap()["token_acesso"].as_str().unwrap().to_string()
}

/// Starts an investigation over demo data as `token`; its id.
pub async fn start_signed(client: &reqwest::Client, base: &str, token: &str) -> String {
    let r = client
        .post(format!("{base}/api/v1/investigations/start"))
        .bearer_auth(token)
        .json(&json!({"query": "contratos da saúde", "data_source": "portal_transparencia"}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 201);
    r.json::<Value>().await.unwrap()["investigation_id"].as_str().unwrap().to_string()
}

/// The binary over a store directory that outlives it: killed with SIGKILL and started again.
struct Killable {
    dir: tempfile::TempDir,
    port: u16,
    base: String,
    client: reqwest::Client,
    child: Child,
}

impl Killable {
    /// Serves demo data of `records` contracts over a fresh directory; ready when this returns.
    async fn start(records: usize) -> Killable {
        let dir = tempfile::tempdir().unwrap();
        let port = free_port();
        let (base, client) = (format!("http://127.0.0.1:{port}"), reqwest::Client::new());
        let child = serve(dir.path(), port, records);
        wait_ready(&client, &base).await;
        Killable { dir, port, base, client, child }
    }

    /// SIGKILL: nothing is flushed on the way out.
    fn kill(&mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }

    /// Starts the binary again over the same directory (demo data of `records` contracts).
    async fn restart(&mut self, records: usize) {
        self.child = serve(self.dir.path(), self.port, records);
        wait_ready(&self.client, &self.base).await;
    }
}

#[tokio::test]
async fn an_acknowledged_investigation_survives_a_kill_and_completes_after_restart() {
    let mut server = Killable::start(2_000_000).await;
    let (client, base) = (server.client.clone(), server.base.clone());
    let token = admin_token(&client, &base).await;
    let id = start_signed(&client, &base, &token).await;
    server.kill();

    server.restart(600).await;
    let mut status = Value::Null;
    for _ in 0..1500 {
        let r = client.get(format!("{base}/api/v1/investigations/{id}/status")).bearer_auth(&token).send().await;
        status = r.unwrap().json().await.unwrap();
        if status["status"] == "completed" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(status["status"], "completed", "{status}");
    server.kill();
}

#[tokio::test]
async fn sigterm_stops_the_server_cleanly_with_exit_status_zero() {
    let dir = tempfile::tempdir().unwrap();
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let mut child = serve(dir.path(), port, 600);
    wait_ready(&reqwest::Client::new(), &base).await;
    let started = std::time::Instant::now();
    Command::new("kill").arg("-TERM").arg(child.id().to_string()).status().unwrap();
    let status = child.wait().unwrap();
    assert!(status.success(), "{status:?}");
    assert!(started.elapsed() < Duration::from_secs(10));
}

/// Polls an investigation until it completed; its results document.
async fn completed_results(client: &reqwest::Client, base: &str, token: &str, id: &str) -> Value {
    for _ in 0..1500 {
        let r = client.get(format!("{base}/api/v1/investigations/{id}/status")).bearer_auth(token).send().await;
        if r.unwrap().json::<Value>().await.unwrap()["status"] == "completed" {
            let r = client.get(format!("{base}/api/v1/investigations/{id}/results")).bearer_auth(token).send().await;
            return r.unwrap().json().await.unwrap();
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("{id} did not complete");
}

/// Rows of a store tree, through the admin database statistics.
async fn rows(client: &reqwest::Client, base: &str, token: &str, table: &str) -> u64 {
    let r = client.get(format!("{base}/api/v1/admin/database/database-stats")).bearer_auth(token).send().await;
    let stats: Value = r.unwrap().json().await.unwrap();
    let tables = stats["tables"].as_array().unwrap();
    tables.iter().find(|t| t["name"] == table).and_then(|t| t["rows"].as_u64()).unwrap_or(0)
}

#[tokio::test]
async fn investigations_that_found_the_same_share_one_stored_body_and_read_it_back_after_a_kill() {
    let mut server = Killable::start(600).await;
    let (client, base) = (server.client.clone(), server.base.clone());
    let token = admin_token(&client, &base).await;
    let first = start_signed(&client, &base, &token).await;
    let before_first = completed_results(&client, &base, &token, &first).await;
    // The same question again: the analysis cache answers, with the same findings.
    let second = start_signed(&client, &base, &token).await;
    let before_second = completed_results(&client, &base, &token, &second).await;
    let found = before_first["anomalies"].as_array().unwrap().len();
    assert!(found > 0, "{before_first}");
    assert_eq!(before_first["anomalies"], before_second["anomalies"]);
    assert_eq!(rows(&client, &base, &token, "result_bodies").await, 1, "one body for both");
    assert_eq!(rows(&client, &base, &token, "result_body_refs").await, 2);
    server.kill();

    server.restart(600).await;
    let token = admin_token(&client, &base).await;
    for (id, before) in [(&first, &before_first), (&second, &before_second)] {
        let after = completed_results(&client, &base, &token, id).await;
        assert_eq!(after["anomalies"].as_array().unwrap().len(), found);
        assert_eq!(after["insights"], before["insights"]);
        assert_eq!(after["recommendations"], before["recommendations"]);
        let ids =
            |doc: &Value| doc["anomalies"].as_array().unwrap().iter().map(|a| a["id"].clone()).collect::<Vec<_>>();
        assert_eq!(ids(&after), ids(before));
    }
    assert_eq!(rows(&client, &base, &token, "result_bodies").await, 1);
    server.kill();
}

#[tokio::test]
async fn a_chat_answer_and_the_investigation_behind_it_survive_a_kill_right_after_complete() {
    let mut server = Killable::start(600).await;
    let (client, base) = (server.client.clone(), server.base.clone());
    let question = "Investigue contratos suspeitos do Ministério da Saúde em 2024";
    let url = format!("{base}/api/v1/chat/stream");
    let events = crate::chat::turn_at(&client, &url, json!({"message": question})).await;
    // Killed the moment `complete` arrives: everything it acknowledges must already be on disk.
    server.kill();
    let (name, done) = events.last().unwrap();
    assert_eq!(name, "complete", "{events:?}");
    let id = done["investigation_id"].as_str().expect("the turn ran an investigation").to_string();
    let session = done["session_id"].as_str().unwrap().to_string();

    server.restart(600).await;
    let token = admin_token(&client, &base).await;
    let r = client.get(format!("{base}/api/v1/investigations/{id}/status")).bearer_auth(&token).send().await;
    let status: Value = r.unwrap().json().await.unwrap();
    assert_eq!(status["status"], "completed", "the run the answer names is finished on disk: {status}");
    let results = completed_results(&client, &base, &token, &id).await;
    assert_eq!(results["anomalies"].as_array().unwrap().len() as u64, done["anomalies"].as_u64().unwrap());
    let r = client.get(format!("{base}/api/v1/chat/history/{session}/paginated?limit=10")).send().await.unwrap();
    let page: Value = r.json().await.unwrap();
    let messages = page["items"].as_array().unwrap_or_else(|| panic!("{page}"));
    assert_eq!(messages.len(), 2, "the question and the answer: {page}");
    assert_eq!(messages[1]["id"], done["message_id"], "{page}");
    assert_eq!(messages[1]["investigation_id"].as_str(), Some(id.as_str()), "{page}");
    server.kill();
}
