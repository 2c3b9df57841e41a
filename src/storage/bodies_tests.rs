//! Results bodies: one copy per content, released with their last holder, swept after a crash.

use std::sync::Arc;

use super::*;
use crate::domain::ports::InvestigationStore;
use crate::storage::Pruned;

/// A finished investigation whose results hold `findings` (the engine's over demo data).
pub(in crate::storage) fn finished(findings: &[Arc<Anomaly>], query: &str) -> Investigation {
    let mut inv = Investigation::start(InvestigationRequest::new(query), uuid::Uuid::nil());
    inv.status = Status::Completed;
    inv.completed_at = Some(chrono::Utc::now() - chrono::Duration::days(100));
    inv.results = Some(Results {
        anomalies: findings.to_vec(),
        insights: vec![Insight {
            agent: "zumbi".into(),
            insight: format!("{} achados", findings.len()).into(),
            confidence: 0.8,
            supporting_evidence: findings.iter().map(|a| a.id.clone()).collect(),
            insight_en: None,
        }],
        recommendations: vec!["Verificar os contratos".into()],
        agents_used: vec!["zumbi".into()],
        records_analyzed: 2_000,
        execution_time_ms: 12,
        top_suppliers: vec![("VIGILÂNCIA VANGUARDA EIRELI".into(), 404_751.64)],
        ..Results::default()
    });
    inv
}

pub(in crate::storage) fn findings() -> Vec<Arc<Anomaly>> {
    crate::runtime::demo_findings().into_iter().take(12).map(Arc::new).collect()
}

/// `inv` as the store gives it back: `inv` itself (its body kept decoded since the save) or
/// `inv` read through JSON once (serde_json reads some floats back one unit in the last place
/// off, stored inline or apart alike).
fn assert_reads_back(store: &Store, inv: &Investigation) {
    let read = store.get(inv.id).unwrap().expect("stored");
    let once: Investigation = serde_json::from_str(&serde_json::to_string(inv).unwrap()).unwrap();
    assert!(read == *inv || serde_json::to_string(&read).unwrap() == serde_json::to_string(&once).unwrap());
    assert_eq!(read.results.as_ref().map(|r| r.anomalies.len()), inv.results.as_ref().map(|r| r.anomalies.len()));
}

pub(in crate::storage) fn prune_all(store: &Store) -> Pruned {
    let mut pruned = Pruned::default();
    store.prune_investigations(chrono::Utc::now(), &mut pruned).unwrap();
    pruned
}

#[test]
fn investigations_with_the_same_findings_share_one_body_and_each_reads_back_whole() {
    let store = Store::temporary().unwrap();
    let found = findings();
    let (a, b) = (finished(&found, "a"), finished(&found, "b"));
    store.save(&a).unwrap();
    store.save(&b).unwrap();
    assert_eq!(store.bodies.len(), 1);
    assert_reads_back(&store, &a);
    assert_reads_back(&store, &b);
    let other = finished(&found[..3], "c");
    store.save(&other).unwrap();
    assert_eq!(store.bodies.len(), 2);
    assert_reads_back(&store, &other);
}

#[test]
fn a_record_is_small_because_its_body_is_stored_apart() {
    let store = Store::temporary().unwrap();
    let inv = finished(&findings(), "a");
    store.save(&inv).unwrap();
    let record = store.investigations.get(inv.id.0.as_bytes()).unwrap().unwrap();
    let inline = serde_json::to_vec(&inv).unwrap();
    assert!(record.len() * 4 < inline.len(), "record {} bytes, inline {}", record.len(), inline.len());
}

#[test]
fn a_body_goes_with_its_last_holder_and_not_before() {
    let store = Store::temporary().unwrap();
    let found = findings();
    let a = finished(&found, "a");
    let mut b = finished(&found, "b");
    b.completed_at = Some(chrono::Utc::now());
    store.save(&a).unwrap();
    store.save(&b).unwrap();
    let mut pruned = Pruned::default();
    store.prune_investigations(chrono::Utc::now() - chrono::Duration::days(1), &mut pruned).unwrap();
    assert_eq!(pruned.investigations, 1);
    assert_eq!(store.bodies.len(), 1, "b still holds it");
    assert_reads_back(&store, &b);
    assert_eq!(prune_all(&store).investigations, 1);
    assert_eq!(store.bodies.len(), 0);
    assert!(store.body_refs.is_empty() && store.body_of.is_empty());
}

