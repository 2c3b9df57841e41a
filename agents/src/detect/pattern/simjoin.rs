//! The similarity join behind `duplicate_contracts`: over the word sets of object texts
//! ([`super::word_sets`]), every
//! pair of a run of contracts whose sets are more than 85% alike (Jaccard, the literal
//! threshold, the lowest any sensitivity uses) and that are close enough ([`Closeness`]),
//! found without comparing all pairs.

use std::collections::HashMap;

use chrono::Datelike;

use crate::detect::common::FxBuild;
use crate::detect::pattern::doc_freq::{DocCounter, DocFreq};
use crate::detect::pattern::duplicates::{MAX_DAYS, SPECIFIC, THRESHOLD, VALUE_TOLERANCE};
use crate::detect::pattern::word_sets::word_sets;
pub use crate::detect::pattern::word_sets::{MIN_WORDS, Scratch, jaccard, min_overlap, similarity, word_set};
use crate::model::dataset::Dataset;

/// One verified pair (indices into the dataset).
#[derive(Debug, Clone, Copy)]
pub struct Pair {
    /// The earlier-indexed contract.
    pub a: usize,
    /// The other contract.
    pub b: usize,
    /// Jaccard similarity of their objects.
    pub similarity: f64,
    /// Value difference as a fraction of the larger value.
    pub value_diff: f64,
    /// Days between the signing dates, when both are known.
    pub days: Option<i64>,
    /// How specific the rarest word the two objects share is within the dataset (1 without a
    /// frequency table; see [`crate::detect::pattern::doc_freq`]).
    pub specificity: f64,
}

/// Which pairs of similar objects count as duplicates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Closeness {
    /// Runs of one supplier: the same organ, values or signing dates close, and not two units
    /// drawing on one ata de registro de preços.
    ValueOrDate,
    /// Runs of one purchase process: different suppliers, values and dates both close, the same
    /// purchase item listed by both, and not a purchase meant for several suppliers (ata de
    /// registro de preços, credenciamento, chamada pública).
    OtherSupplier,
}

/// Every verified duplicate pair among the contracts of a run (one supplier's, or one
/// organ's over a stretch of time, as `closeness` says).
///
/// Prefix filtering with positions (AllPairs / PPJoin): words are ordered rarest first within
/// the supplier and sets are processed smallest first; a set is indexed by its first
/// `|y| - ceil(2t/(1+t) |y|) + 1` words and probes with its first `|x| - ceil(t |x|) + 1`; two
/// sets above the threshold must meet there, and the first shared word's positions bound the
/// overlap, which prunes most candidates before any similarity is computed. Objects with fewer
/// than [`MIN_WORDS`] content words take no part. With a `counter`, every object of the run
/// (each once) is counted into it as it is tokenised.
pub fn pairs_in(
    ds: &Dataset,
    run: &[usize],
    closeness: Closeness,
    df: Option<&DocFreq>,
    counter: Option<&mut DocCounter>,
    scratch: &mut Scratch,
) -> Vec<Pair> {
    word_sets(ds, run, counter, scratch);
    let all: Vec<usize> = (0..run.len()).collect();
    join(ds, run, &all, closeness, df, scratch)
}

/// The word sets of a run's objects, tokenised once, for several [`join`]s over parts of it.
pub fn index_words(ds: &Dataset, run: &[usize], scratch: &mut Scratch) {
    word_sets(ds, run, None, scratch);
}

