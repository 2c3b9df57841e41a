use std::collections::HashSet;
use std::time::Instant;
use vigia_agents::demo::{DemoSpec, generate};
use vigia_agents::detect::{self, NAMES};
use vigia_agents::{CancelFlag, DetectionParams};
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let data = generate(&DemoSpec { seed: 7, contracts: n, ..DemoSpec::default() });
    let p = DetectionParams { confidence_threshold: 0.0, ..DetectionParams::default() };
    for name in NAMES {
        let d = detect::by_name(name).unwrap();
        let t = Instant::now();
        let r = d.run(&data.dataset, &p, &CancelFlag::new()).unwrap();
        println!("{name} {:.3}s {}", t.elapsed().as_secs_f64(), r.len());
        if *name == "price_zscore" {
            let planted: HashSet<&str> = data.planted.iter().filter(|p| p.detector == *name).flat_map(|p| p.record_ids.iter().map(String::as_str)).collect();
            let mut rows: Vec<(bool, f64, f64, String, String)> = r.iter().map(|a| (planted.contains(a.affected_entities.primary.id.as_str()), a.technical_details["z_score"].as_f64().unwrap(), a.technical_details["ratio_to_median"].as_f64().unwrap(), a.technical_details["peer_group"].to_string(), a.technical_details["baseline"].to_string())).collect();
            rows.sort_by(|a, b| b.1.total_cmp(&a.1));
            let mut hist = std::collections::BTreeMap::new();
            for r in &rows { let b = (r.1 * 4.0).floor() as i64; let e = hist.entry(b).or_insert((0, 0)); if r.0 { e.0 += 1 } else { e.1 += 1 } }
            for (b, (pl, cl)) in hist { println!("z>={:.2}: planted {pl} clean {cl}", b as f64 / 4.0); }
            for r in rows.iter().filter(|r| r.0).rev().take(8) { println!("{:?}", r); }
        }
    }
}
#[allow(dead_code)]
fn _unused() {}
