//! Calibration of the collusion screens on the real Comprasnet lances
//! (`../shared/real/comprasnet-lances`, or the CSV path given as the first argument): per
//! screen and combined, the share of auctions flagged among those with and without a bid from
//! a firm later sanctioned (the file's weak label), and among those won by one or not; then
//! the `bid_rigging` findings at the default parameters.
//!
//! `cargo run -p vigia-agents --example bid_screens [path.csv]`

use std::collections::BTreeSet;

use vigia_agents::detect::Detector;
use vigia_agents::detect::relationship::bid_auctions::MIN_SCREENS;
use vigia_agents::detect::relationship::bid_rigging::BidRigging;
use vigia_agents::detect::relationship::bid_screens::{Screen, Screens, screen};
use vigia_agents::model::bidding::Bidding;
use vigia_agents::model::dataset::Dataset;
use vigia_agents::model::lances::{biddings_from_comprasnet_csv, labelled_bidders};
use vigia_agents::{CancelFlag, DetectionParams};

const SCREENS: [Screen; 5] =
    [Screen::NearReference, Screen::CoverGap, Screen::CoverFar, Screen::TightBids, Screen::Lockstep];

/// Auctions of one class, and how many each screen (and the combination) flagged.
struct Class {
    name: &'static str,
    auctions: usize,
    fired: [usize; 5],
    combined: usize,
}

impl Class {
    fn new(name: &'static str) -> Self {
        Class { name, auctions: 0, fired: [0; 5], combined: 0 }
    }
    fn add(&mut self, s: &Screens) {
        self.auctions += 1;
        for (k, x) in SCREENS.iter().enumerate() {
            if s.fired.contains(x) {
                self.fired[k] += 1;
            }
        }
        if s.flagged(MIN_SCREENS) {
            self.combined += 1;
        }
    }
    fn row(&self) -> String {
        let pct = |n: usize| format!("{:>6.1}%", 100.0 * n as f64 / self.auctions.max(1) as f64);
        let cells: Vec<String> = self.fired.iter().map(|n| pct(*n)).collect();
        format!("| {:<34} | {:>4} | {} | {} |", self.name, self.auctions, cells.join(" | "), pct(self.combined))
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "../shared/real/comprasnet-lances/DB_Collusion_Brazil_Comprasnet_processed.csv".into());
    let text = std::fs::read_to_string(&path)?;
    let biddings = biddings_from_comprasnet_csv(&text)?;
    let label = labelled_bidders(&text)?;
    let mut classes = [
        Class::new("with a labelled bidder"),
        Class::new("without a labelled bidder"),
        Class::new("won by a labelled bidder"),
        Class::new("not won by a labelled bidder"),
    ];
    let mut unscreened = 0;
    for b in &biddings {
        let Some(s) = screen(b) else {
            unscreened += 1;
            continue;
        };
        let bidders: BTreeSet<&str> = b.participants.iter().map(|p| p.bidder.document.as_str()).collect();
        let any = bidders.iter().any(|d| label.contains(*d));
        let won = label.contains(s.winner.0.as_str());
        classes[if any { 0 } else { 1 }].add(&s);
        classes[if won { 2 } else { 3 }].add(&s);
    }
    println!(
        "{} auctions ({} with fewer than two bidders, not screened), {} labelled firms",
        biddings.len(),
        unscreened,
        label.len()
    );
    let names: Vec<&str> = SCREENS.iter().map(|s| s.name()).collect();
    println!("| auctions {:<25} |    n | {} | >= {} screens |", "", names.join(" | "), MIN_SCREENS);
    for c in &classes {
        println!("{}", c.row());
    }
    let ds = Dataset { biddings: biddings.clone(), ..Dataset::default() };
    let found = BidRigging.run(&ds, &DetectionParams::default(), &CancelFlag::new())?;
    let named: BTreeSet<&str> = found
        .iter()
        .flat_map(|a| a.affected_entities.related.iter())
        .filter(|e| e.kind == "bidding")
        .map(|e| e.id.as_str())
        .collect();
    let labelled_named = named
        .iter()
        .filter(|id| biddings.iter().find(|b| b.id.as_str() == **id).is_some_and(|b| won_by(b, &label)))
        .count();
    println!(
        "\nbid_rigging at default parameters: {} findings naming {} of {} auctions ({} of them won by a labelled firm)",
        found.len(),
        named.len(),
        biddings.len(),
        labelled_named
    );
    let firms: BTreeSet<&str> = found
        .iter()
        .flat_map(|a| a.affected_entities.related.iter().chain([&a.affected_entities.primary]))
        .filter(|e| e.kind == "supplier")
        .map(|e| e.id.as_str())
        .collect();
    let all_firms: BTreeSet<&str> =
        biddings.iter().flat_map(|b| b.participants.iter().map(|p| p.bidder.document.as_str())).collect();
    println!(
        "firms named: {} of {} ({} labelled, against {} labelled among all firms)",
        firms.len(),
        all_firms.len(),
        firms.iter().filter(|d| label.contains(**d)).count(),
        label.len()
    );
    for a in &found {
        println!(
            "- [{:?} {:.2}] {} | {}",
            a.severity,
            a.confidence,
            a.description,
            a.technical_details.get("screens").map(|v| v.to_string()).unwrap_or_default()
        );
        let mark = |d: &str| if label.contains(d) { format!("{d}*") } else { d.to_string() };
        if let Some(bidders) = a.technical_details.get("bidders").and_then(|v| v.as_array()) {
            let list: Vec<String> = bidders.iter().filter_map(|d| d.as_str()).map(mark).collect();
            println!("    bidders (* labelled): {}", list.join(" "));
        }
        for x in a.technical_details.get("auctions").and_then(|v| v.as_array()).into_iter().flatten() {
            let winner = x["winner"].as_str().unwrap_or("");
            println!(
                "    item {} won by {} at {} (reference {}, ratio {}), {} bidders, {} lances, cut {}, screens {}",
                x["bidding"],
                mark(winner),
                x["winning_bid"],
                x["reference_price"],
                x["win_ratio"],
                x["bidders"],
                x["lances"],
                x["winner_cut"],
                x["screens"]
            );
        }
    }
    Ok(())
}

fn won_by(b: &Bidding, label: &BTreeSet<String>) -> bool {
    b.winner().is_some_and(|w| label.contains(w.bidder.document.as_str()))
}
