//! The peer baselines `price_zscore` compares a contract with: its peer group on the log scale
//! (median and MAD, plus the mean and standard deviation of the spec's literal rule; at least
//! 30 contracts of the same object category and modality, else of the category, else all
//! contracts; an object of unknown category ("outros": generic or unrecognised text) has no
//! peers and only the global baseline). The supplier baselines built on them are in
//! [`super::price_baselines`]. Linear in the number of contracts.

use std::collections::HashMap;

use super::category::Category;
use super::common::FxBuild;
use super::shared::bucket;
use super::stats::median_in_place;
use crate::agent::{AnalysisError, CancelFlag};
use crate::model::dataset::Dataset;

/// Smallest group used as a peer or category baseline (a smaller group's spread is too
/// uncertain for a robust z-score; it falls back to the next coarser baseline).
pub const MIN_GROUP: usize = 30;
/// Smallest dataset judged against the global baseline.
pub const MIN_GLOBAL: usize = 8;
/// Floor of every log-scale spread (10%): identical prices must not make any difference huge.
pub const MIN_SIGMA: f64 = 0.1;
/// MAD to standard deviation under normality.
pub(super) const MAD_SCALE: f64 = 1.4826;

/// How coarse a contract's peer baseline is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// Same object category and modality.
    PeerGroup,
    /// Same object category (the peer group was too small).
    Category,
    /// Every contract (the category was too small).
    Global,
}

impl Level {
    /// Stable name for the evidence.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::PeerGroup => "peer_group",
            Level::Category => "category",
            Level::Global => "global",
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
}

/// Every contract's peer baseline.
pub struct PeerGroups {
    /// Peer baselines: the peer groups (category x modality), then the categories, then the
    /// global group.
    pub groups: Vec<Group>,
    /// Per contract: its baseline in `groups`, `u32::MAX` when it is not judged.
    pub group_of: Vec<u32>,
    /// Per contract: ln(value), NaN when the value is not positive.
    pub logs: Vec<f64>,
    /// How many peer groups there are (the categories' baselines follow them).
    pub n_peer: usize,
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

/// Builds every peer baseline of a dataset.
pub fn peer_groups(ds: &Dataset, cats: &[Category], cancel: &CancelFlag) -> Result<PeerGroups, AnalysisError> {
    let cs = &ds.contracts;
    let n = cs.len();
    let mut logs = Vec::with_capacity(n);
    for (i, c) in cs.iter().enumerate() {
        if i % 8192 == 0 {
            cancel.check()?;
        }
        let v = price_of(c);
        logs.push(if v > 0.0 && v.is_finite() { v.ln() } else { f64::NAN });
    }
    let (mods, mod_names) = intern(cs.iter().map(|c| c.modality.as_str()));
    let n_cat = Category::ALL.len();
    let n_peer = n_cat * mod_names.len();
    let peer_key = |i: usize| (cats[i].index() * mod_names.len() + mods[i] as usize) as u32;
    let mut peer_count = vec![0usize; n_peer];
    let mut cat_count = vec![0usize; n_cat];
    let mut valid = 0usize;
    for i in (0..n).filter(|&i| logs[i].is_finite()) {
        peer_count[peer_key(i) as usize] += 1;
        cat_count[cats[i].index()] += 1;
        valid += 1;
    }
    // Group ids: peer groups, then categories, then the global group.
    let global = (n_peer + n_cat) as u32;
    let group_of: Vec<u32> = (0..n)
        .map(|i| {
            if !logs[i].is_finite() {
                u32::MAX
            } else if cats[i] != Category::Outros && peer_count[peer_key(i) as usize] >= MIN_GROUP {
                peer_key(i)
            } else if cats[i] != Category::Outros && cat_count[cats[i].index()] >= MIN_GROUP {
                (n_peer + cats[i].index()) as u32
            } else if valid >= MIN_GLOBAL {
                global
            } else {
                u32::MAX
            }
        })
        .collect();
    cancel.check()?;
    // Every baseline's statistics are over all its members, not only the contracts that
    // end up judged against it.
    let peer_keys: Vec<u32> = (0..n).map(|i| if logs[i].is_finite() { peer_key(i) } else { u32::MAX }).collect();
    let cat_keys: Vec<u32> =
        (0..n).map(|i| if logs[i].is_finite() { cats[i].index() as u32 } else { u32::MAX }).collect();
    let all_keys: Vec<u32> = (0..n).map(|i| if logs[i].is_finite() { 0 } else { u32::MAX }).collect();
    let (peer_order, peer_start) = bucket(&peer_keys, n_peer);
    let (cat_order, cat_start) = bucket(&cat_keys, n_cat);
    let (all_order, _) = bucket(&all_keys, 1);
    let mut groups = Vec::with_capacity(n_peer + n_cat + 1);
    let mut scratch = Vec::new();
    for g in 0..=n_peer + n_cat {
        let (label, level, idx) = if g < n_peer {
            let c = Category::ALL[g / mod_names.len()];
            let idx = &peer_order[peer_start[g] as usize..peer_start[g + 1] as usize];
            (format!("{} / {}", c.label(), mod_names[g % mod_names.len()]), Level::PeerGroup, idx)
        } else if g < n_peer + n_cat {
            let k = g - n_peer;
            let idx = &cat_order[cat_start[k] as usize..cat_start[k + 1] as usize];
            (Category::ALL[k].label().to_string(), Level::Category, idx)
        } else {
            ("todos os contratos".to_string(), Level::Global, &all_order[..])
        };
        let judged = idx.iter().any(|&i| group_of[i as usize] == g as u32);
        groups.push(if judged || level == Level::Category {
            group_stats(label, level, idx, &logs, &mut scratch)
        } else {
            group_stats(label, level, &[], &logs, &mut scratch)
        });
    }
    cancel.check()?;
    Ok(PeerGroups { groups, group_of, logs, n_peer })
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
    Group { label, level, size, median_log, sigma, mean_log, std_log, median_value: median_log.exp() }
}
