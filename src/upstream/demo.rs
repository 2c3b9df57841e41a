//! Demo data: the synthetic generator behind the provider, in demo mode and as the fallback
//! when the upstream fails (the provenance then says why).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use chrono::Utc;
use vigia_agents::demo::{DemoSpec, Flavour, generate_until};

use super::Provider;
use crate::config::DemoConfig;
use crate::domain::investigation::Provenance;
use crate::domain::ports::{DataBatch, DataQuery, PortError};

impl Provider {
    /// Generates demo data on the blocking pool (it is CPU-bound: about a second per million
    /// contracts in release). Dropping the future (a run aborted at shutdown, a cancelled
    /// investigation) stops the generation at its next chunk instead of letting it run on.
    pub(super) async fn demo_batch_async(
        &self,
        q: &DataQuery,
        organs: Vec<String>,
        fallback_reason: Option<String>,
    ) -> Result<DataBatch, PortError> {
        let spec = demo_spec(&self.demo, q, organs);
        // A dataset generated before answers at once; only a generation takes a blocking thread.
        if let Some(dataset) = generated::get(&spec) {
            return Ok(batch_of(&spec, dataset, true, fallback_reason));
        }
        let stop = StopOnDrop(Arc::new(AtomicBool::new(false)));
        let flag = stop.0.clone();
        let batch = tokio::task::spawn_blocking(move || {
            // A long computation: below the threads that serve requests and turns.
            crate::priority::lower_this_thread();
            demo_batch_until(spec, fallback_reason, &|| flag.load(Ordering::Relaxed))
        })
        .await
        .map_err(|e| PortError::Data(format!("demo data generation failed: {e}")))?;
        drop(stop);
        batch.ok_or_else(|| PortError::Data("demo data generation was stopped".into()))
    }

    /// Demo data for `vigia investigate --records N` and direct agent calls.
    pub fn demo(&self, q: &DataQuery, records: usize, seed: u64) -> DataBatch {
        let organs = self.organs(q);
        match demo_batch_until(demo_spec(&DemoConfig { seed, records }, q, organs), None, &|| false) {
            Some(batch) => batch,
            // Never asked to stop: the generation always completes.
            None => DataBatch { dataset: Default::default(), provenance: demo_provenance(None) },
        }
    }
}

/// What demo generation a query asks for (organs only when the query names some).
fn demo_spec(demo: &DemoConfig, q: &DataQuery, organs: Vec<String>) -> DemoSpec {
    DemoSpec {
        seed: demo.seed,
        contracts: demo.records,
        organ_codes: if q.intent.organ_codes.is_empty() && q.filters.organizations.is_empty() {
            Vec::new()
        } else {
            organs
        },
        year: q.intent.year,
    }
}

/// The demo dataset of `spec`, generated unless kept (`None` when `stop` stopped it).
fn demo_batch_until(
    spec: DemoSpec,
    fallback_reason: Option<String>,
    stop: &(dyn Fn() -> bool + Sync),
) -> Option<DataBatch> {
    if let Some(cached) = generated::get(&spec) {
        return Some(batch_of(&spec, cached, true, fallback_reason));
    }
    let dataset = Arc::new(generate_until(&spec, Flavour::Normal, stop)?.dataset);
    let batch = batch_of(&spec, dataset.clone(), false, fallback_reason);
    generated::put(spec, &dataset);
    Some(batch)
}

/// The batch of `spec`'s dataset, named by its content key.
fn batch_of(
    spec: &DemoSpec,
    dataset: Arc<vigia_agents::Dataset>,
    cache_hit: bool,
    fallback: Option<String>,
) -> DataBatch {
    let mut provenance = demo_provenance(fallback);
    provenance.cache_hit = cache_hit;
    provenance.content_key = Some(format!("demo|{spec:?}"));
    DataBatch { dataset, provenance }
}

/// Demo datasets already generated. Generation is a pure function of its [`DemoSpec`] (seed,
/// size, organs, year), so identical questions in demo mode share one generation: they share
/// the one dataset, never copied. Bounded by entries and by
/// records held; the oldest entry goes first.
mod generated {
    use std::sync::{Arc, Mutex, PoisonError};
    use std::time::Duration;

    use vigia_agents::Dataset;
    use vigia_agents::demo::DemoSpec;

    use crate::domain::bounded::BoundedCache;

    /// Most datasets kept.
    const ENTRIES: usize = 32;
    /// Most records kept, all datasets together; a larger dataset is not kept.
    const RECORDS: usize = 200_000;
    /// Generated data never goes stale: only the bounds drop it.
    const FOREVER: Duration = Duration::MAX;

    static CACHE: Mutex<Option<BoundedCache<Arc<Dataset>>>> = Mutex::new(None);

    fn with<T>(f: impl FnOnce(&mut BoundedCache<Arc<Dataset>>) -> T) -> T {
        let mut c = CACHE.lock().unwrap_or_else(PoisonError::into_inner);
        f(c.get_or_insert_with(|| BoundedCache::new(ENTRIES, RECORDS)))
    }

    /// The dataset generated for `spec`, if kept.
    pub fn get(spec: &DemoSpec) -> Option<Arc<Dataset>> {
        with(|c| c.get(&format!("{spec:?}"), FOREVER))
    }

    /// Keeps a dataset generated for `spec` (shared with the batches that use it).
    pub fn put(spec: DemoSpec, dataset: &Arc<Dataset>) {
        if dataset.len() <= RECORDS {
            with(|c| c.insert(format!("{spec:?}"), dataset.clone(), dataset.len(), FOREVER));
        }
    }
}

/// Sets its flag when dropped: the generation it guards stops at its next check.
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Where demo data comes from.
fn demo_provenance(fallback_reason: Option<String>) -> Provenance {
    Provenance {
        source: "demo_data".into(),
        demo_mode: true,
        fetched_at: Some(Utc::now()),
        cache_hit: false,
        fallback_reason,
        ..Provenance::default()
    }
}

/// A dataset whose repeated texts (organs, units, suppliers, ...) are one allocation each.
pub(super) fn shared(mut dataset: vigia_agents::Dataset) -> vigia_agents::Dataset {
    dataset.share_text();
    dataset
}
