//! The bulk of an investigation's results (its anomalies with their evidence, the agents'
//! insights and recommendations: about 90 KB of JSON for 200 demo contracts) stored once per
//! content, however many investigations hold it. Runs answered from the analysis cache hold the
//! same findings as the run before them; storing each copy cost most of a run's CPU time
//! (serialising, deflating and writing 90 KB) for bytes the store already had.
//!
//! Three trees: `result_bodies` (SHA-256 of the body's JSON → the body, deflated),
//! `result_body_refs` (digest then investigation id → nothing: who holds a body) and
//! `result_body_of` (investigation id → the digest of the body its record leaves out). A body
//! goes when its last holder is pruned. Writes are ordered so that any prefix of them (what
//! sled recovers after a crash) leaves at worst a body or a reference that nothing needs, which
//! [`Store::sweep_bodies`] removes when the store opens; never a record whose body is missing.
//! The checks and writes of saving and releasing take one lock, so a body is never removed
//! between a save finding it present and that save's reference being written.
//!
//! Recent bodies are also kept decoded in memory (bounded by entries and JSON bytes): a body
//! never changes under its digest, and the investigations that share one are read back the
//! moment they finish (a chat answer reads its investigation's findings), so each read would
//! otherwise inflate and parse the same findings again. The latest bodies saved are remembered
//! with their digests: a run answered from the analysis cache holds the very findings (the same
//! shared anomalies) of the run before it, and is known by comparing them, without serialising
//! and hashing 90 KB again.

use std::sync::{Arc, Mutex, PoisonError};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use vigia_agents::model::anomaly::Anomaly;
use vigia_agents::model::report::Insight;

use super::codec::{encode_json, with_json};
use super::{StorageError, Store};
use crate::domain::bounded::{BoundedCache, Recent};
use crate::domain::investigation::{Progress, Provenance, Results};
use crate::domain::{ErrorInfo, Investigation, InvestigationId, InvestigationRequest, Status};

/// The part of the results stored apart, as written.
#[derive(Serialize)]
struct BodyOut<'a> {
    #[serde(with = "vigia_agents::model::report::shared_vec")]
    anomalies: &'a [Arc<Anomaly>],
    insights: &'a [Insight],
    recommendations: &'a [String],
}

/// The part of the results stored apart, as read.
#[derive(Deserialize)]
pub(super) struct BodyIn {
    #[serde(with = "vigia_agents::model::report::shared_vec")]
    anomalies: Vec<Arc<Anomaly>>,
    insights: Vec<Insight>,
    recommendations: Vec<String>,
}

/// SHA-256 of a body's JSON.
pub(super) type Digest32 = [u8; 32];

/// Most bodies kept decoded in memory.
const DECODED_BODIES: usize = 64;
/// Most JSON bytes of the bodies kept decoded, all together; a larger body is not kept.
const DECODED_BYTES: usize = 8 << 20;
/// Bodies never change under their digest: only the bounds drop them.
const FOREVER: std::time::Duration = std::time::Duration::MAX;

/// Latest bodies saved, remembered with their digests.
const RECENT_BODIES: usize = 8;

/// A body saved lately: its digest, the body and the length of its JSON.
type Saved = (Digest32, Arc<BodyIn>, usize);

/// Recent bodies, decoded, by the hex of their digest; and the latest saved, with theirs.
pub(super) struct DecodedBodies {
    by_digest: Mutex<BoundedCache<Arc<BodyIn>>>,
    recent: Recent<Saved>,
}

/// An empty [`DecodedBodies`] within its bounds.
pub(super) fn decoded_bodies() -> DecodedBodies {
    DecodedBodies {
        by_digest: Mutex::new(BoundedCache::new(DECODED_BODIES, DECODED_BYTES)),
        recent: Recent::new(RECENT_BODIES),
    }
}

impl DecodedBodies {
    /// The digest of `results`' body if it is one of the latest saved: the same anomalies (the
    /// shared values themselves, which cannot change while held here) and equal insights and
    /// recommendations.
    fn known(&self, results: &Results) -> Option<Saved> {
        self.recent.find_map(|saved| {
            let body = &saved.1;
            let same = body.anomalies.len() == results.anomalies.len()
                && body.anomalies.iter().zip(&results.anomalies).all(|(a, b)| Arc::ptr_eq(a, b))
                && body.insights == results.insights
                && body.recommendations == results.recommendations;
            same.then(|| saved.clone())
        })
    }