#[test]
fn saving_new_results_over_old_ones_releases_the_old_body() {
    let store = Store::temporary().unwrap();
    let found = findings();
    let mut inv = finished(&found[..5], "a");
    store.save(&inv).unwrap();
    inv.results = finished(&found, "a").results;
    store.save(&inv).unwrap();
    store.save(&inv).unwrap();
    assert_eq!(store.bodies.len(), 1);
    assert_eq!(store.body_refs.len(), 1);
    assert_reads_back(&store, &inv);
}

#[test]
fn a_record_written_with_its_results_inline_still_reads() {
    let store = Store::temporary().unwrap();
    let inv = finished(&findings(), "a");
    store.investigations.insert(inv.id.0.as_bytes(), super::super::encode(&inv).unwrap()).unwrap();
    assert_reads_back(&store, &inv);
    assert_eq!(prune_all(&store).investigations, 0, "it has no head: pruning reads heads");
}

#[test]
fn what_an_interrupted_save_or_pruning_left_is_swept_when_the_store_opens() {
    let dir = tempfile::tempdir().unwrap();
    let found = findings();
    let kept = finished(&found, "kept");
    let (pruned_id, orphan_body);
    {
        let store = Store::open(dir.path(), 4).unwrap();
        store.save(&kept).unwrap();
        // A pruning cut off after the record went: its pointer and reference stay behind.
        let gone = finished(&found[..4], "gone");
        store.save(&gone).unwrap();
        store.investigations.remove(gone.id.0.as_bytes()).unwrap();
        pruned_id = gone.id;
        // A save cut off after its body was written, before anything pointed to it.
        orphan_body = [7u8; 32];
        store.bodies.insert(orphan_body, super::super::encode(&1).unwrap()).unwrap();
        store.flush_blocking().unwrap();
    }
    let store = crate::storage::investigations::tests::reopen(dir.path());
    assert!(store.body_of.get(pruned_id.0.as_bytes()).unwrap().is_none());
    assert!(!store.bodies.contains_key(orphan_body).unwrap());
    assert_eq!((store.bodies.len(), store.body_refs.len()), (1, 1));
    assert_reads_back(&store, &kept);
}

#[test]
fn a_body_read_from_disk_is_kept_decoded_for_the_next_holder() {
    let dir = tempfile::tempdir().unwrap();
    let found = findings();
    let (a, b) = (finished(&found, "a"), finished(&found, "b"));
    {
        let store = Store::open(dir.path(), 4).unwrap();
        store.save(&a).unwrap();
        store.save(&b).unwrap();
        store.flush_blocking().unwrap();
    }
    let store = crate::storage::investigations::tests::reopen(dir.path());
    assert_eq!(store.decoded_bodies().size().0, 0);
    assert_reads_back(&store, &a);
    assert_eq!(store.decoded_bodies().size().0, 1);
    let (first, second) = (store.get(a.id).unwrap().unwrap(), store.get(b.id).unwrap().unwrap());
    let (x, y) = (&first.results.unwrap().anomalies, &second.results.unwrap().anomalies);
    assert!(x.iter().zip(y).all(|(p, q)| Arc::ptr_eq(p, q)), "both read the one decoded body");
}

#[test]
fn the_same_findings_saved_as_other_shared_values_are_known_by_the_latest() {
    let store = Store::temporary().unwrap();
    let first = findings();
    // The analysis cache refilled by runs that all missed: equal findings, other values.
    let again: Vec<Arc<Anomaly>> = first.iter().map(|a| Arc::new((**a).clone())).collect();
    store.save(&finished(&first, "a")).unwrap();
    let later = finished(&again, "b");
    assert!(store.decoded.known(later.results.as_ref().unwrap()).is_none());
    store.save(&later).unwrap();
    let next = finished(&again, "c");
    let known = store.decoded.known(next.results.as_ref().unwrap()).expect("known by the values it was saved with");
    assert!(known.1.anomalies.iter().zip(&again).all(|(p, q)| Arc::ptr_eq(p, q)));
    store.save(&next).unwrap();
    assert_eq!(store.bodies.len(), 1);
    assert_reads_back(&store, &next);
}
