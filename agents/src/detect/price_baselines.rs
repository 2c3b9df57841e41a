//! The baselines `price_zscore` compares a contract with: its peer group on the log scale
//! (median and MAD, plus the mean and standard deviation of the spec's literal rule; at least
//! 30 contracts of the same object category and modality, else of the category, else all
//! contracts; an object of unknown category ("outros": generic or unrecognised text) has no
//! peers and only the global baseline), its
//! supplier's own prices relative to their peers, and, for suppliers with too few contracts,
//! the prices of a cluster of suppliers that price alike (k-means over supplier median and
//! spread, as Serenata de Amor's Rosie does). Everything here is linear in the number of
//! contracts, plus k-means over the suppliers.

use std::collections::HashMap;

use super::category::Category;
use super::common::FxBuild;
use super::learn::Centroids;
use super::shared::{NONE, bucket};
use super::stats::median_in_place;
use crate::agent::{AnalysisError, CancelFlag};
use crate::model::dataset::Dataset;

/// Smallest group used as a peer or category baseline (a smaller group's spread is too
/// uncertain for a robust z-score; it falls back to the next coarser baseline).
pub const MIN_GROUP: usize = 30;
/// Smallest dataset judged against the global baseline.
pub const MIN_GLOBAL: usize = 8;
/// Fewest contracts of a supplier in a category for its own baseline.
pub const MIN_SUPPLIER: usize = 5;
/// Floor of every log-scale spread (10%): identical prices must not make any difference huge.
pub const MIN_SIGMA: f64 = 0.1;
/// Weight, in contracts, of the peer spread when shrinking a supplier's spread towards it.
const SHRINK: f64 = 5.0;
/// MAD to standard deviation under normality.
const MAD_SCALE: f64 = 1.4826;

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

/// The second baseline a contract is judged against: where its supplier usually prices.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Entity {
    /// The supplier's own contracts in the category (at least [`MIN_SUPPLIER`]).
    Supplier {
        /// Contracts behind it.
        size: usize,
        /// Median of ln(value / peer median).
        median_ratio: f64,
        /// Spread, shrunk towards the peer spread.
        sigma: f64,
    },
    /// The cluster of suppliers the supplier's other contracts price like.
    Cluster {
        /// Cluster index.
        cluster: usize,
        /// Contracts behind it.
        size: usize,
        /// Median of ln(value / peer median) in the cluster.
        median_ratio: f64,
        /// Its spread.
        sigma: f64,
    },
    /// No supplier history: the peer group alone.
    PeerOnly,
}

impl Entity {
    /// Stable name for the evidence.
    pub fn as_str(&self) -> &'static str {
        match self {
            Entity::Supplier { .. } => "supplier",
            Entity::Cluster { .. } => "supplier_cluster",
            Entity::PeerOnly => "none",
        }
    }
    /// The entity z-score of a log ratio; `peer_z` when there is no entity baseline.
    pub fn z(&self, ratio: f64, peer_z: f64) -> f64 {
        match *self {
            Entity::Supplier { median_ratio, sigma, .. } | Entity::Cluster { median_ratio, sigma, .. } => {
                (ratio - median_ratio) / sigma
            }
            Entity::PeerOnly => peer_z,
        }
    }
}

/// Every contract's place in the baselines.
pub struct Baselines {
    /// Peer baselines.
    pub groups: Vec<Group>,
    /// Per contract: its baseline in `groups`, `u32::MAX` when it is not judged.
    pub group_of: Vec<u32>,
    /// Per contract: ln(value), NaN when the value is not positive.
    pub logs: Vec<f64>,
    /// Per contract: its (supplier, category) entity, `u32::MAX` without a supplier.
    pub entity_of: Vec<u32>,
    /// Per entity: ln(value / peer median) of its contracts, by position in `members`.
    members: Vec<u32>,
    bounds: Vec<(u32, u32)>,
    /// Per entity: its own baseline when large enough.
    own: Vec<Option<Entity>>,
    /// Per contract: ln(value / peer median).
    pub ratio: Vec<f64>,
    clusters: Option<(Centroids, Vec<ClusterStats>)>,
}

/// Median log ratio, spread and contracts of one supplier cluster.
type ClusterStats = (f64, f64, usize);

/// The price a contract is judged on: `valorInicialCompra`, the price agreed at signing
/// (amendments are `compliance_rules`' business), or `valorFinalCompra` when the initial one
/// is missing.
pub fn price_of(c: &crate::model::contract::Contract) -> f64 {
    if c.initial_value > 0.0 { c.initial_value } else { c.final_value }
}

