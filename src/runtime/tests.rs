//! Runtime tests with real actors, a real temporary sled store and demo data; test agents
//! stand in for the real ones where a test needs an agent that sleeps or panics.

use std::sync::Arc;
use std::time::Duration;

use vigia_agents::model::report::AgentOutput;
use vigia_agents::{Agent, AgentId, AnalysisContext, AnalysisError};

use super::*;
use crate::config::{AgentsConfig, DemoConfig, UpstreamConfig};
use crate::domain::{InvestigationRequest, Status};
use crate::storage::Store;
use crate::upstream::Provider;

/// Spins until cancelled (a long analysis).
struct Sleeper(AgentId);
impl Agent for Sleeper {
    fn id(&self) -> AgentId {
        self.0
    }
    fn analyse(&self, ctx: &AnalysisContext<'_>) -> Result<AgentOutput, AnalysisError> {
        loop {
            ctx.cancel.check()?;
            std::thread::sleep(Duration::from_millis(2));
        }
    }
}

/// Every agent a [`Sleeper`].
fn sleepers() -> AgentFactory {
    Arc::new(|id| Some(Box::new(Sleeper(id)) as Box<dyn Agent>))
}

/// Holds 8 MiB while it analyses, reports progress, and waits to be cancelled.
struct Hoarder;
impl Agent for Hoarder {
    fn id(&self) -> AgentId {
        AgentId::Zumbi
    }
    fn analyse(&self, ctx: &AnalysisContext<'_>) -> Result<AgentOutput, AnalysisError> {
        let buffer = vec![1u8; 8 * 1024 * 1024];
        loop {
            (ctx.progress)(0.5);
            std::hint::black_box(&buffer);
            ctx.cancel.check()?;
            std::thread::sleep(Duration::from_millis(2));
        }
    }
}

/// Panics on every analysis.
struct Panicker;
impl Agent for Panicker {
    fn id(&self) -> AgentId {
        AgentId::Anita
    }
    fn analyse(&self, _ctx: &AnalysisContext<'_>) -> Result<AgentOutput, AnalysisError> {
        panic!("planted failure")
    }
}

fn agents_config(unload_after_minutes: f64, max_loaded_agents: usize) -> AgentsConfig {
    AgentsConfig { unload_after_minutes, max_loaded_agents, ..AgentsConfig::default() }
}

async fn runtime_with(factory: AgentFactory, agents: AgentsConfig) -> (RuntimeHandle, Store, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), 4).unwrap();
    let provider = Provider::new(&UpstreamConfig::default(), DemoConfig { seed: 7, records: 400 }).unwrap();
    let rt = RuntimeHandle::start(RuntimeDeps {
        store: Arc::new(store.clone()),
        data: Arc::new(provider),
        factory,
        agents,
        min_records: 10,
    })
    .await
    .unwrap();
    (rt, store, dir)
}

