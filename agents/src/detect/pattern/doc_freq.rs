//! How specific an object text is within its dataset, for `duplicate_contracts`: the number of
//! contracts each word (numbers included: reference and process numbers are the most specific
//! words an object has) appears in, kept in a counting table indexed by bits of the word hash
//! (collisions only merge counts, which can only make a text look less specific).
//!
//! Two near-identical objects are only as telling as the rarest word they share: boilerplate
//! that many contracts carry ("PRESTAÇÃO DE SERVIÇOS DE APOIO ADMINISTRATIVO") says nothing
//! about which purchase a contract is, however alike two copies of it are. The specificity of a
//! word found in `df` of `N` texts is `ln(N / df) / ln(N)` (1 for a word of one text, 0 for a
//! word of all), with `N` at least [`MIN_TEXTS`] so a handful of contracts is not judged on
//! frequencies it cannot have. Linear in the words. The table is counted on several threads,
//! each into a [`DocCounter`] of its own (merged at the end); `duplicate_contracts` counts its
//! texts as its similarity join tokenises them, so each text is read once.

use crate::model::dataset::Dataset;
use crate::text::{for_each_word_bytes, for_each_word_hash, is_stopword_bytes};

/// Smallest text count the specificity is computed against.
pub const MIN_TEXTS: usize = 20;
/// Largest counting table (16 MiB of counts).
const MAX_TABLE: usize = 1 << 22;
/// Datasets at least this large count on several threads.
const PARALLEL_FROM: usize = 50_000;

/// Word document frequencies of a dataset's object texts.
pub struct DocFreq {
    counts: Vec<u32>,
    mask: usize,
    texts: usize,
}

/// A [`DocFreq`] being counted (each text once). Each thread counts into a table of its own,
/// merged at the end. A large table is counted one region at a time: each word's slot waits
/// in its region's batch, and a full batch is counted at once while that region is in cache,
/// instead of every word costing a cache miss somewhere in the whole table.
pub struct DocCounter {
    counts: Vec<u32>,
    mask: usize,
    texts: usize,
    /// Per region of [`REGION`] counts, the slots waiting to be counted (none for a table of
    /// one region).
    pending: Vec<Vec<u32>>,
}

/// Counts per region of a large table (256 KiB of counts).
const REGION: usize = 1 << 16;
/// Slots a region's batch holds before they are counted.
const BATCH: usize = 1 << 14;

impl DocCounter {
    /// An empty table sized for `texts` texts.
    pub fn new(texts: usize) -> DocCounter {
        let size = (4 * texts).next_power_of_two().clamp(1024, MAX_TABLE);
        let regions = if size > REGION { size / REGION } else { 0 };
        DocCounter { counts: vec![0; size], mask: size - 1, texts, pending: vec![Vec::new(); regions] }
    }

    /// Counts each distinct word of one text, given its word hashes (repeats allowed);
    /// `seen` is scratch space.
    pub fn add(&mut self, hashes: &[u64], seen: &mut Vec<u64>) {
        seen.clear();
        seen.extend(hashes.iter().map(|h| h >> 24));
        self.count_keys(seen);
    }

    /// Counts each distinct word of one text; `seen` is scratch space.
    pub fn add_text(&mut self, text: &str, seen: &mut Vec<u64>) {
        seen.clear();
        for_each_word_hash(text, |h| seen.push(h >> 24));
        self.count_keys(seen);
    }

    /// Counts one text's words given as the similarity join's keys (`hash >> 24` in their
    /// low 40 bits), each distinct: its sorted, deduplicated word set, read where it is
    /// instead of sorting the text's hashes a second time.
    pub fn add_join_keys(&mut self, keys: &[u64]) {
        for &k in keys {
            self.bump(slot(k & ((1 << 40) - 1), self.mask));
        }
    }

    /// Counts each distinct key (`hash >> 24`) of `keys` once.
    fn count_keys(&mut self, keys: &mut Vec<u64>) {
        keys.sort_unstable();
        keys.dedup();
        for &h in keys.iter() {
            self.bump(slot(h, self.mask));
        }
    }

