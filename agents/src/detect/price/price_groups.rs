//! The peer baselines `price_zscore` compares a contract's total with: its learned peer group
//! ([`crate::detect::peer_groups`]: contracts whose object texts say they buy the same thing) and
//! purchase modality, else its peer group alone, each only when it holds at least
//! [`MIN_GROUP`] contracts *and* its totals are homogeneous (1.4826 MAD of ln(value) at most
//! [`MAX_SIGMA`]: a group whose values span orders of magnitude with no central mass has no
//! sound median to compare with, so it gives no finding). There is no global fallback: a
//! contract unlike enough others, or with a secret or boilerplate object, is not judged. The
//! keyword lexicon of [`crate::detect::category`] only names a group. Statistics on the log scale
//! (median and MAD, plus the mean and standard deviation of the spec's literal rule). The
//! supplier baselines built on them are in [`crate::detect::price::price_baselines`]. Linear in the contracts.

use std::collections::HashMap;

use crate::cancel::{AnalysisError, CancelFlag};
use crate::detect::category::Category;
use crate::detect::common::FxBuild;
use crate::detect::peer_groups::{NO_GROUP, ObjectGroups};
use crate::detect::shared::bucket;
use crate::detect::stats::median_in_place;
use crate::model::dataset::Dataset;

/// Smallest group used as a baseline (a smaller group's spread is too uncertain for a robust
/// z-score).
pub const MIN_GROUP: usize = 30;
/// Largest spread (1.4826 MAD of ln(value)) of a group whose prices are compared: beyond it
/// the middle half of the group spans more than a factor of about 2.7 (the interquartile range
/// is 1.349 sigma) and the group prices different things, or different amounts or units of one
/// thing, under one text.
pub const MAX_SIGMA: f64 = 0.75;
/// Floor of every log-scale spread (10%): identical prices must not make any difference huge.
pub const MIN_SIGMA: f64 = 0.1;
/// MAD to standard deviation under normality.
pub(super) const MAD_SCALE: f64 = 1.4826;

/// How coarse a contract's peer baseline is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// Same learned object group and modality.
    GroupModality,
    /// Same learned object group, any modality (too few of the same modality).
    Group,
}

impl Level {
    /// Stable name for the evidence.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::GroupModality => "peer_group",
            Level::Group => "object_group",
        }
    }
}

/// Statistics of one peer baseline.
#[derive(Debug, Clone)]
pub struct Group {
    /// Human label ("medicamentos / Pregão").
    pub label: String,
    /// Its level.
    pub level: Level,
    /// Members.
    pub size: usize,
    /// Median of ln(value).
    pub median_log: f64,
    /// 1.4826 MAD of ln(value), at least [`MIN_SIGMA`].
    pub sigma: f64,
    /// Mean of ln(value) (the literal rule).
    pub mean_log: f64,
    /// Sample standard deviation of ln(value) (the literal rule); 0 when degenerate.
    pub std_log: f64,
    /// Median value in R$.
    pub median_value: f64,
    /// The learned group's defining terms.
    pub terms: Vec<String>,
    /// Mean cosine similarity of the learned group's members to its leader.
    pub coherence: f64,
    /// Median vigência in days of the members that give one (NaN when none does).
    pub median_days: f64,
    /// Least-squares slope of ln(value) on ln(vigência) over those members (0 when fewer than
    /// ten give one or their vigências do not vary): near 1 when totals grow with the term.
    pub term_slope: f64,
}

impl Group {
    /// Whether the group's values have a central mass to compare with ([`MAX_SIGMA`]).
    pub fn homogeneous(&self) -> bool {
        self.size >= MIN_GROUP && self.sigma <= MAX_SIGMA
    }
}

/// Every contract's peer baseline.
pub struct PeerGroups {
    /// Peer baselines: (learned group, modality) or learned group.
    pub groups: Vec<Group>,
    /// Per contract: its baseline in `groups`, `u32::MAX` when it is not judged.
    pub group_of: Vec<u32>,
    /// Per contract: ln(value), NaN when the value is not positive.
    pub logs: Vec<f64>,
}

