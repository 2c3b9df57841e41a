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
use super::object_signature::{ItemTerms, contract_terms_with, for_each_term, term_hash};
use super::shared::par_each;
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
const PARALLEL_FROM: usize = 50_000;
/// Most contracts tokenised as one range when learning (see [`vectors`]); tests use small
/// ranges so the merge of several ranges is what they check.
const RANGE: usize = if cfg!(test) { 7 } else { 1 << 16 };
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

/// Weighted term vectors of one range of contracts, back to back, each sorted by term id.
struct Rows {
    ids: Vec<u32>,
    weights: Vec<f32>,
    /// Where each row starts (and the last one ends).
    bounds: Vec<u32>,
}

/// Weighted term vectors of the contracts, kept in the ranges they were built in (no copy
/// of the whole into one array).
struct Vectors {
    /// The rows of contracts `k * chunk ..` in `parts[k]`.
    parts: Vec<Rows>,
    chunk: usize,
    norms: Vec<f32>,
    /// Per contract: its [`PROBE`] heaviest term ids (`u32::MAX` pads).
    top: Vec<[u32; PROBE]>,
}

impl Vectors {
    fn of(&self, i: usize) -> (&[u32], &[f32]) {
        let rows = &self.parts[i / self.chunk];
        let k = i % self.chunk;
        let (a, b) = (rows.bounds[k] as usize, rows.bounds[k + 1] as usize);
        (&rows.ids[a..b], &rows.weights[a..b])
    }
    /// Whether contract `i` has any weighted term.
    fn has_terms(&self, i: usize) -> bool {
        !self.of(i).0.is_empty()
    }
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

/// The terms of one range of contracts: term ids local to the range (in order of first
/// appearance within it), where each contract's terms end, how many of each contract's terms
/// come from its object, and per local id its hash and the contracts it appears in.
struct TermPart {
    ids: Vec<u32>,
    ends: Vec<u32>,
    objects: Vec<u8>,
    hashes: Vec<u64>,
    df: Vec<u32>,
}

fn term_part(cs: &[Contract]) -> TermPart {
    let mut local: HashMap<u64, u32, FxBuild> = HashMap::default();
    let mut part = TermPart {
        ids: Vec::with_capacity(cs.len() * 12),
        ends: Vec::with_capacity(cs.len()),
        objects: Vec::with_capacity(cs.len()),
        hashes: Vec::new(),
        df: Vec::new(),
    };
    let mut terms = Vec::with_capacity(super::object_signature::MAX_TERMS);
    let mut items = ItemTerms::default();
    for c in cs {
        terms.clear();
        part.objects.push(contract_terms_with(c, &mut terms, &mut items) as u8);
        for &h in &terms {
            let next = part.hashes.len() as u32;
            let id = *local.entry(h).or_insert(next);
            if id == next {
                part.hashes.push(h);
                part.df.push(0);
            }
            part.df[id as usize] += 1;
            part.ids.push(id);
        }
        part.ends.push(part.ids.len() as u32);
    }
    part
}

/// Weighted vectors of every contract, with the id of each term hash. Ranges of contracts are
/// tokenised and their terms interned on their own threads; the ranges' ids are then merged
/// in range order, which gives the ids a single pass would (a hash first met in an earlier
/// range has its id already; the new ones of a range come in the order the range first met
/// them), and each range builds its rows on its own thread again.
fn vectors(cs: &[Contract]) -> (Vectors, HashMap<u64, u32, FxBuild>) {
    let n = cs.len();
    let threads = if n < PARALLEL_FROM { 1 } else { super::common::cores().clamp(1, 8) };
    // Ranges of at most RANGE contracts: a range's terms are dropped once its rows are built,
    // so the terms of the whole dataset and its rows are never held at once.
    let chunk = n.clamp(1, RANGE);
    let ranges: Vec<(usize, usize)> = (0..n).step_by(chunk).map(|from| (from, (from + chunk).min(n))).collect();
    let mut parts = par_each(ranges, threads, |(from, to)| term_part(&cs[from..to]));
    if parts.is_empty() {
        parts.push(term_part(&[]));
    }
    let mut intern: HashMap<u64, u32, FxBuild> = HashMap::default();
    let mut df: Vec<u32> = Vec::new();
    let remaps: Vec<Vec<u32>> = parts
        .iter()
        .map(|part| {
            part.hashes
                .iter()
                .zip(&part.df)
                .map(|(h, d)| {
                    let next = intern.len() as u32;
                    let id = *intern.entry(*h).or_insert(next);
                    if id == next {
                        df.push(0);
                    }
                    df[id as usize] += d;
                    id
                })
                .collect()
        })
        .collect();
    // Contracts with at least one term.
    let with_terms = |p: &TermPart| {
        let mut prev = 0;
        p.ends.iter().filter(|&&e| std::mem::replace(&mut prev, e) < e).count()
    };
    let texts = parts.iter().map(with_terms).sum::<usize>().max(1) as f64;
    let idf: Vec<f32> = df
        .iter()
        .map(|&d| if d >= 2 { (((1.0 + texts) / (1.0 + f64::from(d))).ln() + 1.0) as f32 } else { 0.0 })
        .collect();
    let idf = &idf;
    let work: Vec<(TermPart, Vec<u32>)> = parts.into_iter().zip(remaps).collect();
    let built = par_each(work, threads, |(part, remap)| rows(part, &remap, idf));
    let mut v = Vectors { parts: Vec::new(), chunk, norms: Vec::with_capacity(n), top: Vec::with_capacity(n) };
    for (rows, norms, top) in built {
        v.parts.push(rows);
        v.norms.extend(norms);
        v.top.extend(top);
    }
    (v, intern)
}

/// The weighted rows of one range of contracts from its terms (`remap` takes its local ids to
/// the dataset's), with each row's norm and [`PROBE`] heaviest terms.
fn rows(part: TermPart, remap: &[u32], idf: &[f32]) -> (Rows, Vec<f32>, Vec<[u32; PROBE]>) {
    let count = part.ends.len();
    let mut out = Rows { ids: Vec::with_capacity(count * 8), weights: Vec::with_capacity(count * 8), bounds: vec![0] };
    out.bounds.reserve(count);
    let (mut norms, mut tops) = (Vec::with_capacity(count), Vec::with_capacity(count));
    let mut row: Vec<(u32, f32, usize)> = Vec::new();
    let mut start = 0usize;
    for (k, &end) in part.ends.iter().enumerate() {
        row.clear();
        let object_terms = usize::from(part.objects[k]);
        for (p, &local) in part.ids[start..end as usize].iter().enumerate() {
            let id = remap[local as usize];
            let position = if p < object_terms { 1.0 / (1.0 + p as f32 / 6.0) } else { 1.0 };
            let w = idf[id as usize] * position;
            if w > 0.0 {
                row.push((id, w, p));
            }
        }
        start = end as usize;
        // Heaviest first; ties to the term met first (positions and ids are distinct within a
        // row, so an unstable sort gives the one order there is).
        row.sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(a.2.cmp(&b.2)));
        row.truncate(MAX_VECTOR);
        let mut top = [u32::MAX; PROBE];
        for (k, r) in row.iter().take(PROBE).enumerate() {
            top[k] = r.0;
        }
        tops.push(top);
        norms.push(row.iter().map(|r| r.1 * r.1).sum::<f32>().sqrt());
        row.sort_unstable_by_key(|r| r.0);
        out.ids.extend(row.iter().map(|r| r.0));
        out.weights.extend(row.iter().map(|r| r.1));
        out.bounds.push(out.ids.len() as u32);
    }
    (out, norms, tops)
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
