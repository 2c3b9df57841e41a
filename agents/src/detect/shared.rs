//! Facts about a dataset that several detectors need (each contract's object category, each
//! organ's monthly series), computed once per analysis, on first use, by whichever detector
//! asks first (the others wait for it instead of computing them again). The engine builds one
//! [`Shared`] per run and hands it to every detector.

use std::collections::HashMap;
use std::sync::OnceLock;

use arcstr::ArcStr;
use chrono::Datelike;

use super::category::{Category, categorise};
use super::common::FxBuild;
use super::contract_text::{may_name_brand, specificity};
use super::coverage::Coverage;
use super::market::{Outside, outside_all};
use super::peer_groups::{ObjectGroups, learn};
use super::series::{Grid, OrganMonths, organ_months};
use crate::cancel::{AnalysisError, CancelFlag};
use crate::detect::findings::FindingsCache;
use crate::model::contract::Contract;
use crate::model::dataset::Dataset;

/// Contracts below which per-contract passes stay on one thread.
const PARALLEL_FROM: usize = 50_000;

/// Dense ids for the distinct values of one string field of the contracts.
#[derive(Debug, Clone, Default)]
pub struct Interned {
    /// Per contract, the id of its value; [`NONE`] when the field is empty.
    pub ids: Vec<u32>,
    /// The value of each id, in order of first appearance (shared with the contracts).
    pub names: Vec<ArcStr>,
}

/// The id of an empty field.
pub const NONE: u32 = u32::MAX;

impl Interned {
    fn of<'a>(values: impl Iterator<Item = &'a ArcStr>) -> Self {
        let mut map: HashMap<&str, u32, FxBuild> = HashMap::default();
        let mut names = Vec::new();
        let ids = values
            .map(|v| {
                if v.is_empty() {
                    return NONE;
                }
                *map.entry(v.as_str()).or_insert_with(|| {
                    names.push(v.clone());
                    (names.len() - 1) as u32
                })
            })
            .collect();
        Interned { ids, names }
    }

    /// Contract indices grouped by id (a counting sort): `(order, start)`, the members of id
    /// `k` being `order[start[k]..start[k + 1]]`. Contracts without a value are left out.
    pub fn groups(&self) -> (Vec<u32>, Vec<u32>) {
        bucket(&self.ids, self.names.len())
    }
}

/// Indices grouped by key (a counting sort, linear): `(order, start)`; keys equal to [`NONE`]
/// are left out.
pub fn bucket(keys: &[u32], n_keys: usize) -> (Vec<u32>, Vec<u32>) {
    let mut start = vec![0u32; n_keys + 1];
    for &k in keys.iter().filter(|k| **k != NONE) {
        start[k as usize + 1] += 1;
    }
    for k in 0..n_keys {
        start[k + 1] += start[k];
    }
    let mut fill = start.clone();
    let mut order = vec![0u32; start[n_keys] as usize];
    for (i, &k) in keys.iter().enumerate().filter(|(_, k)| **k != NONE) {
        order[fill[k as usize] as usize] = i as u32;
        fill[k as usize] += 1;
    }
    (order, start)
}

/// Which side of the contracts an entity judged as a whole is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// A supplier (by document).
    Supplier,
    /// An organ (by SIAFI code).
    Organ,
}

impl Side {
    /// `"supplier"` or `"organ"`, for ids and evidence.
    pub fn name(self) -> &'static str {
        match self {
            Side::Supplier => "supplier",
            Side::Organ => "organ",
        }
    }
}

/// What one pass over a contract's object text found (see [`super::contract_text`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TextScan {
    /// Whether it has any content word.
    pub has_content: bool,
    /// Specific words, counted up to [`TextScan::SPECIFIC_CAP`] + 1.
    pub specific: u8,
    /// Whether it may name a brand ([`super::contract_text::may_name_brand`]).
    pub brand: bool,
}

impl TextScan {
    /// Specific words are counted up to this many (plus one): the vague-object rule never
    /// needs more.
    pub const SPECIFIC_CAP: usize = 2;
}

/// The facts about one dataset that detectors share, each computed on first use. A run keeps
/// its own; agents analysing one dataset together read those of their [`FindingsCache`], so
/// each fact is computed once for all of them.
#[derive(Debug, Default)]
pub(crate) struct Facts {
    /// The object category of every contract.
    categories: OnceLock<Vec<Category>>,
    /// One scan of every object text.
    texts: OnceLock<Vec<TextScan>>,
    /// Every organ's monthly series, and what the dates say about the span covered.
    months: OnceLock<(Grid, Vec<OrganMonths>)>,
    coverage: OnceLock<Coverage>,
    /// Dense ids of the supplier documents and of the organ codes.
    suppliers: OnceLock<Interned>,
    organs: OnceLock<Interned>,
    /// Contracts grouped by organ and signing year.
    organ_years: OnceLock<Vec<OrganYear>>,
    /// The peer groups learned from the object texts (the costliest shared fact).
    object_groups: OnceLock<ObjectGroups>,
    /// Why each contract is outside the competitive market, if it is.
    outside: OnceLock<Vec<Option<Outside>>>,
}

