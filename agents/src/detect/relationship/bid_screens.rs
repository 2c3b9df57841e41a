//! The per-auction screens of the collusion literature, measured on one bidding's final bids
//! (each bidder's lowest offer) and, when the source publishes them, its lances. Each screen
//! is weak alone; [`crate::detect::relationship::bid_auctions`] combines them per auction and per group of firms.
//!
//! - `near_reference`: the winning bid at 95% or more of the agency's reference price: no
//!   discount where competition drives prices below the estimate (Imhof, Karagök & Rutz 2018
//!   use the winning bid relative to the estimate). A reference more than 3 times off the
//!   winning bid is on another basis (unit versus total) and gives no opinion.
//! - `cover_gap`: with 3 or more bidders, the gap between the two lowest bids is at least 5%
//!   of the lowest and larger than the standard deviation of the losing bids (relative
//!   distance RD >= 1: a low bid set apart from a tight cluster of cover bids; Imhof 2017,
//!   Huber & Imhof 2019). The coefficient of variation and skewness go with it as evidence.
//! - `cover_far`: every losing bid at or above the reference price: the rivals bid where they
//!   could not win. Without a comparable reference it gives no opinion (losers far above the
//!   winner would only restate `cover_gap`).
//! - `tight_bids`: with 3 or more bidders, a coefficient of variation of at most 3%: bids
//!   clustered more than independent pricing gives (Huber & Imhof 2019).
//! - The winner's cut of its opening offer in the lance phase is measured as evidence but is
//!   not a screen: on the real Comprasnet pregões the winner left its opening offer unchanged
//!   in 28% of the auctions not won by a later-sanctioned firm and in 7% of those won by one
//!   (an ordinary winner often opens at its final price).
//! - `lockstep`: two bidders placing lances in the same second at least 3 times, against a
//!   chance count from their activity minute by minute (Poisson p < 1e-3): one hand behind
//!   both, or a scripted exchange.
//!
//! Complexity: O(L log L) per auction of L lances (sorting), O(P²) over its bidders' pairs.

use std::collections::{BTreeMap, HashMap};

use chrono::NaiveDateTime;

use crate::detect::relationship::bid_rigging::{COVER_GAP, poisson_upper};
use crate::model::bidding::{Bidding, Lance};
use crate::model::intern::ArcStr;

/// Winning bid over reference price from which the winner gave no meaningful discount.
pub const NEAR_REFERENCE: f64 = 0.95;
/// Factor beyond which a reference price is taken to be on another basis than the bids.
pub const COMPARABLE: f64 = 3.0;
/// Smallest relative distance (gap between the two lowest bids over the losers' spread).
pub const COVER_RD: f64 = 1.0;
/// Largest coefficient of variation of tight bids.
pub const TIGHT_CV: f64 = 0.03;
/// Fewest same-second lances of a pair for lockstep.
pub const LOCKSTEP_MIN: usize = 3;
/// Largest chance probability of a lockstep pair.
pub const LOCKSTEP_P: f64 = 1e-3;

/// One screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Screen {
    /// Winning bid close to the reference price.
    NearReference,
    /// A low bid set apart from tight cover bids.
    CoverGap,
    /// Every loser above the reference price.
    CoverFar,
    /// Bids clustered tightly.
    TightBids,
    /// Two bidders bidding in the same seconds beyond chance.
    Lockstep,
}

impl Screen {
    /// The screen's name in evidence.
    pub fn name(self) -> &'static str {
        match self {
            Screen::NearReference => "near_reference",
            Screen::CoverGap => "cover_gap",
            Screen::CoverFar => "cover_far",
            Screen::TightBids => "tight_bids",
            Screen::Lockstep => "lockstep",
        }
    }
    /// What it saw, in Portuguese.
    pub fn pt(self) -> &'static str {
        match self {
            Screen::NearReference => "vencedor sem desconto sobre o preço de referência",
            Screen::CoverGap => "o menor lance isolado de um grupo apertado de propostas de cobertura",
            Screen::CoverFar => "todos os perdedores acima do preço de referência",
            Screen::TightBids => "propostas agrupadas demais",
            Screen::Lockstep => "dois licitantes dando lances nos mesmos segundos",
        }
    }
}