    /// Keeps a body decoded under `digest` (if within the bounds) and remembers it as saved.
    fn saved(&self, (digest, body, len): Saved) {
        if len > DECODED_BYTES {
            return;
        }
        let key = decoded_key(&digest);
        let mut decoded = self.by_digest.lock().unwrap_or_else(PoisonError::into_inner);
        if decoded.get(&key, FOREVER).is_none() {
            decoded.insert(key, body.clone(), len, FOREVER);
        }
        drop(decoded);
        // The latest holder of a digest replaces the one before: the same findings arrive as
        // other shared values once the analysis cache is refilled (concurrent runs that all
        // missed put theirs one after another), and the runs after it hold those.
        self.recent.remember((digest, body, len), |r| r.0 == digest);
    }
}

/// The key of a body in [`DecodedBodies`] (and how a missing one is named).
fn decoded_key(digest: &[u8]) -> String {
    hex::encode(digest)
}

/// Key of a reference: the body's digest, then the holder's id.
fn ref_key(digest: &Digest32, id: InvestigationId) -> [u8; 48] {
    let mut key = [0u8; 48];
    key[..32].copy_from_slice(digest);
    key[32..].copy_from_slice(id.0.as_bytes());
    key
}

impl Store {
    /// Stores the body of `results` unless the store has it already and records that `id`
    /// holds it (releasing the body the investigation held before, if another).
    pub(super) fn hold_body(&self, id: InvestigationId, results: &Results) -> Result<(), StorageError> {
        let body = BodyOut {
            anomalies: &results.anomalies,
            insights: &results.insights,
            recommendations: &results.recommendations,
        };
        if let Some(known) = self.decoded.known(results) {
            let digest = known.0;
            // Kept decoded again if the bounds had let it go.
            self.decoded.saved(known);
            return self.hold(id, digest, None, || with_json(&body, encode_json));
        }
        with_json(&body, |json| {
            let digest: Digest32 = Sha256::digest(json).into();
            let decoded = BodyIn {
                anomalies: results.anomalies.clone(),
                insights: results.insights.clone(),
                recommendations: results.recommendations.clone(),
            };
            self.decoded.saved((digest, Arc::new(decoded), json.len()));
            // Deflated before the lock is taken (the lock guards only the checks and writes).
            let deflated = if self.bodies.contains_key(digest)? { None } else { Some(encode_json(json)?) };
            self.hold(id, digest, deflated, || encode_json(json))
        })
    }

    /// Records that `id` holds the body `digest`, storing it (`deflated`, else `encode()`'s)
    /// unless the store has it, and releasing the body `id` held before, if another.
    fn hold(
        &self,
        id: InvestigationId,
        digest: Digest32,
        deflated: Option<Vec<u8>>,
        encode: impl FnOnce() -> Result<Vec<u8>, StorageError>,
    ) -> Result<(), StorageError> {
        let _guard = self.lock_bodies();
        let previous = self.body_of.get(id.0.as_bytes())?;
        if previous.as_deref() == Some(&digest[..]) {
            return Ok(());
        }
        // Body, then reference, then the pointer: a crash between them leaves a body or a
        // reference nobody points to, never a pointer without its body.
        if !self.bodies.contains_key(digest)? {
            let value = match deflated {
                Some(value) => value,
                // Not found before, or pruned since (its last holder went): stored again.
                None => encode()?,
            };
            self.bodies.insert(digest, value)?;
        }
        self.body_refs.insert(ref_key(&digest, id), &[])?;
        // Events that point to a batch of the body held before hold it whole first: once the
        // pointer moves, a crash could leave that body without holders, swept at the next open.
        if let Some(old) = &previous {
            self.inline_batches(id, old)?;
        }
        self.body_of.insert(id.0.as_bytes(), &digest[..])?;
        if let Some(old) = previous {
            self.release(id, &old)?;
        }
        Ok(())
    }

    /// Puts back into `inv` the body its record left out (records written before bodies were
    /// stored apart carry theirs inline and have none).
    pub(super) fn fill_body(&self, inv: &mut Investigation) -> Result<(), StorageError> {
        let Some(results) = inv.results.as_mut() else { return Ok(()) };
        let Some(digest) = self.body_of.get(inv.id.0.as_bytes())? else { return Ok(()) };
        let key = decoded_key(&digest);
        let kept = self.decoded_bodies().get(&key, FOREVER);
        let body = match kept {
            Some(body) => body,
            None => {
                let bytes = self.bodies.get(&digest)?.ok_or_else(|| StorageError::MissingBody(key.clone()))?;
                let json = super::codec::json_of(&bytes)?;
                let body: Arc<BodyIn> = Arc::new(serde_json::from_slice(&json)?);
                self.decoded_bodies().insert(key, body.clone(), json.len(), FOREVER);
                body
            }
        };
        results.anomalies = body.anomalies.clone();
        results.insights = body.insights.clone();
        results.recommendations = body.recommendations.clone();
        Ok(())
    }

