//! `bid_rigging`: the same small group of bidders meeting again and again, the winner rotating
//! among them (bid rotation) and the losers consistently above the winner (cover bidding).
//!
//! Biddings are grouped by market (the object category) and exact set of participants (2 to 6
//! bidders with documents). A set is flagged when it recurs in at least `R` biddings, far more
//! often than independent bidders would meet (Poisson test against
//! `N_k * k! * prod(c_i / C)`: `N_k` biddings of that size in the market, `c_i` biddings of
//! each member, `C` bidder slots; popular suppliers meet often by chance), and shows rotation
//! (two or more distinct winners, none winning more than 75%) or cover bidding (every loser
//! above the winner, the runner-up at least 5% above it every time).
//!
//! Sensitivity `s`: `R` is 5 below 0.5, 4 from 0.5, 3 from 0.9 and 2 at 1.0, and the largest
//! p-value 1e-9, 1e-6, 1e-4 and 1e-2 at the same steps, so raising `s` only adds sets. Confidence: `0.6 + 0.08 * min(R' - 2, 3)` for `R'` recurrences, `+ 0.1`
//! with rotation, `+ 0.06` with cover bidding, at most 0.97, then shifted with the sensitivity.
//!
//! Items of one pregão share their bidders by construction, so a set counts once per purchase
//! process (`process_number`, when published). Auctions outside any recurring set are judged by
//! the collusion screens of [`crate::detect::relationship::bid_auctions`].
//!
//! Complexity: O(B k log k) for B biddings of k bidders (sorting each set), hash maps.

use std::collections::{BTreeMap, HashMap};

use serde_json::json;

use crate::cancel::{AnalysisError, CancelFlag};
use crate::detect::Detector;
use crate::detect::category::Category;
use crate::detect::common::{FxBuild, adjust_confidence, round2, round4};
use crate::detect::finding::{Finding, bidding_ref, pattern, point, supplier};
pub use crate::detect::relationship::bid_markets::poisson_upper;
use crate::detect::relationship::bid_markets::{Market, MarketCache};
use crate::detect::shared::Shared;
use crate::model::anomaly::{Anomaly, AnomalyType, EntityRef};
use crate::model::bidding::Bidding;
use crate::model::intern::ArcStr;
use crate::model::params::DetectionParams;
use crate::text::{format_brl, format_pct};

/// Detector name.
pub const NAME: &str = "bid_rigging";
/// Largest group of bidders judged.
pub const MAX_GROUP: usize = 6;
/// Highest share of wins one member may have for the group to count as rotating.
pub const MAX_WIN_SHARE: f64 = 0.75;
/// Smallest runner-up gap over the winner, in every bidding, for cover bidding.
pub const COVER_GAP: f64 = 0.05;

/// The bid rigging detector.
#[derive(Debug, Clone, Copy, Default)]
pub struct BidRigging;

/// Fewest recurrences of a set at this sensitivity.
pub fn min_recurrences(s: f64) -> usize {
    if s >= 1.0 {
        2
    } else if s >= 0.9 {
        3
    } else if s >= 0.5 {
        4
    } else {
        5
    }
}

/// What one recurring set shows.
#[derive(Debug, Clone, PartialEq)]
pub struct SetStats {
    /// Biddings of the set.
    pub recurrences: usize,
    /// Wins per member.
    pub wins: BTreeMap<ArcStr, usize>,
    /// Runner-up gaps over the winner, per bidding with values.
    pub gaps: Vec<f64>,
    /// Whether every loser bid above the winner in every bidding with values.
    pub losers_above: bool,
}

impl SetStats {
    /// Whether the winner rotates.
    pub fn rotation(&self) -> bool {
        let total: usize = self.wins.values().sum();
        let top = self.wins.values().copied().max().unwrap_or(0);
        self.wins.len() >= 2 && total > 0 && (top as f64) <= MAX_WIN_SHARE * total as f64
    }
    /// Whether the losers cover the winner consistently.
    pub fn cover(&self) -> bool {
        self.losers_above && !self.gaps.is_empty() && self.gaps.iter().all(|g| *g >= COVER_GAP)
    }
    /// Confidence before the sensitivity shift.
    pub fn confidence(&self) -> f64 {
        let r = (self.recurrences as f64 - 2.0).clamp(0.0, 3.0);
        let c = 0.6 + 0.08 * r + if self.rotation() { 0.1 } else { 0.0 } + if self.cover() { 0.06 } else { 0.0 };
        c.min(0.97)
    }
}

/// Statistics of the biddings of one set.
pub fn stats(biddings: &[&Bidding]) -> SetStats {
    let mut wins = BTreeMap::new();
    let mut gaps = Vec::new();
    let mut losers_above = true;
    for b in biddings {
        let Some(w) = b.winner() else { continue };
        *wins.entry(w.bidder.document.clone()).or_insert(0) += 1;
        let Some(wv) = w.value.filter(|v| *v > 0.0) else { continue };
        let losers: Vec<f64> = b.participants.iter().filter(|p| !p.winner).filter_map(|p| p.value).collect();
        if losers.iter().any(|v| *v <= wv) {
            losers_above = false;
        }
        if let Some(min) = losers.iter().copied().reduce(f64::min) {
            gaps.push(min / wv - 1.0);
        }
    }
    SetStats { recurrences: biddings.len(), wins, gaps, losers_above }
}