impl Screens {
    /// Whether the screens flag the auction: at least `min` fired, one of them about the
    /// prices (the winning bid near the reference or set apart from cover bids), since the
    /// others (bids above the reference, tight bids, lockstep) also describe an auction nobody
    /// contested or a market with similar costs.
    pub fn flagged(&self, min: usize) -> bool {
        self.fired.len() >= min && self.fired.iter().any(|s| matches!(s, Screen::NearReference | Screen::CoverGap))
    }
}

/// Two bidders placing lances in the same seconds.
#[derive(Debug, Clone, PartialEq)]
pub struct Lockstep {
    /// The pair's documents, in order.
    pub pair: (ArcStr, ArcStr),
    /// Seconds in which both placed a lance.
    pub together: usize,
    /// Seconds expected by chance from their activity per minute.
    pub expected: f64,
    /// Poisson probability of `together` or more by chance.
    pub p_value: f64,
}

/// What the screens measure on one auction.
#[derive(Debug, Clone, PartialEq)]
pub struct Screens {
    /// Bidders with a positive final bid.
    pub bidders: usize,
    /// Lances published.
    pub lances: usize,
    /// The winner's document and final bid (the flagged winner, else the lowest bid).
    pub winner: (ArcStr, f64),
    /// Winning bid over the reference price, when comparable.
    pub win_ratio: Option<f64>,
    /// Coefficient of variation of the final bids (3 or more bidders).
    pub cv: Option<f64>,
    /// Skewness of the final bids (3 or more bidders).
    pub skew: Option<f64>,
    /// Relative gap between the two lowest bids.
    pub diffp: Option<f64>,
    /// Gap between the two lowest bids over the standard deviation of the losing bids (capped
    /// at 100 when the losers bid the same).
    pub rd: Option<f64>,
    /// The winner's cut of its opening offer in the lance phase.
    pub winner_cut: Option<f64>,
    /// The most significant lockstep pair.
    pub lockstep: Option<Lockstep>,
    /// The screens that fired, in order.
    pub fired: Vec<Screen>,
}

/// Mean, population standard deviation and skewness.
fn moments(x: &[f64]) -> (f64, f64, f64) {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
    let sd = var.sqrt();
    let skew = if sd > 0.0 { x.iter().map(|v| ((v - mean) / sd).powi(3)).sum::<f64>() / n } else { 0.0 };
    (mean, sd, skew)
}

