//! Investigations and their event logs, behind the domain's `InvestigationStore` port, and
//! the head of every investigation beside its full record for the status and list views.
//!
//! The record and its head are two plain inserts, not a sled transaction: a transaction (like
//! `apply_batch`) takes sled 0.34's process-wide concurrency lock for writing, and a flush holds
//! that lock for reading while it waits on sled's log flusher, which asks for it again behind
//! the queued writer: the three wait on each other for good (seen under the test suite's
//! concurrent apps). The record goes first; sled recovers a prefix of the writes after a crash,
//! so a crash between the two leaves either a record without a head (a new investigation: the
//! store backfills its head when it opens) or, for a run's final save (the only replacing
//! save: a terminal record over the running one), a head still saying the run is under way,
//! which the service's start-up finds when it reads the records of unfinished heads to resume
//! them, and rewrites ([`Store::rewrite_head`]) instead of resuming. Stores written before kept
//! a pending mark around each replacing save; marks left by a crash are still repaired when the
//! store opens.

use std::sync::atomic::Ordering;

use super::{StorageError, Store, decode, encode};
use crate::domain::ports::{InvestigationStore, PortError};
use crate::domain::{Investigation, InvestigationEvent, InvestigationHead, InvestigationId};
use futures::FutureExt;
use futures::future::BoxFuture;

impl From<StorageError> for PortError {
    fn from(e: StorageError) -> Self {
        PortError::Storage(e.to_string())
    }
}

/// Key of an event: investigation id bytes then the big-endian sequence number.
pub(super) fn event_key(id: InvestigationId, seq: u64) -> [u8; 24] {
    let mut key = [0u8; 24];
    key[..16].copy_from_slice(id.0.as_bytes());
    key[16..].copy_from_slice(&seq.to_be_bytes());
    key
}

/// The sequence number an event key ends with (every key of the tree is an [`event_key`]).
fn key_seq(key: &[u8]) -> u64 {
    key.get(16..24).and_then(|s| <[u8; 8]>::try_from(s).ok()).map_or(0, u64::from_be_bytes)
}

impl Store {
    /// The head of one investigation (never decodes its results).
    pub fn head(&self, id: InvestigationId) -> Result<Option<InvestigationHead>, StorageError> {
        super::get(&self.heads, id.0.as_bytes())
    }

    /// The head of every investigation, oldest first (the list routes' scan, timed as
    /// `investigations.list`).
    pub fn heads(&self) -> Result<Vec<InvestigationHead>, StorageError> {
        self.stats.time(
            "investigations.list",
            || super::scan(&self.heads, &[]),
            |r: &Result<Vec<InvestigationHead>, StorageError>| r.as_ref().map_or(0, |v| v.len() as u64),
        )
    }

    /// Full investigation records decoded since the store opened: the status and list views
    /// read heads, so these do not move (the tests hold the service to it).
    pub fn full_reads(&self) -> u64 {
        self.full_reads.load(Ordering::Relaxed)
    }

    /// An investigation from its stored record, with the results body the record left out.
    fn full(&self, record: &[u8]) -> Result<Investigation, StorageError> {
        self.full_reads.fetch_add(1, Ordering::Relaxed);
        let mut inv: Investigation = decode(record)?;
        self.fill_body(&mut inv)?;
        Ok(inv)
    }

    /// Rewrites, from the full record, the head of every investigation whose save a crash
    /// interrupted (still marked pending), then clears the marks.
    pub(super) fn repair_pending_heads(&self) -> Result<(), StorageError> {
        for kv in self.heads_pending.iter() {
            let (key, _) = kv?;
            if let Some(value) = self.investigations.get(&key)? {
                self.rewrite_head(&self.full(&value)?)?;
            }
            self.heads_pending.remove(&key)?;
        }
        Ok(())
    }

    /// Writes the head of every investigation that has none (a store written before heads
    /// existed); the keys of both trees are compared, only records lacking a head are decoded.
    pub(super) fn backfill_heads(&self) -> Result<(), StorageError> {
        for kv in self.investigations.iter() {
            let (key, value) = kv?;
            if !self.heads.contains_key(&key)? {
                self.rewrite_head(&self.full(&value)?)?;
            }
        }
        Ok(())
    }

    /// Writes an investigation's head from the investigation (its progress while it runs, or
    /// a head a crash left behind its record).
    pub fn rewrite_head(&self, inv: &Investigation) -> Result<(), StorageError> {
        self.heads.insert(inv.id.0.as_bytes(), encode(&InvestigationHead::from(inv))?)?;
        Ok(())
    }
}

impl InvestigationStore for Store {
    /// Writes the record, then its head (see the module's comment for a crash between them).
    fn save(&self, inv: &Investigation) -> Result<(), PortError> {
        self.stats.wrote();
        let full = super::bodies::encode_record(inv)?;
        let key = inv.id.0.as_bytes();
        self.stats.time(
            "investigations.save",
            || -> Result<(), StorageError> {
                // The body before the record that leaves it out (see `bodies`).
                if let Some(results) = &inv.results {
                    self.hold_body(inv.id, results)?;
                }
                self.investigations.insert(&key[..], full.as_slice())?;
                self.rewrite_head(inv)
            },
            |_| 1,
        )?;
        Ok(())
    }

