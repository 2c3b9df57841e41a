//! Precision and recall of the detection engine on planted demo data, per anomaly type, in the
//! normal configuration and in a shifted one, with the false positives per 1,000 clean records.
//!
//! `cargo run --release -p vigia-agents --example evaluate -- [--seeds 2027] [--sizes 5000,50000] [--sensitivity 0.7] [--show]`
//!
//! `--show` lists the false positives (by detector) and the plants no finding named.
//!
//! Configurations. *normal* draws from the catalogue the detectors were developed on;
//! *shifted* (`demo::Flavour::Shifted`) draws object texts, items and supplier names from a
//! vocabulary kept apart from it, with other value distributions (log-normal medians and
//! spreads) and another mix of trades. Both carry the traps of real records (empty legal
//! bases, direct purchases on non-value grounds, prorrogações, a large December in every organ,
//! secret contracts, masked CPFs, boilerplate objects, atas used by several units).
//!
//! Labels come from the act of planting (`demo::Planted`: scheme, anomaly type, record ids,
//! what was done); the generator never calls detector code nor reuses its thresholds, so these
//! figures can fail.
//!
//! Matching rule. A finding *matches* a plant when it names (as its primary or a related
//! entity) one of the plant's records and has the plant's anomaly type. A finding is a true
//! positive when it matches some plant, a false positive otherwise. A plant is recalled when
//! some finding matches it. Precision = true positives / findings of the type; recall =
//! recalled plants / plants of the type; both print `n/a` when their denominator is 0 (a type
//! with nothing planted never shows 1.000). Clean records are the records of every kind
//! (contracts, biddings, expenses, agreements, servants, supplier profiles, sanctions) that no
//! plant names; false positives per 1,000 clean records = 1000 x false positives / clean
//! records. Every run uses the default parameters (sensitivity 0.7, confidence threshold 0.8)
//! unless `--sensitivity S` is given.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::Instant;

use vigia_agents::demo::labels::record_ids;
use vigia_agents::demo::{DemoData, DemoSpec, Flavour, Scheme, generate_as};
use vigia_agents::{Anomaly, AnomalyType, CancelFlag, DetectionParams, engine};

/// Counts of one row of the table.
#[derive(Debug, Default, Clone, Copy)]
struct Row {
    planted: usize,
    found: usize,
    true_positives: usize,
    recalled: usize,
}

impl Row {
    fn add(&mut self, o: Row) {
        self.planted += o.planted;
        self.found += o.found;
        self.true_positives += o.true_positives;
        self.recalled += o.recalled;
    }
}

fn ratio(num: usize, den: usize) -> String {
    if den == 0 { "n/a".to_string() } else { format!("{:.3}", num as f64 / den as f64) }
}

/// One evaluated dataset.
#[derive(Default)]
struct Outcome {
    by_type: BTreeMap<AnomalyType, Row>,
    by_scheme: BTreeMap<Scheme, (usize, usize)>,
    false_by_detector: BTreeMap<String, usize>,
    clean_records: usize,
    records: usize,
    seconds: f64,
}

impl Outcome {
    fn add(&mut self, o: &Outcome) {
        for (t, r) in &o.by_type {
            self.by_type.entry(*t).or_default().add(*r);
        }
        for (s, (p, r)) in &o.by_scheme {
            let e = self.by_scheme.entry(*s).or_default();
            e.0 += p;
            e.1 += r;
        }
        for (d, n) in &o.false_by_detector {
            *self.false_by_detector.entry(d.clone()).or_default() += n;
        }
        self.clean_records += o.clean_records;
        self.records += o.records;
        self.seconds += o.seconds;
    }
}

