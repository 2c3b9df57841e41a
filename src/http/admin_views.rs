//! How the admin routes' answers look on the wire (agent lazy loading, account unlock, API
//! keys), as typed structs so the OpenAPI document derives their schemas.

use serde::Serialize;
use utoipa::ToSchema;

use super::views::ts;
use crate::domain::ApiKey;
use crate::runtime::reports::PoolStatus;

/// The pool settings.
#[derive(Debug, Serialize, ToSchema)]
pub struct PoolConfigView {
    /// Minutes an idle agent stays loaded.
    pub unload_after_minutes: f64,
    /// Most agents loaded at once.
    pub max_loaded_agents: usize,
    /// Agents loaded at start.
    pub preload_agents: Vec<String>,
}

/// The pool counters.
#[derive(Debug, Serialize, ToSchema)]
pub struct PoolStatisticsView {
    /// Loads since start.
    pub total_loads: u64,
    /// Unloads since start.
    pub total_unloads: u64,
    /// Leases that found the agent loaded.
    pub cache_hits: u64,
    /// Leases that had to load it.
    pub cache_misses: u64,
    /// Leases waiting for room under the cap.
    pub waiting_leases: usize,
}

/// The agent pool's status (also the answer to `PUT config`).
#[derive(Debug, Serialize, ToSchema)]
pub struct PoolStatusView {
    /// Agents loaded now.
    pub loaded_agents: Vec<String>,
    /// How many.
    pub total_loaded: usize,
    /// Agents that can be loaded.
    pub total_available: usize,
    /// Measured memory of the loaded agents, MiB.
    pub memory_usage_mb: f64,
    /// Settings.
    pub config: PoolConfigView,
    /// Counters.
    pub statistics: PoolStatisticsView,
}

/// A load.
#[derive(Debug, Serialize, ToSchema)]
pub struct Loaded {
    /// Always true (failures are errors).
    pub success: bool,
    /// Agent id.
    pub agent_name: String,
    /// Whether it was loaded before the call.
    pub already_loaded: bool,
    /// Time the load took.
    pub load_time_ms: f64,
    /// The agent's measured memory, MiB.
    pub memory_usage_mb: f64,
}

/// An unload.
#[derive(Debug, Serialize, ToSchema)]
pub struct Unloaded {
    /// Whether it was unloaded.
    pub success: bool,
    /// Agent id.
    pub agent_name: String,
    /// Memory it held, MiB.
    pub freed_memory_mb: f64,
    /// Analyses cancelled by a forced unload.
    pub cancelled_analyses: usize,
    /// Why nothing happened, if so.
    pub reason: Option<String>,
}

/// A preload of every implemented agent.
#[derive(Debug, Serialize, ToSchema)]
pub struct Preloaded {
    /// Always true.
    pub success: bool,
    /// Agents loaded now or already.
    pub loaded_agents: Vec<String>,
    /// Loaded after the call.
    pub total_loaded: usize,
    /// Wall time.
    pub total_time_ms: f64,
}

/// A cleanup.
#[derive(Debug, Serialize, ToSchema)]
pub struct CleanedUp {
    /// Agents unloaded.
    pub unloaded_agents: Vec<String>,
    /// Memory they held, MiB.
    pub freed_memory_mb: f64,
}

/// One loaded agent's memory.
#[derive(Debug, Serialize, ToSchema)]
pub struct AgentMemoryView {
    /// Agent id.
    pub name: String,
    /// Measured memory, MiB.
    pub memory_mb: f64,
    /// Last lease (RFC 3339).
    pub last_used: String,
}

/// Memory of the process and of each loaded agent.
#[derive(Debug, Serialize, ToSchema)]
pub struct MemoryUsageView {
    /// Process RSS, MiB (null where the kernel does not say).
    pub total_memory_mb: Option<f64>,
    /// Loaded agents.
    pub agents: Vec<AgentMemoryView>,
}

/// An unlocked account.
#[derive(Debug, Serialize, ToSchema)]
pub struct Unlocked {
    /// Always true.
    pub success: bool,
    /// User id.
    pub user_id: String,
    /// E-mail.
    pub email: String,
}

/// A service API key (the secret only in the answer that created it).
#[derive(Debug, Serialize, ToSchema)]
pub struct ApiKeyView {
    /// Key id.
    pub id: String,
    /// What it is for.
    pub name: String,
    /// The service account it authenticates as.
    pub user_id: String,
    /// Created (RFC 3339).
    pub created_at: String,
    /// The key itself: shown once, at creation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub api_key: Option<String>,
}

/// The API keys.
#[derive(Debug, Serialize, ToSchema)]
pub struct ApiKeyList {
    /// Keys, without their secrets.
    pub api_keys: Vec<ApiKeyView>,
}

/// An action that needs no more than a word.
#[derive(Debug, Serialize, ToSchema)]
pub struct Done {
    /// Always true.
    pub success: bool,
    /// What happened.
    pub message: String,
}

/// The pool status view.
pub fn status_view(s: &PoolStatus) -> PoolStatusView {
    PoolStatusView {
        loaded_agents: s.loaded_agents.clone(),
        total_loaded: s.loaded_agents.len(),
        total_available: s.total_available,
        memory_usage_mb: s.agents_memory_mb,
        config: PoolConfigView {
            unload_after_minutes: s.settings.unload_after_minutes,
            max_loaded_agents: s.settings.max_loaded_agents,
            preload_agents: s.settings.preload_agents.clone(),
        },
        statistics: PoolStatisticsView {
            total_loads: s.statistics.total_loads,
            total_unloads: s.statistics.total_unloads,
            cache_hits: s.statistics.cache_hits,
            cache_misses: s.statistics.cache_misses,
            waiting_leases: s.statistics.waiting_leases,
        },
    }
}

/// An API key's view; `secret` only when it was just created.
pub fn key_view(k: &ApiKey, secret: Option<String>) -> ApiKeyView {
    ApiKeyView {
        id: k.id.to_string(),
        name: k.name.clone(),
        user_id: k.user_id.to_string(),
        created_at: ts(&k.created_at),
        api_key: secret,
    }
}
