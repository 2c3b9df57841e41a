//! Tests of `bid_rigging` on hand-made biddings.

use super::*;
use crate::model::bidding::Bid;
use crate::model::contract::{Organ, Party};
use crate::model::dataset::Dataset;

fn bidding(id: usize, bids: &[(&str, f64)], winner: &str) -> Bidding {
    Bidding {
        id: id.to_string().into(),
        object: "AQUISIÇÃO DE MEDICAMENTOS".into(),
        modality: "Pregão".into(),
        organ: Organ { code: "36000".into(), acronym: ArcStr::new(), name: "MS".into() },
        participants: bids
            .iter()
            .map(|(d, v)| Bid {
                bidder: Party { name: arcstr::format!("E{d}"), document: (*d).into() },
                value: Some(*v),
                winner: *d == winner,
            })
            .collect(),
        ..Bidding::default()
    }
}

/// A market of 60 biddings among 12 ordinary firms, plus a cartel of three meeting `k` times.
fn market(k: usize) -> Vec<Bidding> {
    let mut out = Vec::new();
    for i in 0..60 {
        let a = format!("{:02}", i % 12);
        let b = format!("{:02}", (i * 5 + 1) % 12);
        let c = format!("{:02}", (i * 7 + 3) % 12);
        if a == b || b == c || a == c {
            continue;
        }
        out.push(bidding(i, &[(&a, 100.0), (&b, 104.0), (&c, 130.0)], &a));
    }
    let cartel = ["C1", "C2", "C3"];
    for j in 0..k {
        let w = cartel[j % 3];
        let bids: Vec<(&str, f64)> = cartel.iter().map(|d| (*d, if *d == w { 100.0 } else { 120.0 })).collect();
        out.push(bidding(1000 + j, &bids, w));
    }
    out
}

fn run(biddings: Vec<Bidding>, s: f64) -> Vec<Anomaly> {
    let ds = Dataset { biddings, ..Dataset::default() };
    let p = DetectionParams { sensitivity: s, ..DetectionParams::default() };
    BidRigging.run(&ds, &p, &CancelFlag::new()).unwrap()
}

#[test]
fn a_rotating_set_with_cover_bids_is_found_and_ordinary_bidders_are_not() {
    let found = run(market(6), 0.7);
    assert_eq!(found.len(), 1, "{:?}", found.iter().map(|a| &a.id).collect::<Vec<_>>());
    let a = &found[0];
    assert_eq!(a.kind, AnomalyType::RelationshipAnomaly);
    assert_eq!(a.technical_details["rotation"], true);
    assert_eq!(a.technical_details["cover_bidding"], true);
    assert_eq!(a.record_ids().filter(|r| r.starts_with("10")).count(), 6);
    assert!(a.technical_details["p_value"].as_f64().unwrap() < 1e-6);
}

fn recurring_sets(found: &[Anomaly]) -> usize {
    found
        .iter()
        .filter(|a| {
            a.evidence.statistical_analysis.as_ref().is_some_and(|s| s.method == "recurring_bidder_set_poisson")
        })
        .count()
}

#[test]
fn three_meetings_count_only_from_sensitivity_0_9() {
    assert!(run(market(3), 0.7).is_empty());
    assert_eq!(run(market(3), 0.9).len(), 1);
    assert_eq!(recurring_sets(&run(market(3), 0.9)), 1);
    assert!(min_recurrences(0.3) > min_recurrences(0.7) && max_p_value(0.3) < max_p_value(1.0));
}

#[test]
fn the_poisson_tail_matches_known_values() {
    assert!((poisson_upper(1, 1.0) - (1.0 - (-1.0f64).exp())).abs() < 1e-12);
    assert!((poisson_upper(3, 2.0) - 0.323_323_583_8).abs() < 1e-9);
    assert_eq!(poisson_upper(0, 5.0), 1.0);
    assert!(poisson_upper(6, 0.001) < 1e-20);
}

#[test]
fn items_of_one_pregao_count_once_towards_a_recurring_set() {
    let mut biddings = market(6);
    for b in biddings.iter_mut().filter(|b| b.id.starts_with("10")) {
        b.process_number = "PREGAO-1".into();
    }
    assert_eq!(recurring_sets(&run(biddings, 1.0)), 0);
}
