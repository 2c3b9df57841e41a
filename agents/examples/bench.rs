//! Times demo generation and the full detection engine, and reports per detector how many
//! planted anomalies were found and how many findings were not planted.
//!
//! `cargo run --release -p vigia-agents --example bench -- [contracts] [seed] [organ]`

use std::collections::HashSet;
use std::time::Instant;

use vigia_agents::demo::{DemoSpec, generate};
use vigia_agents::detect::NAMES;
use vigia_agents::{CancelFlag, DetectionParams, engine};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let contracts = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let seed = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(42);
    let organ_codes = args.get(3).map(|o| vec![o.clone()]).unwrap_or_default();
    let t = Instant::now();
    let data = generate(&DemoSpec { seed, contracts, organ_codes, year: None });
    let generated = t.elapsed();
    let params = DetectionParams::default();
    let t = Instant::now();
    let result = engine::analyse(&data.dataset, &params, &CancelFlag::new());
    let analysed = t.elapsed();
    let Ok((anomalies, summary)) = result else {
        eprintln!("analysis failed: {result:?}");
        return;
    };
    println!(
        "contracts {} generate {:.3}s analyse {:.3}s anomalies {} risk {}",
        data.dataset.contracts.len(),
        generated.as_secs_f64(),
        analysed.as_secs_f64(),
        summary.total_anomalies,
        summary.risk_score
    );
    for name in NAMES {
        // Labels say what was planted, not who finds it: a detector is scored against the plants
        // of the anomaly type its findings carry.
        let found: Vec<_> = anomalies.iter().filter(|a| a.detector() == *name).collect();
        let planted: Vec<_> = data.planted.iter().filter(|p| found.first().is_some_and(|a| a.kind == p.kind)).collect();
        let hit = planted
            .iter()
            .filter(|p| found.iter().any(|a| p.record_ids.iter().any(|id| a.record_ids().any(|r| r == id))))
            .count();
        let planted_ids: HashSet<&str> = planted.iter().flat_map(|p| p.record_ids.iter().map(String::as_str)).collect();
        let unplanted = found.iter().filter(|a| !a.record_ids().any(|r| planted_ids.contains(r))).count();
        println!(
            "{name:24} planted {:4} found {:4} recall {:4} unplanted findings {}",
            planted.len(),
            found.len(),
            hit,
            unplanted
        );
    }
}
