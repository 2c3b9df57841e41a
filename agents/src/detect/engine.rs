//! The detection engine: one code path for every entry point (the CLI's `vigia detect`, the
//! agents, the HTTP API). Runs the named detectors, keeps the anomaly types asked for, drops
//! findings below the confidence threshold and orders the rest.

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::sync::{Arc, Condvar, Mutex, PoisonError};

use crate::cancel::{AnalysisError, CancelFlag};

use crate::detect::context::AnalysisContext;
use crate::detect::findings::FindingsCache;
use crate::detect::{self, Detector};
use crate::model::anomaly::Anomaly;
use crate::model::dataset::Dataset;
use crate::model::params::DetectionParams;
use crate::model::report::Summary;

/// Datasets at least this large run their detectors on parallel threads.
const PARALLEL_FROM: usize = 20_000;

/// Runs the named detectors one at a time for an agent, reporting progress after each and
/// checking cancellation between them; returns their anomalies sorted by [`order`], shared
/// with the context's [`FindingsCache`] (no finding is copied).
pub fn detect_each(ctx: &AnalysisContext<'_>, names: &[&str]) -> Result<Vec<Arc<Anomaly>>, AnalysisError> {
    let batches: Vec<&[&str]> = names.iter().map(std::slice::from_ref).collect();
    detect_batches(ctx, &batches, 1.0)
}

/// Runs batches of named detectors for an agent, reporting progress from 0 up to `upto` (the
/// rest of the agent's work takes it to 1) after each batch and checking cancellation between
/// them; returns their anomalies sorted by [`order`]. The facts detectors share are computed
/// once for the whole run, and each detector's findings come from the context's
/// [`FindingsCache`] when the agent runs beside others over the same dataset.
pub fn detect_batches(
    ctx: &AnalysisContext<'_>,
    batches: &[&[&str]],
    upto: f32,
) -> Result<Vec<Arc<Anomaly>>, AnalysisError> {
    (ctx.progress)(0.0);
    let shared = detect::shared::Shared::with_cache(ctx.dataset, ctx.findings);
    let mut anomalies = Vec::new();
    for (k, batch) in batches.iter().enumerate() {
        ctx.cancel.check()?;
        anomalies.extend(run(&shared, ctx.params, ctx.cancel, batch, ctx.findings)?);
        (ctx.progress)(upto * (k + 1) as f32 / batches.len() as f32);
    }
    sort(&mut anomalies);
    Ok(anomalies)
}

/// [`detect`] for an agent: the named detectors (every one when `names` is empty) in
/// parallel, each detector's findings shared through the context's [`FindingsCache`].
pub fn detect_for(ctx: &AnalysisContext<'_>, names: &[&str]) -> Result<Vec<Arc<Anomaly>>, AnalysisError> {
    run(&detect::shared::Shared::with_cache(ctx.dataset, ctx.findings), ctx.params, ctx.cancel, names, ctx.findings)
}

/// Runs the named detectors (every detector when `detectors` is empty) and returns the
/// anomalies of the wanted types with confidence at or above `p.confidence_threshold`, sorted
/// by [`order`]. An unknown detector name is `InvalidInput`.
pub fn detect(
    ds: &Dataset,
    p: &DetectionParams,
    cancel: &CancelFlag,
    detectors: &[&str],
) -> Result<Vec<Anomaly>, AnalysisError> {
    // Facts several detectors need (categories, monthly series) are computed once, on first use.
    let found = run(&detect::shared::Shared::new(ds), p, cancel, detectors, None)?;
    // Without a cache nothing else holds them: each `Arc` is unwrapped, not copied.
    Ok(found.into_iter().map(|a| Arc::try_unwrap(a).unwrap_or_else(|a| (*a).clone())).collect())
}

/// [`detect`] over facts already shared, each detector's findings read from `cache` when given
/// (and computed into it otherwise).
fn run(
    shared: &detect::shared::Shared<'_>,
    p: &DetectionParams,
    cancel: &CancelFlag,
    detectors: &[&str],
    cache: Option<&FindingsCache>,
) -> Result<Vec<Arc<Anomaly>>, AnalysisError> {
    let chosen: Vec<Box<dyn Detector>> = if detectors.is_empty() {
        detect::all()
    } else {
        detectors
            .iter()
            .map(|n| detect::by_name(n).ok_or_else(|| AnalysisError::InvalidInput(format!("unknown detector '{n}'"))))
            .collect::<Result<_, _>>()?
    };
    let chosen: Vec<Box<dyn Detector>> = chosen.into_iter().filter(|d| p.wants(d.kind())).collect();
    cancel.check()?;
    let one = |d: &dyn Detector| -> Result<Vec<Arc<Anomaly>>, AnalysisError> {
        let compute = || {
            let found = SLOTS.run(|| d.run_shared(shared, p, cancel))?;
            Ok(found
                .into_iter()
                .filter(|a| p.wants(a.kind) && a.confidence >= p.confidence_threshold)
                .map(Arc::new)
                .collect())
        };
        match cache {
            // The findings stay in the cache; each agent holds its own references to them.
            Some(c) => c.get_or_compute(d.name(), p, compute).map(|found| found.as_ref().clone()),
            None => compute(),
        }
    };
    let results = if chosen.len() > 1 && shared.dataset().len() >= PARALLEL_FROM {
        on_workers(&chosen, one)
    } else {
        chosen.iter().map(|d| one(d.as_ref())).collect()
    };
    let mut out = Vec::new();
    for r in results {
        out.extend(r?);
    }
    sort(&mut out);
    Ok(out)
}

