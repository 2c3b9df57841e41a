//! Benchmarks of the federal clients (issue [7] items 5-6); prints figures, asserts nothing.
//!
//! `cargo run --release --example bench_federal`
//!
//! Against a local stand-in for IBGE's aggregates API serving the 5,570 municipalities (the
//! offline table's codes and names, synthetic figures):
//! - a request through `IbgeClient::population` uncached (a distinct year each time: loopback
//!   HTTP, rate-limit check, JSON decode, series read) and cached (the same query again)
//! - figures read per second from one aggregates body (`parse_figures`)
//! - `regional_facts` from the cache: what each production investigation pays for IBGE's
//!   population by state and municipality and the literacy rate

use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::Query;
use axum::response::{IntoResponse, Json};
use serde_json::{Value, json};
use vigia::config::Config;
use vigia::upstream::TransparencyClient;
use vigia::upstream::federal::FederalSources;
use vigia::upstream::federal::ibge::{Places, parse_figures};
use vigia::upstream::federal::regional::regional_facts;
use vigia_agents::agents::lampiao::ibge::tables;

fn pct(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn body(localidades: &str, year: &str) -> Value {
    let t = tables();
    let serie = |id: u32, nome: &str, v: u64| json!({"localidade": {"id": id.to_string(), "nivel": {"id": "N"}, "nome": nome}, "serie": {year: v.to_string()}});
    let series: Vec<Value> = if localidades == "N3[all]" {
        t.states.iter().map(|s| serie(t.uf_code(s.uf).unwrap_or(0), s.name, s.population.unwrap_or(0))).collect()
    } else {
        t.municipalities.iter().map(|m| serie(m.code, m.name, 10_000 + (m.code % 997) as u64)).collect()
    };
    json!([{"id": "9324", "resultados": [{"classificacoes": [], "series": series}]}])
}

async fn aggregates(
    axum::extract::Path((period, _var)): axum::extract::Path<(String, String)>,
    Query(q): Query<std::collections::HashMap<String, String>>,
) -> impl IntoResponse {
    let year = if period == "-1" { "2024".to_string() } else { period };
    Json(body(q.get("localidades").map_or("N6[all]", String::as_str), &year))
}

fn summary(name: &str, mut ms: Vec<f64>) {
    ms.sort_by(f64::total_cmp);
    println!("{name}: n={} p50={:.3} ms p99={:.3} ms", ms.len(), pct(&ms, 0.5), pct(&ms, 0.99));
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    println!("machine: {} cores, {}", std::thread::available_parallelism()?.get(), std::env::consts::ARCH);
    let app = Router::new()
        .route("/api/v3/agregados/6579/periodos/{period}/variaveis/{var}", axum::routing::get(aggregates))
        .route("/api/v3/agregados/9543/periodos/{period}/variaveis/{var}", axum::routing::get(aggregates));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}", listener.local_addr()?);
    tokio::spawn(async move { axum::serve(listener, app).await });
    let mut cfg = Config::default();
    cfg.upstream.api_url = url.clone();
    cfg.upstream.api_key = Some("bench-key".to_string().into());
    cfg.federal.ibge_url = url;
    cfg.federal.requests_per_minute = 1_000_000;
    let portal = std::sync::Arc::new(TransparencyClient::new(&cfg.upstream)?);
    let s =
        FederalSources::new(&cfg.upstream, &cfg.federal, Some(portal))?.ok_or_else(|| anyhow::anyhow!("no sources"))?;

    for (label, places) in [("27 states", Places::States), ("5,570 municipalities", Places::AllMunicipalities)] {
        let (mut cold, mut warm) = (Vec::new(), Vec::new());
        for k in 0..200 {
            let year = Some(1000 + k);
            let t = Instant::now();
            let got = s.ibge.population(&places, year).await?;
            cold.push(t.elapsed().as_secs_f64() * 1000.0);
            assert!(!got.cache_hit);
            let t = Instant::now();
            let got = s.ibge.population(&places, year).await?;
            warm.push(t.elapsed().as_secs_f64() * 1000.0);
            assert!(got.cache_hit);
        }
        summary(&format!("population of {label}, uncached"), cold);
        summary(&format!("population of {label}, cached"), warm);
    }

    let big = body("N6[all]", "2024");
    let rounds = 200;
    let t = Instant::now();
    let mut read = 0;
    for _ in 0..rounds {
        read += parse_figures(&big).map_err(anyhow::Error::msg)?.len();
    }
    let secs = t.elapsed().as_secs_f64();
    println!("parse_figures: {read} figures in {secs:.3} s = {:.0} figures/s", read as f64 / secs);

    let _ = regional_facts(&s.ibge).await;
    let mut facts = Vec::new();
    for _ in 0..200 {
        let t = Instant::now();
        let f = regional_facts(&s.ibge).await.ok_or_else(|| anyhow::anyhow!("no facts"))?;
        facts.push(t.elapsed().as_secs_f64() * 1000.0);
        assert_eq!(f.municipal_population.len(), 5570);
    }
    summary("regional_facts (cached: states, municipalities, literacy)", facts);
    tokio::time::sleep(Duration::from_millis(10)).await;
    Ok(())
}