/// Lazily computed facts about one dataset.
pub struct Shared<'a> {
    ds: &'a Dataset,
    /// Whose facts these are when several agents analyse the dataset.
    across: Option<&'a FindingsCache>,
    /// This run's own facts, when there is no findings cache.
    own: Facts,
}

/// The contracts of one organ in one signing year.
#[derive(Debug, Clone)]
pub struct OrganYear {
    /// SIAFI code (shared with the contracts).
    pub organ: ArcStr,
    /// Signing year.
    pub year: i32,
    /// Contract indices, in dataset order.
    pub members: Vec<u32>,
}

impl<'a> Shared<'a> {
    /// Nothing computed yet.
    pub fn new(ds: &'a Dataset) -> Self {
        Self::with_cache(ds, None)
    }

    /// Nothing computed yet; the facts come from (or go into) `across`, which must belong to
    /// this dataset.
    pub fn with_cache(ds: &'a Dataset, across: Option<&'a FindingsCache>) -> Self {
        Self { ds, across, own: Facts::default() }
    }

    /// Where the facts are kept: in the findings cache when agents share one, else in this
    /// run's own.
    fn facts(&self) -> &Facts {
        self.across.map_or(&self.own, |cache| &cache.facts)
    }

    /// The dataset.
    pub fn dataset(&self) -> &'a Dataset {
        self.ds
    }

    /// The object category of every contract (linear; split over the available cores for
    /// large datasets).
    pub fn categories(&self, cancel: &CancelFlag) -> Result<&[Category], AnalysisError> {
        cancel.check()?;
        Ok(self.facts().categories.get_or_init(|| par_map(&self.ds.contracts, |c| categorise(&c.object))))
    }

    /// One scan of every object text for the text detectors (linear; split over the cores).
    pub fn texts(&self, cancel: &CancelFlag) -> Result<&[TextScan], AnalysisError> {
        cancel.check()?;
        let compute = || {
            par_map(&self.ds.contracts, |c| {
                let (content, specific) = specificity(&c.object, TextScan::SPECIFIC_CAP);
                TextScan { has_content: content > 0, specific: specific as u8, brand: may_name_brand(&c.object) }
            })
        };
        Ok(self.facts().texts.get_or_init(compute))
    }

    /// Why each contract is outside the competitive market, if it is ([`super::market`]):
    /// read once per analysis (it folds every object and supplier name) for the detectors
    /// that leave utilities, leases and public bodies out; split over the cores.
    pub fn outside(&self) -> &[Option<Outside>] {
        self.facts().outside.get_or_init(|| outside_all(&self.ds.contracts, threads_for(self.ds.contracts.len())))
    }

    /// The peer groups learned from the object texts and item descriptions
    /// ([`super::peer_groups`]). Built without cancellation inside, so a cancelled first caller
    /// never leaves a half-built value for the others.
    pub fn object_groups(&self, cancel: &CancelFlag) -> Result<&ObjectGroups, AnalysisError> {
        cancel.check()?;
        Ok(self.facts().object_groups.get_or_init(|| learn(self.ds, &CancelFlag::new()).unwrap_or_default()))
    }

    /// Dense ids of the supplier documents.
    pub fn suppliers(&self) -> &Interned {
        self.facts().suppliers.get_or_init(|| Interned::of(self.ds.contracts.iter().map(|c| &c.supplier.document)))
    }

    /// Dense ids of the organ codes.
    pub fn organs(&self) -> &Interned {
        self.facts().organs.get_or_init(|| Interned::of(self.ds.contracts.iter().map(|c| &c.organ.code)))
    }

    /// Calls `f(side, id, members)` for each supplier, then each organ, with at least `min`
    /// contracts that `keep` accepts (`members`, in dataset order, are those contracts).
    /// Checks `cancel` before each side. Linear.
    pub fn for_each_entity(
        &self,
        cancel: &CancelFlag,
        min: usize,
        keep: impl Fn(usize) -> bool,
        mut f: impl FnMut(Side, &str, &[u32]),
    ) -> Result<(), AnalysisError> {
        let mut members: Vec<u32> = Vec::new();
        for (side, interned) in [(Side::Supplier, self.suppliers()), (Side::Organ, self.organs())] {
            cancel.check()?;
            let (order, start) = interned.groups();
            for (k, id) in interned.names.iter().enumerate() {
                members.clear();
                members.extend(order[start[k] as usize..start[k + 1] as usize].iter().filter(|&&i| keep(i as usize)));
                if members.len() >= min {
                    f(side, id, &members);
                }
            }
        }
        Ok(())
    }

    /// Contracts grouped by (organ code, signing year), in that order (the same groups as
    /// [`super::common::by_organ_year`]: contracts without an organ code, a signing date or a
    /// positive value are left out). Linear plus a sort of the keys.
    pub fn organ_years(&self) -> &[OrganYear] {
        self.facts().organ_years.get_or_init(|| {
            let organs = self.organs();
            let mut keyed: Vec<(u64, u32)> = self
                .ds
                .contracts
                .iter()
                .enumerate()
                .filter_map(|(i, c)| {
                    let id = organs.ids[i];
                    let d = c.signed_on?;
                    let ok = id != NONE && c.value() > 0.0 && c.value().is_finite();
                    ok.then(|| ((u64::from(id) << 32) | u64::from(d.year() as u32), i as u32))
                })
                .collect();
            keyed.sort_unstable();
            let mut out: Vec<OrganYear> = Vec::new();
            for (key, i) in keyed {
                let organ = &organs.names[(key >> 32) as usize];
                let year = (key & 0xFFFF_FFFF) as u32 as i32;
                match out.last_mut() {
                    Some(g) if g.organ == *organ && g.year == year => g.members.push(i),
                    _ => out.push(OrganYear { organ: organ.clone(), year, members: vec![i] }),
                }
            }
            out.sort_by(|a, b| (&a.organ, a.year).cmp(&(&b.organ, b.year)));
            out
        })
    }

    /// What the dataset's dates say about the span it covers ([`Coverage::of`] over the shared
    /// grid), read by every series detector and computed once.
    pub fn coverage(&self, cancel: &CancelFlag) -> Result<&Coverage, AnalysisError> {
        let (grid, series) = self.organ_months(cancel)?;
        Ok(self.facts().coverage.get_or_init(|| Coverage::of(self.ds, grid, series)))
    }

    /// Every organ's monthly series on the shared grid ([`organ_months`]).
    pub fn organ_months(&self, cancel: &CancelFlag) -> Result<&(Grid, Vec<OrganMonths>), AnalysisError> {
        cancel.check()?;
        // Built without cancellation inside (it is one quick pass), so a cancelled first caller
        // never leaves a half-built value for the others; it cannot fail otherwise.
        Ok(self.facts().months.get_or_init(|| {
            organ_months(self.ds, &CancelFlag::new()).unwrap_or((Grid { first: 0, len: 0 }, Vec::new()))
        }))
    }
}

