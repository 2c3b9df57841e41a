//! The whole engine over every real record: each source folder of `../shared/real` (relative
//! to the workspace root) is loaded as its own dataset, as a real analysis reads one organ's or
//! one month's data, and analysed at default parameters. Prints, per source and in all, the
//! spending records and, per detector, the findings, the distinct spending records they name
//! (primary or related contract, bidding, expense or agreement), their share of all records and
//! the share named by critical findings; then the most severe findings with their records, as
//! Markdown tables to paste into BENCHMARKS.md.
//!
//! `cargo run --release -p vigia-agents --example real_review [-- DIR] [--detector NAME] [--top N] [--json]`
//!
//! `--detector NAME` lists every finding of one detector instead of the most severe ones;
//! `--json` prints the same figures and findings as one JSON document.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use vigia_agents::model::load::load_paths;
use vigia_agents::text::format_brl;
use vigia_agents::{Anomaly, CancelFlag, Dataset, DetectionParams, Severity, engine};

/// The entity kinds that are spending records.
const SPENDING: &[&str] = &["contract", "bidding", "expense", "agreement"];

/// One source folder, loaded and analysed.
struct Source {
    name: String,
    dataset: Dataset,
    anomalies: Vec<Anomaly>,
}

/// What a finding names of one record, for the tables.
#[derive(Clone)]
struct Record {
    kind: &'static str,
    id: String,
    number: String,
    supplier: String,
    value: f64,
    date: String,
    modality: String,
    legal_basis: String,
}

fn date(d: Option<chrono::NaiveDate>) -> String {
    d.map(|d| d.to_string()).unwrap_or_default()
}

/// Every spending record of a dataset by (kind, id).
fn records(ds: &Dataset) -> HashMap<(&'static str, String), Record> {
    let mut out = HashMap::new();
    let mut put = |r: Record| {
        out.insert((r.kind, r.id.clone()), r);
    };
    for c in &ds.contracts {
        put(Record {
            kind: "contract",
            id: c.id.to_string(),
            number: c.number.to_string(),
            supplier: format!("{} ({})", c.supplier.name, c.supplier.document),
            value: c.value(),
            date: date(c.signed_on),
            modality: c.modality.to_string(),
            legal_basis: c.legal_basis.to_string(),
        });
    }
    for b in &ds.biddings {
        let winner = b.winner().map(|w| format!("{} ({})", w.bidder.name, w.bidder.document)).unwrap_or_default();
        let value = b.winner().and_then(|w| w.value).unwrap_or(b.value);
        put(Record {
            kind: "bidding",
            id: b.id.to_string(),
            number: b.number.to_string(),
            supplier: winner,
            value,
            date: date(b.opened_on),
            modality: b.modality.to_string(),
            legal_basis: String::new(),
        });
    }
    for e in &ds.expenses {
        put(Record {
            kind: "expense",
            id: e.id.to_string(),
            number: e.id.to_string(),
            supplier: format!("{} ({})", e.payee.name, e.payee.document),
            value: e.value,
            date: date(e.date),
            modality: e.modality.to_string(),
            legal_basis: String::new(),
        });
    }
    for a in &ds.agreements {
        put(Record {
            kind: "agreement",
            id: a.id.clone(),
            number: a.number.clone(),
            supplier: format!("{} ({})", a.grantee.name, a.grantee.document),
            value: a.value,
            date: date(a.valid_from),
            modality: String::new(),
            legal_basis: String::new(),
        });
    }
    out
}

