//! When a run's progress goes out: steps that take no time have theirs written with the next
//! emission, but a run never waits (for data, for an agent) with progress still unsent.

use super::*;
use crate::domain::ports::InvestigationStore;
use crate::domain::{EventKind, Phase};

/// The phases of the progress events stored so far.
fn phases_stored(store: &Store, id: crate::domain::InvestigationId) -> Vec<Phase> {
    let events = store.events_after(id, 0).unwrap();
    events
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::Progress { current_phase, .. } => Some(current_phase),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn the_analysis_phase_goes_out_before_the_run_waits_for_an_agent_that_takes_time() {
    let (rt, store, _dir) = runtime_with(sleepers(), agents_config(15.0, 10)).await;
    let inv = start(&rt, &store).await;
    wait_until("the analysis phase is stored and published", || async {
        phases_stored(&store, inv.id).contains(&Phase::AgentAnalysis)
    })
    .await;
    assert!(!store.get(inv.id).unwrap().unwrap().status.is_terminal(), "the agents still run");
    let phases = phases_stored(&store, inv.id);
    assert_eq!(
        phases,
        [Phase::Initialization, Phase::DataCollection, Phase::Preprocessing, Phase::AgentAnalysis],
        "every step before it, in order"
    );
    assert!(rt.cancel_investigation(inv.id, Duration::from_secs(5)).await.unwrap());
    finished(&store, inv.id).await;
}

#[tokio::test]
async fn a_run_answered_at_once_writes_its_first_steps_with_its_findings() {
    let (rt, store, _dir) = runtime_with(default_factory(), agents_config(15.0, 10)).await;
    let first = start(&rt, &store).await;
    finished(&store, first.id).await;
    // The same question again: the dataset is at hand and the analysis cache answers every
    // agent, so nothing is waited for; every step's progress is still stored, in order.
    let again = start(&rt, &store).await;
    let done = finished(&store, again.id).await;
    assert_eq!(done.status, crate::domain::Status::Completed, "{:?}", done.error);
    let events = store.events_after(again.id, 0).unwrap();
    let phases = phases_stored(&store, again.id);
    assert_eq!(
        &phases[..4],
        [Phase::Initialization, Phase::DataCollection, Phase::Preprocessing, Phase::AgentAnalysis]
    );
    assert!(events.last().unwrap().kind.is_terminal());
    let seqs: Vec<u64> = events.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, (1..=seqs.len() as u64).collect::<Vec<_>>(), "every event, numbered in order");
}

/// Starts a run whose record its first write stores (as the chat starts its investigations).
async fn start_unrecorded(rt: &RuntimeHandle) -> crate::domain::Investigation {
    let inv = crate::domain::Investigation::start(InvestigationRequest::new("contratos da saúde"), uuid::Uuid::nil());
    assert!(rt.start_investigation(inv.clone(), RunKind::Unrecorded).await.unwrap());
    inv
}

#[tokio::test]
async fn a_run_started_unrecorded_is_stored_by_its_first_write_before_it_waits() {
    let (rt, store, _dir) = runtime_with(sleepers(), agents_config(15.0, 10)).await;
    let inv = start_unrecorded(&rt).await;
    wait_until("the analysis phase is stored", || async {
        phases_stored(&store, inv.id).contains(&Phase::AgentAnalysis)
    })
    .await;
    let stored = store.get(inv.id).unwrap().expect("recorded before the run waits for its agents");
    assert!(!stored.status.is_terminal());
    assert!(store.head(inv.id).unwrap().is_some(), "listed while it runs");
    assert!(rt.cancel_investigation(inv.id, Duration::from_secs(5)).await.unwrap());
    assert_eq!(finished(&store, inv.id).await.status, crate::domain::Status::Cancelled);
}

#[tokio::test]
async fn a_run_started_unrecorded_and_answered_at_once_is_stored_whole_at_its_end() {
    let (rt, store, _dir) = runtime_with(default_factory(), agents_config(15.0, 10)).await;
    let first = start(&rt, &store).await;
    finished(&store, first.id).await;
    let again = start_unrecorded(&rt).await;
    let done = finished(&store, again.id).await;
    assert_eq!(done.status, crate::domain::Status::Completed, "{:?}", done.error);
    assert!(store.head(again.id).unwrap().is_some_and(|h| h.status == crate::domain::Status::Completed));
    let seqs: Vec<u64> = store.events_after(again.id, 0).unwrap().iter().map(|e| e.seq).collect();
    assert_eq!(seqs, (1..=seqs.len() as u64).collect::<Vec<_>>(), "every event, numbered from 1");
}
