//! Findings shared by the agents of one analysis: each detector runs once per dataset and
//! parameters, however many agents ask for it.
//!
//! Several agents use the same detectors (obaluaie reads every one of them; zumbi and
//! anita share price and pattern tests with oxossi). When an orchestrator runs the agents
//! over one dataset in parallel it gives them one [`FindingsCache`]: the first agent to need a
//! detector computes it while the others wait on that entry's lock, then all read the
//! result. A failed or cancelled computation is not kept, so the next caller tries again.
//! The facts several detectors read ([`crate::detect::shared::Shared`]: object categories,
//! text scans, market exclusions, learned peer groups, supplier and organ ids, monthly
//! series) are kept here too, so agents that run different detectors still compute them once.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use crate::cancel::AnalysisError;
use crate::detect::shared::Facts;
use crate::model::anomaly::Anomaly;
use crate::model::params::DetectionParams;

type Slot = Arc<Mutex<Option<Arc<Vec<Arc<Anomaly>>>>>>;

/// Each detector's findings over one dataset, keyed by detector and parameters, and the
/// per-contract facts the detectors share ([`crate::detect::shared::Shared`] reads them here
/// when it is given the cache).
#[derive(Debug, Default)]
pub struct FindingsCache {
    slots: Mutex<HashMap<String, Slot>>,
    /// The facts the detectors share over the dataset (categories, text scans, market
    /// exclusions, peer groups, ids, series).
    pub(crate) facts: Facts,
}

impl FindingsCache {
    /// An empty cache, for one dataset.
    pub fn new() -> Self {
        Self::default()
    }

    /// The findings of detector `name` under `params`: computed by `compute` on the first call,
    /// read from the cache afterwards (a concurrent caller waits for the first computation).
    pub fn get_or_compute(
        &self,
        name: &str,
        params: &DetectionParams,
        compute: impl FnOnce() -> Result<Vec<Arc<Anomaly>>, AnalysisError>,
    ) -> Result<Arc<Vec<Arc<Anomaly>>>, AnalysisError> {
        let key = format!("{name}|{}", params.cache_key());
        let slot = self.slots.lock().unwrap_or_else(PoisonError::into_inner).entry(key).or_default().clone();
        let mut entry = slot.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(found) = entry.as_ref() {
            return Ok(found.clone());
        }
        let found = Arc::new(compute()?);
        *entry = Some(found.clone());
        Ok(found)
    }

    /// How many detector results it holds.
    pub fn len(&self) -> usize {
        let slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
        slots.values().filter(|s| s.lock().unwrap_or_else(PoisonError::into_inner).is_some()).count()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    #[test]
    fn concurrent_callers_share_one_computation_per_detector_and_parameters() {
        let cache = FindingsCache::new();
        let runs = AtomicUsize::new(0);
        let params = DetectionParams::default();
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    let found = cache
                        .get_or_compute("price_zscore", &params, || {
                            runs.fetch_add(1, Ordering::SeqCst);
                            std::thread::sleep(std::time::Duration::from_millis(20));
                            Ok(Vec::new())
                        })
                        .unwrap();
                    assert!(found.is_empty());
                });
            }
        });
        assert_eq!(runs.load(Ordering::SeqCst), 1);
        let other = DetectionParams { sensitivity: 0.9, ..DetectionParams::default() };
        cache.get_or_compute("price_zscore", &other, || Ok(Vec::new())).unwrap();
        assert_eq!(cache.len(), 2);
    }

    #[test]
    fn a_failed_computation_is_not_kept() {
        let cache = FindingsCache::new();
        let params = DetectionParams::default();
        let e = cache.get_or_compute("end_of_year", &params, || Err(AnalysisError::Cancelled));
        assert!(matches!(e, Err(AnalysisError::Cancelled)));
        assert!(cache.is_empty());
        assert!(cache.get_or_compute("end_of_year", &params, || Ok(Vec::new())).is_ok());
        assert_eq!(cache.len(), 1);
    }
}