/// Median and 1.4826 MAD (floored) of a scratch slice, which is reordered.
fn robust(scratch: &mut [f64]) -> (f64, f64) {
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

impl Baselines {
    /// Builds every baseline of a dataset.
    pub fn build(
        ds: &Dataset,
        cats: &[Category],
        suppliers: &[u32],
        cancel: &CancelFlag,
    ) -> Result<Baselines, AnalysisError> {
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
        let ratio: Vec<f64> = (0..n)
            .map(|i| if group_of[i] == u32::MAX { f64::NAN } else { logs[i] - groups[group_of[i] as usize].median_log })
            .collect();
        // Entities: (supplier, category).
        let mut ids: HashMap<u64, u32, FxBuild> = HashMap::default();
        let entity_of: Vec<u32> = (0..n)
            .map(|i| {
                if suppliers[i] == NONE || !ratio[i].is_finite() {
                    return u32::MAX;
                }
                let key = u64::from(suppliers[i]) * n_cat as u64 + cats[i].index() as u64;
                let next = ids.len() as u32;
                *ids.entry(key).or_insert(next)
            })
            .collect();
        let n_ent = ids.len();
        let (members, estart) = bucket(&entity_of, n_ent);
        let bounds: Vec<(u32, u32)> = (0..n_ent).map(|e| (estart[e], estart[e + 1])).collect();
        // The spread a supplier's spread is shrunk towards: its category's.
        let cat_sigma = |e: usize| {
            let first = members[bounds[e].0 as usize] as usize;
            let g = n_peer + cats[first].index();
            if groups[g].size >= 2 { groups[g].sigma } else { groups[group_of[first] as usize].sigma }
        };
        let mut own = Vec::with_capacity(n_ent);
        let mut features = Vec::new();
        for (e, &(a, b)) in bounds.iter().enumerate() {
            let size = (b - a) as usize;
            if size < MIN_SUPPLIER {
                own.push(None);
                continue;
            }
            scratch.clear();
            scratch.extend(members[a as usize..b as usize].iter().map(|&i| ratio[i as usize]));
            let (median_ratio, s) = robust(&mut scratch);
            let peer = cat_sigma(e);
            let sigma = ((size as f64 * s * s + SHRINK * peer * peer) / (size as f64 + SHRINK)).sqrt();
            own.push(Some(Entity::Supplier { size, median_ratio, sigma }));
            features.extend_from_slice(&[median_ratio, s]);
        }
        cancel.check()?;
        let big = features.len() / 2;
        let clusters = if big >= 10 {
            Centroids::fit(&features, 2, (big / 25).clamp(2, 6), 20_000).map(|cent| {
                let mut per: Vec<Vec<f64>> = vec![Vec::new(); cent.k()];
                for (e, o) in own.iter().enumerate() {
                    if let Some(Entity::Supplier { median_ratio, .. }) = o {
                        let (a, b) = bounds[e];
                        let spread = features_spread(&members[a as usize..b as usize], &ratio);
                        let (c, _) = cent.nearest(&[*median_ratio, spread]);
                        per[c].extend(members[a as usize..b as usize].iter().map(|&i| ratio[i as usize]));
                    }
                }
                let stats = per
                    .into_iter()
                    .map(|mut r| {
                        let size = r.len();
                        if size == 0 {
                            return (0.0, 1.0, 0);
                        }
                        let (m, s) = robust(&mut r);
                        (m, s, size)
                    })
                    .collect();
                (cent, stats)
            })
        } else {
            None
        };
        Ok(Baselines { groups, group_of, logs, entity_of, members, bounds, own, ratio, clusters })
    }

    /// The robust peer z-score of a judged contract.
    pub fn peer_z(&self, i: usize) -> f64 {
        self.ratio[i] / self.groups[self.group_of[i] as usize].sigma
    }

    /// The literal z-score (mean and standard deviation of ln(value) in the peer baseline).
    pub fn literal_z(&self, i: usize) -> f64 {
        let g = &self.groups[self.group_of[i] as usize];
        if g.std_log > 1e-9 { (self.logs[i] - g.mean_log) / g.std_log } else { 0.0 }
    }

    /// The supplier (or cluster) baseline of a judged contract. A supplier with fewer than
    /// [`MIN_SUPPLIER`] contracts in the category is placed in the cluster its *other*
    /// contracts price like, so the contract judged does not move its own baseline.
    pub fn entity(&self, i: usize) -> Entity {
        let e = self.entity_of[i];
        if e == u32::MAX {
            return Entity::PeerOnly;
        }
        if let Some(own) = self.own[e as usize] {
            return own;
        }
        let Some((cent, stats)) = &self.clusters else { return Entity::PeerOnly };
        let (a, b) = self.bounds[e as usize];
        let others: Vec<u32> =
            self.members[a as usize..b as usize].iter().copied().filter(|&k| k as usize != i).collect();
        if others.is_empty() {
            return Entity::PeerOnly;
        }
        let mut r: Vec<f64> = others.iter().map(|&k| self.ratio[k as usize]).collect();
        let m = median_in_place(&mut r);
        let (c, _) = cent.nearest(&[m, features_spread(&others, &self.ratio)]);
        let (median_ratio, sigma, size) = stats[c];
        if size == 0 {
            return Entity::PeerOnly;
        }
        Entity::Cluster { cluster: c, size, median_ratio, sigma }
    }
}

/// The spread feature of a supplier: 1.4826 MAD of its log ratios (unfloored).
fn features_spread(members: &[u32], ratio: &[f64]) -> f64 {
    let mut r: Vec<f64> = members.iter().map(|&k| ratio[k as usize]).collect();
    let m = median_in_place(&mut r);
    for x in r.iter_mut() {
        *x = (*x - m).abs();
    }
    MAD_SCALE * median_in_place(&mut r)
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
