//! Agent lazy loading for administrators: status, load, unload, preload-all, settings,
//! cleanup and memory, over the runtime's typed handle. Names are resolved like everywhere
//! else (ids, aliases, display names); an unknown name is AGENT_NOT_FOUND, an agent whose
//! analysis this version lacks (or that keeps failing) AGENT_UNAVAILABLE. Settings an admin
//! changes are stored ([`SETTINGS_KEY`]) and applied again at the next start, over the
//! configuration's.

use vigia_agents::AgentId;

use crate::error::{Error, ErrorCode, Result};
use crate::runtime::reports::{
    AgentMemory, CleanupReport, LoadReport, PoolSettings, PoolStatus, PreloadReport, UnloadReport,
};
use crate::runtime::{RuntimeError, RuntimeHandle, memory};
use crate::storage::Store;

/// Name of the stored agent-pool settings.
pub const SETTINGS_KEY: &str = "agent_pool";

/// New lazy-loading settings; `None` keeps the current value.
#[derive(Debug, Clone, Default)]
pub struct SettingsChange {
    /// Idle minutes before unloading (fractions allowed).
    pub unload_after_minutes: Option<f64>,
    /// Cap on loaded agents.
    pub max_loaded_agents: Option<usize>,
    /// Agents `preload-all` loads (names resolved like everywhere else).
    pub preload_agents: Option<Vec<String>>,
}

/// What `memory-usage` answers.
#[derive(Debug, Clone)]
pub struct MemoryUsage {
    /// Resident set size of the whole process in MiB (`None` where the kernel does not say).
    pub total_memory_mb: Option<f64>,
    /// Each loaded agent's measured memory.
    pub agents: Vec<AgentMemory>,
}

/// The agent administration facade.
pub struct AdminService {
    runtime: RuntimeHandle,
    store: Store,
}

/// The transport-neutral error for a runtime failure (shared by every service that calls agents).
pub(crate) fn runtime_error(e: RuntimeError) -> Error {
    match e {
        RuntimeError::AgentUnavailable { agent, retry_after_secs } => {
            Error::new(ErrorCode::AgentUnavailable, format!("agent {agent} is unavailable"))
                .with("agent_name", agent.as_str())
                .with("retry_after", retry_after_secs.ceil())
        }
        RuntimeError::NoSlot(agent) => Error::new(
            ErrorCode::AgentUnavailable,
            format!("agent {agent} could not get a slot under max_loaded_agents in time"),
        )
        .with("agent_name", agent.as_str())
        .with("retry_after", 5),
        RuntimeError::AnalysisFailed { agent, message } => {
            tracing::warn!(agent = agent.as_str(), error = %message, "a direct agent call failed");
            Error::new(ErrorCode::AgentUnavailable, format!("agent {agent} could not complete the analysis"))
                .with("agent_name", agent.as_str())
                .with("reason", message)
        }
        RuntimeError::Cancelled => Error::new(ErrorCode::ServiceUnavailable, "the analysis was cancelled"),
        RuntimeError::NoAnswer(what) => {
            tracing::warn!(component = what, "runtime did not answer an admin call");
            Error::new(ErrorCode::ServiceUnavailable, "the agent runtime did not answer; try again")
        }
    }
}

/// Resolves a name to a known agent; AGENT_NOT_FOUND otherwise.
pub fn resolve_agent(name: &str) -> Result<AgentId> {
    AgentId::parse(name).ok_or_else(|| {
        Error::new(ErrorCode::AgentNotFound, format!("no agent is called '{name}'")).with("agent_name", name)
    })
}

impl AdminService {
    /// Builds the facade.
    pub fn new(runtime: RuntimeHandle, store: Store) -> Self {
        AdminService { runtime, store }
    }

    /// Applies the settings an admin stored before the last stop, if any; the settings in
    /// force.
    pub async fn restore(&self) -> Result<PoolSettings> {
        let stored: Option<PoolSettings> = self.store.setting(SETTINGS_KEY).map_err(Error::internal)?;
        match stored {
            Some(settings) => {
                tracing::info!(?settings, "agent pool settings restored from the store");
                Ok(self.runtime.configure(settings).await.map_err(runtime_error)?.settings)
            }
            None => Ok(self.status().await?.settings),
        }
    }

    /// Loaded agents, memory, settings and counters.
    pub async fn status(&self) -> Result<PoolStatus> {
        self.runtime.status().await.map_err(runtime_error)
    }

    /// Loads an agent.
    pub async fn load(&self, name: &str) -> Result<LoadReport> {
        let id = self.implemented(name)?;
        self.runtime.load(id).await.map_err(runtime_error)
    }

    /// Unloads an agent; `force` cancels its running analyses first.
    pub async fn unload(&self, name: &str, force: bool) -> Result<UnloadReport> {
        let id = resolve_agent(name)?;
        self.runtime.unload(id, force).await.map_err(runtime_error)
    }

    /// Loads every implemented agent (or the configured preload list).
    pub async fn preload_all(&self) -> Result<PreloadReport> {
        self.runtime.preload_all().await.map_err(runtime_error)
    }

    /// Unloads the agents idle longer than `unload_after_minutes`, or with `force` every agent
    /// not in use.
    pub async fn cleanup(&self, force: bool) -> Result<CleanupReport> {
        self.runtime.cleanup(force).await.map_err(runtime_error)
    }

    /// Changes the settings and answers the new status.
    pub async fn configure(&self, change: SettingsChange) -> Result<PoolStatus> {
        let current = self.status().await?.settings;
        let unload_after_minutes = change.unload_after_minutes.unwrap_or(current.unload_after_minutes);
        if !(unload_after_minutes.is_finite() && unload_after_minutes >= 0.0) {
            return Err(Error::validation("unload_after_minutes", "must be a number of minutes >= 0"));
        }
        let max_loaded_agents = change.max_loaded_agents.unwrap_or(current.max_loaded_agents);
        if max_loaded_agents == 0 {
            return Err(Error::validation("max_loaded_agents", "must be at least 1"));
        }
        let preload_agents = match change.preload_agents {
            Some(names) => names
                .iter()
                .map(|n| self.implemented(n).map(|id| id.as_str().to_string()))
                .collect::<Result<Vec<_>>>()?,
            None => current.preload_agents,
        };
        let settings = PoolSettings { unload_after_minutes, max_loaded_agents, preload_agents };
        self.store.save_setting(SETTINGS_KEY, &settings).map_err(Error::internal)?;
        self.runtime.configure(settings).await.map_err(runtime_error)
    }

    /// Process memory and each loaded agent's share.
    pub async fn memory_usage(&self) -> Result<MemoryUsage> {
        let status = self.status().await?;
        let total_memory_mb = memory::rss_bytes().map(|b| memory::to_mb(i64::try_from(b).unwrap_or(i64::MAX)));
        Ok(MemoryUsage { total_memory_mb, agents: status.agents })
    }

    /// A known agent whose analysis is implemented; AGENT_UNAVAILABLE for one that is not.
    fn implemented(&self, name: &str) -> Result<AgentId> {
        let id = resolve_agent(name)?;
        if self.runtime.is_implemented(id) {
            Ok(id)
        } else {
            Err(Error::new(ErrorCode::AgentUnavailable, format!("agent {id} has no analysis in this version"))
                .with("agent_name", id.as_str())
                .with("reason", "no analysis in this version"))
        }
    }
}
