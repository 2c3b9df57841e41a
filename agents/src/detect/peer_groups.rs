//! Peer groups learned from the data: contracts grouped by what they buy, from the dataset's
//! own object texts and item descriptions ([`super::object_signature`]), with no keyword
//! lexicon deciding membership (the lexicon of [`super::category`] may only *name* a group).
//!
//! Each contract becomes a TF-IDF vector over its terms: a term's weight is its smoothed
//! inverse document frequency in the dataset, `ln((1 + N) / (1 + df)) + 1` (boilerplate such
//! as "contratação" or "serviços", found in most texts, weighs about 1; a term of a few dozen
//! texts weighs 4 to 8), times a position factor `1 / (1 + p / 6)` for the p-th term of the
//! object (objects name what is bought first and where, for whom and under which process
//! later; item descriptions are catalogue texts and keep full weight). Terms no other contract
//! has (`df < 2`) weigh nothing: they tie the contract to no one. A contract keeps its
//! [`MAX_VECTOR`] heaviest terms.
//!
//! Grouping is leader clustering on cosine similarity (single pass, deterministic): a contract
//! joins the most similar leader whose cosine is at least [`TAU`], or becomes a leader. Leaders
//! are found through an inverted index of their [`PROBE`] heaviest terms (at most
//! [`POSTING_CAP`] leaders per term), probed with the contract's own heaviest terms. Leaders are
//! first chosen over a stride sample of at most [`SAMPLE`] contracts, then every contract is
//! assigned to its best leader in parallel, then the few left over are clustered among
//! themselves. Every choice depends on term frequencies and dataset order only (ties go to the
//! term met first and the leader made first), so renaming every word of a dataset to an unseen
//! vocabulary gives the same groups. Linear in the terms plus a bounded number of cosine
//! merges per contract.

use std::collections::HashMap;

use super::common::FxBuild;
use super::object_signature::{for_each_term, term_hash};
use super::peer_vectors::{Vectors, vectors};
use crate::cancel::{AnalysisError, CancelFlag};
use crate::model::contract::Contract;
use crate::model::dataset::Dataset;

/// Least cosine similarity to a group's leader for a contract to join it.
pub const TAU: f64 = 0.5;
/// Most weighted terms kept per contract.
pub const MAX_VECTOR: usize = 16;
/// Heaviest terms a leader is indexed by and a contract probes with.
pub const PROBE: usize = 3;
/// Most leaders indexed under one term.
pub const POSTING_CAP: usize = 64;
/// Most contracts the leaders are first chosen from.
pub const SAMPLE: usize = 20_000;
/// Datasets at least this large assign contracts to leaders on several threads.
pub(super) const PARALLEL_FROM: usize = 50_000;
/// The id of "no group".
pub const NO_GROUP: u32 = u32::MAX;

/// One learned group.
#[derive(Debug, Clone, PartialEq)]
pub struct ObjectGroup {
    /// The contract whose text defines the group.
    pub leader: usize,
    /// Contracts in the group.
    pub size: usize,
    /// The leader's heaviest terms (folded words), heaviest first: what the group buys.
    pub terms: Vec<String>,
    /// Mean cosine similarity of the members to the leader.
    pub coherence: f64,
}

/// Every contract's learned group.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ObjectGroups {
    /// Per contract: its group in `groups`, [`NO_GROUP`] when its texts say nothing shared.
    pub group_of: Vec<u32>,
    /// The groups.
    pub groups: Vec<ObjectGroup>,
}

/// Which leaders one probe has compared already: a stamp per leader, the probe's own stamp
/// changing from one probe to the next; and the probing contract's weights spread over a
/// dense array by term id, so each cosine with a leader is one pass over the leader's terms.
#[derive(Default)]
struct Seen {
    stamps: Vec<u32>,
    probe: u32,
    dense: Vec<f32>,
}

impl Seen {
    /// Starts a probe over (at least) `leaders` leaders.
    fn next(&mut self, leaders: usize) {
        if self.stamps.len() < leaders {
            self.stamps.resize(leaders, 0);
        }
        self.probe = self.probe.wrapping_add(1);
        if self.probe == 0 {
            self.stamps.fill(0);
            self.probe = 1;
        }
    }
    /// Whether leader `l` is met for the first time in this probe (and marks it).
    fn first_time(&mut self, l: u32) -> bool {
        let stamp = &mut self.stamps[l as usize];
        let first = *stamp != self.probe;
        *stamp = self.probe;
        first
    }
}

/// Leaders and the inverted index of their heaviest terms.
#[derive(Default)]
struct Leaders {
    contracts: Vec<u32>,
    postings: HashMap<u32, Vec<u32>, FxBuild>,
}

