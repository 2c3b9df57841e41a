//! A large batch of events stored once per results body. A run the analysis cache answers
//! emits, in the write that also stores its results, the very batch of findings, insights and
//! progress (ten to twenty kilobytes of JSON, six deflated) of every run before it that found
//! the same: the same bytes, kept once per run, were a third of what a chat investigation
//! wrote, and sled wrote each of them three or four times again as its leaves split.
//!
//! `result_body_events` holds, under a body's digest followed by a hash of the batch, each
//! large batch that repeats (one [`super::event_batches`] encoded lately) stored by an
//! investigation holding that body; the events record of such an investigation is then that
//! key alone, under [`KINDS_SHARED`]. A batch seen once (a run streamed step by step, the first
//! run over a dataset), a batch of an investigation that holds no body yet, and a batch whose
//! hash another one has are stored whole, as before.
//!
//! Lifetimes follow the body's: only an investigation that holds a body points to its batches,
//! so they are needed while the body is; they go with the body's last holder, after that
//! holder's events went (pruning removes events first). An investigation that comes to hold
//! another body gets its pointers back as the batches themselves ([`Store::inline_batches`])
//! before its body pointer moves, so no crash leaves events pointing to the batch of a body
//! their investigation no longer holds (the sweep at open would remove it). The checks and
//! writes take the bodies' lock. Batch, then pointer: a crash between them leaves a batch its
//! body keeps, or that [`Store::sweep_batches`] removes with a body that is gone.

use std::hash::Hasher;

use super::codec::{KINDS_SHARED, holds_kinds};
use super::{StorageError, Store};
use crate::domain::InvestigationId;

/// Smallest stored batch worth sharing (a smaller one costs sled little to write).
const SHARE_FROM: usize = 1024;

/// Bytes of a body's digest, the first part of a shared batch's key.
const DIGEST: usize = size_of::<super::bodies::Digest32>();

/// The key of `batch` among the shared batches of the body `digest`.
fn batch_key(digest: &[u8], batch: &[u8]) -> Vec<u8> {
    let mut hash = rustc_hash::FxHasher::default();
    hash.write(batch);
    let mut key = Vec::with_capacity(DIGEST + 8);
    key.extend_from_slice(digest);
    key.extend_from_slice(&hash.finish().to_be_bytes());
    key
}

/// The events record pointing to the shared batch under `key`.
fn pointer(key: &[u8]) -> sled::IVec {
    let mut value = Vec::with_capacity(1 + key.len());
    value.push(KINDS_SHARED);
    value.extend_from_slice(key);
    value.into()
}

impl Store {
    /// What to store for `id`'s batch `repeated` (bytes [`super::event_batches`] encoded for an
    /// equal batch lately): a pointer to the same bytes stored for the body `id` holds (storing
    /// them there first if that body has none), else `repeated` itself.
    pub(super) fn shared_batch(&self, id: InvestigationId, repeated: sled::IVec) -> Result<sled::IVec, StorageError> {
        if repeated.len() < SHARE_FROM || !holds_kinds(&repeated) {
            return Ok(repeated);
        }
        let _guard = self.lock_bodies();
        let Some(digest) = self.body_of.get(id.0.as_bytes())? else { return Ok(repeated) };
        let key = batch_key(&digest, &repeated);
        match self.body_events.get(&key)? {
            // Another batch with the same hash: this one is stored whole.
            Some(stored) if stored != repeated => return Ok(repeated),
            Some(_) => {}
            None => {
                self.body_events.insert(&key[..], repeated)?;
            }
        }
        Ok(pointer(&key))
    }

    /// The stored batch an events record points to, or the record itself when it is no pointer.
    pub(super) fn unshared(&self, value: sled::IVec) -> Result<sled::IVec, StorageError> {
        match value.split_first() {
            Some((&KINDS_SHARED, key)) => {
                self.body_events.get(key)?.ok_or_else(|| StorageError::MissingBody(hex::encode(key)))
            }
            _ => Ok(value),
        }
    }

    /// Replaces `id`'s pointers to batches of the body `digest` by the batches themselves,
    /// before `id` lets that body go (the caller holds the bodies' lock).
    pub(super) fn inline_batches(&self, id: InvestigationId, digest: &[u8]) -> Result<(), StorageError> {
        if self.body_events.scan_prefix(digest).next().is_none() {
            return Ok(());
        }
        for kv in self.events.scan_prefix(id.0.as_bytes()) {
            let (key, value) = kv?;
            if let Some((&KINDS_SHARED, batch)) = value.split_first()
                && batch.starts_with(digest)
            {
                self.events.insert(key, self.unshared(value.clone())?)?;
            }
        }
        Ok(())
    }

    /// Removes the shared batches of the body `digest` (its last holder let it go; the caller
    /// holds the bodies' lock).
    pub(super) fn remove_batches(&self, digest: &[u8]) -> Result<(), StorageError> {
        for key in self.body_events.scan_prefix(digest).keys() {
            self.body_events.remove(key?)?;
        }
        Ok(())
    }

    /// Removes the batches of bodies that are gone (a crash between a body's removal and its
    /// batches'). Run when the store opens, after the bodies' sweep.
    pub(super) fn sweep_batches(&self) -> Result<(), StorageError> {
        for key in self.body_events.iter().keys() {
            let key = key?;
            if !self.bodies.contains_key(&key[..DIGEST.min(key.len())])? {
                self.body_events.remove(&key)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
#[path = "shared_batches_tests.rs"]
mod tests;
