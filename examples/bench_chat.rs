//! Chat benchmark of the release binary over loopback; prints figures, asserts nothing.
//!
//! `cargo build --release && cargo run --release --example bench_chat`
//!
//! Starts `target/release/vigia serve` (demo mode, 200 demo contracts per fetch, rate limits
//! off) and measures, with a Rust SSE/WebSocket client (the load of each level driven by one
//! thread with a single-threaded runtime, like `wrk -t1`, whose CPU time is printed beside the
//! server's: both share the machine's cores):
//! - time to the first event and to `complete` (p50, p99), completed answers per second and
//!   the server's CPU time per completed answer (the load's and the probe's answers) at 1, 100
//!   and 1,000 concurrent streams, and the
//!   first event of a probe beside the load (see [`probe`]), for conversational turns ("olá":
//!   routing, memory, history, drummond's answer, durable storage; no analysis), for analysis
//!   turns answered by an agent over the demo data without an investigation (lampião's
//!   regional spending), and for investigation turns (a real investigation of the demo data
//!   per turn, streamed finding by finding; the same question each turn, so the analysis cache
//!   serves the agents' outputs, then again on a server with the analysis cache off)
//!   (`-- --only conversation`, `-- --only regional` or `-- --only investigation` measures
//!   only those turns, on the one server, analysis cache on);
//! - on a fresh server: the peak RSS while 10,000 SSE chat turns are in flight at once, and the
//!   RSS with 10,000 chat WebSocket connections open at once, each after one turn.

#[path = "support/server.rs"]
mod server;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use futures::{SinkExt, StreamExt};
use serde_json::json;
use server::{free_port, rss_mb, serve, serve_with, wait_ready};

/// One turn over SSE: (time to the first event, time to the terminal event, completed?). Only
/// the bytes that arrived last (with a marker's length before them) are searched for the
/// terminal event, so a long answer is not searched again at every piece.
async fn turn(client: &reqwest::Client, base: &str, message: &str) -> Option<(Duration, Duration, bool)> {
    const TAIL: usize = "event: complete".len();
    let began = Instant::now();
    let resp =
        client.post(format!("{base}/api/v1/chat/stream")).json(&json!({"message": message})).send().await.ok()?;
    let mut body = resp.bytes_stream();
    let mut first = None;
    let mut seen: Vec<u8> = Vec::new();
    while let Some(Ok(bytes)) = body.next().await {
        first.get_or_insert_with(|| began.elapsed());
        let from = seen.len().saturating_sub(TAIL);
        seen.extend_from_slice(&bytes);
        let fresh = &seen[from..];
        if contains(fresh, b"event: complete") {
            return Some((first?, began.elapsed(), true));
        }
        if contains(fresh, b"event: error") {
            return Some((first?, began.elapsed(), false));
        }
    }
    Some((first?, began.elapsed(), false))
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

fn pct(sorted: &[Duration], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let k = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[k].as_secs_f64() * 1000.0
}

/// The CPU time a process (`pid`) or a thread (`thread-self`) has used so far (user and
/// system, all its threads), in seconds, from /proc (its clock ticks per second asked of
/// `getconf`).
fn cpu_secs(who: impl std::fmt::Display) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{who}/stat")).ok()?;
    // After the command name (in parentheses) comes field 3; utime and stime are fields 14, 15.
    let mut fields = stat.rsplit_once(')')?.1.split_whitespace();
    let utime: f64 = fields.nth(11)?.parse().ok()?;
    let stime: f64 = fields.next()?.parse().ok()?;
    let out = std::process::Command::new("getconf").arg("CLK_TCK").output().ok()?;
    let ticks: f64 = String::from_utf8_lossy(&out.stdout).trim().parse().ok()?;
    Some((utime + stime) / ticks)
}

