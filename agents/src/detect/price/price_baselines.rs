//! The baselines `price_zscore` compares a contract with beyond its peer group
//! ([`crate::detect::price::price_groups`]): its supplier's own prices relative to their peers, and, for
//! suppliers with too few contracts, the prices of a cluster of suppliers that price alike
//! (k-means over supplier median and spread, as Serenata de Amor's Rosie does). Everything
//! here is linear in the number of contracts, plus k-means over the suppliers.

use std::collections::HashMap;

use crate::cancel::{AnalysisError, CancelFlag};
use crate::detect::category::Category;
use crate::detect::common::FxBuild;
use crate::detect::learn::Centroids;
use crate::detect::peer_groups::ObjectGroups;
pub use crate::detect::price::price_groups::{Group, Level, MIN_GROUP, MIN_SIGMA, price_of};
use crate::detect::price::price_groups::{MAD_SCALE, PeerGroups, peer_groups, robust};
use crate::detect::shared::{NONE, bucket};
use crate::detect::stats::median_in_place;
use crate::model::dataset::Dataset;

/// Fewest contracts of a supplier in a category for its own baseline.
pub const MIN_SUPPLIER: usize = 5;
/// Weight, in contracts, of the peer spread when shrinking a supplier's spread towards it.
const SHRINK: f64 = 5.0;

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

impl Baselines {
    /// Builds every baseline of a dataset.
    pub fn build(
        ds: &Dataset,
        objects: &ObjectGroups,
        cats: &[Category],
        suppliers: &[u32],
        cancel: &CancelFlag,
    ) -> Result<Baselines, AnalysisError> {
        let n = ds.contracts.len();
        let PeerGroups { groups, group_of, logs } = peer_groups(ds, objects, cats, cancel)?;
        let mut scratch = Vec::new();
        let ratio: Vec<f64> = (0..n)
            .map(|i| if group_of[i] == u32::MAX { f64::NAN } else { logs[i] - groups[group_of[i] as usize].median_log })
            .collect();
        // Entities: (supplier, learned object group).
        let mut ids: HashMap<u64, u32, FxBuild> = HashMap::default();
        let entity_of: Vec<u32> = (0..n)
            .map(|i| {
                if suppliers[i] == NONE || !ratio[i].is_finite() {
                    return u32::MAX;
                }
                let key = (u64::from(suppliers[i]) << 32) | u64::from(objects.group_of[i]);
                let next = ids.len() as u32;
                *ids.entry(key).or_insert(next)
            })
            .collect();
        let n_ent = ids.len();
        let (members, estart) = bucket(&entity_of, n_ent);
        let bounds: Vec<(u32, u32)> = (0..n_ent).map(|e| (estart[e], estart[e + 1])).collect();
        // The spread a supplier's spread is shrunk towards: its peers'.
        let cat_sigma = |e: usize| {
            let first = members[bounds[e].0 as usize] as usize;
            groups[group_of[first] as usize].sigma
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
