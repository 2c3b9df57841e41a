//! Precision, recall and timing of the relationship and compliance detectors on planted demo
//! data, for several seeds and sizes, plus the time to generate and to run the whole engine.
//!
//! `cargo run --release -p vigia-agents --example bench_relations -- [sizes] [seeds] [sensitivity]`
//! e.g. `-- 5000,50000 7,8 0.7`.

use std::collections::HashSet;
use std::time::Instant;

use vigia_agents::demo::{DemoData, DemoSpec, generate};
use vigia_agents::detect::{
    compliance::compliance_rules, compliance::splitting, relationship::bid_rigging, relationship::phantom,
    relationship::relationships,
};
use vigia_agents::{AnomalyType, CancelFlag, DetectionParams, engine};

const MINE: [&str; 5] =
    [compliance_rules::NAME, splitting::NAME, bid_rigging::NAME, relationships::NAME, phantom::NAME];

fn list<T: std::str::FromStr + Clone>(arg: Option<&String>, default: &[T]) -> Vec<T> {
    arg.map(|s| s.split(',').filter_map(|x| x.parse().ok()).collect()).unwrap_or_else(|| default.to_vec())
}

/// (planted, found, recall, precision) of one detector. Labels say what was planted, not who
/// should find it: `planted` counts every plant of the detector's anomaly type (several
/// detectors share a type, so recall is the share of them this detector names), and a finding
/// is right when it names a record planted with its type.
fn score(data: &DemoData, anomalies: &[vigia_agents::Anomaly], name: &str) -> (usize, usize, f64, f64) {
    let kind = if name == compliance_rules::NAME || name == splitting::NAME {
        AnomalyType::ComplianceViolation
    } else {
        AnomalyType::RelationshipAnomaly
    };
    let planted: Vec<_> = data.planted.iter().filter(|p| p.kind == kind).collect();
    let found: Vec<_> = anomalies.iter().filter(|a| a.detector() == name).collect();
    let hit = planted
        .iter()
        .filter(|p| found.iter().any(|a| p.record_ids.iter().any(|id| a.record_ids().any(|r| r == id))))
        .count();
    let ids: HashSet<&str> = planted.iter().flat_map(|p| p.record_ids.iter().map(String::as_str)).collect();
    let good = found.iter().filter(|a| a.record_ids().any(|r| ids.contains(r))).count();
    if std::env::var_os("SHOW_UNPLANTED").is_some() {
        let mut rules: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
        for a in found.iter().filter(|a| !a.record_ids().any(|r| ids.contains(r))) {
            let rule = a.technical_details.get("rule").and_then(|r| r.as_str()).unwrap_or("-").to_string();
            *rules.entry(rule).or_default() += 1;
            if std::env::var("SHOW_UNPLANTED").as_deref() == Ok("2") {
                println!("    {} {}", a.id, a.explanation.as_ref().map_or("", |e| e.technical.as_str()));
            }
        }
        if !rules.is_empty() {
            println!("    unplanted by rule: {rules:?}");
        }
    }
    let recall = if planted.is_empty() { 1.0 } else { hit as f64 / planted.len() as f64 };
    let precision = if found.is_empty() { 1.0 } else { good as f64 / found.len() as f64 };
    (planted.len(), found.len(), recall, precision)
}

/// CPU seconds used by this thread so far (user + system, from /proc; 0 where unavailable):
/// on a shared machine wall time says little.
fn cpu() -> f64 {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap_or_default();
    let fields: Vec<&str> = stat.rsplit(')').next().unwrap_or("").split_whitespace().collect();
    let ticks = |k: usize| fields.get(k).and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) / 100.0
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let sizes: Vec<usize> = list(args.get(1), &[5_000, 50_000]);
    let seeds: Vec<u64> = list(args.get(2), &[7, 8]);
    let sensitivity: f64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(0.7);
    let params = DetectionParams { sensitivity, ..DetectionParams::default() };
    for &n in &sizes {
        for &seed in &seeds {
            let t = Instant::now();
            let data = generate(&DemoSpec { seed, contracts: n, ..DemoSpec::default() });
            let generated = t.elapsed();
            let ds = &data.dataset;
            println!(
                "contracts {n} seed {seed}: generate {:.3}s ({} biddings, {} expenses, {} agreements, {} servants, {} profiles, {} sanctions)",
                generated.as_secs_f64(),
                ds.biddings.len(),
                ds.expenses.len(),
                ds.agreements.len(),
                ds.servants.len(),
                ds.suppliers.len(),
                ds.sanctions.len()
            );
            for name in MINE {
                let (t, c) = (Instant::now(), cpu());
                let Ok(found) = engine::detect(ds, &params, &CancelFlag::new(), &[name]) else { continue };
                let (took, cpu_took) = (t.elapsed(), cpu() - c);
                let (planted, count, recall, precision) = score(&data, &found, name);
                println!(
                    "  {name:22} planted {planted:5} found {count:5} recall {recall:.3} precision {precision:.3} time {:.3}s (cpu {:.2}s)",
                    took.as_secs_f64(),
                    cpu_took
                );
            }
            let t = Instant::now();
            if let Ok((all, _)) = engine::analyse(ds, &params, &CancelFlag::new()) {
                println!("  engine (all detectors): {:.3}s, {} anomalies", t.elapsed().as_secs_f64(), all.len());
            }
        }
    }
}