/// The spending records an anomaly names, primary first, without repeats.
fn named(a: &Anomaly) -> Vec<(&'static str, String)> {
    let e = &a.affected_entities;
    let mut out: Vec<(&'static str, String)> = Vec::new();
    for r in std::iter::once(&e.primary).chain(e.related.iter()) {
        if let Some(kind) = SPENDING.iter().find(|k| **k == r.kind) {
            let key = (*kind, r.id.clone());
            if !out.contains(&key) {
                out.push(key);
            }
        }
    }
    out
}

/// Findings, records named and records named by critical findings, over some anomalies.
#[derive(Default, Clone)]
struct Tally {
    findings: usize,
    critical: usize,
    named: BTreeSet<(String, &'static str, String)>,
    named_critical: BTreeSet<(String, &'static str, String)>,
}

impl Tally {
    fn add(&mut self, source: &str, a: &Anomaly) {
        self.findings += 1;
        let critical = a.severity == Severity::Critical;
        self.critical += usize::from(critical);
        for (kind, id) in named(a) {
            let key = (source.to_string(), kind, id);
            if critical {
                self.named_critical.insert(key.clone());
            }
            self.named.insert(key);
        }
    }
    fn json(&self, total: usize) -> Value {
        json!({
            "findings": self.findings, "critical": self.critical,
            "records_named": self.named.len(), "share_named": share(self.named.len(), total),
            "records_named_by_critical": self.named_critical.len(),
            "share_named_by_critical": share(self.named_critical.len(), total),
        })
    }
    fn row(&self, label: &str, total: usize) -> String {
        format!(
            "| {label} | {} | {} | {} | {:.1}% | {} | {:.2}% |",
            self.findings,
            self.critical,
            self.named.len(),
            100.0 * share(self.named.len(), total),
            self.named_critical.len(),
            100.0 * share(self.named_critical.len(), total)
        )
    }
}

fn share(n: usize, total: usize) -> f64 {
    if total == 0 { 0.0 } else { n as f64 / total as f64 }
}

/// Per detector and in all, over the given sources.
fn tallies(sources: &[&Source]) -> (BTreeMap<String, Tally>, Tally) {
    let (mut per, mut all) = (BTreeMap::<String, Tally>::new(), Tally::default());
    for s in sources {
        for a in &s.anomalies {
            per.entry(a.detector().to_string()).or_default().add(&s.name, a);
            all.add(&s.name, a);
        }
    }
    (per, all)
}

fn print_tallies(title: &str, sources: &[&Source]) {
    let total: usize = sources.iter().map(|s| s.dataset.spending_len()).sum();
    let (per, all) = tallies(sources);
    println!("\n### {title} ({total} spending records)\n");
    println!("| detector | findings | critical | records named | share | named by critical | share |");
    println!("|---|---|---|---|---|---|---|");
    for (detector, t) in &per {
        println!("{}", t.row(detector, total));
    }
    println!("{}", all.row("**all**", total));
}

/// The first sentence of the explanation (Portuguese), else of the description.
fn first_sentence(a: &Anomaly) -> String {
    let text = a.explanation.as_ref().map_or(a.description.as_str(), |e| e.human_readable.as_str());
    let end = text.find(". ").map_or(text.len(), |k| k + 1);
    text[..end].trim().replace('\n', " ")
}

/// Most severe first: severity, then confidence, then money at stake.
fn severity_order(a: &Anomaly, b: &Anomaly) -> Ordering {
    b.severity
        .cmp(&a.severity)
        .then_with(|| b.confidence.total_cmp(&a.confidence))
        .then_with(|| b.value_at_stake().total_cmp(&a.value_at_stake()))
        .then_with(|| a.id.cmp(&b.id))
}

fn finding_json(source: &str, a: &Anomaly, lookup: &HashMap<(&'static str, String), Record>) -> Value {
    let recs: Vec<Value> = named(a)
        .iter()
        .map(|key| match lookup.get(key) {
            Some(r) => json!({"kind": r.kind, "id": r.id, "number": r.number, "supplier": r.supplier,
                "value": r.value, "date": r.date, "modality": r.modality, "legal_basis": r.legal_basis}),
            None => json!({"kind": key.0, "id": key.1}),
        })
        .collect();
    json!({"source": source, "id": a.id, "detector": a.detector(), "severity": a.severity.as_str(),
        "confidence": a.confidence, "value_at_stake": a.value_at_stake(), "records": recs,
        "sentence": first_sentence(a)})
}

/// Records listed per finding in the Markdown; the JSON lists all.
const RECORDS_SHOWN: usize = 6;

fn print_finding(rank: usize, source: &str, a: &Anomaly, lookup: &HashMap<(&'static str, String), Record>) {
    println!(
        "\n**{rank}. {}** ({source}): {}, confidence {:.2}, at stake {}. `{}`\n\n> {}\n",
        a.detector(),
        a.severity.as_str(),
        a.confidence,
        format_brl(a.value_at_stake()),
        a.id,
        first_sentence(a)
    );
    let keys = named(a);
    if keys.is_empty() {
        println!(
            "(names no spending record: {} {})",
            a.affected_entities.primary.kind, a.affected_entities.primary.name
        );
        return;
    }
    println!("| record | number | supplier | value | date | modality | legal basis |");
    println!("|---|---|---|---|---|---|---|");
    for key in keys.iter().take(RECORDS_SHOWN) {
        match lookup.get(key) {
            Some(r) => println!(
                "| {} {} | {} | {} | {} | {} | {} | {} |",
                r.kind,
                r.id,
                r.number,
                r.supplier,
                format_brl(r.value),
                r.date,
                r.modality,
                r.legal_basis
            ),
            None => println!("| {} {} | (not in the dataset) | | | | | |", key.0, key.1),
        }
    }
    if keys.len() > RECORDS_SHOWN {
        println!("| ... {} more | | | | | | |", keys.len() - RECORDS_SHOWN);
    }
}

fn load_sources(dir: &Path) -> Vec<Source> {
    let mut folders: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.is_dir()).collect())
        .unwrap_or_default();
    folders.sort();
    let params = DetectionParams::default();
    let mut out = Vec::new();
    for folder in folders {
        let name = folder.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let loaded = match load_paths(std::slice::from_ref(&folder)) {
            Ok(l) => l,
            Err(e) => {
                eprintln!("{name}: not loaded: {e}");
                continue;
            }
        };
        for (path, reason) in &loaded.skipped {
            eprintln!("{name}: skipped {}: {reason}", path.display());
        }
        if loaded.dataset.spending_len() == 0 {
            eprintln!("{name}: no spending records");
            continue;
        }
        let anomalies = match engine::analyse(&loaded.dataset, &params, &CancelFlag::new()) {
            Ok((a, _)) => a,
            Err(e) => {
                eprintln!("{name}: analysis failed: {e}");
                continue;
            }
        };
        out.push(Source { name, dataset: loaded.dataset, anomalies });
    }
    out
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value_of = |flag: &str| args.iter().position(|a| a == flag).and_then(|k| args.get(k + 1)).cloned();
    let detector = value_of("--detector");
    let top: usize = value_of("--top").and_then(|v| v.parse().ok()).unwrap_or(20);
    let as_json = args.iter().any(|a| a == "--json");
    let flag_values: Vec<&String> = ["--detector", "--top"]
        .iter()
        .filter_map(|f| args.iter().position(|a| a == f).and_then(|k| args.get(k + 1)))
        .collect();
    let dir = args
        .iter()
        .find(|a| !a.starts_with("--") && !flag_values.contains(a))
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/real"));
    let sources = load_sources(&dir);
    let lookups: Vec<HashMap<(&'static str, String), Record>> = sources.iter().map(|s| records(&s.dataset)).collect();
    let mut chosen: Vec<(usize, &Anomaly)> = sources
        .iter()
        .enumerate()
        .flat_map(|(k, s)| s.anomalies.iter().map(move |a| (k, a)))
        .filter(|(_, a)| detector.as_deref().is_none_or(|d| a.detector() == d))
        .collect();
    chosen.sort_by(|x, y| severity_order(x.1, y.1));
    if detector.is_none() {
        chosen.truncate(top);
    }
    let all: Vec<&Source> = sources.iter().collect();
    if as_json {
        let per_source: Vec<Value> = sources
            .iter()
            .map(|s| {
                let total = s.dataset.spending_len();
                let (per, t) = tallies(&[s]);
                let detectors: BTreeMap<&String, Value> = per.iter().map(|(d, t)| (d, t.json(total))).collect();
                json!({"source": s.name, "contracts": s.dataset.contracts.len(), "biddings": s.dataset.biddings.len(),
                    "expenses": s.dataset.expenses.len(), "agreements": s.dataset.agreements.len(),
                    "spending_records": total, "all": t.json(total), "detectors": detectors})
            })
            .collect();
        let total: usize = sources.iter().map(|s| s.dataset.spending_len()).sum();
        let (per, t) = tallies(&all);
        let detectors: BTreeMap<&String, Value> = per.iter().map(|(d, t)| (d, t.json(total))).collect();
        let findings: Vec<Value> =
            chosen.iter().map(|(k, a)| finding_json(&sources[*k].name, a, &lookups[*k])).collect();
        let out = json!({"sources": per_source, "all": {"spending_records": total, "all": t.json(total),
            "detectors": detectors}, "findings": findings});
        println!("{}", serde_json::to_string_pretty(&out).unwrap_or_default());
        return;
    }
    println!("## Real records: {} (default parameters)\n", dir.display());
    println!(
        "| source | contracts | biddings | expenses | agreements | spending records | findings | critical | named | share | named by critical | share |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    for s in &sources {
        let ds = &s.dataset;
        let (_, t) = tallies(&[s]);
        let total = ds.spending_len();
        let rest = t.row("", total);
        let rest = rest.trim_start_matches("|  |");
        println!(
            "| {} | {} | {} | {} | {} | {} |{rest}",
            s.name,
            ds.contracts.len(),
            ds.biddings.len(),
            ds.expenses.len(),
            ds.agreements.len(),
            total
        );
    }
    print_tallies("All sources, per detector", &all);
    for s in &sources {
        print_tallies(&format!("{}, per detector", s.name), &[s]);
    }
    match &detector {
        Some(d) => println!("\n### Every finding of {d} ({})", chosen.len()),
        None => println!("\n### The {} most severe findings", chosen.len()),
    }
    for (rank, (k, a)) in chosen.iter().enumerate() {
        print_finding(rank + 1, &sources[*k].name, a, &lookups[*k]);
    }
}
