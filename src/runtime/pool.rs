//! `AgentPool`: the single owner of agent lifecycles. Spawns an `AgentHost` on first use
//! (linked, so it supervises it), reaps idle agents and enforces the cap (least recently used
//! first) in the same handler that hands out refs, so nobody gets a ref to an agent being
//! reaped. An agent is in use from its lease on (`lease.rs`): the cap and the reaper only
//! unload agents nobody holds, and a lease the cap cannot serve waits for a returned one. A
//! failed agent is forgotten and re-spawned on next use; too many failures in a window make
//! it unavailable for a while instead of looping.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use chrono::{DateTime, Utc};
use ractor::{Actor, ActorId, ActorProcessingErr, ActorRef, RpcReplyPort, SupervisionEvent};
use tokio::task::JoinHandle;
use tokio::time::Instant;
use vigia_agents::AgentId;

use super::RuntimeError;
use super::host::{AgentFactory, AgentHost, HostArgs, HostMsg, HostShared};
pub(crate) use super::lease::Lease;
use super::lease::{Waiter, Waiting};
use super::memory::to_mb;
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
}

struct Loaded {
    host: ActorRef<HostMsg>,
    shared: Arc<HostShared>,
    last_used: Instant,
    last_used_wall: DateTime<Utc>,
}