impl Leaders {
    /// The most similar leader at cosine >= [`TAU`] (the first made on ties). Each leader
    /// under the contract's probe terms is compared once (`seen` marks the ones already
    /// compared, so the posting lists need no sorting).
    fn best(&self, v: &Vectors, i: usize, seen: &mut Seen) -> Option<(u32, f64)> {
        seen.next(self.contracts.len());
        let (ids, weights) = v.of(i);
        if let Some(&last) = ids.last()
            && seen.dense.len() <= last as usize
        {
            seen.dense.resize(last as usize + 1, 0.0);
        }
        for (&t, &w) in ids.iter().zip(weights) {
            seen.dense[t as usize] = w;
        }
        let norm_i = f64::from(v.norms[i]);
        let mut best: Option<(u32, f64)> = None;
        for t in v.top[i].iter().filter(|&&t| t != u32::MAX) {
            let Some(list) = self.postings.get(t) else { continue };
            for &l in list {
                if !seen.first_time(l) {
                    continue;
                }
                let cos = self.cosine(v, l, norm_i, &seen.dense);
                if cos >= TAU && best.is_none_or(|(bl, b)| cos > b || (cos == b && l < bl)) {
                    best = Some((l, cos));
                }
            }
        }
        for &t in ids {
            seen.dense[t as usize] = 0.0;
        }
        best
    }
    /// The cosine similarity of the probing contract (its weights spread in `dense`, its norm
    /// `norm_i`) and leader `l`: the leader's terms in increasing id, each product added in
    /// the order a merge of the two rows would add it (a term the contract lacks adds +0.0, which
    /// changes no sum of non-negative terms), so the value is the same to the bit.
    fn cosine(&self, v: &Vectors, l: u32, norm_i: f64, dense: &[f32]) -> f64 {
        let j = self.contracts[l as usize] as usize;
        let (yi, yw) = v.of(j);
        let mut dot = 0.0f64;
        for (&t, &w) in yi.iter().zip(yw) {
            let x = dense.get(t as usize).copied().unwrap_or(0.0);
            dot += f64::from(x) * f64::from(w);
        }
        let norm = norm_i * f64::from(v.norms[j]);
        if norm > 0.0 { dot / norm } else { 0.0 }
    }
    fn add(&mut self, v: &Vectors, i: usize) -> u32 {
        let l = self.contracts.len() as u32;
        self.contracts.push(i as u32);
        for &t in v.top[i].iter().filter(|&&t| t != u32::MAX) {
            let list = self.postings.entry(t).or_default();
            if list.len() < POSTING_CAP {
                list.push(l);
            }
        }
        l
    }
}

/// Learns the peer groups of a dataset.
pub fn learn(ds: &Dataset, cancel: &CancelFlag) -> Result<ObjectGroups, AnalysisError> {
    let cs = &ds.contracts;
    let n = cs.len();
    let (v, intern) = vectors(cs);
    cancel.check()?;
    let with_text: Vec<usize> = (0..n).filter(|&i| v.has_terms(i)).collect();
    let mut leaders = Leaders::default();
    let mut seen = Seen::default();
    let step = with_text.len().div_ceil(SAMPLE).max(1);
    for &i in with_text.iter().step_by(step) {
        if leaders.best(&v, i, &mut seen).is_none() {
            leaders.add(&v, i);
        }
    }
    cancel.check()?;
    let assign = |part: &[usize]| {
        let mut seen = Seen::default();
        part.iter().map(|&i| leaders.best(&v, i, &mut seen)).collect::<Vec<_>>()
    };
    let threads = super::common::cores().clamp(1, 8);
    let mut found: Vec<Option<(u32, f64)>> = if with_text.len() < PARALLEL_FROM || threads == 1 {
        assign(&with_text)
    } else {
        std::thread::scope(|s| {
            let assign = &assign;
            let handles: Vec<_> =
                with_text.chunks(with_text.len().div_ceil(threads)).map(|p| s.spawn(move || assign(p))).collect();
            handles.into_iter().flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))).collect()
        })
    };
    cancel.check()?;
    // Contracts no sampled leader fits: clustered among themselves, in dataset order.
    for (k, &i) in with_text.iter().enumerate() {
        if found[k].is_none() {
            found[k] = Some(leaders.best(&v, i, &mut seen).unwrap_or_else(|| (leaders.add(&v, i), 1.0)));
        }
    }
    let mut group_of = vec![NO_GROUP; n];
    let mut size = vec![0usize; leaders.contracts.len()];
    let mut cohesion = vec![0.0f64; leaders.contracts.len()];
    for (k, &i) in with_text.iter().enumerate() {
        if let Some((l, cos)) = found[k] {
            group_of[i] = l;
            size[l as usize] += 1;
            cohesion[l as usize] += cos;
        }
    }
    let groups = leaders
        .contracts
        .iter()
        .enumerate()
        .map(|(l, &leader)| ObjectGroup {
            leader: leader as usize,
            size: size[l],
            terms: term_names(&cs[leader as usize], &v.top[leader as usize], &intern),
            coherence: if size[l] > 0 { cohesion[l] / size[l] as f64 } else { 0.0 },
        })
        .collect();
    Ok(ObjectGroups { group_of, groups })
}

/// The folded words behind a leader's heaviest term ids.
fn term_names(c: &Contract, top: &[u32; PROBE], intern: &HashMap<u64, u32, FxBuild>) -> Vec<String> {
    let mut found: Vec<(usize, String)> = Vec::new();
    let mut visit = |w: &[u8]| {
        if let Some(id) = intern.get(&term_hash(w))
            && let Some(k) = top.iter().position(|t| t == id)
            && !found.iter().any(|(j, _)| *j == k)
        {
            found.push((k, String::from_utf8_lossy(w).into_owned()));
        }
    };
    for_each_term(&c.object, &mut visit);
    for item in &c.items {
        for_each_term(&item.description, &mut visit);
    }
    found.sort();
    found.into_iter().map(|(_, w)| w).collect()
}

#[cfg(test)]
#[path = "peer_groups_tests.rs"]
pub(crate) mod tests;
