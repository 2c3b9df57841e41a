//! Tests of the collusion screens and their combination on hand-made auctions.

use chrono::{NaiveDate, NaiveDateTime};

use super::*;
use crate::cancel::CancelFlag;
use crate::detect::Detector;
use crate::detect::relationship::bid_rigging::BidRigging;
use crate::model::bidding::Bid;
use crate::model::contract::Party;
use crate::model::dataset::Dataset;
use crate::model::params::DetectionParams;

fn time(seconds: i64) -> Option<NaiveDateTime> {
    NaiveDate::from_ymd_opt(2024, 3, 4)
        .and_then(|d| d.and_hms_opt(10, 0, 0))
        .map(|t| t + chrono::Duration::seconds(seconds))
}

/// An auction with a reference price and lances `(bidder, value, second)`; each bidder's bid
/// is its lowest lance and the lowest bid wins.
fn auction(id: &str, reference: f64, lances: &[(&str, f64, i64)]) -> Bidding {
    let mut participants: Vec<Bid> = Vec::new();
    for (d, v, _) in lances {
        match participants.iter_mut().find(|p| p.bidder.document == *d) {
            Some(p) => p.value = p.value.map(|x| x.min(*v)),
            None => participants.push(Bid {
                bidder: Party { name: arcstr::format!("EMPRESA {d}"), document: (*d).into() },
                value: Some(*v),
                winner: false,
            }),
        }
    }
    let low = participants.iter().map(|p| p.value.unwrap_or(f64::MAX)).fold(f64::MAX, f64::min);
    if let Some(p) = participants.iter_mut().find(|p| p.value == Some(low)) {
        p.winner = true;
    }
    Bidding {
        id: id.into(),
        object: "AQUISIÇÃO DE AMBULÂNCIAS".into(),
        process_number: ArcStr::from(format!("P{id}")),
        modality: "Pregão Eletrônico".into(),
        participants,
        reference_price: Some(reference),
        lances: lances.iter().map(|(d, v, t)| Lance { bidder: (*d).into(), value: *v, at: time(*t) }).collect(),
        ..Bidding::default()
    }
}

/// A contested pregão: five firms open near the estimate and undercut each other for minutes.
fn competitive(id: &str) -> Bidding {
    let firms = ["11111111000191", "22222222000191", "33333333000191", "44444444000191", "55555555000191"];
    let mut lances: Vec<(&str, f64, i64)> =
        firms.iter().enumerate().map(|(k, d)| (*d, 1_000_000.0 - 9_000.0 * k as f64, 0)).collect();
    let mut price = 950_000.0;
    for step in 0..40 {
        let who = firms[step % 3];
        price -= 3_000.0 + 500.0 * (step % 4) as f64;
        lances.push((who, price, 30 + 37 * step as i64));
    }
    auction(id, 1_000_000.0, &lances)
}

/// A covered pregão: the winner opens at the estimate and never lowers; the rivals bid above it.
fn covered(id: &str, winner: &str, rivals: &[&str]) -> Bidding {
    let mut lances = vec![(winner, 990_000.0, 0)];
    for (k, d) in rivals.iter().enumerate() {
        lances.push((*d, 1_060_000.0 + 10_000.0 * k as f64, 0));
    }
    auction(id, 1_000_000.0, &lances)
}

#[test]
fn a_competitive_auction_fires_no_screen_combination() {
    let s = screen(&competitive("1")).unwrap();
    assert!(!s.flagged(2), "{:?}", s.fired);
    assert!(s.win_ratio.unwrap() < 0.9);
    assert!(s.winner_cut.unwrap() > 0.05);
}

#[test]
fn a_winner_at_the_estimate_with_rivals_above_it_fires_the_cover_screens() {
    let s = screen(&covered("1", "11111111000191", &["22222222000191", "33333333000191"])).unwrap();
    assert_eq!(s.fired, vec![Screen::NearReference, Screen::CoverGap, Screen::CoverFar]);
    assert!(s.rd.unwrap() >= COVER_RD && s.diffp.unwrap() >= COVER_GAP);
    assert_eq!(s.winner_cut, Some(0.0));
    assert!(s.flagged(2));
}