pub(crate) struct PoolState {
    args: PoolArgs,
    loaded: HashMap<AgentId, Loaded>,
    by_actor: HashMap<ActorId, AgentId>,
    failures: HashMap<AgentId, VecDeque<Instant>>,
    unavailable_until: HashMap<AgentId, Instant>,
    stats: PoolStatistics,
    ticker: Option<JoinHandle<()>>,
    /// Lease requests waiting for a slot under the cap.
    waiting: Waiting,
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
        let ticker = Some(me.send_interval(tick_period(&args.settings), || PoolMsg::Tick));
        Ok(PoolState {
            args,
            loaded: HashMap::new(),
            by_actor: HashMap::new(),
            failures: HashMap::new(),
            unavailable_until: HashMap::new(),
            stats: PoolStatistics::default(),
            ticker,
            waiting: Waiting::default(),
        })
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
                let _ = reply.send(Ok(st.unload(id, force)));
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
                let mut report = CleanupReport { unloaded_agents: Vec::new(), freed_memory_mb: 0.0 };
                // What the reaper just unloaded on this message's arrival is this cleanup's work too.
                for u in reaped.into_iter().chain(idle.into_iter().map(|id| st.unload(id, false))) {
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
                    st.unload(id, true);
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

impl PoolState {
    /// Serves the waiting lease requests the cap allows now, in arrival order; the others
    /// keep waiting.
    async fn serve(&mut self, me: &ActorRef<PoolMsg>, now: Instant) {
        let mut still = Vec::new();
        for (id, reply) in self.waiting.take() {
            match self.ensure(me, id, now).await {
                Ok(Some(_)) => {
                    let l = &self.loaded[&id];
                    let _ = reply.send(Ok(Lease::new(l.host.clone(), l.shared.clone(), me.clone())));
                }
                Ok(None) => still.push((id, reply) as Waiter),
                Err(e) => {
                    let _ = reply.send(Err(e));
                }
            }
        }
        self.waiting.put_back(still);
    }

    /// Makes `id` loaded and most recently used: `Ok(Some(true))` when it had to be spawned,
    /// `Ok(None)` when it is not loaded and every loaded agent is in use at the cap.
    async fn ensure(
        &mut self,
        me: &ActorRef<PoolMsg>,
        id: AgentId,
        now: Instant,
    ) -> Result<Option<bool>, RuntimeError> {
        if let Some(until) = self.unavailable_until.get(&id) {
            if *until > now {
                return Err(RuntimeError::AgentUnavailable {
                    agent: id,
                    retry_after_secs: (*until - now).as_secs_f64(),
                });
            }
            self.unavailable_until.remove(&id);
        }
        if let Some(l) = self.loaded.get_mut(&id) {
            l.last_used = now;
            l.last_used_wall = Utc::now();
            self.stats.cache_hits += 1;
            return Ok(Some(false));
        }
        while self.loaded.len() >= self.args.settings.max_loaded_agents {
            let Some(victim) = self.least_recently_used_idle() else { return Ok(None) };
            self.unload(victim, false);
        }
        self.stats.cache_misses += 1;
        let shared = Arc::new(HostShared::default());
        let args = HostArgs { id, factory: self.args.factory.clone(), shared: shared.clone() };
        let (host, _) = Actor::spawn_linked(None, AgentHost, args, me.get_cell())
            .await
            .map_err(|e| RuntimeError::AgentUnavailable { agent: id, retry_after_secs: 0.0 }.logged(&e))?;
        self.by_actor.insert(host.get_id(), id);
        self.loaded.insert(id, Loaded { host, shared, last_used: now, last_used_wall: Utc::now() });
        self.stats.total_loads += 1;
        metrics::counter!("vigia_agent_loads_total", "agent" => id.as_str()).increment(1);
        Ok(Some(true))
    }

    fn least_recently_used_idle(&self) -> Option<AgentId> {
        self.loaded.iter().filter(|(_, l)| !l.shared.in_use()).min_by_key(|(_, l)| l.last_used).map(|(id, _)| *id)
    }

    /// Agents nobody uses that have been idle `unload_after_minutes` (with `any_age`, however
    /// recently used).
    fn idle_agents(&self, now: Instant, any_age: bool) -> Vec<AgentId> {
        let idle_for = Duration::from_secs_f64(self.args.settings.unload_after_minutes * 60.0);
        self.loaded
            .iter()
            .filter(|(_, l)| !l.shared.in_use() && (any_age || now.duration_since(l.last_used) >= idle_for))
            .map(|(id, _)| *id)
            .collect()
    }

    /// Stops idle agents past `unload_after_minutes`, then idle ones over the cap; answers what
    /// it unloaded.
    fn reap(&mut self, now: Instant) -> Vec<UnloadReport> {
        let expired = self.idle_agents(now, false);
        let mut out = Vec::new();
        for id in expired {
            tracing::info!(agent = %id, "unloading idle agent");
            out.push(self.unload(id, false));
        }
        while self.loaded.len() > self.args.settings.max_loaded_agents {
            let Some(victim) = self.least_recently_used_idle() else { break };
            out.push(self.unload(victim, false));
        }
        out
    }

    fn unload(&mut self, id: AgentId, force: bool) -> UnloadReport {
        let name = id.as_str().to_string();
        let Some(l) = self.loaded.get(&id) else {
            return UnloadReport {
                agent_name: name,
                success: false,
                freed_memory_mb: 0.0,
                cancelled_analyses: 0,
                reason: Some("agent is not loaded".into()),
            };
        };
        let busy = l.shared.in_flight.load(Ordering::Acquire);
        if l.shared.in_use() && !force {
            return UnloadReport {
                agent_name: name,
                success: false,
                freed_memory_mb: 0.0,
                cancelled_analyses: 0,
                reason: Some(format!(
                    "agent is in use ({busy} analyses running, {} leases held); use force to cancel them",
                    l.shared.leases.load(Ordering::Acquire)
                )),
            };
        }
        let freed = to_mb(l.shared.held_bytes());
        if busy > 0 {
            let _ = l.host.cast(HostMsg::CancelAll);
        }
        l.host.stop(Some("unloaded".into()));
        if let Some(l) = self.loaded.remove(&id) {
            self.by_actor.remove(&l.host.get_id());
        }
        self.stats.total_unloads += 1;
        metrics::counter!("vigia_agent_unloads_total", "agent" => id.as_str()).increment(1);
        UnloadReport { agent_name: name, success: true, freed_memory_mb: freed, cancelled_analyses: busy, reason: None }
    }

    fn forget(&mut self, id: AgentId, actor: ActorId) {
        if self.loaded.get(&id).is_some_and(|l| l.host.get_id() == actor) {
            self.loaded.remove(&id);
            self.stats.total_unloads += 1;
        }
    }

    fn record_failure(&mut self, id: AgentId, now: Instant) {
        self.stats.failures += 1;
        let window = self.args.failure_window;
        let times = self.failures.entry(id).or_default();
        times.push_back(now);
        while times.front().is_some_and(|t| now.duration_since(*t) > window) {
            times.pop_front();
        }
        if times.len() >= self.args.max_failures.max(1) {
            tracing::warn!(agent = %id, failures = times.len(), "agent unavailable after repeated failures");
            self.unavailable_until.insert(id, now + self.args.unavailable_for);
            times.clear();
        }
    }

    fn preload_set(&self) -> Vec<AgentId> {
        let implemented = implemented(&self.args.factory);
        let wanted: Vec<AgentId> = self
            .args
            .settings
            .preload_agents
            .iter()
            .filter_map(|n| AgentId::parse(n))
            .filter(|a| implemented.contains(a))
            .collect();
        let ids = if wanted.is_empty() { implemented } else { wanted };
        ids.into_iter().take(self.args.settings.max_loaded_agents).collect()
    }

    fn status(&self, now: Instant) -> PoolStatus {
        let mut agents: Vec<(Instant, AgentMemory)> = self
            .loaded
            .iter()
            .map(|(id, l)| {
                let mem = AgentMemory {
                    name: id.as_str().into(),
                    memory_mb: to_mb(l.shared.held_bytes()),
                    last_used: l.last_used_wall,
                    in_flight: l.shared.in_flight.load(Ordering::Acquire),
                };
                (l.last_used, mem)
            })
            .collect();
        agents.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.name.cmp(&b.1.name)));
        let agents: Vec<AgentMemory> = agents.into_iter().map(|(_, m)| m).collect();
        let total: i64 = self.loaded.values().map(|l| l.shared.held_bytes()).sum();
        PoolStatus {
            loaded_agents: agents.iter().map(|a| a.name.clone()).collect(),
            total_available: AgentId::ALL.len(),
            implemented_agents: implemented(&self.args.factory).iter().map(|a| a.as_str().to_string()).collect(),
            unavailable_agents: self
                .unavailable_until
                .iter()
                .filter(|(_, t)| **t > now)
                .map(|(id, t)| (id.as_str().to_string(), (*t - now).as_secs_f64()))
                .collect(),
            agents,
            agents_memory_mb: to_mb(total),
            settings: self.args.settings.clone(),
            statistics: PoolStatistics { waiting_leases: self.waiting.len(), ..self.stats.clone() },
        }
    }
}

/// The answer to a load the cap cannot make room for: every loaded agent is in use.
fn full(id: AgentId) -> RuntimeError {
    RuntimeError::AgentUnavailable { agent: id, retry_after_secs: 1.0 }
}

/// Agents whose analysis the factory can build.
pub(crate) fn implemented(factory: &AgentFactory) -> Vec<AgentId> {
    AgentId::ALL.iter().copied().filter(|id| factory(*id).is_some()).collect()
}