impl Detector for BidRigging {
    fn name(&self) -> &'static str {
        NAME
    }
    fn kind(&self) -> AnomalyType {
        AnomalyType::RelationshipAnomaly
    }
    fn run_shared(
        &self,
        sh: &Shared<'_>,
        p: &DetectionParams,
        cancel: &CancelFlag,
    ) -> Result<Vec<Anomaly>, AnalysisError> {
        let ds = sh.dataset();
        type SetKey<'a> = (Category, Vec<&'a str>);
        let mut sets: HashMap<SetKey<'_>, Vec<usize>, FxBuild> =
            HashMap::with_capacity_and_hasher(ds.biddings.len(), FxBuild::default());
        let mut market = Market::default();
        market.bidders.reserve(ds.suppliers.len().max(1024) * 4);
        let mut markets = MarketCache::default();
        for (k, b) in ds.biddings.iter().enumerate() {
            if k % 8192 == 0 {
                cancel.check()?;
            }
            let mut docs: Vec<&str> =
                b.participants.iter().map(|x| x.bidder.document.as_str()).filter(|d| !d.is_empty()).collect();
            if docs.is_empty() {
                continue;
            }
            docs.sort_unstable();
            docs.dedup();
            let cat = markets.of(&b.object);
            market.add(cat, &docs);
            if docs.len() < 2 || docs.len() > MAX_GROUP || docs.len() != b.participants.len() {
                continue;
            }
            sets.entry((cat, docs)).or_default().push(k);
        }
        let need = min_recurrences(p.sensitivity);
        let alpha = max_p_value(p.sensitivity);
        for members in sets.values_mut() {
            once_per_process(members, &ds.biddings);
        }
        let mut keys: Vec<&SetKey<'_>> = sets.iter().filter(|(_, v)| v.len() >= need).map(|(k, _)| k).collect();
        keys.sort_unstable();
        let judged = sets.values().filter(|v| v.len() >= 2).count().max(1);
        let mut found = Vec::new();
        let mut named = vec![false; ds.biddings.len()];
        for key in keys {
            cancel.check()?;
            let members: Vec<&Bidding> = sets[key].iter().map(|&k| &ds.biddings[k]).collect();
            let expected = market.expected(key.0, &key.1);
            let p_value = poisson_upper(members.len(), expected);
            let st = stats(&members);
            if p_value >= alpha || !(st.rotation() || st.cover()) {
                continue;
            }
            let confidence = adjust_confidence(st.confidence(), p.sensitivity);
            if confidence >= p.confidence_threshold {
                sets[key].iter().for_each(|&k| named[k] = true);
                found.push((&key.1, members, st, confidence, expected, p_value));
            }
        }
        let contamination = found.len() as f64 / judged as f64;
        let mut out: Vec<Anomaly> = found
            .into_iter()
            .map(|(key, members, st, c, e, pv)| anomaly(key, &members, &st, c, (need, e, pv), contamination))
            .collect();
        out.extend(crate::detect::relationship::bid_auctions::findings(ds, p, cancel, &named)?);
        Ok(out)
    }
}

/// Keeps the first bidding of each purchase process among a set's biddings (in place, order
/// kept); biddings without a process number all count.
fn once_per_process(members: &mut Vec<usize>, biddings: &[Bidding]) {
    if members.len() < 2 {
        return;
    }
    let mut seen: std::collections::HashSet<&str, FxBuild> = std::collections::HashSet::default();
    members.retain(|&k| {
        let process = biddings[k].process_number.as_str();
        process.is_empty() || seen.insert(process)
    });
}

/// Largest p-value of the recurrence test reported at this sensitivity.
pub fn max_p_value(s: f64) -> f64 {
    if s >= 1.0 {
        1e-2
    } else if s >= 0.9 {
        1e-4
    } else if s >= 0.5 {
        1e-6
    } else {
        1e-9
    }
}