/// The screens of one bidding, or `None` with fewer than two bidders with positive bids.
pub fn screen(b: &Bidding) -> Option<Screens> {
    let mut bids: Vec<(&ArcStr, f64)> = b
        .participants
        .iter()
        .filter(|p| !p.bidder.document.is_empty())
        .filter_map(|p| p.value.filter(|v| v.is_finite() && *v > 0.0).map(|v| (&p.bidder.document, v)))
        .collect();
    if bids.len() < 2 {
        return None;
    }
    bids.sort_by(|a, b| a.1.total_cmp(&b.1));
    let winner = b
        .winner()
        .filter(|w| !w.bidder.document.is_empty())
        .and_then(|w| w.value.filter(|v| *v > 0.0).map(|v| (w.bidder.document.clone(), v)))
        .unwrap_or_else(|| (bids[0].0.clone(), bids[0].1));
    let values: Vec<f64> = bids.iter().map(|x| x.1).collect();
    let losers: Vec<f64> = bids.iter().filter(|x| *x.0 != winner.0).map(|x| x.1).collect();
    let win_ratio = b
        .reference_price
        .filter(|r| *r > 0.0)
        .map(|r| winner.1 / r)
        .filter(|q| (1.0 / COMPARABLE..=COMPARABLE).contains(q));
    let diffp = Some((values[1] - values[0]) / values[0]);
    let (mut cv, mut skew, mut rd) = (None, None, None);
    if values.len() >= 3 {
        let (mean, sd, sk) = moments(&values);
        cv = Some(sd / mean);
        skew = Some(sk);
        let (_, loser_sd, _) = moments(&values[1..]);
        let gap = values[1] - values[0];
        rd = Some(if loser_sd > 0.0 {
            (gap / loser_sd).min(100.0)
        } else if gap > 0.0 {
            100.0
        } else {
            0.0
        });
    }
    let winner_cut = winner_cut(&b.lances, &winner.0);
    let lockstep = lockstep(&b.lances);
    let mut fired = Vec::new();
    if win_ratio.is_some_and(|q| q >= NEAR_REFERENCE) {
        fired.push(Screen::NearReference);
    }
    if rd.is_some_and(|r| r >= COVER_RD) && diffp.is_some_and(|d| d >= COVER_GAP) {
        fired.push(Screen::CoverGap);
    }
    let far = match (win_ratio, b.reference_price) {
        (Some(_), Some(r)) => losers.iter().all(|v| *v >= r),
        _ => false,
    };
    if !losers.is_empty() && far {
        fired.push(Screen::CoverFar);
    }
    if cv.is_some_and(|c| c <= TIGHT_CV) {
        fired.push(Screen::TightBids);
    }
    if lockstep.is_some() {
        fired.push(Screen::Lockstep);
    }
    Some(Screens {
        bidders: bids.len(),
        lances: b.lances.len(),
        winner,
        win_ratio,
        cv,
        skew,
        diffp,
        rd,
        winner_cut,
        lockstep,
        fired,
    })
}

/// How much the winner cut its first lance by its lowest, when it placed lances.
fn winner_cut(lances: &[Lance], winner: &str) -> Option<f64> {
    let mut own = lances.iter().filter(|l| l.bidder == winner && l.value > 0.0);
    let first = own.next()?.value;
    let lowest = own.fold(first, |m, l| m.min(l.value));
    Some(1.0 - lowest / first)
}

/// The most significant pair of bidders placing lances in the same seconds after the opening
/// instant (the opening proposals share one timestamp), when significant.
fn lockstep(lances: &[Lance]) -> Option<Lockstep> {
    let opening = lances.iter().filter_map(|l| l.at).min()?;
    let timed: Vec<(&ArcStr, NaiveDateTime)> =
        lances.iter().filter_map(|l| l.at.filter(|t| *t > opening).map(|t| (&l.bidder, t))).collect();
    let mut seconds: BTreeMap<NaiveDateTime, Vec<&ArcStr>> = BTreeMap::new();
    let mut per_minute: HashMap<(&ArcStr, i64), f64> = HashMap::new();
    for (d, t) in &timed {
        seconds.entry(*t).or_default().push(*d);
        *per_minute.entry((*d, t.and_utc().timestamp().div_euclid(60))).or_default() += 1.0;
    }
    let mut together: BTreeMap<(&ArcStr, &ArcStr), usize> = BTreeMap::new();
    for who in seconds.values_mut() {
        who.sort_unstable();
        who.dedup();
        for i in 0..who.len() {
            for j in i + 1..who.len() {
                *together.entry((who[i], who[j])).or_default() += 1;
            }
        }
    }
    let mut best: Option<Lockstep> = None;
    for ((a, b), k) in together.into_iter().filter(|(_, k)| *k >= LOCKSTEP_MIN) {
        // Same second by chance: both active in a minute, each second equally likely.
        let expected: f64 = per_minute
            .iter()
            .filter(|((d, _), _)| *d == a)
            .map(|((_, m), n)| n * per_minute.get(&(b, *m)).copied().unwrap_or(0.0) / 60.0)
            .sum();
        let p_value = poisson_upper(k, expected);
        if p_value < LOCKSTEP_P && best.as_ref().is_none_or(|x| p_value < x.p_value) {
            best = Some(Lockstep { pair: (a.clone(), b.clone()), together: k, expected, p_value });
        }
    }
    best
}

#[cfg(test)]
#[path = "bid_screens_tests.rs"]
mod tests;
