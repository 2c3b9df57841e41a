//! Shared batches: stored once per body, read back by every holder, inlined before a holder
//! lets its body go, gone with the body's last holder, swept after a crash.

use super::super::bodies::tests::{findings, finished, prune_all};
use super::super::codec::KINDS_SHARED;
use super::super::investigations::tests::reopen;
use super::*;
use crate::domain::ports::InvestigationStore;
use crate::domain::{EventKind, Investigation, InvestigationEvent, Phase};
use crate::storage::Pruned;

/// Progress events `1..=n` at `pct` percent (enough of them make a batch worth sharing).
fn batch(n: u64, pct: f64) -> Vec<InvestigationEvent> {
    (1..=n)
        .map(|seq| InvestigationEvent {
            seq,
            kind: EventKind::Progress { percentage: pct, current_phase: Phase::AgentAnalysis, agents_active: 7 },
        })
        .collect()
}

fn record(store: &Store, id: InvestigationId) -> sled::IVec {
    store.events.get(super::super::investigations::event_key(id, 1)).unwrap().expect("an events record")
}

fn is_pointer(record: &[u8]) -> bool {
    record.first() == Some(&KINDS_SHARED) && record.len() == 41
}

#[test]
fn investigations_holding_one_body_store_a_batch_that_repeats_once_and_each_reads_it_back() {
    let store = Store::temporary().unwrap();
    let found = findings();
    let runs: Vec<Investigation> = ["a", "b", "c"].iter().map(|q| finished(&found, q)).collect();
    let events = batch(60, 40.0);
    for inv in &runs {
        store.save(inv).unwrap();
        store.append_events(inv.id, &events).unwrap();
    }
    assert!(!is_pointer(&record(&store, runs[0].id)), "a batch seen once is stored whole");
    assert!(is_pointer(&record(&store, runs[1].id)) && is_pointer(&record(&store, runs[2].id)));
    assert_eq!(store.body_events.len(), 1);
    for inv in &runs {
        assert_eq!(store.events_after(inv.id, 0).unwrap(), events);
        assert_eq!(store.events_after(inv.id, 30).unwrap(), events[30..].to_vec());
    }
}

#[test]
fn a_repeated_batch_of_an_investigation_without_a_body_is_stored_whole() {
    let store = Store::temporary().unwrap();
    let events = batch(60, 40.0);
    for q in ["a", "b"] {
        let running = Investigation::start(crate::domain::InvestigationRequest::new(q), uuid::Uuid::nil());
        store.save(&running).unwrap();
        store.append_events(running.id, &events).unwrap();
        assert!(!is_pointer(&record(&store, running.id)), "no body to share with");
        assert_eq!(store.events_after(running.id, 0).unwrap(), events);
    }
    assert!(store.body_events.is_empty());
}

#[test]
fn the_shared_batch_goes_with_the_bodys_last_holder_and_not_before() {
    let store = Store::temporary().unwrap();
    let found = findings();
    let mut recent = finished(&found, "recent");
    recent.completed_at = Some(chrono::Utc::now());
    let events = batch(60, 40.0);
    for inv in [&finished(&found, "old"), &finished(&found, "older"), &recent] {
        store.save(inv).unwrap();
        store.append_events(inv.id, &events).unwrap();
    }
    let mut pruned = Pruned::default();
    store.prune_investigations(chrono::Utc::now() - chrono::Duration::days(1), &mut pruned).unwrap();
    assert_eq!(pruned.investigations, 2);
    assert_eq!(store.body_events.len(), 1, "the recent holder still points to it");
    assert_eq!(store.events_after(recent.id, 0).unwrap(), events);
    prune_all(&store);
    assert!(store.body_events.is_empty() && store.bodies.is_empty());
}

#[test]
fn an_investigation_that_comes_to_hold_another_body_keeps_its_events_whole() {
    let store = Store::temporary().unwrap();
    let found = findings();
    let (first, mut inv) = (finished(&found, "first"), finished(&found, "a"));
    let events = batch(60, 40.0);
    for run in [&first, &inv] {
        store.save(run).unwrap();
        store.append_events(run.id, &events).unwrap();
    }
    assert!(is_pointer(&record(&store, inv.id)));
    // Its results change: it lets the body go, and its events no longer point to its batch.
    let id = inv.id;
    inv = finished(&found[..3], "a");
    inv.id = id;
    store.save(&inv).unwrap();
    assert!(!is_pointer(&record(&store, inv.id)));
    assert_eq!(store.events_after(inv.id, 0).unwrap(), events);
    // The first holder's events were whole; with it the body and its batch go.
    prune_all(&store);
    assert!(store.body_events.is_empty());
}

#[test]
fn a_batch_whose_body_is_gone_is_swept_when_the_store_opens() {
    let dir = tempfile::tempdir().unwrap();
    {
        let store = Store::open(dir.path(), 4).unwrap();
        store.body_events.insert([7u8; 40], &b"left by a crash"[..]).unwrap();
        store.flush_blocking().unwrap();
    }
    let store = reopen(dir.path());
    assert!(store.body_events.is_empty());
}
