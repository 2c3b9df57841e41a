//! How the events one step of a run emits at once are stored: one record, keyed by the first
//! event's sequence number. The emitter numbers events one after another, so a batch of
//! consecutive events keeps only their kinds, numbered from the key ([`codec::KINDS_VERSION`]
//! and [`codec::KINDS_DEFLATED`]); a batch whose numbers skip (no writer does that) keeps each
//! event's number as records written before this format did, and those read as they were.
//!
//! A run answered from the analysis cache emits the very findings, insights and progress of
//! the run before it, and those kinds no longer carry the numbers that set the two runs
//! apart: the latest batches encoded are remembered with their kinds, and an equal batch is
//! stored as the bytes already made, without serialising and deflating its tens of kilobytes
//! again (about a tenth of the server's time per chat investigation before).
//!
//! [`codec::KINDS_VERSION`]: super::codec::KINDS_VERSION
//! [`codec::KINDS_DEFLATED`]: super::codec::KINDS_DEFLATED

use serde::Serialize;

use super::StorageError;
use super::codec::{decode_one_or_many, encode_kinds, holds_kinds, json_of, with_json};
use crate::domain::bounded::Recent;
use crate::domain::{EventKind, InvestigationEvent};

/// Batches remembered with their encoding.
const REMEMBERED: usize = 4;
/// Smallest JSON of a batch worth remembering (smaller ones cost little to encode).
const REMEMBER_FROM: usize = 2 * 1024;
/// Largest JSON of a batch remembered (a whole dataset's findings is not held).
const REMEMBER_UPTO: usize = 256 * 1024;

/// The latest batches encoded, with the kinds they hold.
pub(super) struct RecentBatches(Recent<(Vec<EventKind>, sled::IVec)>);

impl Default for RecentBatches {
    fn default() -> Self {
        RecentBatches(Recent::new(REMEMBERED))
    }
}

/// The kinds of a batch, serialised as a sequence.
struct Kinds<'a>(&'a [InvestigationEvent]);

impl Serialize for Kinds<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(|e| &e.kind))
    }
}

impl RecentBatches {
    /// The stored form of `events` (two or more, in order): their kinds when they are
    /// consecutive (an equal batch's bytes when one was encoded lately), else the events; and
    /// whether it is such a repeat (a batch worth sharing, see `shared_batches`).
    pub(super) fn encode(&self, events: &[InvestigationEvent]) -> Result<(sled::IVec, bool), StorageError> {
        if !events.windows(2).all(|w| w[1].seq == w[0].seq + 1) {
            return Ok((super::encode(&events)?.into(), false));
        }
        if let Some(bytes) = self.find(events) {
            return Ok((bytes, true));
        }
        with_json(&Kinds(events), |json| {
            let bytes = sled::IVec::from(encode_kinds(json)?);
            if (REMEMBER_FROM..=REMEMBER_UPTO).contains(&json.len()) {
                self.remember(events, bytes.clone());
            }
            Ok((bytes, false))
        })
    }

    /// The bytes of a remembered batch whose kinds are those of `events`. Compared from the
    /// last: a run's final batch ends with its terminal event, whose processing time is what
    /// sets apart batches that are otherwise the same tens of kilobytes of findings.
    fn find(&self, events: &[InvestigationEvent]) -> Option<sled::IVec> {
        self.0.find_map(|(kinds, bytes)| {
            let same = kinds.len() == events.len()
                && kinds.iter().rev().zip(events.iter().rev()).all(|(k, e)| k.same_as(&e.kind));
            same.then(|| bytes.clone())
        })
    }

    fn remember(&self, events: &[InvestigationEvent], bytes: sled::IVec) {
        let kinds = events.iter().map(|e| e.kind.clone()).collect();
        self.0.remember((kinds, bytes), |_| false);
    }
}

/// Decodes the record keyed by the number of its first event, `first`, into `out`: one event,
/// an array of numbered events, or a batch of kinds.
pub(super) fn decode(first: u64, bytes: &[u8], out: &mut Vec<InvestigationEvent>) -> Result<(), StorageError> {
    let json = json_of(bytes)?;
    if holds_kinds(bytes) {
        let kinds: Vec<EventKind> = serde_json::from_slice(&json)?;
        out.extend((first..).zip(kinds).map(|(seq, kind)| InvestigationEvent { seq, kind }));
        Ok(())
    } else {
        decode_one_or_many(&json, out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{AnomalyFound, Phase};

    fn finding(seq: u64, n: usize) -> InvestigationEvent {
        InvestigationEvent {
            seq,
            kind: EventKind::Anomaly(std::sync::Arc::new(AnomalyFound {
                id: format!("price-{n}"),
                anomaly_type: "price_anomaly".into(),
                severity: "high".into(),
                confidence: 0.9,
                description: format!("Contrato {n} acima da mediana de itens comparáveis em {}%", 40 + n),
                description_en: None,
                contract_id: Some(format!("ct-{n}")),
                supplier: Some("VIGILÂNCIA VANGUARDA EIRELI".into()),
                value: Some(404_751.64),
                at_stake: Some(120_000.0 + n as f64),
            })),
        }
    }

    /// A step's findings numbered from `first`.
    fn step(first: u64, n: usize) -> Vec<InvestigationEvent> {
        (0..n).map(|i| finding(first + i as u64, i)).collect()
    }

    fn read(first: u64, bytes: &[u8]) -> Vec<InvestigationEvent> {
        let mut out = Vec::new();
        decode(first, bytes, &mut out).unwrap();
        out
    }

    #[test]
    fn consecutive_events_are_stored_as_kinds_and_read_back_numbered_from_the_key() {
        let batches = RecentBatches::default();
        let events = step(41, 60);
        let bytes = batches.encode(&events).unwrap().0;
        assert_eq!(bytes[0], super::super::codec::KINDS_DEFLATED);
        assert_eq!(read(41, &bytes), events);
        let few = step(3, 2);
        let plain = batches.encode(&few).unwrap().0;
        assert_eq!(plain[0], super::super::codec::KINDS_VERSION);
        assert_eq!(read(3, &plain), few);
    }

    #[test]
    fn an_equal_batch_numbered_elsewhere_is_stored_as_the_bytes_already_made() {
        let batches = RecentBatches::default();
        let first = batches.encode(&step(5, 30)).unwrap().0;
        let again = batches.encode(&step(9, 30)).unwrap().0;
        assert_eq!(first.as_ptr(), again.as_ptr(), "the same bytes, not encoded again");
        assert_eq!(read(9, &again), step(9, 30));
        let mut other = step(9, 30);
        other[29].kind = finding(0, 99).kind;
        let different = batches.encode(&other).unwrap().0;
        assert_ne!(different, first);
        assert_eq!(read(9, &different), other);
    }

    #[test]
    fn a_batch_whose_numbers_skip_keeps_each_number() {
        let batches = RecentBatches::default();
        let mut events = step(1, 3);
        events[2].seq = 10;
        let bytes = batches.encode(&events).unwrap().0;
        assert!(!holds_kinds(&bytes));
        assert_eq!(read(1, &bytes), events);
    }

    #[test]
    fn records_written_before_kinds_were_stored_read_as_they_were() {
        let events = step(4, 3);
        let many = super::super::encode(&events).unwrap();
        assert_eq!(read(4, &many), events);
        let one = InvestigationEvent {
            seq: 2,
            kind: EventKind::Progress { percentage: 10.0, current_phase: Phase::DataCollection, agents_active: 1 },
        };
        assert_eq!(read(2, &super::super::encode(&one).unwrap()), vec![one]);
    }
}
