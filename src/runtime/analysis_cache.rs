//! Agent outputs of recent analyses, kept by what determines them: the dataset's content (a
//! SHA-256 of its records), the agent and the detection parameters. An agent's output is a
//! pure function of those (anomaly ids are derived from the data, outputs carry no clock), so
//! an investigation over data another one analysed moments ago takes that agent's output
//! instead of running it again: the spec's in-memory cache tier (five minutes by default,
//! `agents.analysis_cache_ttl_secs`, 0 turns it off). Bounded by entries and by the anomalies
//! held, so a million-record analysis never sits here.
//!
//! Beside the outputs, the same tier keeps the datasets recent runs filtered out of records
//! named by a content key (a question's year or value bounds over the demo data or a cached
//! upstream answer): a run asking the same filters of the same records shares that dataset
//! instead of copying and filtering the records again. Bounded by entries and records; a
//! dataset of more than ten thousand records is not kept.

use std::io::Write;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use sha2::{Digest, Sha256};
use vigia_agents::{AgentId, AgentOutput, Dataset, DetectionParams};

use crate::domain::bounded::BoundedCache;

/// Most outputs kept.
const ENTRIES: usize = 512;
/// Most anomalies kept, all outputs together; a larger output is not kept.
const ANOMALIES: usize = 50_000;

/// Most filtered datasets kept.
const DATASETS: usize = 32;
/// Most records kept in filtered datasets, all together.
const DATASET_RECORDS: usize = 50_000;
/// Largest filtered dataset kept: filtering is worth saving only where the rest of a run is
/// cheap (small data, agents answered from the cache); a large one would hold memory for the
/// time to live to save a small part of a long run.
const DATASET_MAX: usize = 10_000;

/// The content hash of a dataset (its records as the engine sees them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Fingerprint([u8; 32]);

impl Fingerprint {
    /// Hashes every record of `ds` (streamed into the hash, never held as text).
    pub fn of(ds: &Dataset) -> Option<Self> {
        struct Hashing(Sha256);
        impl Write for Hashing {
            fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                self.0.update(buf);
                Ok(buf.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let mut h = Hashing(Sha256::new());
        serde_json::to_writer(&mut h, ds).ok()?;
        Some(Fingerprint(h.0.finalize().into()))
    }

    /// The hash of records named exactly by `key` (see `Provenance::content_key`) once
    /// `filters` (anything serialisable that narrowed them) were applied.
    pub fn of_key(key: &str, filters: &impl serde::Serialize) -> Option<Self> {
        let mut h = Sha256::new();
        h.update(key.as_bytes());
        h.update(b"|");
        h.update(serde_json::to_vec(filters).ok()?);
        Some(Fingerprint(h.finalize().into()))
    }
}

/// What every agent's output in one run depends on besides the agent: the records and the
/// parameters (made once per run, not once per agent).
pub(crate) struct RunKey(String);

impl RunKey {
    pub fn of(data: Fingerprint, params: &DetectionParams) -> Self {
        RunKey(format!("{}|{}|", hex::encode(data.0), params.cache_key()))
    }

    /// The key of `agent`'s output in this run.
    fn with(&self, agent: AgentId) -> String {
        let mut key = String::with_capacity(self.0.len() + 16);
        key.push_str(&self.0);
        key.push_str(agent.as_str());
        key
    }
}

/// Recent agent outputs, weighed by their anomalies (shared with the runs that use them: an
/// investigation takes an output held here into its results without copying a finding).
pub(crate) struct AnalysisCache {
    ttl: Duration,
    kept: Mutex<BoundedCache<Arc<AgentOutput>>>,
    filtered: Mutex<BoundedCache<Arc<Dataset>>>,
}

impl AnalysisCache {
    /// A cache keeping outputs for `ttl` (zero keeps nothing).
    pub fn new(ttl: Duration) -> Self {
        AnalysisCache {
            ttl,
            kept: Mutex::new(BoundedCache::new(ENTRIES, ANOMALIES)),
            filtered: Mutex::new(BoundedCache::new(DATASETS, DATASET_RECORDS)),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BoundedCache<Arc<AgentOutput>>> {
        self.kept.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The output `agent` gave over the same data and parameters within the time to live.
    pub fn get(&self, run: &RunKey, agent: AgentId) -> Option<Arc<AgentOutput>> {
        if self.ttl.is_zero() {
            return None;
        }
        let found = self.lock().get(&run.with(agent), self.ttl);
        metrics::counter!("vigia_analysis_cache_total", "result" => if found.is_some() { "hit" } else { "miss" })
            .increment(1);
        found
    }

    /// Keeps `out`, the output of `agent` over the data and parameters, dropping the oldest
    /// and the expired outputs beyond the bounds; an output over a tenth of the anomaly bound
    /// is not kept.
    pub fn put(&self, run: &RunKey, agent: AgentId, out: &AgentOutput) {
        if self.ttl.is_zero() || out.anomalies.len() > ANOMALIES / 10 {
            return;
        }
        let key = run.with(agent);
        // The anomalies are shared with the run that put them, not copied.
        self.lock().insert(key, Arc::new(out.clone()), out.anomalies.len(), self.ttl);
    }

    /// The dataset kept, within the time to live, as filtered out of the records fingerprinted
    /// `data`; `None` for records without a content key or with the cache off.
    pub fn kept_filtered(&self, data: Option<Fingerprint>) -> Option<Arc<Dataset>> {
        let data = data.filter(|_| !self.ttl.is_zero())?;
        self.filtered.lock().unwrap_or_else(PoisonError::into_inner).get(&hex::encode(data.0), self.ttl)
    }

    /// The dataset filtered out of the records fingerprinted `data` (by their content key and
    /// the filters): the one kept within the time to live, else `filter()`'s, then kept.
    /// Records without a content key (`None`) are filtered each time.
    pub fn filtered(&self, data: Option<Fingerprint>, filter: impl FnOnce() -> Arc<Dataset>) -> Arc<Dataset> {
        if let Some(kept) = self.kept_filtered(data) {
            return kept;
        }
        let dataset = filter();
        if let Some(data) = data.filter(|_| !self.ttl.is_zero() && dataset.len() <= DATASET_MAX) {
            let mut kept = self.filtered.lock().unwrap_or_else(PoisonError::into_inner);
            kept.insert(hex::encode(data.0), dataset.clone(), dataset.len(), self.ttl);
        }
        dataset
    }

    /// Outputs and anomalies held now.
    #[cfg(test)]
    fn size(&self) -> (usize, usize) {
        self.lock().size()
    }
}

#[cfg(test)]
#[path = "analysis_cache_tests.rs"]
mod tests;