    /// Counts one word at `slot`, now or with its region's batch.
    fn bump(&mut self, slot: usize) {
        let DocCounter { counts, pending, .. } = self;
        let Some(batch) = pending.get_mut(slot / REGION) else {
            counts[slot] += 1;
            return;
        };
        batch.push(slot as u32);
        if batch.len() >= BATCH {
            count_batch(counts, batch);
        }
    }

    /// Counts every slot still waiting.
    fn drain(&mut self) {
        let DocCounter { counts, pending, .. } = self;
        for batch in pending.iter_mut() {
            count_batch(counts, batch);
        }
    }

    /// Adds the counts of another table of the same dataset.
    pub fn merge(&mut self, mut other: DocCounter) {
        debug_assert_eq!(self.counts.len(), other.counts.len(), "tables of one dataset");
        self.drain();
        other.drain();
        for (a, b) in self.counts.iter_mut().zip(other.counts) {
            *a += b;
        }
    }

    /// The frequencies counted.
    pub fn finish(mut self) -> DocFreq {
        self.drain();
        DocFreq { counts: self.counts, mask: self.mask, texts: self.texts }
    }
}

/// Counts the slots of one batch and empties it.
fn count_batch(counts: &mut [u32], batch: &mut Vec<u32>) {
    for &s in batch.iter() {
        counts[s as usize] += 1;
    }
    batch.clear();
}

/// The table index of a word hash: bits 24 to 63, so the keys of the similarity join
/// (`hash >> 24` in their low 40 bits) find their word's count too.
fn slot(hash_high: u64, mask: usize) -> usize {
    (hash_high as usize) & mask
}