/// Detector runs in progress in this process, at most one per core: agents and analyses
/// running at the same time queue here instead of adding their working memory together
/// (on two cores, more at once buys no time).
static SLOTS: Slots = Slots { busy: Mutex::new(0), free: Condvar::new() };

/// A counting gate over the cores.
struct Slots {
    busy: Mutex<usize>,
    free: Condvar,
}

impl Slots {
    /// Runs `f` once fewer detectors than cores are running.
    fn run<T>(&'static self, f: impl FnOnce() -> T) -> T {
        struct Release(&'static Slots);
        impl Drop for Release {
            fn drop(&mut self) {
                *self.0.busy.lock().unwrap_or_else(PoisonError::into_inner) -= 1;
                self.0.free.notify_one();
            }
        }
        let cores = detect::common::cores();
        let mut busy = self.busy.lock().unwrap_or_else(PoisonError::into_inner);
        while *busy >= cores {
            busy = self.free.wait(busy).unwrap_or_else(PoisonError::into_inner);
        }
        *busy += 1;
        drop(busy);
        let _release = Release(self);
        f()
    }
}

/// Runs `one` over every detector on as many worker threads as the machine has cores, each
/// taking the next detector when it is free (the slow ones first); results come back in the
/// detectors' order. At
/// most that many detectors hold their working memory at once (running all of them at once
/// on two cores buys no time and adds their peaks together).
fn on_workers(
    chosen: &[Box<dyn Detector>],
    one: impl Fn(&dyn Detector) -> Result<Vec<Arc<Anomaly>>, AnalysisError> + Sync,
) -> Vec<Result<Vec<Arc<Anomaly>>, AnalysisError>> {
    let workers = detect::common::cores().clamp(1, chosen.len().max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    // The slowest detectors first, so none of them runs alone at the end.
    let mut queue: Vec<usize> = (0..chosen.len()).collect();
    queue.sort_by_key(|&k| !chosen[k].slow());
    let queue = &queue;
    let mut results: Vec<Option<Result<Vec<Arc<Anomaly>>, AnalysisError>>> = chosen.iter().map(|_| None).collect();
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                s.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let at = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(&k) = queue.get(at) else { break };
                        done.push((k, one(chosen[k].as_ref())));
                    }
                    done
                })
            })
            .collect();
        for h in handles {
            for (k, r) in h.join().unwrap_or_default() {
                results[k] = Some(r);
            }
        }
    });
    let panicked = || Err(AnalysisError::InvalidInput("a detector panicked".into()));
    results.into_iter().map(|r| r.unwrap_or_else(panicked)).collect()
}

/// The order of reported anomalies: severity (most severe first), then money at stake
/// (largest first), then id.
pub fn order(a: &Anomaly, b: &Anomaly) -> Ordering {
    b.severity
        .cmp(&a.severity)
        .then_with(|| b.value_at_stake().total_cmp(&a.value_at_stake()))
        .then_with(|| a.id.cmp(&b.id))
}

/// Sorts anomalies by [`order`], reading each one's severity and money at stake once (a
/// comparison by [`order`] looks the money up in the technical details twice): the same order,
/// ties included (the sort is stable and the ids break the remaining ties as [`order`] does).
/// Sorts owned anomalies or shared ones alike.
pub fn sort<A: Borrow<Anomaly>>(anomalies: &mut Vec<A>) {
    if anomalies.len() < 2 {
        return;
    }
    let mut keyed: Vec<(crate::model::anomaly::Severity, f64, usize)> =
        anomalies.iter().enumerate().map(|(k, a)| (a.borrow().severity, a.borrow().value_at_stake(), k)).collect();
    if keyed.windows(2).all(|w| key_order(&w[0], &w[1], anomalies) != Ordering::Greater) {
        return;
    }
    keyed.sort_by(|a, b| key_order(a, b, anomalies));
    let mut slots: Vec<Option<A>> = anomalies.drain(..).map(Some).collect();
    anomalies.extend(keyed.iter().filter_map(|k| slots[k.2].take()));
}

/// [`order`] over the keys [`sort`] read once.
fn key_order<A: Borrow<Anomaly>>(
    a: &(crate::model::anomaly::Severity, f64, usize),
    b: &(crate::model::anomaly::Severity, f64, usize),
    all: &[A],
) -> Ordering {
    b.0.cmp(&a.0).then_with(|| b.1.total_cmp(&a.1)).then_with(|| all[a.2].borrow().id.cmp(&all[b.2].borrow().id))
}

/// Every detector over the dataset, with the spec's summary: what `vigia detect` prints.
pub fn analyse(
    ds: &Dataset,
    p: &DetectionParams,
    cancel: &CancelFlag,
) -> Result<(Vec<Anomaly>, Summary), AnalysisError> {
    let anomalies = detect(ds, p, cancel, &[])?;
    let summary = Summary::of(&anomalies);
    Ok((anomalies, summary))
}

#[cfg(test)]
#[path = "engine_tests.rs"]
mod tests;
