//! GraphQL against REST for the same reads (issue [8]); prints figures, asserts nothing.
//!
//! `cargo run --release --example bench_graphql`
//!
//! Starts the real app on 127.0.0.1 (demo mode, rate limits off, a bootstrap admin), runs one
//! investigation to completion, then measures over loopback, signed in as the admin:
//! - latency (p50, p99), one request at a time, the variants interleaved so each sees the same
//!   machine: `investigation` with its head fields against `GET /api/v1/investigations/{id}`,
//!   `investigation` with its anomalies and findings against `GET .../{id}/results`, and
//!   `agentStats` against `GET /api/v1/agents/status`; plus `agentStats` anonymous, which the
//!   300 s cache answers after the first request;
//! - throughput: requests per second with 32 concurrent clients, 1 s per variant in each of 3
//!   rounds (the variants in turn within a round).
//!
//! The clients run in the same process as the server and share its two cores.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use vigia::config::Config;
use vigia::startup::App;

#[path = "support/server.rs"]
mod server;

use server::{EMAIL, PASSWORD};

/// Requests per variant for latency (the first sixth is warm-up).
const N: usize = 3_000;
/// Concurrent clients for throughput.
const CLIENTS: usize = 32;
/// How long each throughput run lasts.
const RUN: Duration = Duration::from_secs(1);
/// Throughput rounds; each runs every variant once, so a change of the machine's load falls on
/// all variants alike.
const ROUNDS: usize = 3;

const HEAD: &str =
    "query($id: ID!) { investigation(id: $id) { id status progress anomaliesFound riskScore createdAt completedAt } }";
const RESULTS: &str = "query($id: ID!) { investigation(id: $id) { id status riskScore confidenceScore processingTimeMs
  anomalies { id type description severity confidenceScore affectedEntities detectionMethod evidence }
  findings { id type title description severity confidence evidence } } }";
const STATS: &str = "{ agentStats { agentName displayName role implemented loaded inFlight memoryMb totalTasks
  successfulTasks failedTasks avgResponseTimeMs lastActive } }";

/// One request of a variant.
#[derive(Clone)]
struct Variant {
    name: &'static str,
    /// GET url, or POST url with a GraphQL body.
    url: String,
    body: Option<Value>,
    token: Option<String>,
}

impl Variant {
    async fn send(&self, client: &reqwest::Client) -> anyhow::Result<usize> {
        let mut req = match &self.body {
            Some(b) => client.post(&self.url).json(b),
            None => client.get(&self.url),
        };
        if let Some(t) = &self.token {
            req = req.bearer_auth(t);
        }
        let r = req.send().await?;
        anyhow::ensure!(r.status() == 200, "{}: status {}", self.name, r.status());
        let bytes = r.bytes().await?;
        if self.body.is_some() {
            let v: Value = serde_json::from_slice(&bytes)?;
            anyhow::ensure!(v.get("errors").is_none(), "{}: {v}", self.name);
        }
        Ok(bytes.len())
    }
}

fn pct(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn main() -> anyhow::Result<()> {
    println!("machine: {} cores, {}", std::thread::available_parallelism()?.get(), std::env::consts::ARCH);
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    rt.block_on(run())
}

async fn run() -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let mut cfg = Config::default();
    cfg.server.addr = "127.0.0.1:0".parse()?;
    cfg.storage.data_dir = dir.path().to_path_buf();
    cfg.rate_limit.enabled = false;
    cfg.auth.admin_email = Some(EMAIL.into());
    cfg.auth.admin_password = Some(secrecy::SecretString::from(PASSWORD));
    let app = App::build(cfg).await?;
    let base = format!("http://{}", app.local_addr());
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(app.run_until_stopped(async move {
        let _ = stopped.await;
    }));
    let client = reqwest::Client::builder().pool_max_idle_per_host(CLIENTS).build()?;
    server::wait_ready(&client, &base).await?;
    let token = server::login(&client, &base).await?;
    let started: Value = client
        .post(format!("{base}/api/v1/investigations/start"))
        .bearer_auth(&token)
        .json(&json!({"query": "Contratos com preços acima da média", "data_source": "portal_transparencia"}))
        .send()
        .await?
        .json()
        .await?;
    let id = started["investigation_id"].as_str().unwrap_or_default().to_string();
    loop {
        let s: Value = client
            .get(format!("{base}/api/v1/investigations/{id}/status"))
            .bearer_auth(&token)
            .send()
            .await?
            .json()
            .await?;
        if s["status"] != "processing" && s["status"] != "pending" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    let gql = |name, query: &str, token: Option<&str>| Variant {
        name,
        url: format!("{base}/graphql"),
        body: Some(json!({"query": query, "variables": {"id": id}})),
        token: token.map(str::to_string),
    };
    let rest =
        |name, path: String| Variant { name, url: format!("{base}{path}"), body: None, token: Some(token.clone()) };
    let variants = [
        rest("REST GET /investigations/{id}", format!("/api/v1/investigations/{id}")),
        gql("GraphQL investigation (head fields)", HEAD, Some(&token)),
        rest("REST GET /investigations/{id}/results", format!("/api/v1/investigations/{id}/results")),
        gql("GraphQL investigation (anomalies, findings)", RESULTS, Some(&token)),
        rest("REST GET /agents/status", "/api/v1/agents/status".into()),
        gql("GraphQL agentStats", STATS, Some(&token)),
        gql("GraphQL agentStats, anonymous (cached)", STATS, None),
    ];
    let mut bytes = vec![0; variants.len()];
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); variants.len()];
    for i in 0..N * variants.len() {
        let (v, n) = (i % variants.len(), i / variants.len());
        let start = Instant::now();
        bytes[v] = variants[v].send(&client).await?;
        if n >= N / 6 {
            times[v].push(start.elapsed().as_secs_f64() * 1e6);
        }
    }
    println!("latency over loopback, one request at a time, {} each, interleaved:", times[0].len());
    for ((v, t), b) in variants.iter().zip(&mut times).zip(&bytes) {
        t.sort_by(f64::total_cmp);
        println!("  {:<45} p50 {:>7.1} µs  p99 {:>7.1} µs  ({b} bytes)", v.name, pct(t, 0.5), pct(t, 0.99));
    }
    println!(
        "throughput, {CLIENTS} concurrent clients, {ROUNDS} rounds of {} s each, variants in turn:",
        RUN.as_secs()
    );
    let mut served = vec![0usize; variants.len()];
    for _ in 0..ROUNDS {
        for (v, count) in variants.iter().zip(&mut served) {
            *count += throughput(v, &client).await?;
        }
    }
    for (v, count) in variants.iter().zip(&served) {
        println!("  {:<45} {:>8.0} req/s", v.name, *count as f64 / (RUN.as_secs_f64() * ROUNDS as f64));
    }
    let _ = stop.send(());
    server.await??;
    Ok(())
}

/// Requests of `v` served to [`CLIENTS`] concurrent clients in [`RUN`].
async fn throughput(v: &Variant, client: &reqwest::Client) -> anyhow::Result<usize> {
    let done = Arc::new(AtomicUsize::new(0));
    let until = Instant::now() + RUN;
    let tasks: Vec<_> = (0..CLIENTS)
        .map(|_| {
            let (v, client, done) = (v.clone(), client.clone(), done.clone());
            tokio::spawn(async move {
                while Instant::now() < until {
                    v.send(&client).await?;
                    done.fetch_add(1, Ordering::Relaxed);
                }
                anyhow::Ok(())
            })
        })
        .collect();
    for t in tasks {
        t.await??;
    }
    Ok(done.load(Ordering::Relaxed))
}