fn evaluate(data: &DemoData, show: bool, params: &DetectionParams) -> Outcome {
    let t = Instant::now();
    let (anomalies, _) = match engine::analyse(&data.dataset, params, &CancelFlag::new()) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("analysis failed: {e}");
            std::process::exit(1);
        }
    };
    let seconds = t.elapsed().as_secs_f64();
    let mut by_id: HashMap<&str, Vec<usize>> = HashMap::new();
    for (k, p) in data.planted.iter().enumerate() {
        for id in &p.record_ids {
            by_id.entry(id.as_str()).or_default().push(k);
        }
    }
    let labels_of = |a: &Anomaly| -> Vec<usize> {
        let mut ks: Vec<usize> = a
            .record_ids()
            .filter_map(|r| by_id.get(r))
            .flatten()
            .copied()
            .filter(|&k| data.planted[k].kind == a.kind)
            .collect();
        ks.sort_unstable();
        ks.dedup();
        ks
    };
    let mut o = Outcome { seconds, ..Outcome::default() };
    for t in AnomalyType::ALL {
        o.by_type.insert(t, Row::default());
    }
    for p in &data.planted {
        o.by_type.entry(p.kind).or_default().planted += 1;
        o.by_scheme.entry(p.scheme).or_default().0 += 1;
    }
    let mut recalled: HashSet<usize> = HashSet::new();
    for a in &anomalies {
        let ks = labels_of(a);
        let row = o.by_type.entry(a.kind).or_default();
        row.found += 1;
        if ks.is_empty() {
            *o.false_by_detector.entry(a.detector().to_string()).or_default() += 1;
            if show {
                println!("    false positive {} [{}] ({:.3}): {}", a.id, a.severity_str(), a.confidence, a.description);
            }
        } else {
            row.true_positives += 1;
        }
        recalled.extend(ks);
    }
    for (k, p) in data.planted.iter().enumerate() {
        if recalled.contains(&k) {
            o.by_type.entry(p.kind).or_default().recalled += 1;
            o.by_scheme.entry(p.scheme).or_default().1 += 1;
        } else if show {
            println!("    missed {:?}: {}", p.scheme, p.what);
        }
    }
    let named: HashSet<&str> = data.planted.iter().flat_map(|p| p.record_ids.iter().map(String::as_str)).collect();
    o.records = data.dataset.len();
    o.clean_records = record_ids(&data.dataset).filter(|id| !named.contains(*id)).count();
    o
}

trait SeverityStr {
    fn severity_str(&self) -> String;
}

impl SeverityStr for Anomaly {
    fn severity_str(&self) -> String {
        serde_json::to_value(self.severity).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
    }
}

fn print_table(name: &str, o: &Outcome) {
    println!("\n### {name}: {} records, {} clean, analyse {:.2}s\n", o.records, o.clean_records, o.seconds);
    println!("| type | planted | found | TP | precision | recall | FP per 1,000 clean records |");
    println!("|---|---|---|---|---|---|---|");
    let mut fp_all = 0;
    for (t, r) in &o.by_type {
        let fp = r.found - r.true_positives;
        fp_all += fp;
        println!(
            "| {} | {} | {} | {} | {} | {} | {:.2} |",
            t.as_str(),
            r.planted,
            r.found,
            r.true_positives,
            ratio(r.true_positives, r.found),
            ratio(r.recalled, r.planted),
            1000.0 * fp as f64 / o.clean_records.max(1) as f64
        );
    }
    println!("| all | | | | | | {:.2} |", 1000.0 * fp_all as f64 / o.clean_records.max(1) as f64);
    println!("\nrecall by planted scheme: {}", {
        let parts: Vec<String> = o.by_scheme.iter().map(|(s, (p, r))| format!("{s:?} {r}/{p}")).collect();
        parts.join(", ")
    });
    println!("false positives by detector: {:?}", o.false_by_detector);
}

fn list(args: &[String], flag: &str, default: &[u64]) -> Vec<u64> {
    args.iter()
        .position(|a| a == flag)
        .and_then(|k| args.get(k + 1))
        .map(|v| v.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| default.to_vec())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let seeds = list(&args, "--seeds", &[2027]);
    let sizes = list(&args, "--sizes", &[5_000, 50_000]);
    let show = args.iter().any(|a| a == "--show");
    let sensitivity = args
        .iter()
        .position(|a| a == "--sensitivity")
        .and_then(|k| args.get(k + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.7);
    let params = DetectionParams { sensitivity, ..DetectionParams::default() };
    println!("sensitivity {sensitivity}, confidence threshold {}", params.confidence_threshold);
    for (flavour, name) in [(Flavour::Normal, "normal"), (Flavour::Shifted, "shifted")] {
        let mut total = Outcome::default();
        for &seed in &seeds {
            for &size in &sizes {
                let t = Instant::now();
                let data = generate_as(&DemoSpec { seed, contracts: size as usize, ..DemoSpec::default() }, flavour);
                let generated = t.elapsed().as_secs_f64();
                let o = evaluate(&data, show, &params);
                print_table(&format!("{name}, seed {seed}, {size} contracts (generated in {generated:.2}s)"), &o);
                total.add(&o);
            }
        }
        print_table(&format!("{name}, all seeds and sizes"), &total);
    }
}