fn anomaly(
    key: &[&str],
    biddings: &[&Bidding],
    st: &SetStats,
    confidence: f64,
    (need, expected, p_value): (usize, f64, f64),
    contamination: f64,
) -> Anomaly {
    let mut names: BTreeMap<&str, &str> = BTreeMap::new();
    for b in biddings {
        for x in &b.participants {
            names.entry(x.bidder.document.as_str()).or_insert(x.bidder.name.as_str());
        }
    }
    let top = st.wins.iter().max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0))).map(|(d, _)| d.as_str()).unwrap_or(key[0]);
    let won: f64 = biddings.iter().filter_map(|b| b.winner().and_then(|w| w.value)).sum();
    let mean_gap = if st.gaps.is_empty() { 0.0 } else { st.gaps.iter().sum::<f64>() / st.gaps.len() as f64 };
    let mut related: Vec<EntityRef> =
        key.iter().filter(|d| **d != top).map(|d| supplier(d, names.get(d).copied().unwrap_or(""))).collect();
    related.extend(biddings.iter().map(|b| bidding_ref(b)));
    let mut organs: Vec<(&str, &str)> = biddings
        .iter()
        .filter(|b| !b.organ.code.is_empty())
        .map(|b| (b.organ.code.as_str(), b.organ.name.as_str()))
        .collect();
    organs.sort_unstable();
    organs.dedup();
    related.extend(organs.iter().map(|(c, n)| EntityRef::new("organ", *c, *n)));
    let list: Vec<&str> = key.iter().map(|d| names.get(d).copied().unwrap_or(d)).collect();
    let wins: Vec<String> =
        st.wins.iter().map(|(d, w)| format!("{} {}", names.get(d.as_str()).copied().unwrap_or(d), w)).collect();
    let mut data_points: Vec<_> = biddings
        .iter()
        .filter_map(|b| {
            b.winner()
                .and_then(|w| w.value)
                .map(|v| point("winning_bid", v, b.opened_on.map(|d| d.format("%Y-%m-%d").to_string())))
        })
        .collect();
    data_points.extend(st.gaps.iter().map(|g| point("runner_up_gap", *g, None)));
    let patterns = [
        st.rotation().then(|| {
            pattern(
                "bid_rotation",
                format!("{} distinct winners among {} bidders", st.wins.len(), key.len()),
                json!({"wins": st.wins}),
            )
        }),
        st.cover().then(|| {
            pattern(
                "cover_bidding",
                format!("losers always {} or more above the winner", format_pct(COVER_GAP)),
                json!({"mean_gap": round4(mean_gap)}),
            )
        }),
    ];
    let pt = format!(
        "As mesmas {} empresas ({}) disputaram juntas, e só entre si, {} licitações; a vitória se revezou entre elas ({}) e os perdedores ficaram em média {} acima do vencedor. É o padrão de rodízio e propostas de cobertura de um cartel.",
        key.len(),
        list.join("; "),
        biddings.len(),
        wins.join(", "),
        format_pct(mean_gap)
    );
    let en = format!(
        "The same {} companies bid together, and only together, in {} biddings; the win rotated among them and losers stayed on average {:.1}% above the winner: the bid rotation and cover bidding pattern of a cartel.",
        key.len(),
        biddings.len(),
        mean_gap * 100.0
    );
    Finding {
        detector: NAME,
        kind: AnomalyType::RelationshipAnomaly,
        key: key.join("-"),
        confidence,
        at_stake: won,
        threshold: need as f64,
        description: format!("{} empresas disputaram juntas {} licitações que somam {} em propostas vencedoras, revezando a vitória", key.len(), biddings.len(), format_brl(won)),
        human_pt: pt,
        human_en: en,
        technical: format!(
            "exact bidder set of {} recurs in {} biddings (>= {}) against {:.3e} expected from each bidder's participation in the market (Poisson p = {:.2e}); rotation = {} (max win share <= {}), cover = {} (all losers above winner, runner-up gap >= {} in every bidding, mean {:.3})",
            key.len(), biddings.len(), need, expected, p_value, st.rotation(), MAX_WIN_SHARE, st.cover(), COVER_GAP, mean_gap
        ),
        primary: supplier(top, names.get(top).copied().unwrap_or("")),
        related,
        data_points,
        patterns: patterns.into_iter().flatten().collect(),
        method: "recurring_bidder_set_poisson",
        score: biddings.len() as f64,
        contamination,
        peer: Some(json!({"group": "biddings with exactly this set of bidders", "bidders": key, "recurrences": biddings.len(), "baseline_min_recurrences": need})),
        regulatory: Some(json!({"rule": "Lei 12.529/2011, art. 36, §3, I (cartel em licitação); Lei 14.133/2021, art. 337-F do Código Penal", "note": "frustração do caráter competitivo"})),
        factors: vec![
            ("recurrences".into(), 0.5, format!("the same set met in {} biddings", biddings.len())),
            ("rotation".into(), if st.rotation() { 0.3 } else { 0.0 }, format!("wins: {}", wins.join(", "))),
            ("cover".into(), if st.cover() { 0.2 } else { 0.0 }, format!("mean runner-up gap {:.1}%", mean_gap * 100.0)),
        ],
        details: vec![
            ("bidders", json!(key)),
            ("recurrences", json!(biddings.len())),
            ("expected_recurrences", json!(expected)),
            ("p_value", json!(p_value)),
            ("rotation", json!(st.rotation())),
            ("cover_bidding", json!(st.cover())),
            ("mean_gap", json!(round4(mean_gap))),
            ("winning_total", json!(round2(won))),
            ("organ", json!(organs.first().map(|o| o.0).unwrap_or(""))),
            ("supplier", json!(top)),
        ],
    }
    .build()
}

#[cfg(test)]
#[path = "bid_rigging_tests.rs"]
mod tests;
