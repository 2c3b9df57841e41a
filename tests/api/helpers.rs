//! `spawn_app()` and friends: every test gets its own app, data directory and shutdown.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use eventsource_stream::{Event, Eventsource};
use futures::StreamExt;
use serde_json::Value;
use tempfile::TempDir;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;
use vigia::config::Config;
use vigia::startup::App;

/// A running app.
pub struct TestApp {
    pub addr: SocketAddr,
    /// The app's store (its counters; tests go through HTTP for everything else).
    pub store: vigia::storage::Store,
    pub client: reqwest::Client,
    pub dir: Option<TempDir>,
    /// One admin session for [`TestApp::user`], so making users does not use up the admin's
    /// three concurrent sessions.
    helper_admin: tokio::sync::OnceCell<String>,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<anyhow::Result<()>>>,
}

/// The bootstrap admin of [`spawn_secure_app`].
pub const ADMIN_EMAIL: &str = "admin@vigia.test";
pub const ADMIN_PASSWORD: &str = "admin-password-123";

/// A config for tests: ephemeral port, small demo data, no rate limits (tests poll a lot; the
/// rate-limit tests switch them on), and the bootstrap admin, the signed-in default of
/// [`TestApp::start`] and [`TestApp::wait_done`] (anonymous calls cannot start investigations).
pub fn test_config(dir: &TempDir) -> Config {
    let mut cfg = Config::default();
    cfg.server.addr = "127.0.0.1:0".parse().unwrap();
    cfg.server.keep_alive_secs = 1.0;
    cfg.storage.data_dir = dir.path().to_path_buf();
    cfg.demo.records = 600;
    cfg.rate_limit.enabled = false;
    with_admin(&mut cfg);
    cfg
}

/// Adds the bootstrap admin to a config.
pub fn with_admin(cfg: &mut Config) {
    cfg.auth.admin_email = Some(ADMIN_EMAIL.into());
    cfg.auth.admin_password = Some(secrecy::SecretString::from(ADMIN_PASSWORD));
}

/// An app with the bootstrap admin.
pub async fn spawn_secure_app() -> TestApp {
    spawn_secure_app_with(|_| {}).await
}

/// An app with the bootstrap admin and more settings.
pub async fn spawn_secure_app_with(tweak: impl FnOnce(&mut Config)) -> TestApp {
    spawn_app_with(|c| {
        with_admin(c);
        tweak(c);
    })
    .await
}

/// A signed-in user made for a test.
#[derive(Debug, Clone)]
pub struct TestUser {
    pub id: String,
    pub email: String,
    pub password: String,
    pub token: String,
    pub refresh: String,
}

pub async fn spawn_app() -> TestApp {
    spawn_app_with(|_| {}).await
}

pub async fn spawn_app_with(tweak: impl FnOnce(&mut Config)) -> TestApp {
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = test_config(&dir);
    tweak(&mut cfg);
    let mut app = spawn_in(cfg).await;
    app.dir = Some(dir);
    app
}

/// Starts an app with this exact config (the caller owns its data directory).
pub async fn spawn_in(cfg: Config) -> TestApp {
    let app = App::build(cfg).await.expect("app builds");
    let addr = app.local_addr();
    let store = app.store().clone();
    let (tx, rx) = oneshot::channel::<()>();
    let task = tokio::spawn(app.run_until_stopped(async move {
        let _ = rx.await;
    }));
    let client = reqwest::Client::builder().no_gzip().build().unwrap();
    let t = TestApp {
        addr,
        store,
        client,
        dir: None,
        helper_admin: tokio::sync::OnceCell::new(),
        stop: Some(tx),
        task: Some(task),
    };
    t.wait_ready().await;
    t
}

