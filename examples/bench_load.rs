//! Load benchmark of the release binary over loopback; prints figures, asserts nothing.
//!
//! `cargo build --release && cargo run --release --example bench_load`
//!
//! Installs `wrk` (Debian package) when it is missing, starts `target/release/vigia serve` on a
//! free port with a temporary data directory (demo mode, rate limits off, a bootstrap admin),
//! and measures:
//! - `GET /health/live` and `GET /api/v1/investigations/{id}/status` with a JWT, requests per
//!   second with wrk (2 threads, 64 connections, 10 s each);
//! - investigations started and completed per second over demo data (2,000 runs of 200
//!   contracts, 64 in flight, each start followed on its event stream to its terminal event):
//!   the same question each time (the analysis cache serves the agents' outputs), then on a
//!   server with the analysis cache off (every run analyses, as distinct data would);
//! - 1,000 SSE streams held open at once on running investigations, and the server's RSS
//!   before and while they are open.
//!
//! `-- --investigations` measures only the investigations per second.
//!
//! `cargo run --release --example bench_load -- --soak N` instead runs N investigations of 200
//! demo contracts (64 in flight) and 10,000 failed logins against one server whose retention
//! keeps finished investigations 30 seconds (pruned every 10 s), printing its RSS and the
//! store's size on disk twenty times along the way (flat after warm-up means bounded).

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use futures::StreamExt;
use serde_json::{Value, json};

#[path = "support/server.rs"]
mod server;

use server::{free_port, login, rss_mb, serve, serve_with, wait_ready};

/// Installs wrk when missing; whether it can run.
fn ensure_wrk() -> bool {
    let found = || Command::new("wrk").arg("--version").stdout(Stdio::null()).stderr(Stdio::null()).status().is_ok();
    if found() {
        return true;
    }
    println!("installing wrk (Debian package)...");
    let _ = Command::new("apt-get").args(["install", "-y", "-q", "wrk"]).stdout(Stdio::null()).status();
    found()
}

