//! The pool's state and the work behind its messages: serving leases under the cap, spawning
//! hosts, reaping idle agents, unloading and forgetting them, counting failures. Every change
//! of what the pool holds is sent as a [`PoolEvent`] from here.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use chrono::{DateTime, Utc};
use ractor::{Actor, ActorId, ActorRef};
use tokio::task::JoinHandle;
use tokio::time::Instant;
use vigia_agents::AgentId;

use super::RuntimeError;
use super::activity::{PoolEvent, UnloadReason};
use super::host::{AgentFactory, AgentHost, HostArgs, HostMsg, HostShared};
use super::lease::{Lease, Waiter, Waiting};
use super::memory::to_mb;
use super::pool::{PoolArgs, PoolMsg};
use super::reports::*;

/// A loaded agent.
pub(super) struct Loaded {
    pub host: ActorRef<HostMsg>,
    pub shared: Arc<HostShared>,
    last_used: Instant,
    last_used_wall: DateTime<Utc>,
}

/// What the pool actor holds.
pub(crate) struct PoolState {
    pub args: PoolArgs,
    pub loaded: HashMap<AgentId, Loaded>,
    pub by_actor: HashMap<ActorId, AgentId>,
    failures: HashMap<AgentId, VecDeque<Instant>>,
    unavailable_until: HashMap<AgentId, Instant>,
    stats: PoolStatistics,
    pub ticker: Option<JoinHandle<()>>,
    /// Lease requests waiting for a slot under the cap.
    pub waiting: Waiting,
}

impl PoolState {
    /// An empty pool with its reaper's ticker.
    pub(super) fn new(args: PoolArgs, ticker: JoinHandle<()>) -> PoolState {
        PoolState {
            args,
            loaded: HashMap::new(),
            by_actor: HashMap::new(),
            failures: HashMap::new(),
            unavailable_until: HashMap::new(),
            stats: PoolStatistics::default(),
            ticker: Some(ticker),
            waiting: Waiting::default(),
        }
    }

    /// Serves the waiting lease requests the cap allows now, in arrival order; the others
    /// keep waiting.
    pub(super) async fn serve(&mut self, me: &ActorRef<PoolMsg>, now: Instant) {
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
    pub(super) async fn ensure(
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
            self.unload(victim, false, UnloadReason::Evicted);
        }
        self.stats.cache_misses += 1;
        let shared = Arc::new(HostShared::default());
        let args = HostArgs {
            id,
            factory: self.args.factory.clone(),
            shared: shared.clone(),
            events: self.args.events.clone(),
        };
        let (host, _) = Actor::spawn_linked(None, AgentHost, args, me.get_cell())
            .await
            .map_err(|e| RuntimeError::AgentUnavailable { agent: id, retry_after_secs: 0.0 }.logged(&e))?;
        self.by_actor.insert(host.get_id(), id);
        let memory_mb = to_mb(shared.held_bytes());
        self.loaded.insert(id, Loaded { host, shared, last_used: now, last_used_wall: Utc::now() });
        self.args.events.send(PoolEvent::Loaded { agent: id, memory_mb, at: Utc::now() });
        self.stats.total_loads += 1;
        metrics::counter!("vigia_agent_loads_total", "agent" => id.as_str()).increment(1);
        Ok(Some(true))
    }

    fn least_recently_used_idle(&self) -> Option<AgentId> {
        self.loaded.iter().filter(|(_, l)| !l.shared.in_use()).min_by_key(|(_, l)| l.last_used).map(|(id, _)| *id)
    }

    /// Agents nobody uses that have been idle `unload_after_minutes` (with `any_age`, however
    /// recently used).
    pub(super) fn idle_agents(&self, now: Instant, any_age: bool) -> Vec<AgentId> {
        let idle_for = Duration::from_secs_f64(self.args.settings.unload_after_minutes * 60.0);
        self.loaded
            .iter()
            .filter(|(_, l)| !l.shared.in_use() && (any_age || now.duration_since(l.last_used) >= idle_for))
            .map(|(id, _)| *id)
            .collect()
    }

    /// Stops idle agents past `unload_after_minutes`, then idle ones over the cap; answers what
    /// it unloaded.
    pub(super) fn reap(&mut self, now: Instant) -> Vec<UnloadReport> {
        let expired = self.idle_agents(now, false);
        let mut out = Vec::new();
        for id in expired {
            tracing::info!(agent = %id, "unloading idle agent");
            out.push(self.unload(id, false, UnloadReason::Idle));
        }
        while self.loaded.len() > self.args.settings.max_loaded_agents {
            let Some(victim) = self.least_recently_used_idle() else { break };
            out.push(self.unload(victim, false, UnloadReason::Evicted));
        }
        out
    }

    /// Stops `id`'s host unless it is in use (with `force`, cancelling its analyses first).
    pub(super) fn unload(&mut self, id: AgentId, force: bool, reason: UnloadReason) -> UnloadReport {
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
        self.args.events.send(PoolEvent::Unloaded { agent: id, reason, cancelled_analyses: busy, at: Utc::now() });
        UnloadReport { agent_name: name, success: true, freed_memory_mb: freed, cancelled_analyses: busy, reason: None }
    }

    /// Drops `id` when `actor` is still its host (it failed or stopped on its own).
    pub(super) fn forget(&mut self, id: AgentId, actor: ActorId) {
        if self.loaded.get(&id).is_some_and(|l| l.host.get_id() == actor) {
            self.loaded.remove(&id);
            self.stats.total_unloads += 1;
            let event = PoolEvent::Unloaded {
                agent: id,
                reason: UnloadReason::Forgotten,
                cancelled_analyses: 0,
                at: Utc::now(),
            };
            self.args.events.send(event);
        }
    }

    pub(super) fn record_failure(&mut self, id: AgentId, now: Instant) {
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

    pub(super) fn preload_set(&self) -> Vec<AgentId> {
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

    pub(super) fn status(&self, now: Instant) -> PoolStatus {
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
pub(super) fn full(id: AgentId) -> RuntimeError {
    RuntimeError::AgentUnavailable { agent: id, retry_after_secs: 1.0 }
}

/// Agents whose analysis the factory can build.
pub(crate) fn implemented(factory: &AgentFactory) -> Vec<AgentId> {
    AgentId::ALL.iter().copied().filter(|id| factory(*id).is_some()).collect()
}