#[test]
fn a_reference_on_another_basis_gives_no_opinion() {
    let mut b = covered("1", "11111111000191", &["22222222000191"]);
    b.reference_price = Some(7.5);
    let s = screen(&b).unwrap();
    assert_eq!(s.win_ratio, None);
    assert!(!s.fired.contains(&Screen::NearReference));
}

#[test]
fn bids_clustered_within_three_percent_are_tight() {
    let b = auction(
        "1",
        2_000_000.0,
        &[("11111111000191", 1_000_000.0, 0), ("22222222000191", 1_010_000.0, 0), ("33333333000191", 1_020_000.0, 0)],
    );
    let s = screen(&b).unwrap();
    assert!(s.fired.contains(&Screen::TightBids), "{:?}", s.fired);
    assert!(s.cv.unwrap() <= TIGHT_CV);
}

#[test]
fn two_bidders_in_the_same_seconds_again_and_again_are_in_lockstep() {
    let mut b = competitive("1");
    for k in 0..6 {
        let t = time(2_000 + 90 * k);
        b.lances.push(Lance { bidder: "44444444000191".into(), value: 800_000.0 - k as f64, at: t });
        b.lances.push(Lance { bidder: "55555555000191".into(), value: 800_010.0 - k as f64, at: t });
    }
    let s = screen(&b).unwrap();
    let l = s.lockstep.expect("lockstep");
    assert_eq!((l.pair.0.as_str(), l.pair.1.as_str(), l.together), ("44444444000191", "55555555000191", 6));
    assert!(l.p_value < LOCKSTEP_P);
    assert!(screen(&competitive("2")).unwrap().lockstep.is_none());
}

#[test]
fn a_single_bidder_is_not_screened() {
    assert!(screen(&auction("1", 100.0, &[("11111111000191", 100.0, 0)])).is_none());
}

fn run(biddings: Vec<Bidding>) -> Vec<crate::model::anomaly::Anomaly> {
    let ds = Dataset { biddings, ..Dataset::default() };
    BidRigging.run(&ds, &DetectionParams::default(), &CancelFlag::new()).unwrap()
}

#[test]
fn a_market_of_contested_auctions_yields_nothing() {
    assert!(run((0..30).map(|k| competitive(&k.to_string())).collect()).is_empty());
}

#[test]
fn a_group_sharing_covered_auctions_in_rotation_is_found_and_its_evidence_named() {
    let group = ["11111111000191", "22222222000191", "33333333000191"];
    let mut biddings: Vec<Bidding> = (0..20).map(|k| competitive(&k.to_string())).collect();
    for k in 0..4 {
        let w = group[k % 3];
        let rivals: Vec<&str> = group.iter().copied().filter(|d| *d != w).collect();
        biddings.push(covered(&format!("9{k}"), w, &rivals));
    }
    let found = run(biddings);
    assert_eq!(found.len(), 1, "{:?}", found.iter().map(|a| &a.description).collect::<Vec<_>>());
    let a = &found[0];
    assert_eq!(a.technical_details["rule"], "bid_screens");
    assert_eq!(a.technical_details["rotation"], true);
    assert_eq!(a.technical_details["auctions"].as_array().map(Vec::len), Some(4));
    assert_eq!(a.technical_details["screens"]["near_reference"], 4);
    assert!(a.affected_entities.related.iter().all(|e| !e.id.is_empty()));
    assert!(a.confidence >= 0.9);
}

#[test]
fn one_covered_auction_alone_stays_below_the_default_threshold() {
    let found = run(vec![covered("1", "11111111000191", &["22222222000191", "33333333000191"])]);
    assert!(found.is_empty());
    assert!(crate::detect::relationship::bid_auctions::auction_confidence(4) < 0.8);
}

#[test]
fn sealed_bids_without_a_reference_are_judged_on_their_gap_alone() {
    let mut b =
        auction("1", 1.0, &[("11111111000191", 100.0, 0), ("22222222000191", 130.0, 0), ("33333333000191", 135.0, 0)]);
    b.reference_price = None;
    b.lances.clear();
    let s = screen(&b).unwrap();
    assert_eq!(s.fired, vec![Screen::CoverGap]);
    assert!(!s.flagged(2));
}