/// Requests per second wrk reports for `url`.
fn wrk(url: &str, token: Option<&str>) -> anyhow::Result<f64> {
    let mut cmd = Command::new("wrk");
    cmd.args(["-t2", "-c64", "-d10s", "--latency"]);
    if let Some(t) = token {
        cmd.args(["-H", &format!("Authorization: Bearer {t}")]);
    }
    let out = cmd.arg(url).output()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let non_2xx = text.lines().find(|l| l.contains("Non-2xx")).map(str::trim).unwrap_or("all 2xx");
    let rps = text
        .lines()
        .find(|l| l.starts_with("Requests/sec:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| anyhow::anyhow!("wrk printed no rate:\n{text}"))?;
    println!("    ({non_2xx})");
    Ok(rps)
}

async fn start(client: &reqwest::Client, base: &str, token: &str) -> anyhow::Result<String> {
    let body = json!({"query": "contratos da saúde", "data_source": "portal_transparencia"});
    let r: Value = client
        .post(format!("{base}/api/v1/investigations/start"))
        .bearer_auth(token)
        .json(&body)
        .send()
        .await?
        .json()
        .await?;
    r["investigation_id"].as_str().map(str::to_string).ok_or_else(|| anyhow::anyhow!("no id in {r}"))
}

/// Follows an investigation on its event stream (what a client of the spec does) until the
/// stream ends after its terminal event; replays from the store when it already finished.
async fn wait_done(client: &reqwest::Client, base: &str, token: &str, id: &str) -> anyhow::Result<()> {
    let body = client
        .get(format!("{base}/api/v1/investigations/stream/{id}"))
        .bearer_auth(token)
        .header("accept", "text/event-stream")
        .send()
        .await?
        .error_for_status()?
        .text()
        .await?;
    // Only a completed run counts: an error or a cancellation is a terminal event too, but
    // not an investigation done.
    anyhow::ensure!(body.contains("event: complete"), "the stream of {id} ended without completing");
    Ok(())
}

/// Runs `n` investigations, 64 in flight, each followed to its end; how many completed.
async fn run_many(client: &reqwest::Client, base: &str, token: &str, n: usize) -> usize {
    futures::stream::iter(0..n)
        .map(|_| {
            let (client, base, token) = (client.clone(), base.to_string(), token.to_string());
            async move {
                let id = start(&client, &base, &token).await?;
                wait_done(&client, &base, &token, &id).await
            }
        })
        .buffer_unordered(64)
        .filter(|r: &anyhow::Result<()>| futures::future::ready(r.is_ok()))
        .count()
        .await
}

/// Bytes under `dir`, recursively.
fn dir_bytes(dir: &std::path::Path) -> u64 {
    std::fs::read_dir(dir).map_or(0, |entries| {
        entries
            .flatten()
            .map(|e| match e.metadata() {
                Ok(m) if m.is_dir() => dir_bytes(&e.path()),
                Ok(m) => m.len(),
                Err(_) => 0,
            })
            .sum()
    })
}

/// N investigations and 10,000 failed logins, RSS and store size twenty times along the way.
async fn soak(client: &reqwest::Client, runs: usize) -> anyhow::Result<()> {
    let dir = tempfile::tempdir()?;
    let port = free_port()?;
    let base = format!("http://127.0.0.1:{port}");
    // Retention as a long-running service has it, compressed in time: finished investigations
    // are kept 30 seconds and pruned every 10 s, so "flat after warm-up" covers the store too.
    let retention =
        [("VIGIA__RETENTION__INVESTIGATIONS_DAYS", "0.00035"), ("VIGIA__RETENTION__PRUNE_INTERVAL_SECS", "10")];
    let mut server = serve_with(dir.path(), port, 200, &retention)?;
    wait_ready(client, &base).await?;
    let token = login(client, &base).await?;
    let step = (runs / 20).max(1);
    let began = Instant::now();
    println!("| investigations | completed | failed logins | seconds | server RSS MB | server heap MB | store MB |");
    println!("|---|---|---|---|---|---|---|");
    let (mut done, mut completed) = (0, 0);
    let mut failed_logins = 0;
    while done < runs {
        let batch = step.min(runs - done);
        // Started and followed to a completed terminal event; a start refused or a run that
        // failed (a full disk, say) is not counted as completed.
        completed += run_many(client, &base, &token, batch).await;
        done += batch;
        let logins = 10_000 / 20;
        futures::stream::iter(0..logins)
            .map(|k| {
                let (client, base) = (client.clone(), base.clone());
                async move {
                    let body = json!({"email": format!("nobody{}@vigia.test", failed_logins + k), "senha": "wrong"});
                    let _ = client.post(format!("{base}/api/v1/auth/login")).json(&body).send().await;
                }
            })
            .buffer_unordered(64)
            .for_each(|_| futures::future::ready(()))
            .await;
        failed_logins += logins;
        // Live heap as the server's counting allocator sees it: RSS growing while this stays
        // flat is the allocator keeping freed pages, not data held.
        let detailed: Value = client.get(format!("{base}/health/detailed")).send().await?.json().await?;
        println!(
            "| {done} | {completed} | {failed_logins} | {:.0} | {:.1} | {:.1} | {:.1} |",
            began.elapsed().as_secs_f64(),
            rss_mb(server.id()).unwrap_or(f64::NAN),
            detailed["components"]["process"]["heap_mb"].as_f64().unwrap_or(f64::NAN),
            dir_bytes(dir.path()) as f64 / (1024.0 * 1024.0)
        );
    }
    server.kill()?;
    server.wait()?;
    Ok(())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    println!("machine: {} cores, {}", std::thread::available_parallelism()?.get(), std::env::consts::ARCH);
    let client = reqwest::Client::builder().pool_max_idle_per_host(256).build()?;
    let args: Vec<String> = std::env::args().collect();
    if let Some(k) = args.iter().position(|a| a == "--soak") {
        let runs = args.get(k + 1).and_then(|n| n.parse().ok()).unwrap_or(100_000);
        return soak(&client, runs).await;
    }

    // Request rates and investigations per second over small demo datasets.
    let dir = tempfile::tempdir()?;
    let port = free_port()?;
    let base = format!("http://127.0.0.1:{port}");
    let mut server = serve(dir.path(), port, 200)?;
    wait_ready(&client, &base).await?;
    let token = login(&client, &base).await?;
    let id = start(&client, &base, &token).await?;
    wait_done(&client, &base, &token, &id).await?;
    let only_runs = args.iter().any(|a| a == "--investigations");
    if only_runs {
        println!("(--investigations: request rates and streams skipped)");
    } else if ensure_wrk() {
        println!("GET /health/live: {:.0} req/s", wrk(&format!("{base}/health/live"), None)?);
        let status = format!("{base}/api/v1/investigations/{id}/status");
        println!("GET status with a JWT: {:.0} req/s", wrk(&status, Some(&token))?);
    } else {
        println!("wrk is not installed and could not be installed: request rates skipped");
    }
    let runs = 2_000;
    let began = Instant::now();
    let done = run_many(&client, &base, &token, runs).await;
    let secs = began.elapsed().as_secs_f64();
    println!(
        "investigations of 200 demo contracts, 64 in flight, the same question (analysis cache on): {done}/{runs} completed in {secs:.2} s = {:.0}/s",
        done as f64 / secs
    );
    server.kill()?;
    server.wait()?;
    // Every run analyses again: what distinct data costs.
    let dir = tempfile::tempdir()?;
    let mut server = serve_with(dir.path(), port, 200, &[("VIGIA__AGENTS__ANALYSIS_CACHE_TTL_SECS", "0")])?;
    wait_ready(&client, &base).await?;
    let token = login(&client, &base).await?;
    let began = Instant::now();
    let done = run_many(&client, &base, &token, runs).await;
    let secs = began.elapsed().as_secs_f64();
    println!(
        "investigations of 200 demo contracts, 64 in flight, analysis cache off (every run analyses): {done}/{runs} completed in {secs:.2} s = {:.0}/s",
        done as f64 / secs
    );
    server.kill()?;
    server.wait()?;
    if only_runs {
        return Ok(());
    }

    // 1,000 SSE streams on running investigations (each run generates 300,000 contracts, so it
    // lasts long enough for every stream to be open at once).
    let dir = tempfile::tempdir()?;
    let port = free_port()?;
    let base = format!("http://127.0.0.1:{port}");
    let mut server = serve(dir.path(), port, 300_000)?;
    wait_ready(&client, &base).await?;
    let token = login(&client, &base).await?;
    let mut ids = Vec::new();
    for _ in 0..4 {
        ids.push(start(&client, &base, &token).await?);
    }
    // The runs' data is generated by now: what grows from here is mostly the streams.
    tokio::time::sleep(Duration::from_secs(2)).await;
    let before = rss_mb(server.id());
    let streams = 1_000;
    let mut open = Vec::with_capacity(streams);
    for k in 0..streams {
        let url = format!("{base}/api/v1/investigations/stream/{}", ids[k % ids.len()]);
        let resp = client.get(url).bearer_auth(&token).header("accept", "text/event-stream").send().await?;
        open.push(resp.bytes_stream());
    }
    let mut first = 0;
    for s in open.iter_mut() {
        if tokio::time::timeout(Duration::from_secs(5), s.next()).await.is_ok() {
            first += 1;
        }
    }
    let during = rss_mb(server.id());
    println!(
        "{streams} SSE streams open ({first} delivered an event): server RSS {:.1} MB with the 4 runs going, {:.1} MB with the streams open too",
        before.unwrap_or(f64::NAN),
        during.unwrap_or(f64::NAN)
    );
    drop(open);
    server.kill()?;
    server.wait()?;
    Ok(())
}
