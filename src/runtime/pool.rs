//! `AgentPool`: the single owner of agent lifecycles. Spawns an `AgentHost` on first use
//! (linked, so it supervises it), reaps idle agents and enforces the cap (least recently used
//! first) in the same handler that hands out refs, so nobody gets a ref to an agent being
//! reaped. An agent is in use from its lease on (`lease.rs`): the cap and the reaper only
//! unload agents nobody holds, and a lease the cap cannot serve waits for a returned one. A
//! failed agent is forgotten and re-spawned on next use; too many failures in a window make
//! it unavailable for a while instead of looping.

use std::time::Duration;

use ractor::{Actor, ActorProcessingErr, ActorRef, RpcReplyPort, SupervisionEvent};
use tokio::time::Instant;
use vigia_agents::AgentId;

use super::RuntimeError;
use super::activity::{PoolEvents, UnloadReason};
use super::host::AgentFactory;
pub(crate) use super::lease::Lease;
use super::memory::to_mb;
use super::pool_state::full;
pub(crate) use super::pool_state::{PoolState, implemented};
use super::reports::*;

pub(crate) enum PoolMsg {
    Acquire(AgentId, RpcReplyPort<Result<Lease, RuntimeError>>),
    Load(AgentId, RpcReplyPort<Result<LoadReport, RuntimeError>>),
    Unload(AgentId, bool, RpcReplyPort<Result<UnloadReport, RuntimeError>>),
    PreloadAll(RpcReplyPort<PreloadReport>),
    /// Unloads agents idle past `unload_after_minutes`; with `true`, every agent not in use.
    Cleanup(bool, RpcReplyPort<CleanupReport>),
    Status(RpcReplyPort<PoolStatus>),
    Configure(PoolSettings, RpcReplyPort<PoolStatus>),
    Tick,
    /// A lease was dropped: waiting requests may be served.
    Released,
    StopAll(RpcReplyPort<()>),
}

pub(crate) struct PoolArgs {
    pub factory: AgentFactory,
    pub settings: PoolSettings,
    pub max_failures: usize,
    pub failure_window: Duration,
    pub unavailable_for: Duration,
    /// Where the pool and its hosts send their activity.
    pub events: PoolEvents,
}

pub(crate) struct AgentPool;

fn tick_period(s: &PoolSettings) -> Duration {
    Duration::from_secs_f64((s.unload_after_minutes * 60.0 / 4.0).clamp(0.05, 30.0))
}

impl Actor for AgentPool {
    type Msg = PoolMsg;
    type State = PoolState;
    type Arguments = PoolArgs;

    async fn pre_start(&self, me: ActorRef<PoolMsg>, args: PoolArgs) -> Result<PoolState, ActorProcessingErr> {
        let ticker = me.send_interval(tick_period(&args.settings), || PoolMsg::Tick);
        Ok(PoolState::new(args, ticker))
    }

    async fn handle(&self, me: ActorRef<PoolMsg>, msg: PoolMsg, st: &mut PoolState) -> Result<(), ActorProcessingErr> {
        let now = Instant::now();
        let reaped = st.reap(now);
        match msg {
            PoolMsg::Acquire(id, reply) => {
                st.waiting.push((id, reply));
                st.serve(&me, now).await;
            }
            PoolMsg::Load(id, reply) => {
                let start = std::time::Instant::now();
                let r = st.ensure(&me, id, now).await.and_then(|fresh| fresh.ok_or(full(id))).map(|fresh| LoadReport {
                    agent_name: id.as_str().into(),
                    already_loaded: !fresh,
                    load_time_ms: if fresh { start.elapsed().as_secs_f64() * 1000.0 } else { 0.0 },
                    memory_usage_mb: to_mb(st.loaded[&id].shared.held_bytes()),
                });
                let _ = reply.send(r);
            }
            PoolMsg::Unload(id, force, reply) => {
                let _ = reply.send(Ok(st.unload(id, force, UnloadReason::Admin)));
            }
            PoolMsg::PreloadAll(reply) => {
                let start = std::time::Instant::now();
                let mut loaded_agents = Vec::new();
                for id in st.preload_set() {
                    if st.ensure(&me, id, now).await.is_ok_and(|fresh| fresh.is_some()) {
                        loaded_agents.push(id.as_str().to_string());
                    }
                }
                let total_time_ms = start.elapsed().as_secs_f64() * 1000.0;
                let _ = reply.send(PreloadReport { loaded_agents, total_loaded: st.loaded.len(), total_time_ms });
            }
            PoolMsg::Cleanup(force, reply) => {
                let idle = st.idle_agents(now, force);
                // A forced cleanup unloads agents however recently used: the administrator's doing.
                let why = if force { UnloadReason::Admin } else { UnloadReason::Idle };
                let mut report = CleanupReport { unloaded_agents: Vec::new(), freed_memory_mb: 0.0 };
                // What the reaper just unloaded on this message's arrival is this cleanup's work too.
                for u in reaped.into_iter().chain(idle.into_iter().map(|id| st.unload(id, false, why))) {
                    report.freed_memory_mb += u.freed_memory_mb;
                    report.unloaded_agents.push(u.agent_name);
                }
                report.unloaded_agents.sort();
                let _ = reply.send(report);
            }
            PoolMsg::Status(reply) => {
                let _ = reply.send(st.status(now));
            }
            PoolMsg::Configure(settings, reply) => {
                st.args.settings = settings;
                if let Some(t) = st.ticker.take() {
                    t.abort();
                }
                st.ticker = Some(me.send_interval(tick_period(&st.args.settings), || PoolMsg::Tick));
                st.reap(now);
                let _ = reply.send(st.status(now));
            }
            PoolMsg::Tick | PoolMsg::Released => st.serve(&me, now).await,
            PoolMsg::StopAll(reply) => {
                for (id, waiter) in st.waiting.take() {
                    let _ = waiter.send(Err(RuntimeError::AgentUnavailable { agent: id, retry_after_secs: 0.0 }));
                }
                let ids: Vec<AgentId> = st.loaded.keys().copied().collect();
                for id in ids {
                    st.unload(id, true, UnloadReason::Shutdown);
                }
                let _ = reply.send(());
            }
        }
        Ok(())
    }

    async fn handle_supervisor_evt(
        &self,
        _me: ActorRef<PoolMsg>,
        evt: SupervisionEvent,
        st: &mut PoolState,
    ) -> Result<(), ActorProcessingErr> {
        // The default would stop the pool when any child stops; a pool outlives its agents.
        match evt {
            SupervisionEvent::ActorFailed(cell, err) => {
                if let Some(id) = st.by_actor.remove(&cell.get_id()) {
                    tracing::warn!(agent = %id, error = %err, "agent failed; it will be re-spawned on next use");
                    st.forget(id, cell.get_id());
                    st.record_failure(id, Instant::now());
                }
            }
            SupervisionEvent::ActorTerminated(cell, _, _) => {
                if let Some(id) = st.by_actor.remove(&cell.get_id()) {
                    st.forget(id, cell.get_id());
                }
            }
            _ => {}
        }
        Ok(())
    }

    async fn post_stop(&self, _me: ActorRef<PoolMsg>, st: &mut PoolState) -> Result<(), ActorProcessingErr> {
        if let Some(t) = st.ticker.take() {
            t.abort();
        }
        Ok(())
    }
}
