//! Acknowledged writes per second: a write followed by a wait until it is durable, from N
//! concurrent clients, through the store's single flusher (now) and through sled's own
//! `flush_async` (before). Prints figures, asserts nothing.
//!
//! `cargo run --release --example bench_flush`
//!
//! Each client saves one investigation record (its JSON, about 0.5 KB) and waits for the flush,
//! in a loop, for two seconds. The `flush_async` rows run after the flusher rows; a level at
//! which `flush_async` does not finish within 10 s is reported as hung and the benchmark
//! stops there (the hung threads cannot be reclaimed), which is the deadlock of sled 0.34
//! (spacejam/sled#1308) that the flusher replaced.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use vigia::domain::ports::InvestigationStore;
use vigia::domain::{Investigation, InvestigationRequest};
use vigia::storage::Store;

const LEVELS: [usize; 4] = [1, 8, 64, 200];
const RUN: Duration = Duration::from_secs(2);

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    println!("machine: {} cores", std::thread::available_parallelism()?.get());
    println!("| mode | concurrent clients | acknowledged writes/s | flushes/s |");
    println!("|---|---|---|---|");
    for n in LEVELS {
        let dir = tempfile::tempdir()?;
        let store = Store::open(dir.path(), 64)?;
        let before = store.flushes();
        let acks = clients(n, {
            let store = store.clone();
            move || {
                let store = store.clone();
                async move {
                    store.save(&record())?;
                    store.flush().await?;
                    anyhow::Ok(())
                }
            }
        })
        .await?;
        let flushes = (store.flushes() - before) as f64 / RUN.as_secs_f64();
        println!("| single flusher | {n} | {:.0} | {flushes:.0} |", acks);
    }
    for n in LEVELS {
        let dir = tempfile::tempdir()?;
        let db = sled::Config::new().path(dir.path()).mode(sled::Mode::HighThroughput).open()?;
        let body = serde_json::to_vec(&record())?;
        let run = clients(n, move || {
            let (db, body) = (db.clone(), body.clone());
            async move {
                db.insert(uuid::Uuid::now_v7().as_bytes(), body)?;
                db.flush_async().await?;
                anyhow::Ok(())
            }
        });
        match tokio::time::timeout(RUN + Duration::from_secs(10), run).await {
            Ok(acks) => println!("| sled flush_async | {n} | {:.0} | n/a |", acks?),
            Err(_) => {
                println!("| sled flush_async | {n} | hung: no write acknowledged after 10 s | n/a |");
                std::process::exit(0);
            }
        }
    }
    Ok(())
}

fn record() -> Investigation {
    Investigation::start(InvestigationRequest::new("contratos do Ministério da Saúde em 2024"), uuid::Uuid::nil())
}

/// Runs `n` clients calling `op` in a loop for [`RUN`]; returns acknowledgements per second.
async fn clients<F, Fut>(n: usize, op: F) -> anyhow::Result<f64>
where
    F: Fn() -> Fut + Clone + Send + 'static,
    Fut: std::future::Future<Output = anyhow::Result<()>> + Send,
{
    let acks = Arc::new(AtomicU64::new(0));
    let started = Instant::now();
    let tasks: Vec<_> = (0..n)
        .map(|_| {
            let (op, acks) = (op.clone(), acks.clone());
            tokio::spawn(async move {
                while started.elapsed() < RUN {
                    op().await?;
                    acks.fetch_add(1, Ordering::Relaxed);
                }
                anyhow::Ok(())
            })
        })
        .collect();
    for t in tasks {
        t.await??;
    }
    Ok(acks.load(Ordering::Relaxed) as f64 / started.elapsed().as_secs_f64())
}
