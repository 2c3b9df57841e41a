//! Benchmarks of the spine (issue [1]); prints figures, asserts nothing.
//!
//! `cargo build --release && cargo run --release --example bench_spine`
//!
//! - agent spawn: load + unload of an agent through the pool, 1,000 times (p50, p99)
//! - investigation latency over 10k and 100k demo contracts, end to end through the runtime
//!   (start to terminal event): cold, with the data copied from the demo dataset cache (agents
//!   run again, analysis cache off), and an identical repeat served by the analysis cache;
//!   with the engine and the demo generation alone for comparison
//! - startup of the release binary to `GET /health/ready` = 200, and its idle RSS

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use futures::StreamExt;
use vigia::config::Config;
use vigia::domain::InvestigationRequest;
use vigia::runtime::default_factory;
use vigia::startup::Core;
use vigia::storage::Store;
use vigia_agents::AgentId;
use vigia_agents::demo::{DemoSpec, generate};

fn pct(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    println!("machine: {} cores, {}", std::thread::available_parallelism()?.get(), std::env::consts::ARCH);
    spawn_times().await?;
    for n in [10_000, 100_000] {
        investigation(n).await?;
    }
    startup_and_idle_rss()?;
    Ok(())
}

async fn core_with(records: usize, analysis_cache_ttl_secs: u64) -> anyhow::Result<Core> {
    let mut cfg = Config::default();
    cfg.demo.records = records;
    cfg.agents.analysis_cache_ttl_secs = analysis_cache_ttl_secs;
    Core::build(&cfg, default_factory(), Store::temporary()?).await
}

async fn spawn_times() -> anyhow::Result<()> {
    let core = core_with(100, 0).await?;
    let mut call = Vec::new();
    let mut spawn = Vec::new();
    for _ in 0..1000 {
        let t = Instant::now();
        let r = core.runtime.load(AgentId::Zumbi).await?;
        call.push(t.elapsed().as_secs_f64() * 1000.0);
        spawn.push(r.load_time_ms);
        core.runtime.unload(AgentId::Zumbi, false).await?;
    }
    call.sort_by(f64::total_cmp);
    spawn.sort_by(f64::total_cmp);
    println!(
        "agent spawn (inside the pool): p50 {:.3} ms, p99 {:.3} ms | load call round trip: p50 {:.3} ms, p99 {:.3} ms",
        pct(&spawn, 0.5),
        pct(&spawn, 0.99),
        pct(&call, 0.5),
        pct(&call, 0.99)
    );
    core.runtime.shutdown(Duration::from_secs(1)).await;
    Ok(())
}

async fn investigation(n: usize) -> anyhow::Result<()> {
    let t = Instant::now();
    let data = generate(&DemoSpec { seed: 42, contracts: n, ..DemoSpec::default() });
    let gen_ms = t.elapsed().as_secs_f64() * 1000.0;
    let t = Instant::now();
    let (anomalies, _) = vigia_agents::engine::analyse(
        &data.dataset,
        &vigia_agents::DetectionParams::default(),
        &vigia_agents::CancelFlag::new(),
    )
    .map_err(|e| anyhow::anyhow!("{e}"))?;
    let engine_ms = t.elapsed().as_secs_f64() * 1000.0;
    // With the analysis cache off: the first run generates the data (cold), the next ones copy
    // it from the demo dataset cache and run the seven agents again.
    let uncached = core_with(n, 0).await?;
    uncached.runtime.preload_all().await?;
    let mut runs = Vec::new();
    let (mut found, mut agents) = (0, 0);
    for _ in 0..3 {
        let (ms, f, a) = run_once(&uncached).await?;
        runs.push(ms);
        (found, agents) = (f, a);
    }
    uncached.runtime.shutdown(Duration::from_secs(1)).await;
    // With the analysis cache on (the default): the second identical run takes every agent's output.
    let cached = core_with(n, 300).await?;
    cached.runtime.preload_all().await?;
    run_once(&cached).await?;
    let (repeat, ..) = run_once(&cached).await?;
    let mut again = runs[1..].to_vec();
    again.sort_by(f64::total_cmp);
    println!(
        "{n} contracts: investigation end to end ({agents} agents + persistence): cold (demo generation too) {:.0} ms; \
         data from the dataset cache, agents run again {:.0}-{:.0} ms; identical repeat with the analysis cache {repeat:.0} ms; \
         engine alone {engine_ms:.0} ms ({} anomalies); demo generation alone {gen_ms:.0} ms; {found} anomalies reported",
        runs[0],
        again[0],
        again[again.len() - 1],
        anomalies.len()
    );
    cached.runtime.shutdown(Duration::from_secs(1)).await;
    Ok(())
}

/// One investigation of the whole demo dataset, followed on its stream to the end: (ms,
/// anomalies, agents).
async fn run_once(core: &Core) -> anyhow::Result<(f64, usize, usize)> {
    let t = Instant::now();
    let started = core.investigations.start(InvestigationRequest::new("contratos"), None).await?;
    let events = core.investigations.stream(started.investigation.id, 0, None)?;
    futures::pin_mut!(events);
    while events.next().await.is_some() {}
    let ms = t.elapsed().as_secs_f64() * 1000.0;
    let inv = core.investigations.get(started.investigation.id, None)?;
    Ok((ms, inv.anomalies_found(), inv.results.as_ref().map_or(0, |r| r.agents_used.len())))
}

fn startup_and_idle_rss() -> anyhow::Result<()> {
    let exe = std::env::current_exe()?;
    let bin =
        exe.parent().and_then(|p| p.parent()).map(|p| p.join("vigia")).ok_or_else(|| anyhow::anyhow!("no binary"))?;
    let dir = tempfile::tempdir()?;
    let port = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
    let t = Instant::now();
    let mut child = Command::new(&bin)
        .arg("serve")
        .env("VIGIA_CONFIG", "/dev/null")
        .env("VIGIA_ADDR", format!("127.0.0.1:{port}"))
        .env("VIGIA_DATA_DIR", dir.path())
        .env("VIGIA_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()?;
    let ready = loop {
        if let Ok(mut s) = std::net::TcpStream::connect(("127.0.0.1", port)) {
            use std::io::{Read, Write};
            let _ = s.write_all(b"GET /health/ready HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n");
            let mut buf = String::new();
            let _ = s.read_to_string(&mut buf);
            if buf.starts_with("HTTP/1.1 200") {
                break t.elapsed();
            }
        }
        if t.elapsed() > Duration::from_secs(30) {
            anyhow::bail!("not ready after 30 s");
        }
        std::thread::sleep(Duration::from_millis(1));
    };
    std::thread::sleep(Duration::from_secs(2));
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id()))?;
    let rss = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap_or("VmRSS: ?").to_string();
    println!("startup to ready: {:.0} ms | idle {}", ready.as_secs_f64() * 1000.0, rss.replace("VmRSS:", "RSS").trim());
    child.kill()?;
    child.wait()?;
    Ok(())
}