/// Threads for a per-contract pass over `n` contracts: one below [`PARALLEL_FROM`], else the
/// available cores (at most 8).
pub fn threads_for(n: usize) -> usize {
    if n < PARALLEL_FROM { 1 } else { super::common::cores().clamp(1, 8) }
}

/// `f` over every contract, in order, split over the available cores for large datasets.
fn par_map<T: Send>(cs: &[Contract], f: impl Fn(&Contract) -> T + Sync) -> Vec<T> {
    par_ranges(cs.len(), threads_for(cs.len()), |from, to| cs[from..to].iter().map(&f).collect())
}

/// `part(from, to)` over `0..n` cut into `threads` consecutive ranges run on their own
/// threads, the parts concatenated in order (one range on the calling thread when `threads`
/// is 1).
pub fn par_ranges<T: Send>(n: usize, threads: usize, part: impl Fn(usize, usize) -> Vec<T> + Sync) -> Vec<T> {
    let mut parts = par_parts(n, threads, part);
    if parts.len() == 1 {
        return parts.pop().unwrap_or_default();
    }
    let mut out = Vec::with_capacity(n);
    for p in parts {
        out.extend(p);
    }
    out
}

/// `part(from, to)` over `0..n` cut into at most `threads` consecutive ranges run on their own
/// threads: one result per range, in order (a single range, on the calling thread, when
/// `threads` is 1 or `n` below 2).
pub fn par_parts<T: Send>(n: usize, threads: usize, part: impl Fn(usize, usize) -> T + Sync) -> Vec<T> {
    if threads <= 1 || n < 2 {
        return vec![part(0, n)];
    }
    let chunk = n.div_ceil(threads);
    let ranges: Vec<(usize, usize)> = (0..n).step_by(chunk).map(|from| (from, (from + chunk).min(n))).collect();
    par_each(ranges, threads, |(from, to)| part(from, to))
}

/// `f` over every item on `threads` worker threads, each taking the next item when it is
/// free (an item is dropped as soon as its worker is done with it); the results in the
/// items' order.
pub fn par_each<I: Send, T: Send>(items: Vec<I>, threads: usize, f: impl Fn(I) -> T + Sync) -> Vec<T> {
    if threads <= 1 || items.len() < 2 {
        return items.into_iter().map(f).collect();
    }
    let count = items.len();
    let slots: Vec<std::sync::Mutex<Option<I>>> = items.into_iter().map(|i| std::sync::Mutex::new(Some(i))).collect();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let (f, slots, next) = (&f, &slots, &next);
    let mut done: Vec<(usize, T)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads.min(count))
            .map(|_| {
                s.spawn(move || {
                    let mut out = Vec::new();
                    loop {
                        let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(slot) = slots.get(k) else { break };
                        let item = slot.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take();
                        if let Some(item) = item {
                            out.push((k, f(item)));
                        }
                    }
                    out
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))).collect()
    });
    done.sort_unstable_by_key(|d| d.0);
    done.into_iter().map(|d| d.1).collect()
}

#[cfg(test)]
#[path = "shared_tests.rs"]
mod tests;
