//! `bid_rigging` on auctions the recurring-set test cannot judge: real tenders rarely repeat
//! an exact bidder set, so the screens of [`crate::detect::relationship::bid_screens`] are combined per auction and
//! per group of firms, never flagging on one weak screen.
//!
//! An auction is flagged when at least [`MIN_SCREENS`] screens fire, one of them about prices
//! ([`Screens::flagged`]). Flagged auctions with the
//! same set of bidders (a stable group: items of one pregão or tenders of one market) make one
//! finding about the group, stronger with more auctions and when the wins rotate among the
//! group's members (two or more winners, none with more than `MAX_WIN_SHARE` of the wins:
//! a market shared out); a flagged auction outside any group is a finding of its own.
//!
//! Calibration on the 445 items of the real Comprasnet pregões (`examples/bid_screens.rs`),
//! whose only label is weak (a firm sanctioned at some point, not a rigged auction): two
//! screens flag 46% of the auctions won by a labelled firm and 4.3% of the others, and the
//! two findings at the default parameters name 23 auctions, 19 of them won by a labelled firm.
//! Auctions with and without a labelled bidder among the participants are flagged alike (8%
//! and 10%): the file was selected for those firms' presence, and a sanctioned firm that bids
//! and loses is no sign of a rigged auction. The winning bid near or above the reference,
//! the strongest screen here, is also how the data's notes describe those firms' wins, so
//! this is a consistency check, not an independent measurement of precision.
//!
//! Confidence: an auction `0.56 + 0.08 * (screens - 2)`, at most 0.88 (one auction never
//! reaches critical); a group the mean of its auctions `+ 0.08 * min(auctions - 1, 3)`, `+ 0.1`
//! with rotation, at most 0.95; then shifted with the sensitivity. So at the default
//! confidence threshold of 0.8 an auction alone needs five screens, and a group of auctions
//! with three screens each needs two more auctions or rotation.

use std::collections::{BTreeMap, HashMap};

use serde_json::json;

use crate::cancel::{AnalysisError, CancelFlag};
use crate::detect::common::{adjust_confidence, organ_entity, round2, round4};
use crate::detect::finding::{Finding, bidding_ref, pattern, point, supplier};
use crate::detect::relationship::bid_rigging::{MAX_WIN_SHARE, NAME};
use crate::detect::relationship::bid_screens::{Screen, Screens, screen};
use crate::model::anomaly::{Anomaly, AnomalyType, EntityRef};
use crate::model::bidding::Bidding;
use crate::model::dataset::Dataset;
use crate::model::params::DetectionParams;
use crate::text::{format_brl, format_pct};

/// Fewest screens that flag an auction.
pub const MIN_SCREENS: usize = 2;

/// Confidence of one flagged auction from its screens, before the sensitivity shift.
pub fn auction_confidence(screens: usize) -> f64 {
    (0.56 + 0.08 * screens.saturating_sub(MIN_SCREENS) as f64).min(0.88)
}

/// Confidence of a group of flagged auctions, before the sensitivity shift.
pub fn group_confidence(mean_auction: f64, auctions: usize, rotation: bool) -> f64 {
    let more = auctions.saturating_sub(1).min(3) as f64;
    (mean_auction + 0.08 * more + if rotation { 0.1 } else { 0.0 }).min(0.95)
}

/// A flagged auction.
struct Flagged<'a> {
    bidding: &'a Bidding,
    screens: Screens,
}