/// [`pairs_in`] over the members `positions` (indices into `run`) of a run whose word sets
/// `scratch` holds ([`index_words`]).
pub fn join(
    ds: &Dataset,
    run: &[usize],
    positions: &[usize],
    closeness: Closeness,
    df: Option<&DocFreq>,
    scratch: &mut Scratch,
) -> Vec<Pair> {
    let cs = &ds.contracts;
    let Scratch { heads, postings, candidates, flat, bounds, .. } = scratch;
    // Clearing a map costs its capacity: a small join after a large one starts afresh.
    if heads.capacity() > 8 * positions.len().max(256) {
        *heads = HashMap::default();
    } else {
        heads.clear();
    }
    postings.clear();
    let set = |k: usize| &flat[bounds[k].0..bounds[k].1];
    let value = |k: usize| cs[run[k]].value();
    let day = |k: usize| cs[run[k]].signed_on.map(|d| i64::from(d.num_days_from_ce()));
    // Smaller sets first, so an indexed set is never larger than the probing one.
    let mut by_size: Vec<usize> =
        positions.iter().copied().filter(|&k| bounds[k].1 - bounds[k].0 >= MIN_WORDS).collect();
    by_size.sort_by_key(|&k| (bounds[k].1 - bounds[k].0, k));
    let mut pairs = Vec::new();
    for &x in &by_size {
        let tokens = set(x);
        let len = tokens.len();
        let probe = (len - (85 * len).div_ceil(100) + 1).min(len);
        let indexed = (len - (170 * len).div_ceil(185) + 1).min(len);
        candidates.clear();
        for (i, t) in tokens[..probe].iter().enumerate() {
            let head = heads.entry(*t).or_insert(u32::MAX);
            let mut at = *head;
            while at != u32::MAX {
                let (y, j, other, next) = postings[at as usize];
                let (j, other) = (usize::from(j), usize::from(other));
                let bound = 1 + (len - i - 1).min(other - j - 1);
                if bound >= min_overlap(len, other) {
                    candidates.push(y);
                }
                at = next;
            }
            if i < indexed {
                postings.push((x as u32, i as u16, len as u16, *head));
                *head = (postings.len() - 1) as u32;
            }
        }
        candidates.sort_unstable();
        candidates.dedup();
        for &y in candidates.iter() {
            let y = y as usize;
            let (va, vb) = (value(y), value(x));
            let value_diff = if va.max(vb) > 0.0 { (va - vb).abs() / va.max(vb) } else { 0.0 };
            let apart = match (day(y), day(x)) {
                (Some(a), Some(b)) => Some((a - b).abs()),
                _ => None,
            };
            let (value_close, date_close) = (value_diff <= VALUE_TOLERANCE, apart.is_some_and(|d| d <= MAX_DAYS));
            let (cy, cx) = (&cs[run[y]], &cs[run[x]]);
            let close = match closeness {
                Closeness::ValueOrDate => {
                    (value_close || date_close) && cy.organ.code == cx.organ.code && !one_ata_two_units(cy, cx)
                }
                Closeness::OtherSupplier => {
                    value_close
                        && date_close
                        && cy.supplier.document != cx.supplier.document
                        && !cy.process_number.is_empty()
                        && cy.process_number == cx.process_number
                        && !is_multi_award(cy)
                        && !is_multi_award(cx)
                }
            };
            if !close {
                continue;
            }
            let similarity = jaccard(set(y), tokens);
            if similarity > THRESHOLD {
                if closeness == Closeness::OtherSupplier
                    && !crate::detect::pattern::item_lines::share_a_purchase_item(cy, cx)
                {
                    continue;
                }
                if closeness == Closeness::ValueOrDate && !crate::detect::pattern::item_lines::items_may_match(cy, cx) {
                    continue;
                }
                if df.is_some_and(|df| df.name_different_things(&cy.object, &cx.object, SPECIFIC)) {
                    continue;
                }
                let specificity = df.map_or(1.0, |df| df.specificity(rarest_shared(set(y), tokens, df)));
                pairs.push(Pair { a: run[y], b: run[x], similarity, value_diff, days: apart, specificity });
            }
        }
    }
    pairs
}

/// The fewest texts any word two sets (join keys) share appears in.
fn rarest_shared(x: &[u64], y: &[u64], df: &DocFreq) -> u32 {
    let low = |k: u64| k & ((1 << 40) - 1);
    let (mut i, mut j, mut rarest) = (0, 0, u32::MAX);
    // The keys are ordered by frequency within the run first, so match on the hash bits.
    let mut ys: Vec<u64> = y.iter().map(|&k| low(k)).collect();
    ys.sort_unstable();
    let mut xs: Vec<u64> = x.iter().map(|&k| low(k)).collect();
    xs.sort_unstable();
    while i < xs.len() && j < ys.len() {
        match xs[i].cmp(&ys[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                rarest = rarest.min(df.df_of_key(xs[i]));
                i += 1;
                j += 1;
            }
        }
    }
    rarest
}

/// Whether a contract comes from a purchase meant to contract several suppliers for the same
/// object: an ata de registro de preços, a credenciamento (inexigibilidade) or a chamada pública
/// of family farming (dispensa).
fn is_multi_award(c: &crate::model::contract::Contract) -> bool {
    let m = c.modality.as_bytes();
    let has = |pat: &[u8]| m.windows(pat.len()).any(|w| w.eq_ignore_ascii_case(pat));
    is_price_registration(c) || has(b"inexigibilidade") || has(b"dispensa") || has(b"credenciamento")
}

/// Whether a contract comes from a price registration (an ata de registro de preços).
fn is_price_registration(c: &crate::model::contract::Contract) -> bool {
    c.modality.as_bytes().windows(15).any(|w| w.eq_ignore_ascii_case(b"registro de pre"))
}

/// Two contracts of one ata de registro de preços signed by different managing units: each unit
/// buying its share of the ata from the same supplier is how the system works, not a duplicate.
fn one_ata_two_units(a: &crate::model::contract::Contract, b: &crate::model::contract::Contract) -> bool {
    (is_price_registration(a) || is_price_registration(b))
        && !a.unit.code.is_empty()
        && !b.unit.code.is_empty()
        && a.unit.code != b.unit.code
}

/// Groups of mutually connected contracts, each sorted by signing date then id (earliest first).
pub fn components(run: &[usize], pairs: &[Pair]) -> Vec<Vec<usize>> {
    let pos: HashMap<usize, usize, FxBuild> = run.iter().enumerate().map(|(k, i)| (*i, k)).collect();
    let mut parent: Vec<usize> = (0..run.len()).collect();
    fn find(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    for p in pairs {
        let (Some(&a), Some(&b)) = (pos.get(&p.a), pos.get(&p.b)) else { continue };
        let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
        if ra != rb {
            parent[ra.max(rb)] = ra.min(rb);
        }
    }
    let mut groups: HashMap<usize, Vec<usize>, FxBuild> = HashMap::default();
    let involved: Vec<usize> = pairs.iter().flat_map(|p| [p.a, p.b]).collect();
    for i in involved {
        if let Some(&k) = pos.get(&i) {
            let r = find(&mut parent, k);
            groups.entry(r).or_default().push(i);
        }
    }
    let mut out: Vec<Vec<usize>> = groups
        .into_values()
        .map(|mut g| {
            g.sort_unstable();
            g.dedup();
            g
        })
        .collect();
    out.sort();
    out
}