    fn decoded_bodies(&self) -> std::sync::MutexGuard<'_, BoundedCache<Arc<BodyIn>>> {
        self.decoded.by_digest.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Drops `id`'s hold on its body (the body goes with its last holder).
    pub(super) fn drop_body(&self, id: InvestigationId) -> Result<(), StorageError> {
        let _guard = self.lock_bodies();
        if let Some(digest) = self.body_of.get(id.0.as_bytes())? {
            // Pruning removed the events first; any left get their batch back whole.
            self.inline_batches(id, &digest)?;
            self.body_of.remove(id.0.as_bytes())?;
            self.release(id, &digest)?;
        }
        Ok(())
    }

    /// The lock that the checks and writes of bodies (and of their shared batches) take.
    pub(super) fn lock_bodies(&self) -> std::sync::MutexGuard<'_, ()> {
        self.bodies_lock.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Removes `id`'s reference to `digest`, and the body (with its shared batches of events)
    /// when no reference is left. The caller holds the lock, and `id`'s events no longer point
    /// to those batches (both callers inline them before `id`'s pointer moves).
    fn release(&self, id: InvestigationId, digest: &[u8]) -> Result<(), StorageError> {
        let Ok(digest) = <Digest32>::try_from(digest) else { return Ok(()) };
        self.body_refs.remove(ref_key(&digest, id))?;
        if self.body_refs.scan_prefix(digest).next().is_none() {
            self.remove_batches(&digest)?;
            self.bodies.remove(digest)?;
        }
        Ok(())
    }

    /// Removes what an interrupted save or pruning left behind: pointers of investigations
    /// that no longer exist, references their investigation does not point back to, and
    /// bodies nobody references. Run when the store opens, before anything is served.
    pub(super) fn sweep_bodies(&self) -> Result<(), StorageError> {
        for kv in self.body_of.iter() {
            let (id, _) = kv?;
            if !self.investigations.contains_key(&id)? {
                self.body_of.remove(&id)?;
            }
        }
        for key in self.body_refs.iter().keys() {
            let key = key?;
            if self.body_of.get(&key[32..])?.as_deref() != Some(&key[..32]) {
                self.body_refs.remove(&key)?;
            }
        }
        for digest in self.bodies.iter().keys() {
            let digest = digest?;
            if self.body_refs.scan_prefix(&digest).next().is_none() {
                self.bodies.remove(&digest)?;
            }
        }
        Ok(())
    }
}

/// An investigation's record as stored: the investigation with its results' body left out
/// (held in `result_bodies`). Built by destructuring every field, so a field added to
/// [`Investigation`] or [`Results`] fails to compile here instead of being silently dropped.
#[derive(Serialize)]
struct RecordOut<'a> {
    id: &'a InvestigationId,
    user_id: &'a uuid::Uuid,
    request: &'a InvestigationRequest,
    params: &'a vigia_agents::DetectionParams,
    status: &'a Status,
    progress: &'a Progress,
    created_at: &'a chrono::DateTime<chrono::Utc>,
    started_at: &'a Option<chrono::DateTime<chrono::Utc>>,
    completed_at: &'a Option<chrono::DateTime<chrono::Utc>>,
    error: &'a Option<ErrorInfo>,
    results: Option<ResultsOut<'a>>,
}

/// [`Results`] without its body.
#[derive(Serialize)]
struct ResultsOut<'a> {
    summary: &'a vigia_agents::model::report::Summary,
    agents_used: &'a [String],
    agents_failed: &'a [(String, String)],
    agents_cached: &'a [String],
    records_analyzed: usize,
    execution_time_ms: u64,
    provenance: &'a Provenance,
    top_suppliers: &'a [(String, f64)],
}

/// The stored record of `inv` (its results' body is stored by [`Store::hold_body`]).
pub(super) fn encode_record(inv: &Investigation) -> Result<Vec<u8>, StorageError> {
    let Investigation {
        id,
        user_id,
        request,
        params,
        status,
        progress,
        created_at,
        started_at,
        completed_at,
        error,
        results,
    } = inv;
    let results = results.as_ref().map(|r| {
        let Results {
            anomalies: _,
            summary,
            insights: _,
            recommendations: _,
            agents_used,
            agents_failed,
            agents_cached,
            records_analyzed,
            execution_time_ms,
            provenance,
            top_suppliers,
        } = r;
        ResultsOut {
            summary,
            agents_used,
            agents_failed,
            agents_cached,
            records_analyzed: *records_analyzed,
            execution_time_ms: *execution_time_ms,
            provenance,
            top_suppliers,
        }
    });
    let record = RecordOut {
        id,
        user_id,
        request,
        params,
        status,
        progress,
        created_at,
        started_at,
        completed_at,
        error,
        results,
    };
    with_json(&record, encode_json)
}

#[cfg(test)]
#[path = "bodies_tests.rs"]
pub(super) mod tests;