    fn save_progress(&self, inv: &Investigation) -> Result<(), PortError> {
        self.stats.wrote();
        self.stats.time("investigations.save_progress", || self.rewrite_head(inv), |_| 1)?;
        Ok(())
    }

    fn get(&self, id: InvestigationId) -> Result<Option<Investigation>, PortError> {
        let found = self.stats.time(
            "investigations.get",
            || self.investigations.get(id.0.as_bytes()).map_err(StorageError::from),
            |r| r.as_ref().map_or(0, |v| u64::from(v.is_some())),
        )?;
        let Some(bytes) = found else { return Ok(None) };
        let mut inv = self.full(&bytes)?;
        // A running investigation's progress lives in its head (`save_progress`).
        if !inv.status.is_terminal()
            && let Some(head) = self.head(id)?
            && head.status == inv.status
        {
            inv.progress = head.progress;
        }
        Ok(Some(inv))
    }

    fn list(&self) -> Result<Vec<Investigation>, PortError> {
        self.stats.time(
            "investigations.list",
            || self.investigations.iter().values().map(|v| Ok(self.full(&v.map_err(StorageError::from)?)?)).collect(),
            |r: &Result<Vec<Investigation>, PortError>| r.as_ref().map_or(0, |v| v.len() as u64),
        )
    }

    fn append_events(&self, id: InvestigationId, events: &[InvestigationEvent]) -> Result<(), PortError> {
        let Some(first) = events.first() else { return Ok(()) };
        self.stats.wrote();
        // One record per write, keyed by its first event: a single event alone (what stores
        // written before batches hold), several as their kinds (`event_batches`).
        let value = match events {
            [one] => encode(one)?.into(),
            many => match self.batches.encode(many)? {
                (repeated, true) => self.shared_batch(id, repeated)?,
                (value, false) => value,
            },
        };
        self.stats.time(
            "investigation_events.append",
            || self.events.insert(event_key(id, first.seq), value).map_err(StorageError::from),
            |_| events.len() as u64,
        )?;
        Ok(())
    }

    fn events_after(&self, id: InvestigationId, after: u64) -> Result<Vec<InvestigationEvent>, PortError> {
        let wanted = after.saturating_add(1);
        let end = event_key(id, u64::MAX);
        // The record holding event `after + 1` may start before it: begin at the last record
        // keyed at or below it (key 0 is the reservation, never an event).
        let start = self
            .events
            .range(event_key(id, 1)..=event_key(id, wanted))
            .keys()
            .next_back()
            .transpose()
            .map_err(StorageError::from)?
            .map_or_else(|| event_key(id, wanted).to_vec(), |k| k.to_vec());
        self.stats.time(
            "investigation_events.range",
            || -> Result<Vec<InvestigationEvent>, PortError> {
                let mut out = Vec::new();
                for kv in self.events.range(start.as_slice()..=&end[..]) {
                    let (k, v) = kv.map_err(StorageError::from)?;
                    super::event_batches::decode(key_seq(&k), &self.unshared(v)?, &mut out)?;
                }
                out.retain(|e| e.seq >= wanted);
                Ok(out)
            },
            |r: &Result<Vec<InvestigationEvent>, PortError>| r.as_ref().map_or(0, |v| v.len() as u64),
        )
    }

