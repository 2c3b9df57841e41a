//! Cost and accuracy of the chat's routing: trains senna (timed), then routes every utterance
//! of the held-out file `agents/data/intents_test.tsv` `--rounds` times (default 200) and
//! prints the training time, the per-route latency (p50, p99), routes per second on one
//! thread, and the share of held-out utterances whose routed intent is the labelled one.
//!
//! `cargo run --release -p vigia-agents --example chat_route -- [--rounds 200]`

use std::time::Instant;

use vigia_agents::conversation::{Intent, Senna};

const HELD_OUT: &str = include_str!("../data/intents_test.tsv");

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rounds: usize =
        args.iter().position(|a| a == "--rounds").and_then(|i| args.get(i + 1)?.parse().ok()).unwrap_or(200);
    let labelled: Vec<(Intent, &str)> = HELD_OUT
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| {
            let mut cols = l.splitn(3, '\t');
            let intent = Intent::parse(cols.next()?)?;
            Some((intent, cols.nth(1)?))
        })
        .collect();
    let started = Instant::now();
    let senna = Senna::new();
    let training = started.elapsed();
    let right = labelled.iter().filter(|(i, m)| senna.route(m, None).intent == *i).count();
    let mut times = Vec::with_capacity(rounds * labelled.len());
    let all = Instant::now();
    for _ in 0..rounds {
        for (_, m) in &labelled {
            let t = Instant::now();
            std::hint::black_box(senna.route(m, None));
            times.push(t.elapsed());
        }
    }
    let total = all.elapsed();
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize];
    println!("training: {training:?}");
    println!(
        "routes: {} in {total:?} ({:.0} per second on one thread); p50 {:?}, p99 {:?}",
        times.len(),
        times.len() as f64 / total.as_secs_f64(),
        at(0.5),
        at(0.99)
    );
    println!(
        "held-out routed intent right: {right} of {} ({:.3})",
        labelled.len(),
        right as f64 / labelled.len() as f64
    );
}
