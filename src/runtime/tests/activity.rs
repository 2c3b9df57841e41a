//! The pool's activity broadcast: every load, unload (with its reason) and analysis is told in
//! the order it happened, however close together.

use super::*;
use crate::runtime::activity::{PoolEvent, UnloadReason};
use tokio::sync::broadcast::Receiver;

/// Answers at once with nothing found.
struct Answers(AgentId);
impl Agent for Answers {
    fn id(&self) -> AgentId {
        self.0
    }
    fn analyse(&self, _ctx: &AnalysisContext<'_>) -> Result<AgentOutput, AnalysisError> {
        Ok(AgentOutput::default())
    }
}

/// The next event, within five seconds.
async fn next(rx: &mut Receiver<PoolEvent>) -> PoolEvent {
    tokio::time::timeout(Duration::from_secs(5), rx.recv()).await.expect("an event in time").expect("no lag")
}

fn call(agent: AgentId) -> AgentCall {
    AgentCall {
        agent,
        dataset: Arc::new(vigia_agents::Dataset::default()),
        params: vigia_agents::DetectionParams::default(),
        question: None,
        findings: None,
        progress: None,
    }
}

#[tokio::test]
async fn an_agent_loaded_and_unloaded_within_a_millisecond_is_seen_loading_then_unloading() {
    let factory: AgentFactory = Arc::new(|id| Some(Box::new(Answers(id)) as Box<dyn Agent>));
    let (rt, _store, _dir) = runtime_with(factory, agents_config(15.0, 10)).await;
    let mut rx = rt.pool_events();
    // Both messages are in the pool's mailbox before it handles the first: the unload follows
    // the load with nothing between them.
    let (loaded, unloaded) = tokio::join!(rt.load(AgentId::Zumbi), rt.unload(AgentId::Zumbi, false));
    assert!(!loaded.unwrap().already_loaded);
    assert!(unloaded.unwrap().success);
    let PoolEvent::Loaded { agent: AgentId::Zumbi, at: loaded_at, .. } = next(&mut rx).await else {
        panic!("loaded first")
    };
    let PoolEvent::Unloaded { agent: AgentId::Zumbi, reason, at: unloaded_at, .. } = next(&mut rx).await else {
        panic!("then unloaded")
    };
    assert_eq!(reason, UnloadReason::Admin);
    let apart = (unloaded_at - loaded_at).num_microseconds().unwrap_or(i64::MAX);
    println!("loaded and unloaded {apart} µs apart");
    // Far inside the 250 ms a sampler looked every; usually a few microseconds.
    assert!(apart < 1_000, "{apart} µs apart");
}

#[tokio::test]
async fn analyses_evictions_and_failures_are_told_with_their_outcome_and_reason() {
    let factory: AgentFactory = Arc::new(|id| match id {
        AgentId::Anita => Some(Box::new(Panicker) as Box<dyn Agent>),
        other => Some(Box::new(Answers(other)) as Box<dyn Agent>),
    });
    let (rt, _store, _dir) = runtime_with(factory, agents_config(15.0, 1)).await;
    let mut rx = rt.pool_events();
    rt.call_agent(call(AgentId::Zumbi)).await.unwrap();
    assert!(matches!(next(&mut rx).await, PoolEvent::Loaded { agent: AgentId::Zumbi, .. }));
    assert!(matches!(next(&mut rx).await, PoolEvent::AnalysisStarted { agent: AgentId::Zumbi, in_flight: 1, .. }));
    let PoolEvent::AnalysisFinished { agent: AgentId::Zumbi, error: None, in_flight: 0, duration_ms, .. } =
        next(&mut rx).await
    else {
        panic!("zumbi's analysis answered")
    };
    assert!(duration_ms >= 0.0);
    // A cap of one: anita takes zumbi's place, then panics and is forgotten.
    assert!(rt.call_agent(call(AgentId::Anita)).await.is_err());
    let evicted = next(&mut rx).await;
    assert!(
        matches!(evicted, PoolEvent::Unloaded { agent: AgentId::Zumbi, reason: UnloadReason::Evicted, .. }),
        "{evicted:?}"
    );
    assert!(matches!(next(&mut rx).await, PoolEvent::Loaded { agent: AgentId::Anita, .. }));
    assert!(matches!(next(&mut rx).await, PoolEvent::AnalysisStarted { agent: AgentId::Anita, .. }));
    let PoolEvent::AnalysisFinished { agent: AgentId::Anita, error: Some(error), .. } = next(&mut rx).await else {
        panic!("anita's analysis failed")
    };
    assert!(error.contains("planted failure"), "{error}");
    let forgotten = next(&mut rx).await;
    assert!(
        matches!(forgotten, PoolEvent::Unloaded { agent: AgentId::Anita, reason: UnloadReason::Forgotten, .. }),
        "{forgotten:?}"
    );
}
