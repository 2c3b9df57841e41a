//! Plain values the runtime returns to the service layer: what the pool did and what it holds.

use chrono::{DateTime, Utc};
use serde::Serialize;

/// Result of loading an agent.
#[derive(Debug, Clone, Serialize)]
pub struct LoadReport {
    /// Agent id.
    pub agent_name: String,
    /// Whether it was already loaded (then `load_time_ms` is 0).
    pub already_loaded: bool,
    /// Wall time to spawn the actor and build the agent.
    pub load_time_ms: f64,
    /// Measured memory of the agent in MiB.
    pub memory_usage_mb: f64,
}

/// Result of unloading an agent.
#[derive(Debug, Clone, Serialize)]
pub struct UnloadReport {
    /// Agent id.
    pub agent_name: String,
    /// Whether it was unloaded.
    pub success: bool,
    /// Memory released in MiB (the agent's measured memory).
    pub freed_memory_mb: f64,
    /// Analyses that were cancelled (forced unload of a busy agent).
    pub cancelled_analyses: usize,
    /// Why nothing happened, if so.
    pub reason: Option<String>,
}

/// Result of preloading every implemented agent.
#[derive(Debug, Clone, Serialize)]
pub struct PreloadReport {
    /// Agents loaded now or already.
    pub loaded_agents: Vec<String>,
    /// Total loaded after the call.
    pub total_loaded: usize,
    /// Wall time.
    pub total_time_ms: f64,
}

/// Result of a cleanup.
#[derive(Debug, Clone, Serialize)]
pub struct CleanupReport {
    /// Agents unloaded.
    pub unloaded_agents: Vec<String>,
    /// Memory released in MiB.
    pub freed_memory_mb: f64,
}

/// Memory of one loaded agent.
#[derive(Debug, Clone, Serialize)]
pub struct AgentMemory {
    /// Agent id.
    pub name: String,
    /// Measured MiB.
    pub memory_mb: f64,
    /// Last use.
    pub last_used: DateTime<Utc>,
    /// Analyses running now.
    pub in_flight: usize,
}

/// Lazy-loading settings that can change at run time.
#[derive(Debug, Clone, Serialize, serde::Deserialize, PartialEq)]
pub struct PoolSettings {
    /// Idle minutes before unloading.
    pub unload_after_minutes: f64,
    /// Cap on loaded agents.
    pub max_loaded_agents: usize,
    /// Agents loaded at start and kept loaded by `preload-all`.
    pub preload_agents: Vec<String>,
}

/// Counters since start.
#[derive(Debug, Clone, Serialize, Default)]
pub struct PoolStatistics {
    /// Spawns.
    pub total_loads: u64,
    /// Stops (idle, cap, unload, cleanup, failure).
    pub total_unloads: u64,
    /// Uses that found the agent loaded.
    pub cache_hits: u64,
    /// Uses that had to load it.
    pub cache_misses: u64,
    /// Analyses that panicked or failed the actor.
    pub failures: u64,
    /// Lease requests waiting now for a slot under `max_loaded_agents`.
    pub waiting_leases: usize,
}

/// The pool at a glance.
#[derive(Debug, Clone, Serialize)]
pub struct PoolStatus {
    /// Loaded agent ids, most recently used first.
    pub loaded_agents: Vec<String>,
    /// Agents known to the registry.
    pub total_available: usize,
    /// Agents that can be loaded (analysis implemented).
    pub implemented_agents: Vec<String>,
    /// Agents refusing work after repeated failures, with seconds left.
    pub unavailable_agents: Vec<(String, f64)>,
    /// Per-agent memory.
    pub agents: Vec<AgentMemory>,
    /// Sum of the agents' measured memory in MiB.
    pub agents_memory_mb: f64,
    /// Settings.
    pub settings: PoolSettings,
    /// Counters.
    pub statistics: PoolStatistics,
}
