//! The weighted term vectors peer-group learning ([`super::peer_groups`]) clusters: each
//! contract's terms from its object and item descriptions, numbered over the dataset by
//! ranges on several threads, weighted by smoothed IDF and position, cut to the
//! [`MAX_VECTOR`] heaviest, with each contract's norm and [`PROBE`] heaviest term ids.

use std::collections::HashMap;

use super::common::FxBuild;
use super::object_signature::{ItemTerms, contract_terms_with};
use super::peer_groups::{MAX_VECTOR, PARALLEL_FROM, PROBE};
use super::shared::par_each;
use crate::model::contract::Contract;

/// Most contracts tokenised as one range when learning (see [`vectors`]); tests use small
/// ranges so the merge of several ranges is what they check.
const RANGE: usize = if cfg!(test) { 7 } else { 1 << 16 };

/// Weighted term vectors of one range of contracts, back to back, each sorted by term id.
pub(super) struct Rows {
    pub(super) ids: Vec<u32>,
    pub(super) weights: Vec<f32>,
    /// Where each row starts (and the last one ends).
    pub(super) bounds: Vec<u32>,
}

/// Weighted term vectors of the contracts, kept in the ranges they were built in (no copy
/// of the whole into one array).
pub(super) struct Vectors {
    /// The rows of contracts `k * chunk ..` in `parts[k]`.
    pub(super) parts: Vec<Rows>,
    pub(super) chunk: usize,
    pub(super) norms: Vec<f32>,
    /// Per contract: its [`PROBE`] heaviest term ids (`u32::MAX` pads).
    pub(super) top: Vec<[u32; PROBE]>,
}

impl Vectors {
    pub(super) fn of(&self, i: usize) -> (&[u32], &[f32]) {
        let rows = &self.parts[i / self.chunk];
        let k = i % self.chunk;
        let (a, b) = (rows.bounds[k] as usize, rows.bounds[k + 1] as usize);
        (&rows.ids[a..b], &rows.weights[a..b])
    }
    /// Whether contract `i` has any weighted term.
    pub(super) fn has_terms(&self, i: usize) -> bool {
        !self.of(i).0.is_empty()
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
pub(super) fn vectors(cs: &[Contract]) -> (Vectors, HashMap<u64, u32, FxBuild>) {
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
    // Per term of a contract, by its position: (id, weight); and the sort keys of its terms.
    let mut at: Vec<(u32, f32)> = Vec::new();
    let mut keys: Vec<u64> = Vec::new();
    let mut row: Vec<(u32, f32)> = Vec::new();
    let mut start = 0usize;
    for (k, &end) in part.ends.iter().enumerate() {
        at.clear();
        keys.clear();
        let object_terms = usize::from(part.objects[k]);
        for (p, &local) in part.ids[start..end as usize].iter().enumerate() {
            let id = remap[local as usize];
            let position = if p < object_terms { 1.0 / (1.0 + p as f32 / 6.0) } else { 1.0 };
            let w = idf[id as usize] * position;
            at.push((id, w));
            if w > 0.0 {
                // Heaviest first, ties to the term met first: a positive finite weight's bits
                // order as the weight does, so one integer key per term sorts the row.
                keys.push((u64::from(u32::MAX - w.to_bits()) << 32) | p as u64);
            }
        }
        start = end as usize;
        // Positions are distinct within a row, so an unstable sort gives the one order there is.
        keys.sort_unstable();
        row.clear();
        row.extend(keys.iter().take(MAX_VECTOR).map(|&key| at[(key & 0xFFFF_FFFF) as usize]));
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
