//! Benchmarks of the upstream client core (issue [7]); prints figures, asserts nothing.
//!
//! `cargo run --release --example bench_upstream`
//!
//! - request latency through `UpstreamSource::get_json` against a local stand-in serving
//!   15-row pages of contracts in the portal's shape: uncached (every page a new query: rate
//!   bucket, HTTP over loopback, JSON parse, cache insert) and cached (the same pages again,
//!   as an owned copy through `get_json` and shared through `get_shared`)
//! - records normalised per second: `/contratos` rows into the engine's `Contract` on one
//!   thread (the reader production mode and `vigia detect` share)

use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{Query, State};
use axum::response::IntoResponse;
use axum::routing::get;
use bytes::Bytes;
use reqwest::header::HeaderName;
use secrecy::SecretString;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;
use vigia::upstream::{SourceConfig, UpstreamSource};
use vigia_agents::demo::{DemoSpec, generate};
use vigia_agents::model::upstream::{contract_from_upstream, contract_to_upstream};

const PAGES: usize = 2_000;
const ROUNDS_NORMALISE: usize = 5;

fn pct(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

async fn page(State(pages): State<Arc<Vec<Bytes>>>, Query(q): Query<HashMap<String, String>>) -> impl IntoResponse {
    let n: usize = q.get("pagina").and_then(|p| p.parse().ok()).unwrap_or(1);
    ([("content-type", "application/json")], pages[(n - 1) % pages.len()].clone())
}

fn summary(name: &str, mut micros: Vec<f64>) {
    micros.sort_by(f64::total_cmp);
    let mean = micros.iter().sum::<f64>() / micros.len() as f64;
    println!(
        "{name:<9} n={:<5} mean {:>8.1} µs  p50 {:>8.1} µs  p95 {:>8.1} µs  p99 {:>8.1} µs",
        micros.len(),
        mean,
        pct(&micros, 0.5),
        pct(&micros, 0.95),
        pct(&micros, 0.99)
    );
}

#[tokio::main]
async fn main() {
    let data = generate(&DemoSpec { seed: 3, contracts: 30_000, ..DemoSpec::default() });
    let rows: Vec<Value> = data.dataset.contracts.iter().map(contract_to_upstream).collect();
    let pages: Vec<Bytes> =
        rows.chunks(15).map(|c| Bytes::from(serde_json::to_vec(c).expect("rows serialise"))).collect();
    let page_bytes = pages.iter().map(Bytes::len).sum::<usize>() / pages.len();
    let app = Router::new().route("/contratos", get(page)).with_state(Arc::new(pages));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a local port");
    let addr = listener.local_addr().expect("an address");
    tokio::spawn(async move { axum::serve(listener, app).await });

    let src = UpstreamSource::new(SourceConfig {
        name: "bench",
        base_url: format!("http://{addr}"),
        secret_header: Some((HeaderName::from_static("chave-api-dados"), SecretString::from("bench-key"))),
        requests_per_minute: u32::MAX,
        timeout: Duration::from_secs(10),
        retries: 0,
        cache_ttl: Duration::from_secs(3600),
        cache_max_entries: PAGES * 2,
        cache_max_bytes: 1 << 30,
    })
    .expect("the client builds");
    let query = |n: usize| vec![("codigoOrgao", "36000".to_string()), ("pagina", n.to_string())];
    // Warm-up: the connection pool and the allocator.
    for n in 0..50 {
        src.get_json("/contratos", &query(PAGES + 1 + n)).await.expect("warm-up");
    }
    println!("pages of 15 contracts, {page_bytes} bytes each on average, over loopback, one request at a time");
    let mut uncached = Vec::with_capacity(PAGES);
    let mut cached = Vec::with_capacity(PAGES);
    for n in 1..=PAGES {
        let t = Instant::now();
        src.get_json("/contratos", &query(n)).await.expect("a page");
        uncached.push(t.elapsed().as_secs_f64() * 1e6);
    }
    for n in 1..=PAGES {
        let t = Instant::now();
        src.get_json("/contratos", &query(n)).await.expect("a cached page");
        cached.push(t.elapsed().as_secs_f64() * 1e6);
    }
    let mut shared = Vec::with_capacity(PAGES);
    for n in 1..=PAGES {
        let t = Instant::now();
        src.get_shared("/contratos", &query(n)).await.expect("a cached page");
        shared.push(t.elapsed().as_secs_f64() * 1e6);
    }
    summary("uncached", uncached);
    summary("cached", cached);
    // get_json hands back an owned copy of the cached page; get_shared a reference count.
    summary("shared", shared);
    let c = src.counters().read();
    println!("requests sent: {} (cache hits sent none)", c.requests);

    let started = Instant::now();
    let mut kept = 0usize;
    for _ in 0..ROUNDS_NORMALISE {
        for (i, row) in rows.iter().enumerate() {
            if contract_from_upstream(i, row).is_ok() {
                kept += 1;
            }
        }
    }
    let secs = started.elapsed().as_secs_f64();
    println!("normalised {kept} /contratos rows in {secs:.3} s on one thread: {:.0} records/s", kept as f64 / secs);
}
