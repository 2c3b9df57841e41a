//! Word sets of object texts for the similarity join ([`super::simjoin`]): each object's
//! hashed words, keyed by their frequency within the run (rarest first), sorted and
//! deduplicated, built once per run into reusable [`Scratch`] space; and the Jaccard index
//! the join verifies pairs with.

use std::collections::HashMap;

use crate::detect::common::FxBuild;
use crate::detect::object_signature::is_uninformative;
use crate::detect::pattern::doc_freq::DocCounter;
use crate::model::dataset::Dataset;
use crate::text::for_each_word_hash;

/// Jaccard index of two sets given as sorted, deduplicated slices.
pub fn jaccard(x: &[u64], y: &[u64]) -> f64 {
    let (mut i, mut j, mut common) = (0, 0, 0usize);
    while i < x.len() && j < y.len() {
        match x[i].cmp(&y[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    let union = x.len() + y.len() - common;
    if union == 0 { 0.0 } else { common as f64 / union as f64 }
}

/// The hashed word set of an object text (sorted, deduplicated).
pub fn word_set(object: &str) -> Vec<u64> {
    let mut set = Vec::with_capacity(48);
    for_each_word_hash(object, |h| set.push(h));
    set.sort_unstable();
    set.dedup();
    set
}

/// Jaccard similarity of two object texts, as the detector computes it.
pub fn similarity(a: &str, b: &str) -> f64 {
    jaccard(&word_set(a), &word_set(b))
}

/// Fewest content words (stopwords left out) an object needs to be compared at all: shorter
/// objects ("LIMPEZA", "MATERIAL DE CONSUMO") cannot tell one purchase from another.
pub const MIN_WORDS: usize = 4;

/// Scratch space reused from one supplier to the next.
#[derive(Default)]
pub struct Scratch {
    /// Approximate word frequencies within the supplier: a counting table indexed by the low
    /// bits of the word hash (collisions only merge counts, which keeps the order total).
    pub(super) counts: Vec<u32>,
    /// Per indexed word: the head of its posting list in `postings`.
    pub(super) heads: HashMap<u64, u32, FxBuild>,
    /// Posting lists, linked: (set, position of the word, set size, next posting or `u32::MAX`).
    pub(super) postings: Vec<(u32, u16, u16, u32)>,
    pub(super) candidates: Vec<u32>,
    /// Word hashes of every object, back to back, and where each object ends.
    pub(super) raw: Vec<u64>,
    pub(super) raw_end: Vec<usize>,
    /// Scratch for counting one text's distinct words.
    pub(super) seen: Vec<u64>,
    /// Each object's word set as keys `(frequency << 40) | (hash >> 24)`, sorted (rarest
    /// first), back to back.
    pub(super) flat: Vec<u64>,
    pub(super) bounds: Vec<(usize, usize)>,
}

/// Fewest common words two sets of these sizes need to reach the Jaccard threshold.
pub fn min_overlap(a: usize, b: usize) -> usize {
    // ceil(0.85 (a + b) / 1.85) in integers.
    (85 * (a + b)).div_ceil(185)
}

/// Fills `scratch.flat` and `scratch.bounds` with the word sets of the run's objects, each
/// ordered by (frequency within the run, hash) and deduplicated. Linear in the number of
/// words, plus a sort of each object's few dozen words. With a `counter`, each text's
/// distinct words are counted into it from its word set (the dataset's frequencies).
pub(super) fn word_sets(ds: &Dataset, run: &[usize], mut counter: Option<&mut DocCounter>, scratch: &mut Scratch) {
    let Scratch { counts, raw, raw_end, flat, bounds, seen, .. } = scratch;
    raw.clear();
    raw_end.clear();
    flat.clear();
    bounds.clear();
    // The run's contracts are scattered over the dataset: gather their texts first and touch
    // each one (independent loads the processor overlaps) before the long tokenising loop.
    let objects: Vec<&str> = run.iter().map(|&i| ds.contracts[i].object.as_str()).collect();
    let touched = objects.iter().fold(0u8, |acc, o| acc ^ o.as_bytes().first().copied().unwrap_or(0));
    std::hint::black_box(touched);
    if run.len() >= TWO_PASS_FROM {
        // A large run (an organ's contracts) is tokenised twice rather than holding every
        // word of it at once: once to count, once to key.
        let mask = COUNTS_MAX - 1;
        if counts.len() < COUNTS_MAX {
            counts.resize(COUNTS_MAX, 0);
        }
        for object in &objects {
            for_each_word_hash(object_text(object), |h| counts[h as usize & mask] += 1);
        }
        for object in &objects {
            let first = flat.len();
            let text = object_text(object);
            for_each_word_hash(text, |h| flat.push(key(counts, mask, h)));
            let whole = close_set(flat, bounds, first);
            // The dataset's frequencies are counted from the word set just built; a text the
            // join leaves out (or cuts) is read again in full.
            if let Some(counter) = counter.as_deref_mut() {
                if whole && !text.is_empty() {
                    counter.add_join_keys(&flat[first..]);
                } else {
                    counter.add_text(object, seen);
                }
            }
        }
        counts[..COUNTS_MAX].fill(0);
        return;
    }
    for object in objects {
        let from = raw.len();
        for_each_word_hash(object, |h| raw.push(h));
        // A text the join leaves out is counted here; the others from their word sets below.
        if object_text(object).is_empty() {
            if let Some(counter) = counter.as_deref_mut() {
                counter.add(&raw[from..], seen);
            }
            raw.truncate(from);
        }
        raw_end.push(raw.len());
    }
    // Frequencies only order the words (collisions merge counts, which keeps the order total),
    // so the table stays small however large the run.
    let size = (2 * raw.len()).next_power_of_two().clamp(1024, COUNTS_MAX);
    if counts.len() < size {
        counts.resize(size, 0);
    }
    let mask = size - 1;
    for h in raw.iter() {
        counts[*h as usize & mask] += 1;
    }
    let mut start = 0;
    for &end in raw_end.iter() {
        let first = flat.len();
        flat.extend(raw[start..end].iter().map(|h| key(counts, mask, *h)));
        let whole = close_set(flat, bounds, first);
        if let Some(counter) = counter.as_deref_mut() {
            if whole {
                counter.add_join_keys(&flat[first..]);
            } else {
                counter.add(&raw[start..end], seen);
            }
        }
        start = end;
    }
    for h in raw.iter() {
        counts[*h as usize & mask] = 0;
    }
}

/// The text an object is compared on: nothing for an object that says nothing about the
/// purchase (the secret-information notice, "não se aplica"; such texts are short, so longer
/// ones are not checked).
fn object_text(object: &str) -> &str {
    if object.len() < 120 && is_uninformative(object) { "" } else { object }
}

/// Runs at least this long are tokenised twice instead of held whole ([`word_sets`]).
const TWO_PASS_FROM: usize = 60_000;
/// Largest word-frequency table.
const COUNTS_MAX: usize = 1 << 20;

/// A word's key in a set: its frequency in the run, then its hash (rarest words first).
fn key(counts: &[u32], mask: usize, h: u64) -> u64 {
    (u64::from(counts[h as usize & mask].min(0xFF_FFFF)) << 40) | (h >> 24)
}

/// Sorts and deduplicates the set that starts at `first` in `flat` and records its bounds;
/// `false` when the set was cut at `u16::MAX` words.
fn close_set(flat: &mut Vec<u64>, bounds: &mut Vec<(usize, usize)>, first: usize) -> bool {
    flat[first..].sort_unstable();
    let mut kept = first;
    for r in first..flat.len() {
        if r == first || flat[r] != flat[kept - 1] {
            flat[kept] = flat[r];
            kept += 1;
        }
    }
    let whole = kept <= first + usize::from(u16::MAX);
    flat.truncate(kept.min(first + usize::from(u16::MAX)));
    bounds.push((first, flat.len()));
    whole
}