async fn wait_until<F: Fn() -> Fut, Fut: std::future::Future<Output = bool>>(what: &str, f: F) {
    for _ in 0..2000 {
        if f().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    panic!("timed out waiting until {what}");
}

async fn start(rt: &RuntimeHandle, store: &Store) -> crate::domain::Investigation {
    use crate::domain::ports::InvestigationStore;
    let inv = crate::domain::Investigation::start(InvestigationRequest::new("contratos da saúde"), uuid::Uuid::nil());
    store.save(&inv).unwrap();
    assert!(rt.start_investigation(inv.clone(), RunKind::Fresh).await.unwrap());
    inv
}

async fn finished(store: &Store, id: crate::domain::InvestigationId) -> crate::domain::Investigation {
    use crate::domain::ports::InvestigationStore;
    // The final write stores the record, then its last events: the run has ended when both are.
    wait_until("the investigation ends", || async {
        store.get(id).unwrap().is_some_and(|inv| inv.status.is_terminal())
            && store.events_after(id, 0).unwrap().last().is_some_and(|e| e.kind.is_terminal())
    })
    .await;
    store.get(id).unwrap().unwrap()
}

#[tokio::test]
async fn agents_are_spawned_on_first_use_and_not_before() {
    let (rt, _store, _dir) = runtime_with(default_factory(), agents_config(15.0, 10)).await;
    assert!(rt.status().await.unwrap().loaded_agents.is_empty());
    let report = rt.load(AgentId::Zumbi).await.unwrap();
    assert!(!report.already_loaded);
    assert!(report.load_time_ms > 0.0);
    assert_eq!(rt.status().await.unwrap().loaded_agents, vec!["zumbi"]);
    assert!(rt.load(AgentId::Zumbi).await.unwrap().already_loaded);
    let stats = rt.status().await.unwrap().statistics;
    assert_eq!((stats.total_loads, stats.cache_misses, stats.cache_hits), (1, 1, 1));
}

#[tokio::test(start_paused = true)]
async fn idle_agents_are_reaped_after_unload_after_minutes() {
    let (rt, _store, _dir) = runtime_with(default_factory(), agents_config(15.0, 10)).await;
    rt.load(AgentId::Zumbi).await.unwrap();
    tokio::time::sleep(Duration::from_secs(14 * 60)).await;
    assert_eq!(rt.status().await.unwrap().loaded_agents, vec!["zumbi"]);
    tokio::time::sleep(Duration::from_secs(2 * 60)).await;
    assert!(rt.status().await.unwrap().loaded_agents.is_empty());
    assert_eq!(rt.status().await.unwrap().statistics.total_unloads, 1);
}

#[tokio::test]
async fn the_cap_unloads_the_least_recently_used_agent() {
    let (rt, _store, _dir) = runtime_with(default_factory(), agents_config(15.0, 1)).await;
    rt.load(AgentId::Zumbi).await.unwrap();
    rt.load(AgentId::Anita).await.unwrap();
    assert_eq!(rt.status().await.unwrap().loaded_agents, vec!["anita"]);
}

#[tokio::test]
async fn with_a_cap_of_one_every_agent_of_an_investigation_takes_its_turn() {
    let (rt, store, _dir) = runtime_with(default_factory(), agents_config(15.0, 1)).await;
    let inv = start(&rt, &store).await;
    let done = finished(&store, inv.id).await;
    assert_eq!(done.status, Status::Completed, "{:?}", done.error);
    let r = done.results.unwrap();
    assert!(r.agents_failed.is_empty(), "{:?}", r.agents_failed);
    // Every detection agent of the roster's coverage takes part (the others answer direct calls).
    let detection = vigia_agents::agents::roster::COVERAGE.len();
    assert_eq!(r.agents_used.len(), detection, "{:?}", r.agents_used);
    assert!(detection >= 7);
    let status = rt.status().await.unwrap();
    assert_eq!((status.loaded_agents.len(), status.statistics.waiting_leases), (1, 0));
}

#[tokio::test]
async fn a_leased_agent_is_in_use_before_its_analysis_starts() {
    let factory = sleepers();
    let (rt, store, _dir) = runtime_with(factory, agents_config(15.0, 1)).await;
    let inv = start(&rt, &store).await;
    wait_until("one agent is analysing", || async {
        rt.status().await.unwrap().agents.iter().any(|a| a.in_flight > 0)
    })
    .await;
    // The cap is full with an agent in use: loading another is refused, nothing is evicted.
    let status = rt.status().await.unwrap();
    let busy = status.loaded_agents.clone();
    let other = status.implemented_agents.iter().find(|a| !busy.contains(a)).and_then(|a| AgentId::parse(a)).unwrap();
    assert!(matches!(rt.load(other).await, Err(RuntimeError::AgentUnavailable { .. })));
    assert_eq!(rt.status().await.unwrap().loaded_agents, busy);
    assert!(rt.status().await.unwrap().statistics.waiting_leases > 0, "the other agents wait their turn");
    assert!(rt.cancel_investigation(inv.id, Duration::from_secs(5)).await.unwrap());
}

#[tokio::test]
async fn cleanup_keeps_recently_used_agents_unless_forced() {
    let (rt, _store, _dir) = runtime_with(default_factory(), agents_config(15.0, 10)).await;
    rt.load(AgentId::Zumbi).await.unwrap();
    assert!(rt.cleanup(false).await.unwrap().unloaded_agents.is_empty());
    assert_eq!(rt.cleanup(true).await.unwrap().unloaded_agents, vec!["zumbi"]);
    assert!(rt.status().await.unwrap().loaded_agents.is_empty());
}

#[tokio::test]
async fn unknown_analyses_cannot_be_loaded() {
    // A factory that cannot build tiradentes (a build without his analysis).
    let factory: AgentFactory =
        Arc::new(|id| if id == AgentId::Tiradentes { None } else { vigia_agents::instantiate(id) });
    let (rt, _store, _dir) = runtime_with(factory, agents_config(15.0, 10)).await;
    assert!(matches!(rt.load(AgentId::Tiradentes).await, Err(RuntimeError::AgentUnavailable { .. })));
    assert!(!rt.is_implemented(AgentId::Tiradentes));
}

#[tokio::test]
async fn agent_memory_is_measured_from_real_allocations() {
    let (rt, _store, _dir) = runtime_with(default_factory(), agents_config(15.0, 10)).await;
    let report = rt.load(AgentId::Zumbi).await.unwrap();
    let status = rt.status().await.unwrap();
    assert_eq!(status.agents[0].memory_mb, report.memory_usage_mb);
    assert!(report.memory_usage_mb >= 0.0);
}

#[tokio::test]
async fn unload_without_force_refuses_a_busy_agent_and_force_cancels_its_work() {
    let factory: AgentFactory = Arc::new(|id| match id {
        AgentId::Zumbi => Some(Box::new(Sleeper(AgentId::Zumbi)) as Box<dyn Agent>),
        other => vigia_agents::instantiate(other),
    });
    let (rt, store, _dir) = runtime_with(factory, agents_config(15.0, 10)).await;
    let inv = start(&rt, &store).await;
    wait_until("zumbi is busy", || async {
        rt.status().await.unwrap().agents.iter().any(|a| a.name == "zumbi" && a.in_flight > 0)
    })
    .await;
    let refused = rt.unload(AgentId::Zumbi, false).await.unwrap();
    assert!(!refused.success, "{refused:?}");
    let forced = rt.unload(AgentId::Zumbi, true).await.unwrap();
    assert!(forced.success);
    assert_eq!(forced.cancelled_analyses, 1);
    let done = finished(&store, inv.id).await;
    let results = done.results.expect("the other agent's results are kept");
    assert!(results.agents_used.contains(&"anita".to_string()), "{:?}", results.agents_used);
    assert!(!results.agents_used.contains(&"zumbi".to_string()));
    assert_eq!(results.agents_failed[0].0, "zumbi");
}

#[tokio::test]
async fn a_panicking_agent_is_removed_and_respawned_on_next_use() {
    let factory: AgentFactory = Arc::new(|id| match id {
        AgentId::Anita => Some(Box::new(Panicker) as Box<dyn Agent>),
        other => vigia_agents::instantiate(other),
    });
    let (rt, store, _dir) = runtime_with(factory, agents_config(15.0, 10)).await;
    let inv = start(&rt, &store).await;
    let done = finished(&store, inv.id).await;
    assert_eq!(done.status, Status::Completed, "zumbi's results still complete the run");
    let r = done.results.unwrap();
    assert!(
        r.agents_failed.iter().any(|(a, why)| a == "anita" && why.contains("planted failure")),
        "{:?}",
        r.agents_failed
    );
    wait_until("anita is gone", || async { !rt.status().await.unwrap().loaded_agents.contains(&"anita".into()) }).await;
    assert_eq!(rt.status().await.unwrap().statistics.failures, 1);
    assert!(!rt.load(AgentId::Anita).await.unwrap().already_loaded, "re-spawned on next use");
}

#[tokio::test]
async fn repeated_failures_make_an_agent_unavailable_instead_of_restarting_forever() {
    let factory: AgentFactory = Arc::new(|id| match id {
        AgentId::Anita => Some(Box::new(Panicker) as Box<dyn Agent>),
        other => vigia_agents::instantiate(other),
    });
    let agents = AgentsConfig { max_failures: 2, ..agents_config(15.0, 10) };
    let (rt, store, _dir) = runtime_with(factory, agents).await;
    for _ in 0..2 {
        let inv = start(&rt, &store).await;
        finished(&store, inv.id).await;
    }
    wait_until("anita is unavailable", || async { !rt.status().await.unwrap().unavailable_agents.is_empty() }).await;
    assert!(matches!(rt.load(AgentId::Anita).await, Err(RuntimeError::AgentUnavailable { .. })));
}

#[tokio::test]
async fn cancelling_an_investigation_stops_the_agents_work() {
    let factory = sleepers();
    let (rt, store, _dir) = runtime_with(factory, agents_config(15.0, 10)).await;
    let inv = start(&rt, &store).await;
    wait_until("agents are busy", || async { rt.status().await.unwrap().agents.iter().any(|a| a.in_flight > 0) }).await;
    assert!(rt.cancel_investigation(inv.id, Duration::from_secs(5)).await.unwrap());
    let done = finished(&store, inv.id).await;
    assert_eq!(done.status, Status::Cancelled);
    wait_until("no analysis runs", || async { rt.status().await.unwrap().agents.iter().all(|a| a.in_flight == 0) })
        .await;
}

#[tokio::test]
async fn an_investigation_over_demo_data_completes_with_sequenced_events() {
    use crate::domain::ports::InvestigationStore;
    let (rt, store, _dir) = runtime_with(default_factory(), agents_config(15.0, 10)).await;
    let inv = start(&rt, &store).await;
    let done = finished(&store, inv.id).await;
    assert_eq!(done.status, Status::Completed);
    // The final record is written just before the terminal event is appended.
    wait_until("the terminal event is stored", || async {
        store.events_after(inv.id, 0).unwrap().last().is_some_and(|e| e.kind.is_terminal())
    })
    .await;
    let events = store.events_after(inv.id, 0).unwrap();
    let seqs: Vec<u64> = events.iter().map(|e| e.seq).collect();
    assert_eq!(seqs, (1..=events.len() as u64).collect::<Vec<_>>());
    assert!(events.last().unwrap().kind.is_terminal());
    assert_eq!(done.progress.phases_completed.len(), 7);
}

/// An anomaly the engine finds in demo data.
fn some_anomaly() -> vigia_agents::Anomaly {
    demo_findings().into_iter().next().expect("demo data has findings")
}

#[tokio::test]
async fn a_resumed_run_numbers_after_every_reserved_number_and_does_not_repeat_stored_anomalies() {
    use crate::domain::ports::InvestigationStore;
    use crate::domain::{AnomalyFound, EventKind, InvestigationEvent, Phase};
    let store = Store::temporary().unwrap();
    let inv = crate::domain::Investigation::start(InvestigationRequest::new("q"), uuid::Uuid::nil());
    store.save(&inv).unwrap();
    let a = some_anomaly();
    let found = Arc::new(AnomalyFound {
        id: a.id.clone(),
        anomaly_type: a.kind.as_str().into(),
        severity: a.severity.as_str().into(),
        confidence: a.confidence,
        description: a.description.clone(),
        description_en: None,
        contract_id: None,
        supplier: None,
        value: None,
        at_stake: None,
    });
    let stored = EventKind::Anomaly(found.clone());
    store.append_event(inv.id, &InvestigationEvent { seq: 1, kind: stored }).unwrap();
    // The crashed run had reserved numbers up to 300 and may have published some of them.
    store.reserve_seq(inv.id, 300).unwrap();
    let store: Arc<dyn InvestigationStore> = Arc::new(store);
    let mut em = emitter::Emitter::new(store.clone(), events::EventHub::default(), inv.clone(), RunKind::Resumed);
    assert_eq!(em.inv().progress.anomalies_found, 1, "recounted from the stored events");
    assert!(em.anomaly_event(&a.id, found).is_none());
    assert!(store.events_after(inv.id, 1).unwrap().is_empty(), "a stored anomaly is not emitted again");
    assert_eq!(em.inv().progress.anomalies_found, 1);
    em.phase(Phase::Initialization, 0).await;
    let next = store.events_after(inv.id, 1).unwrap();
    assert_eq!(next.iter().map(|e| e.seq).collect::<Vec<_>>(), vec![301], "numbered after the reservation");
    assert!(store.reserved_seq(inv.id).unwrap() >= 301 + emitter::SEQ_BLOCK - 1);
}

#[tokio::test]
async fn a_fresh_run_numbers_its_events_from_one_within_the_block_its_record_reserves() {
    use crate::domain::Phase;
    use crate::domain::ports::InvestigationStore;
    let (rt, store, _dir) = runtime_with(default_factory(), agents_config(15.0, 10)).await;
    let inv = crate::domain::Investigation::start(InvestigationRequest::new("contratos da saúde"), uuid::Uuid::nil());
    store.save(&inv).unwrap();
    assert!(rt.start_investigation(inv.clone(), RunKind::Fresh).await.unwrap());
    finished(&store, inv.id).await;
    let seqs: Vec<u64> = store.events_after(inv.id, 0).unwrap().iter().map(|e| e.seq).collect();
    assert_eq!(seqs, (1..=seqs.len() as u64).collect::<Vec<_>>(), "numbered from one, without gaps");
    assert!(seqs.len() < SEQ_BLOCK as usize);
    assert_eq!(store.reserved_seq(inv.id).unwrap(), 0, "no reservation written: the record reserves the first block");
    // Had it crashed after publishing some of its block, a resumed run numbers after the block.
    let store: Arc<dyn InvestigationStore> = Arc::new(store);
    let mut em = emitter::Emitter::new(store.clone(), events::EventHub::default(), inv.clone(), RunKind::Resumed);
    em.phase(Phase::Initialization, 0).await;
    let last = store.events_after(inv.id, 0).unwrap().last().map(|e| e.seq);
    assert_eq!(last, Some(SEQ_BLOCK + 1), "a resumed run numbers after the first block");
}

#[tokio::test]
async fn cancelling_an_investigation_that_is_not_running_ends_its_streams_with_the_terminal_event() {
    use crate::domain::ports::InvestigationStore;
    use crate::domain::{EventKind, Status};
    let (rt, store, _dir) = runtime_with(default_factory(), agents_config(15.0, 10)).await;
    let inv = crate::domain::Investigation::start(InvestigationRequest::new("q"), uuid::Uuid::nil());
    store.save(&inv).unwrap();
    let mut live = rt.subscribe(inv.id);
    let ended = rt.cancel_idle(inv.clone()).await;
    assert_eq!(ended.status, Status::Cancelled);
    let event = live.recv().await.unwrap();
    assert!(matches!(event.kind, EventKind::Cancelled { partial_results_available: false }), "{event:?}");
    let stored = store.events_after(inv.id, 0).unwrap();
    assert!(stored.last().unwrap().kind.is_terminal(), "a later stream reads the terminal event from the store");
    assert_eq!(store.get(inv.id).unwrap().unwrap().status, Status::Cancelled);
}

#[tokio::test]
async fn an_agent_reports_the_memory_its_running_analysis_holds_and_unloading_frees_it() {
    let factory: AgentFactory = Arc::new(|id| match id {
        AgentId::Zumbi => Some(Box::new(Hoarder) as Box<dyn Agent>),
        other => vigia_agents::instantiate(other),
    });
    let (rt, store, _dir) = runtime_with(factory, agents_config(15.0, 10)).await;
    let inv = start(&rt, &store).await;
    wait_until("zumbi holds its working set", || async {
        rt.status().await.unwrap().agents.iter().any(|a| a.name == "zumbi" && a.memory_mb >= 8.0)
    })
    .await;
    let forced = rt.unload(AgentId::Zumbi, true).await.unwrap();
    assert!(forced.freed_memory_mb >= 8.0, "{forced:?}");
    finished(&store, inv.id).await;
}

mod activity;
mod progress;