    fn flush(&self) -> BoxFuture<'_, Result<(), PortError>> {
        async move { Ok(Store::flush(self).await?) }.boxed()
    }

    // The reservation lives in the events tree under sequence number 0, which no event uses and
    // no `events_after` range reaches.
    fn reserved_seq(&self, id: InvestigationId) -> Result<u64, PortError> {
        match self.events.get(event_key(id, 0)).map_err(StorageError::from)? {
            Some(bytes) => Ok(decode(&bytes)?),
            None => Ok(0),
        }
    }

    fn reserve_seq(&self, id: InvestigationId, upto: u64) -> Result<(), PortError> {
        self.events.insert(event_key(id, 0), encode(&upto)?).map_err(StorageError::from)?;
        Ok(())
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::domain::{EventKind, InvestigationRequest, Phase};

    /// Opens a store just closed in this process: sled's I/O threads let go of the directory's
    /// lock a moment after the last handle drops, so a reopen at once may find it still held.
    pub(in crate::storage) fn reopen(dir: &std::path::Path) -> Store {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        loop {
            match Store::open(dir, 4) {
                Ok(store) => return store,
                Err(e) if std::time::Instant::now() < deadline && e.to_string().contains("lock") => {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                Err(e) => panic!("{e}"),
            }
        }
    }

    fn progress(seq: u64) -> InvestigationEvent {
        InvestigationEvent {
            seq,
            kind: EventKind::Progress {
                percentage: seq as f64,
                current_phase: Phase::Initialization,
                agents_active: 0,
            },
        }
    }

    #[test]
    fn investigations_and_events_survive_a_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let inv = Investigation::start(InvestigationRequest::new("q"), uuid::Uuid::nil());
        {
            let store = Store::open(dir.path(), 4).unwrap();
            store.save(&inv).unwrap();
            for seq in 1..=3 {
                store.append_event(inv.id, &progress(seq)).unwrap();
            }
            store.flush_blocking().unwrap();
        }
        let store = reopen(dir.path());
        assert_eq!(store.get(inv.id).unwrap().unwrap(), inv);
        let after_one: Vec<u64> = store.events_after(inv.id, 1).unwrap().iter().map(|e| e.seq).collect();
        assert_eq!(after_one, vec![2, 3]);
        assert_eq!(store.list().unwrap().len(), 1);
        assert_eq!(store.head(inv.id).unwrap().unwrap(), InvestigationHead::from(&inv));
    }

    #[test]
    fn events_written_together_are_read_one_by_one_from_any_point_even_inside_a_write() {
        let store = Store::temporary().unwrap();
        let id = Investigation::start(InvestigationRequest::new("q"), uuid::Uuid::nil()).id;
        let other = Investigation::start(InvestigationRequest::new("q"), uuid::Uuid::nil()).id;
        store.reserve_seq(id, 300).unwrap();
        store.append_event(id, &progress(1)).unwrap();
        store.append_events(id, &[progress(2), progress(3), progress(4)]).unwrap();
        store.append_event(id, &progress(5)).unwrap();
        store.append_events(id, &[progress(6), progress(7)]).unwrap();
        store.append_events(other, &[progress(1), progress(2)]).unwrap();
        let seqs = |after| store.events_after(id, after).unwrap().iter().map(|e| e.seq).collect::<Vec<_>>();
        assert_eq!(seqs(0), (1..=7).collect::<Vec<_>>());
        for after in 0..=7 {
            assert_eq!(seqs(after), (after + 1..=7).collect::<Vec<_>>(), "after {after}");
        }
        assert!(seqs(9).is_empty());
        assert_eq!(store.reserved_seq(id).unwrap(), 300, "the reservation is not an event");
    }

    #[test]
    fn a_large_batch_of_events_is_stored_deflated_and_reads_back_event_by_event() {
        let store = Store::temporary().unwrap();
        let id = Investigation::start(InvestigationRequest::new("q"), uuid::Uuid::nil()).id;
        let batch: Vec<InvestigationEvent> = (1..=200).map(progress).collect();
        store.append_events(id, &batch).unwrap();
        let raw = store.events.get(event_key(id, 1)).unwrap().unwrap();
        assert_eq!(raw[0], super::super::codec::KINDS_DEFLATED);
        assert!(raw.len() < super::super::codec::EVENTS_DEFLATE_FROM);
        assert_eq!(store.events_after(id, 150).unwrap(), batch[150..].to_vec());
    }

    #[test]
    fn a_store_without_heads_gets_them_when_it_opens() {
        let dir = tempfile::tempdir().unwrap();
        let inv = Investigation::start(InvestigationRequest::new("q"), uuid::Uuid::nil());
        {
            let store = Store::open(dir.path(), 4).unwrap();
            store.save(&inv).unwrap();
            store.heads.clear().unwrap();
            store.flush_blocking().unwrap();
        }
        let store = reopen(dir.path());
        assert_eq!(store.heads().unwrap(), vec![InvestigationHead::from(&inv)]);
    }

    #[test]
    fn a_head_a_store_written_before_left_marked_pending_by_a_crash_is_repaired_when_the_store_opens() {
        let dir = tempfile::tempdir().unwrap();
        let first = Investigation::start(InvestigationRequest::new("q"), uuid::Uuid::nil());
        let mut later = first.clone();
        later.started_at = Some(chrono::Utc::now());
        {
            let store = Store::open(dir.path(), 4).unwrap();
            store.save(&first).unwrap();
            // What a crash after the record's write and before the head's leaves behind.
            let key = first.id.0.as_bytes();
            store.heads_pending.insert(&key[..], &[]).unwrap();
            store.investigations.insert(&key[..], encode(&later).unwrap()).unwrap();
            store.flush_blocking().unwrap();
        }
        let store = reopen(dir.path());
        assert_eq!(store.head(first.id).unwrap().unwrap(), InvestigationHead::from(&later));
        assert!(store.heads_pending.is_empty());
    }

    #[test]
    fn reading_heads_decodes_no_full_record() {
        let store = Store::temporary().unwrap();
        let inv = Investigation::start(InvestigationRequest::new("q"), uuid::Uuid::nil());
        store.save(&inv).unwrap();
        store.head(inv.id).unwrap();
        store.heads().unwrap();
        assert_eq!(store.full_reads(), 0);
        store.get(inv.id).unwrap();
        assert_eq!(store.full_reads(), 1);
    }
}