impl DocFreq {
    /// Counts every word of every object text once per text.
    pub fn build(ds: &Dataset) -> DocFreq {
        let cs = &ds.contracts;
        let count = |part: &[crate::model::contract::Contract]| {
            let mut counter = DocCounter::new(cs.len());
            let mut seen: Vec<u64> = Vec::with_capacity(64);
            for c in part {
                counter.add_text(&c.object, &mut seen);
            }
            counter
        };
        let threads = crate::detect::common::cores().clamp(1, 8);
        let mut parts = if cs.len() < PARALLEL_FROM || threads == 1 {
            vec![count(cs)]
        } else {
            std::thread::scope(|s| {
                let count = &count;
                let handles: Vec<_> =
                    cs.chunks(cs.len().div_ceil(threads)).map(|part| s.spawn(move || count(part))).collect();
                handles.into_iter().map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))).collect()
            })
        };
        let mut counter = parts.pop().unwrap_or_else(|| DocCounter::new(cs.len()));
        for part in parts {
            counter.merge(part);
        }
        counter.finish()
    }

    /// The fewest texts any word two object texts share appears in (`u32::MAX` when they
    /// share none).
    pub fn rarest_shared(&self, a: &str, b: &str) -> u32 {
        let keys = |s: &str| {
            let mut v: Vec<u64> = Vec::with_capacity(32);
            for_each_word_hash(s, |h| v.push(h >> 24));
            v.sort_unstable();
            v.dedup();
            v
        };
        let (x, y) = (keys(a), keys(b));
        x.iter().filter(|k| y.binary_search(k).is_ok()).map(|&k| self.df_of_key(k)).min().unwrap_or(u32::MAX)
    }

    /// The texts a word appears in, from the low 40 bits of a join key (`hash >> 24`).
    pub fn df_of_key(&self, key: u64) -> u32 {
        self.counts[slot(key & ((1 << 40) - 1), self.mask)]
    }

    /// The texts a folded word appears in.
    fn df_of_word(&self, word: &[u8]) -> u32 {
        let mut key = 0;
        for_each_word_hash(&String::from_utf8_lossy(word), |h| key = h >> 24);
        self.df_of_key(key)
    }

    /// Whether two near-identical objects name different specific things: each has a word the
    /// other lacks (letters, not a number) with specificity at least `min` (a place, a unit, a
    /// product: "... NA DPU EM CURITIBA" and "... EM PORTO ALEGRE" are two purchases). Numbers
    /// (quantities, references) and common words ("AQUISIÇÃO" for "COMPRA") may differ in a
    /// copy of the same purchase.
    pub fn name_different_things(&self, a: &str, b: &str, min: f64) -> bool {
        let words = |s: &str| {
            let mut v: Vec<Vec<u8>> = Vec::new();
            for_each_word_bytes(s, |w| {
                if !w.iter().any(u8::is_ascii_digit) && !is_stopword_bytes(w) {
                    v.push(w.to_vec());
                }
                true
            });
            v.sort_unstable();
            v.dedup();
            v
        };
        let (x, y) = (words(a), words(b));
        let specific_alone = |x: &[Vec<u8>], y: &[Vec<u8>]| {
            x.iter().filter(|w| y.binary_search(w).is_err()).any(|w| self.specificity(self.df_of_word(w)) >= min)
        };
        specific_alone(&x, &y) && specific_alone(&y, &x)
    }

    /// The specificity of a word found in `df` texts (see the module notes).
    pub fn specificity(&self, df: u32) -> f64 {
        let n = self.texts.max(MIN_TEXTS) as f64;
        let df = f64::from(df.max(1)).min(n);
        ((n / df).ln() / n.ln()).clamp(0.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::contract;

    #[test]
    fn boilerplate_is_less_specific_than_a_reference_number() {
        let mut cs: Vec<_> = (0..200)
            .map(|i| {
                contract(&i.to_string(), "PRESTAÇÃO DE SERVIÇOS DE APOIO ADMINISTRATIVO", "S", "1", 1.0, (2024, 1, 1))
            })
            .collect();
        cs.push(contract("x", "PREGÃO 4471/2023 APOIO", "S", "1", 1.0, (2024, 1, 1)));
        let df = DocFreq::build(&Dataset::from_contracts(cs));
        let key = |w: &str| {
            let mut h = 0;
            for_each_word_hash(w, |x| h = x >> 24);
            h
        };
        assert_eq!(df.df_of_key(key("apoio")), 201);
        assert_eq!(df.df_of_key(key("4471")), 1);
        assert!(df.specificity(df.df_of_key(key("apoio"))) < 0.01);
        assert!(df.specificity(2) > 0.85);
    }

    #[test]
    fn two_places_are_different_things_and_a_synonym_or_a_number_is_not() {
        let mut cs: Vec<_> = (0..200)
            .map(|i| contract(&i.to_string(), "AQUISIÇÃO DE MATERIAL DE LIMPEZA", "S", "1", 1.0, (2024, 1, 1)))
            .collect();
        let a = "MANUTENÇÃO PREDIAL NA UNIDADE DE CURITIBA, LOTE 12";
        let b = "MANUTENÇÃO PREDIAL NA UNIDADE DE BELÉM, LOTE 13";
        let c = "MANUTENÇÃO PREDIAL NA UNIDADE DE CURITIBA, LOTE 14, COMPRA";
        for (k, o) in [a, b, c].iter().enumerate() {
            cs.push(contract(&format!("x{k}"), o, "S", "1", 1.0, (2024, 1, 1)));
        }
        let df = DocFreq::build(&Dataset::from_contracts(cs));
        assert!(df.name_different_things(a, b, 0.5));
        assert!(!df.name_different_things(a, c, 0.5), "one side alone has a specific word");
        assert!(!df.name_different_things(a, &a.replace("12", "99"), 0.5));
    }

    #[test]
    fn a_large_table_counted_by_region_batches_counts_every_word_once_per_text() {
        // 100,000 texts: a table of many regions, so words wait in batches before counting.
        let (mut a, mut b) = (DocCounter::new(100_000), DocCounter::new(100_000));
        assert!(a.pending.len() > 1);
        let mask = a.mask;
        // The same words counted straight into a table of the same size.
        let mut direct = vec![0u32; mask + 1];
        let mut seen = Vec::new();
        for t in 0..40_000u64 {
            // Each text: a word of its own, a word of every 7th text, a word of all, and a repeat.
            let keys = [t.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 24, 1_000_000 + t % 7, 42, 42];
            let mut distinct = keys.to_vec();
            distinct.sort_unstable();
            distinct.dedup();
            for k in distinct {
                direct[slot(k, mask)] += 1;
            }
            let hashes: Vec<u64> = keys.iter().map(|k| k << 24).collect();
            let counter = if t % 2 == 0 { &mut a } else { &mut b };
            counter.add(&hashes, &mut seen);
        }
        a.merge(b);
        let df = a.finish();
        assert_eq!(df.counts, direct);
        assert!(df.df_of_key(42) >= 40_000);
    }
}