/// The price a contract is judged on: `valorInicialCompra`, the price agreed at signing
/// (amendments are `compliance_rules`' business), or `valorFinalCompra` when the initial one
/// is missing.
pub fn price_of(c: &crate::model::contract::Contract) -> f64 {
    if c.initial_value > 0.0 { c.initial_value } else { c.final_value }
}

/// Median and 1.4826 MAD (floored) of a scratch slice, which is reordered.
pub(super) fn robust(scratch: &mut [f64]) -> (f64, f64) {
    let m = median_in_place(scratch);
    for x in scratch.iter_mut() {
        *x = (*x - m).abs();
    }
    (m, (MAD_SCALE * median_in_place(scratch)).max(MIN_SIGMA))
}

/// Least-squares slope of y on x; 0 with fewer than ten points or no spread in x.
fn slope(points: &[(f64, f64)]) -> f64 {
    if points.len() < 10 {
        return 0.0;
    }
    let n = points.len() as f64;
    let (mx, my) = (points.iter().map(|p| p.0).sum::<f64>() / n, points.iter().map(|p| p.1).sum::<f64>() / n);
    let sxx: f64 = points.iter().map(|p| (p.0 - mx) * (p.0 - mx)).sum();
    let sxy: f64 = points.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    if sxx > 1e-9 { sxy / sxx } else { 0.0 }
}

/// A contract's vigência in days, when it gives a positive one.
pub fn days_of(c: &crate::model::contract::Contract) -> Option<f64> {
    let days = (c.valid_until? - c.valid_from?).num_days();
    (days > 0).then_some(days as f64)
}

/// Dense ids for string keys, in order of first appearance.
fn intern<'a>(keys: impl Iterator<Item = &'a str>) -> (Vec<u32>, Vec<&'a str>) {
    let mut ids: HashMap<&str, u32, FxBuild> = HashMap::default();
    let mut names = Vec::new();
    let out = keys
        .map(|k| {
            *ids.entry(k).or_insert_with(|| {
                names.push(k);
                (names.len() - 1) as u32
            })
        })
        .collect();
    (out, names)
}

/// Builds every peer baseline of a dataset from its learned object groups; `cats` only names
/// the groups.
pub fn peer_groups(
    ds: &Dataset,
    objects: &ObjectGroups,
    cats: &[Category],
    cancel: &CancelFlag,
) -> Result<PeerGroups, AnalysisError> {
    let cs = &ds.contracts;
    let n = cs.len();
    let mut logs = Vec::with_capacity(n);
    // Each contract's log term in days (NaN without one), read in this one pass over the
    // contracts rather than once per baseline the contract belongs to.
    let mut log_days = Vec::with_capacity(n);
    for (i, c) in cs.iter().enumerate() {
        if i % 8192 == 0 {
            cancel.check()?;
        }
        let v = price_of(c);
        logs.push(if v > 0.0 && v.is_finite() { v.ln() } else { f64::NAN });
        log_days.push(days_of(c).map_or(f64::NAN, f64::ln));
    }
    let (mods, mod_names) = intern(cs.iter().map(|c| c.modality.as_str()));
    let valid = |i: usize| logs[i].is_finite() && objects.group_of[i] != NO_GROUP;
    // Candidate baselines: (object group, modality), then the object group alone.
    let mut pair_count: HashMap<(u32, u32), usize, FxBuild> = HashMap::default();
    let mut group_count = vec![0usize; objects.groups.len()];
    for i in (0..n).filter(|&i| valid(i)) {
        *pair_count.entry((objects.group_of[i], mods[i])).or_default() += 1;
        group_count[objects.group_of[i] as usize] += 1;
    }
    let mut ids: HashMap<(u32, u32), u32, FxBuild> = HashMap::default();
    let mut keys: Vec<(u32, u32)> = Vec::new();
    let group_key = u32::MAX;
    let candidate: Vec<u32> = (0..n)
        .map(|i| {
            if !valid(i) {
                return u32::MAX;
            }
            let g = objects.group_of[i];
            let key = if pair_count[&(g, mods[i])] >= MIN_GROUP {
                (g, mods[i])
            } else if group_count[g as usize] >= MIN_GROUP {
                (g, group_key)
            } else {
                return u32::MAX;
            };
            let next = keys.len() as u32;
            *ids.entry(key).or_insert_with(|| {
                keys.push(key);
                next
            })
        })
        .collect();
    cancel.check()?;
    // A baseline's statistics are over every contract of its key, not only those judged by it:
    // a group-level baseline holds the group's contracts of every modality.
    let object_key: Vec<u32> = (0..n).map(|i| if valid(i) { objects.group_of[i] } else { u32::MAX }).collect();
    let (order, start) = bucket(&object_key, objects.groups.len());
    let mut groups = Vec::with_capacity(keys.len());
    let mut scratch = Vec::new();
    let mut idx: Vec<u32> = Vec::new();
    for &(g, m) in &keys {
        idx.clear();
        let members = &order[start[g as usize] as usize..start[g as usize + 1] as usize];
        idx.extend(members.iter().filter(|&&i| m == group_key || mods[i as usize] == m));
        let og = &objects.groups[g as usize];
        let name = group_name(og, &idx, cats);
        let (label, level) = if m == group_key {
            (name, Level::Group)
        } else {
            (format!("{name} / {}", mod_names[m as usize]), Level::GroupModality)
        };
        let mut stats = group_stats(label, level, &idx, &logs, &mut scratch);
        stats.terms = og.terms.clone();
        stats.coherence = og.coherence;
        let pairs: Vec<(f64, f64)> =
            idx.iter().map(|&i| (log_days[i as usize], logs[i as usize])).filter(|(d, _)| !d.is_nan()).collect();
        stats.term_slope = slope(&pairs);
        scratch.clear();
        scratch.extend(pairs.iter().map(|p| p.0.exp()));
        if !scratch.is_empty() {
            stats.median_days = median_in_place(&mut scratch);
        }
        groups.push(stats);
    }
    // Only homogeneous baselines judge.
    let group_of: Vec<u32> = candidate
        .iter()
        .map(|&k| if k != u32::MAX && groups[k as usize].homogeneous() { k } else { u32::MAX })
        .collect();
    cancel.check()?;
    Ok(PeerGroups { groups, group_of, logs })
}