/// While `running`, turns of `message` from four loops that each wait 20 ms between turns, on
/// a thread of its own (its own single-threaded runtime and connections), beside the load:
/// the time to its first event is the server's, without the wait of the load generator's own
/// tasks for their thread. Returns each completed turn's time to its first event and when it
/// completed.
fn probe(base: String, message: String, running: Arc<AtomicBool>) -> std::thread::JoinHandle<Vec<(Duration, Instant)>> {
    std::thread::spawn(move || {
        let Ok(rt) = tokio::runtime::Builder::new_current_thread().enable_all().build() else {
            return Vec::new();
        };
        rt.block_on(async {
            let client = reqwest::Client::new();
            // Four probing loops: about a hundred turns over a one-second level.
            let loops = (0..4).map(|_| async {
                let mut first = Vec::new();
                while running.load(Ordering::Relaxed) {
                    if let Some((f, _, true)) = turn(&client, &base, &message).await {
                        first.push((f, Instant::now()));
                    }
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                first
            });
            futures::future::join_all(loops).await.concat()
        })
    })
}

/// `total` turns of `message`, `concurrency` at a time, driven by one thread with a runtime and
/// a client of its own (a single-threaded load generator, as `wrk -t1`: its tasks do not wake
/// each other across threads, and it leaves the other core to the server).
/// Returns the turns and the CPU time the generator's thread used, in seconds.
fn load(base: &str, message: &str, concurrency: usize, total: usize) -> (Vec<Turn>, Option<f64>) {
    let (base, message) = (base.to_string(), message.to_string());
    let driver = std::thread::spawn(move || {
        let Ok(rt) = tokio::runtime::Builder::new_current_thread().enable_all().build() else {
            return (Vec::new(), None);
        };
        let cpu = cpu_secs("thread-self");
        let turns = rt.block_on(async {
            let Ok(client) = reqwest::Client::builder().pool_max_idle_per_host(concurrency).build() else {
                return Vec::new();
            };
            futures::stream::iter(0..total)
                .map(|_| turn(&client, &base, &message))
                .buffer_unordered(concurrency)
                .collect()
                .await
        });
        let used = cpu.zip(cpu_secs("thread-self")).map(|(a, b)| b - a);
        (turns, used)
    });
    driver.join().unwrap_or_default()
}

/// A turn's times to the first and the terminal event, and whether it completed.
type Turn = Option<(Duration, Duration, bool)>;

/// `total` turns of `message`, `concurrency` at a time, against the server `pid`; prints
/// latencies (also the probe's first event, see [`probe`]), the rate and the server's CPU time
/// per completed answer. The answers the probe completed while the load ran are answers the
/// server gave in that time: both the rate and the CPU time per answer count them.
fn level((base, pid): (&str, u32), message: &str, label: &str, concurrency: usize, total: usize) {
    let running = Arc::new(AtomicBool::new(true));
    let prober = (concurrency > 1).then(|| probe(base.to_string(), message.to_string(), running.clone()));
    let cpu = cpu_secs(pid);
    let began = Instant::now();
    let (results, load_cpu) = load(base, message, concurrency, total);
    let ended = Instant::now();
    let secs = (ended - began).as_secs_f64();
    let cpu_after = cpu_secs(pid);
    running.store(false, Ordering::Relaxed);
    let probe_turns = prober.and_then(|p| p.join().ok()).unwrap_or_default();
    let probe_answers = probe_turns.iter().filter(|(_, at)| *at <= ended).count();
    let mut probed: Vec<Duration> = probe_turns.iter().map(|(first, _)| *first).collect();
    probed.sort();
    let ok: Vec<_> = results.iter().flatten().filter(|r| r.2).collect();
    let answers = ok.len() + probe_answers;
    let cpu_ms = match (cpu, cpu_after) {
        (Some(a), Some(b)) if answers > 0 => format!("{:.2}", (b - a) * 1000.0 / answers as f64),
        _ => "n/a".into(),
    };
    let load_ms = match load_cpu {
        Some(used) if !ok.is_empty() => format!("{:.2}", used * 1000.0 / ok.len() as f64),
        _ => "n/a".into(),
    };
    let probe_cell = if probed.is_empty() {
        "-".to_string()
    } else {
        format!("{:.2} / {:.2} ({})", pct(&probed, 0.5), pct(&probed, 0.99), probed.len())
    };
    let mut first: Vec<Duration> = ok.iter().map(|r| r.0).collect();
    let mut done: Vec<Duration> = ok.iter().map(|r| r.1).collect();
    first.sort();
    done.sort();
    println!(
        "| {label} | {concurrency} | {}/{total} | {:.2} | {:.2} | {probe_cell} | {:.1} | {:.1} | {:.0} | {cpu_ms} | {load_ms} |",
        ok.len(),
        pct(&first, 0.5),
        pct(&first, 0.99),
        pct(&done, 0.5),
        pct(&done, 0.99),
        answers as f64 / secs
    );
}

/// Opens `n` WebSockets, has each answer one turn, and keeps them all open; returns them.
type Socket = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn open_sockets(base_ws: &str, n: usize) -> Vec<Socket> {
    let sockets: Vec<_> = futures::stream::iter(0..n)
        .map(|_| async move {
            let (mut ws, _) = tokio_tungstenite::connect_async(format!("{base_ws}/api/v1/chat/ws")).await.ok()?;
            let msg = json!({"type": "chat", "message": "oi"}).to_string();
            ws.send(tokio_tungstenite::tungstenite::Message::Text(msg.into())).await.ok()?;
            while let Some(Ok(m)) = ws.next().await {
                if m.to_text().is_ok_and(|t| t.contains("\"complete\"") || t.contains("\"error\"")) {
                    return Some(ws);
                }
            }
            None
        })
        .buffer_unordered(200)
        .filter_map(futures::future::ready)
        .collect()
        .await;
    sockets
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    println!("machine: {} cores, {}", std::thread::available_parallelism()?.get(), std::env::consts::ARCH);
    let args: Vec<String> = std::env::args().collect();
    let only = args.iter().position(|a| a == "--only").and_then(|i| args.get(i + 1)).cloned();
    let wanted = |kind: &str| only.as_deref().is_none_or(|o| o == kind);
    let client = reqwest::Client::builder().pool_max_idle_per_host(1024).build()?;
    let dir = tempfile::tempdir()?;
    let port = free_port()?;
    let base = format!("http://127.0.0.1:{port}");
    let mut server = serve(dir.path(), port, 200)?;
    wait_ready(&client, &base).await?;
    // Warm up: load the agents and the router.
    turn(&client, &base, "Investigue contratos do Ministério da Saúde em 2024").await;
    turn(&client, &base, "olá").await;

    println!(
        "| turn | concurrent | completed | first event p50 ms | p99 ms | probe's first event p50 / p99 ms (turns) | complete p50 ms | p99 ms | answers/s (load and probe) | server CPU ms per answer (load and probe) | load generator CPU ms per answer |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    let at = (base.as_str(), server.id());
    let question = "Investigue contratos do Ministério da Saúde em 2024";
    for (c, n) in [(1, 200), (100, 5_000), (1_000, 20_000)].into_iter().filter(|_| wanted("conversation")) {
        level(at, "olá, tudo bem?", "conversation", c, n);
    }
    // An analysis turn over the demo data that answers without an investigation (lampião's
    // regional spending: the data fetched, the agent run, the answer written and stored).
    let regional = "qual a distribuição regional dos gastos da saúde?";
    turn(&client, &base, regional).await;
    for (c, n) in [(1, 200), (100, 5_000), (1_000, 10_000)].into_iter().filter(|_| wanted("regional")) {
        level(at, regional, "regional analysis (lampião, demo data)", c, n);
    }
    for (c, n) in [(1, 100), (100, 5_000), (1_000, 10_000)].into_iter().filter(|_| wanted("investigation")) {
        level(at, question, "investigation (200 demo contracts)", c, n);
    }
    server.kill()?;
    server.wait()?;
    if only.is_some() {
        return Ok(());
    }

    // The same investigation turns with the analysis cache off: every turn runs the agents.
    let dir = tempfile::tempdir()?;
    let mut server = serve_with(dir.path(), port, 200, &[("VIGIA__AGENTS__ANALYSIS_CACHE_TTL_SECS", "0")])?;
    wait_ready(&client, &base).await?;
    turn(&client, &base, question).await;
    for (c, n) in [(1, 50), (100, 1_000)] {
        level((base.as_str(), server.id()), question, "investigation, analysis cache off", c, n);
    }
    server.kill()?;
    server.wait()?;

    // Open streams on a fresh server, so the figures are the streams' and not the history's.
    let dir = tempfile::tempdir()?;
    let port = free_port()?;
    let base = format!("http://127.0.0.1:{port}");
    let mut server = serve(dir.path(), port, 200)?;
    wait_ready(&client, &base).await?;
    turn(&client, &base, "olá").await;
    let idle = rss_mb(server.id()).unwrap_or(f64::NAN);
    // 10,000 SSE turns sent at once: the peak RSS while they are in flight.
    let pid = server.id();
    let sampling = Arc::new(AtomicBool::new(true));
    let flag = sampling.clone();
    let sampler = tokio::spawn(async move {
        let mut peak: f64 = 0.0;
        while flag.load(Ordering::Relaxed) {
            peak = peak.max(rss_mb(pid).unwrap_or(0.0));
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        peak
    });
    let streams = 10_000;
    let sse_client = reqwest::Client::builder().pool_max_idle_per_host(streams).build()?;
    let began = Instant::now();
    let results: Vec<_> = futures::stream::iter(0..streams)
        .map(|_| turn(&sse_client, &base, "olá, tudo bem?"))
        .buffer_unordered(streams)
        .collect()
        .await;
    let secs = began.elapsed().as_secs_f64();
    sampling.store(false, Ordering::Relaxed);
    let peak = sampler.await.unwrap_or(f64::NAN);
    let done = results.iter().flatten().filter(|r| r.2).count();
    println!(
        "{streams} SSE chat streams at once: {done} completed in {secs:.1} s; server RSS {idle:.1} MB idle, peak {peak:.1} MB while they were open"
    );
    drop(sse_client);
    tokio::time::sleep(Duration::from_secs(1)).await;
    let before = rss_mb(server.id()).unwrap_or(f64::NAN);
    let sockets = open_sockets(&format!("ws://127.0.0.1:{port}"), 10_000).await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let during = rss_mb(server.id()).unwrap_or(f64::NAN);
    println!(
        "{} chat WebSockets open after one turn each: server RSS {before:.1} MB before, {during:.1} MB with them open",
        sockets.len(),
    );
    drop(sockets);
    server.kill()?;
    server.wait()?;
    Ok(())
}