impl TestApp {
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    async fn wait_ready(&self) {
        for _ in 0..500 {
            if let Ok(r) = self.client.get(self.url("/health/ready")).send().await
                && r.status() == 200
            {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("app never became ready");
    }

    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.client.get(self.url(path)).send().await.unwrap()
    }

    pub async fn post(&self, path: &str, body: &Value) -> reqwest::Response {
        self.client.post(self.url(path)).json(body).send().await.unwrap()
    }

    pub async fn get_as(&self, path: &str, token: &str) -> reqwest::Response {
        self.client.get(self.url(path)).bearer_auth(token).send().await.unwrap()
    }

    pub async fn post_as(&self, path: &str, token: &str, body: &Value) -> reqwest::Response {
        self.client.post(self.url(path)).bearer_auth(token).json(body).send().await.unwrap()
    }

    pub async fn put_as(&self, path: &str, token: &str, body: &Value) -> reqwest::Response {
        self.client.put(self.url(path)).bearer_auth(token).json(body).send().await.unwrap()
    }

    pub async fn delete_as(&self, path: &str, token: &str) -> reqwest::Response {
        self.client.delete(self.url(path)).bearer_auth(token).send().await.unwrap()
    }

    pub async fn login(&self, email: &str, password: &str) -> reqwest::Response {
        self.post("/api/v1/auth/login", &serde_json::json!({"email": email, "senha": password})).await
    }

    /// Logs in and returns the login answer.
    pub async fn tokens(&self, email: &str, password: &str) -> Value {
        let r = self.login(email, password).await;
        assert_eq!(r.status(), 200, "login of {email}");
        r.json().await.unwrap()
    }

    /// The signed-in default: one access token of the bootstrap admin, made once per app.
    pub async fn token(&self) -> &str {
        self.helper_admin.get_or_init(|| self.admin_token()).await
    }

    /// POST as the signed-in default.
    pub async fn post_signed(&self, path: &str, body: &Value) -> reqwest::Response {
        let token = self.token().await;
        self.post_as(path, token, body).await
    }

    /// GET as the signed-in default.
    pub async fn get_signed(&self, path: &str) -> reqwest::Response {
        let token = self.token().await;
        self.get_as(path, token).await
    }

    /// An access token of the bootstrap admin.
    pub async fn admin_token(&self) -> String {
        self.tokens(ADMIN_EMAIL, ADMIN_PASSWORD).await["token_acesso"].as_str().unwrap().to_string()
    }

    /// Registers a user of `role` (through the bootstrap admin) and signs them in.
    pub async fn user(&self, role: &str) -> TestUser {
        self.user_with(role, false).await
    }

    /// Like [`TestApp::user`], optionally on the premium tier.
    pub async fn user_with(&self, role: &str, premium: bool) -> TestUser {
        static N: AtomicUsize = AtomicUsize::new(0);
        let email = format!("{role}-{}@vigia.test", N.fetch_add(1, Ordering::Relaxed));
        let password = format!("pw-{role}-{}", uuid::Uuid::new_v4());
        let admin = self.token().await;
        let body = serde_json::json!({"email": email, "senha": password, "funcao": role, "premium": premium});
        let r = self.post_as("/api/v1/auth/register", admin, &body).await;
        assert_eq!(r.status(), 201, "register {role}");
        let t = self.tokens(&email, &password).await;
        TestUser {
            id: t["usuario"]["id"].as_str().unwrap().to_string(),
            email,
            password,
            token: t["token_acesso"].as_str().unwrap().to_string(),
            refresh: t["token_renovacao"].as_str().unwrap().to_string(),
        }
    }

    /// Starts an investigation (English route) as the signed-in default and returns its id.
    pub async fn start(&self, body: Value) -> String {
        let r = self.post_signed("/api/v1/investigations/start", &body).await;
        assert_eq!(r.status(), 201);
        let v: Value = r.json().await.unwrap();
        v["investigation_id"].as_str().unwrap().to_string()
    }

    /// Reads an SSE stream to its end (or `limit` events) as the signed-in default.
    pub async fn events(&self, path: &str, last_event_id: Option<u64>, limit: usize) -> Vec<Event> {
        let token = self.token().await;
        let mut req = self.client.get(self.url(path)).bearer_auth(token).header("accept", "text/event-stream");
        if let Some(id) = last_event_id {
            req = req.header("last-event-id", id.to_string());
        }
        let resp = req.send().await.unwrap();
        assert_eq!(resp.status(), 200);
        let mut stream = resp.bytes_stream().eventsource();
        let mut out = Vec::new();
        let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
        while let Ok(Some(Ok(e))) = tokio::time::timeout_at(deadline, stream.next()).await {
            out.push(e);
            if out.len() >= limit {
                break;
            }
        }
        out
    }

    /// Polls until the investigation leaves `processing`.
    pub async fn wait_done(&self, id: &str) -> Value {
        for _ in 0..3000 {
            let v: Value = self.get_signed(&format!("/api/v1/investigations/{id}/status")).await.json().await.unwrap();
            if v["status"] != "processing" && v["status"] != "pending" {
                return v;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("investigation {id} never finished");
    }

    /// Stops the app and returns how long the shutdown took.
    pub async fn shutdown(mut self) -> Duration {
        let started = Instant::now();
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
        if let Some(task) = self.task.take() {
            task.await.unwrap().unwrap();
        }
        started.elapsed()
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        if let Some(tx) = self.stop.take() {
            let _ = tx.send(());
        }
    }
}