/// A group's name: its defining terms, and the lexicon's category when most members have it.
fn group_name(og: &crate::detect::peer_groups::ObjectGroup, idx: &[u32], cats: &[Category]) -> String {
    let terms = og.terms.join(", ");
    let mut counts = [0usize; Category::ALL.len()];
    for &i in idx {
        counts[cats[i as usize].index()] += 1;
    }
    let (best, count) = counts.iter().enumerate().max_by_key(|&(k, c)| (*c, std::cmp::Reverse(k))).unwrap_or((0, &0));
    let cat = Category::ALL[best];
    if cat != Category::Outros && *count * 5 >= idx.len() * 3 {
        format!("{} ({terms})", cat.label())
    } else {
        format!("objetos com \"{terms}\"")
    }
}

fn group_stats(label: String, level: Level, idx: &[u32], logs: &[f64], scratch: &mut Vec<f64>) -> Group {
    let size = idx.len();
    if size == 0 {
        return Group {
            label,
            level,
            size,
            median_log: f64::NAN,
            sigma: MIN_SIGMA,
            mean_log: f64::NAN,
            std_log: 0.0,
            median_value: f64::NAN,
            terms: Vec::new(),
            coherence: 0.0,
            median_days: f64::NAN,
            term_slope: 0.0,
        };
    }
    scratch.clear();
    scratch.extend(idx.iter().map(|&i| logs[i as usize]));
    let mean_log = scratch.iter().sum::<f64>() / size as f64;
    let var = if size > 1 {
        scratch.iter().map(|x| (x - mean_log) * (x - mean_log)).sum::<f64>() / (size - 1) as f64
    } else {
        0.0
    };
    let std_log = if var.sqrt() > 1e-9 { var.sqrt() } else { 0.0 };
    let (median_log, sigma) = robust(scratch);
    Group {
        label,
        level,
        size,
        median_log,
        sigma,
        mean_log,
        std_log,
        median_value: median_log.exp(),
        terms: Vec::new(),
        coherence: 0.0,
        median_days: f64::NAN,
        term_slope: 0.0,
    }
}