/// The screen findings of a dataset's biddings, in a deterministic order, leaving out the
/// biddings marked in `named` (already in a recurring-set finding).
pub fn findings(
    ds: &Dataset,
    p: &DetectionParams,
    cancel: &CancelFlag,
    named: &[bool],
) -> Result<Vec<Anomaly>, AnalysisError> {
    let mut screened = 0usize;
    let mut groups: BTreeMap<Vec<&str>, Vec<Flagged<'_>>> = BTreeMap::new();
    for (k, b) in ds.biddings.iter().enumerate() {
        if k % 8192 == 0 {
            cancel.check()?;
        }
        if named.get(k).copied().unwrap_or(false) {
            continue;
        }
        let Some(s) = screen(b) else { continue };
        screened += 1;
        if !s.flagged(MIN_SCREENS) {
            continue;
        }
        let mut set: Vec<&str> = b
            .participants
            .iter()
            .filter(|x| x.value.is_some_and(|v| v > 0.0))
            .map(|x| x.bidder.document.as_str())
            .filter(|d| !d.is_empty())
            .collect();
        set.sort_unstable();
        set.dedup();
        groups.entry(set).or_default().push(Flagged { bidding: b, screens: s });
    }
    let flagged: usize = groups.values().map(Vec::len).sum();
    let contamination = flagged as f64 / screened.max(1) as f64;
    let mut out = Vec::new();
    for (set, members) in &groups {
        cancel.check()?;
        let units: Vec<&[Flagged<'_>]> =
            if members.len() >= 2 { vec![members.as_slice()] } else { members.chunks(1).collect() };
        for unit in units {
            let wins = wins(unit);
            let rotation = rotates(&wins);
            let mean = unit.iter().map(|f| auction_confidence(f.screens.fired.len())).sum::<f64>() / unit.len() as f64;
            let raw = if unit.len() >= 2 { group_confidence(mean, unit.len(), rotation) } else { mean };
            let confidence = adjust_confidence(raw, p.sensitivity);
            if confidence >= p.confidence_threshold {
                out.push(anomaly(set, unit, &wins, rotation, confidence, contamination));
            }
        }
    }
    Ok(out)
}

/// Wins per member among the flagged auctions.
fn wins<'a>(unit: &'a [Flagged<'_>]) -> BTreeMap<&'a str, usize> {
    let mut wins = BTreeMap::new();
    for f in unit {
        *wins.entry(f.screens.winner.0.as_str()).or_insert(0) += 1;
    }
    wins
}

/// Whether the wins rotate: two or more winners, none above [`MAX_WIN_SHARE`] of the wins.
fn rotates(wins: &BTreeMap<&str, usize>) -> bool {
    let total: usize = wins.values().sum();
    let top = wins.values().copied().max().unwrap_or(0);
    wins.len() >= 2 && (top as f64) <= MAX_WIN_SHARE * total as f64
}

/// How many auctions each screen fired in, by screen.
fn screen_counts(unit: &[Flagged<'_>]) -> BTreeMap<Screen, usize> {
    let mut counts = BTreeMap::new();
    for f in unit {
        for s in &f.screens.fired {
            *counts.entry(*s).or_insert(0) += 1;
        }
    }
    counts
}

fn anomaly(
    set: &[&str],
    unit: &[Flagged<'_>],
    wins: &BTreeMap<&str, usize>,
    rotation: bool,
    confidence: f64,
    contamination: f64,
) -> Anomaly {
    let mut names: HashMap<&str, &str> = HashMap::new();
    for f in unit {
        for x in &f.bidding.participants {
            names.entry(x.bidder.document.as_str()).or_insert(x.bidder.name.as_str());
        }
    }
    let name = |d: &str| names.get(d).copied().filter(|n| !n.is_empty()).unwrap_or(d).to_string();
    let top = wins.iter().max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0))).map(|(d, _)| *d).unwrap_or(set[0]);
    let won: f64 = unit.iter().map(|f| f.screens.winner.1).sum();
    let counts = screen_counts(unit);
    let mut related: Vec<EntityRef> = set.iter().filter(|d| **d != top).map(|d| supplier(d, &name(d))).collect();
    related.extend(unit.iter().map(|f| bidding_ref(f.bidding)));
    let mut organs: Vec<EntityRef> =
        unit.iter().filter(|f| !f.bidding.organ.code.is_empty()).map(|f| organ_entity(&f.bidding.organ)).collect();
    organs.sort_by(|a, b| a.id.cmp(&b.id));
    organs.dedup_by(|a, b| a.id == b.id);
    related.extend(organs);
    let mut data_points = Vec::new();
    for f in unit {
        let day = f.bidding.opened_on.map(|d| d.format("%Y-%m-%d").to_string());
        data_points.push(point("winning_bid", f.screens.winner.1, day.clone()));
        if let Some(q) = f.screens.win_ratio {
            data_points.push(point("winning_bid_over_reference", q, day));
        }
    }
    let patterns: Vec<_> = counts
        .iter()
        .map(|(s, n)| {
            pattern(s.name(), format!("{} in {} of {} auctions", s.pt(), n, unit.len()), json!({"auctions": n}))
        })
        .chain(rotation.then(|| {
            pattern(
                "bid_rotation",
                format!("{} winners among {} bidders", wins.len(), set.len()),
                json!({"wins": wins}),
            )
        }))
        .collect();
    let seen: Vec<&str> = counts.keys().map(|s| s.pt()).collect();
    let auctions: Vec<_> = unit.iter().map(|f| auction_details(f)).collect();
    let mean_ratio = mean(unit.iter().filter_map(|f| f.screens.win_ratio));
    let (subject_pt, subject_en) = if unit.len() == 1 {
        (format!("Na licitação {}", unit[0].bidding.display_name()), "In one auction".to_string())
    } else {
        (
            format!("Em {} licitações disputadas pelas mesmas {} empresas", unit.len(), set.len()),
            format!("In {} auctions among the same {} firms", unit.len(), set.len()),
        )
    };
    let rotation_pt =
        if rotation { format!("; a vitória se revezou entre {} delas", wins.len()) } else { String::new() };
    let ratio_pt = mean_ratio
        .map(|q| {
            let side = if q > 1.0 { "acima do" } else { "em relação ao" };
            format!(
                " O lance vencedor ficou em média em {} do preço de referência ({side} valor estimado pelo órgão).",
                format_pct(q)
            )
        })
        .unwrap_or_default();
    let mut ranked: Vec<(&str, usize)> = wins.iter().map(|(d, n)| (*d, *n)).collect();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let winners_pt = if unit.len() == 1 {
        format!("vencida por {}", name(top))
    } else {
        let list: Vec<String> = ranked.iter().map(|(d, n)| format!("{} ({n})", name(d))).collect();
        format!("vencidas por {}", list.join(", "))
    };
    Finding {
        detector: NAME,
        kind: AnomalyType::RelationshipAnomaly,
        key: format!("screens-{}-{}", unit[0].bidding.id, unit.len()),
        confidence,
        at_stake: won,
        threshold: MIN_SCREENS as f64,
        description: format!(
            "{} ({}), os indicadores de conluio da literatura coincidem: {}{}",
            subject_pt,
            format_brl(won),
            seen.join("; "),
            rotation_pt
        ),
        human_pt: format!(
            "{} ({}, somando {} em lances vencedores), vários indicadores de conluio usados por autoridades de concorrência coincidem: {}{}.{} Cada indicador sozinho é fraco; juntos, justificam examinar as propostas e a relação entre as empresas.",
            subject_pt, winners_pt, format_brl(won), seen.join("; "), rotation_pt, ratio_pt
        ),
        human_en: format!(
            "{}, collusion screens used by competition authorities coincide ({}){}. Each screen alone is weak; together they justify examining the bids and how the firms are related.",
            subject_en,
            counts.keys().map(|s| s.name()).collect::<Vec<_>>().join(", "),
            if rotation { ", and the wins rotate among the firms" } else { "" }
        ),
        technical: format!(
            "bid screens (winning bid / reference >= 0.95; RD >= 1 with gap >= 5%; losers above reference; CV <= 3%; same-second lances Poisson p < 1e-3), one about prices: at least {} per auction; {} flagged auctions of this bidder set, screens fired {:?}; rotation = {} (max win share <= {}); {:.1}% of screened auctions flagged",
            MIN_SCREENS,
            unit.len(),
            counts.iter().map(|(s, n)| (s.name(), *n)).collect::<Vec<_>>(),
            rotation,
            MAX_WIN_SHARE,
            contamination * 100.0
        ),
        primary: supplier(top, &name(top)),
        related,
        data_points,
        patterns,
        method: "collusion_screens",
        score: unit.iter().map(|f| f.screens.fired.len()).sum::<usize>() as f64 / unit.len() as f64,
        contamination,
        peer: Some(json!({"group": "auctions with exactly this set of bidders flagged by two or more screens", "bidders": set, "auctions": unit.len()})),
        regulatory: Some(json!({"rule": "Lei 12.529/2011, art. 36, §3, I (cartel em licitação); Código Penal, art. 337-F (Lei 14.133/2021)", "note": "frustração do caráter competitivo; indicadores de triagem, não prova"})),
        factors: counts
            .iter()
            .map(|(s, n)| (s.name().to_string(), *n as f64 / unit.len() as f64, format!("{} in {} auctions", s.pt(), n)))
            .chain(std::iter::once(("rotation".to_string(), if rotation { 0.1 } else { 0.0 }, format!("{} winners", wins.len()))))
            .collect(),
        details: vec![
            ("rule", json!("bid_screens")),
            ("bidders", json!(set)),
            ("auctions", json!(auctions)),
            ("screens", json!(counts.iter().map(|(s, n)| (s.name(), *n)).collect::<BTreeMap<_, _>>())),
            ("rotation", json!(rotation)),
            ("wins", json!(wins)),
            ("mean_win_ratio", json!(mean_ratio.map(round4))),
            ("winning_total", json!(round2(won))),
            ("supplier", json!(top)),
        ],
    }
    .build()
}

/// The mean of some values, `None` when there are none.
fn mean(values: impl Iterator<Item = f64>) -> Option<f64> {
    let (n, sum) = values.fold((0usize, 0.0), |(n, s), v| (n + 1, s + v));
    (n > 0).then(|| sum / n as f64)
}

/// One auction's measurements, for the evidence.
fn auction_details(f: &Flagged<'_>) -> serde_json::Value {
    let s = &f.screens;
    json!({
        "bidding": f.bidding.id,
        "winner": s.winner.0,
        "winning_bid": round2(s.winner.1),
        "reference_price": f.bidding.reference_price.map(round2),
        "win_ratio": s.win_ratio.map(round4),
        "bidders": s.bidders,
        "lances": s.lances,
        "cv": s.cv.map(round4),
        "skew": s.skew.map(round4),
        "diffp": s.diffp.map(round4),
        "rd": s.rd.map(round4),
        "winner_cut": s.winner_cut.map(round4),
        "lockstep": s.lockstep.as_ref().map(|l| json!({"pair": [l.pair.0, l.pair.1], "same_seconds": l.together, "expected": round4(l.expected), "p_value": l.p_value})),
        "screens": s.fired.iter().map(|x| x.name()).collect::<Vec<_>>(),
    })
}
