//! Findings, records named and their shares, per detector and in all, over the sources.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};
use vigia_agents::{Anomaly, Severity};

use crate::Source;
use crate::records::named;

/// Findings, records named and records named by critical findings, over some anomalies.
#[derive(Default, Clone)]
pub struct Tally {
    findings: usize,
    critical: usize,
    named: BTreeSet<(String, &'static str, String)>,
    named_critical: BTreeSet<(String, &'static str, String)>,
}

impl Tally {
    /// Counts one finding of `source`.
    pub fn add(&mut self, source: &str, a: &Anomaly) {
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
    /// The figures as JSON, shares over `total` spending records.
    pub fn json(&self, total: usize) -> Value {
        json!({
            "findings": self.findings, "critical": self.critical,
            "records_named": self.named.len(), "share_named": share(self.named.len(), total),
            "records_named_by_critical": self.named_critical.len(),
            "share_named_by_critical": share(self.named_critical.len(), total),
        })
    }
    /// The figures as a Markdown table row labelled `label`, shares over `total` records.
    pub fn row(&self, label: &str, total: usize) -> String {
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

impl Tally {
    /// The shares named, by any and by critical findings, against their ceilings, in words.
    pub fn against_limits(&self, total: usize, named: f64, critical: f64) -> String {
        let verdict = |share: f64, limit: f64| if share <= limit { "within" } else { "over" };
        let (n, c) = (share(self.named.len(), total), share(self.named_critical.len(), total));
        format!(
            "{:.1}% named ({}), {:.2}% by critical findings ({})",
            100.0 * n,
            verdict(n, named),
            100.0 * c,
            verdict(c, critical)
        )
    }
}

/// `n` over `total`, 0 for no records.
fn share(n: usize, total: usize) -> f64 {
    if total == 0 { 0.0 } else { n as f64 / total as f64 }
}

/// Per detector and in all, over the given sources.
pub fn tallies(sources: &[&Source]) -> (BTreeMap<String, Tally>, Tally) {
    let (mut per, mut all) = (BTreeMap::<String, Tally>::new(), Tally::default());
    for s in sources {
        for a in &s.anomalies {
            per.entry(a.detector().to_string()).or_default().add(&s.name, a);
            all.add(&s.name, a);
        }
    }
    (per, all)
}

/// Prints the per-detector table of some sources under `title`.
pub fn print_tallies(title: &str, sources: &[&Source]) {
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
