//! Running one agent on one dataset: lease it from the pool, hand it the job, return the lease,
//! record the call in the statistics. Investigation runs use it for each agent of their plan;
//! direct calls (`/api/v1/agents/{name}/...`, chat) use it alone.

use std::sync::Arc;
use std::time::Duration;

use ractor::ActorRef;
use ractor::rpc::CallResult;
use vigia_agents::{AgentId, AgentOutput};

use super::calls::{AgentCalls, CallEnd, CallRecord};
use super::host::{HostMsg, Job, JobFailure};
use super::pool::{Lease, PoolMsg};

/// Why a run of one agent gave no output; the text is safe to show.
#[derive(Debug, Clone)]
pub(crate) enum RunFailure {
    /// Cancelled before it finished.
    Cancelled,
    /// No lease: unavailable, not implemented, or no slot in time.
    NoLease(super::RuntimeError),
    /// The analysis failed, timed out or panicked.
    Failed(String),
}

impl std::fmt::Display for RunFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunFailure::Cancelled => f.write_str("cancelled"),
            RunFailure::NoLease(e) => write!(f, "{e}"),
            RunFailure::Failed(e) => f.write_str(e),
        }
    }
}

/// Leases `agent`, runs `job` on it within `timeout`, returns the lease and records the call.
pub(crate) async fn run_job(
    pool: &ActorRef<PoolMsg>,
    calls: &Arc<AgentCalls>,
    agent: AgentId,
    mut job: Job,
    timeout: Duration,
) -> Result<AgentOutput, RunFailure> {
    // The host records the call when the analysis ends; this side only when no host answered.
    let record = CallRecord::new(calls.clone(), agent);
    job.record = Some(record.clone());
    let lease = match acquire(pool, agent, timeout).await {
        Ok(lease) => lease,
        Err(e) => {
            record.end(CallEnd::Failed);
            return Err(RunFailure::NoLease(e));
        }
    };
    let r = lease.host.call(|reply| HostMsg::Analyse(Box::new(job), reply), Some(timeout)).await;
    drop(lease);
    let out = match r {
        Ok(CallResult::Success(Ok(out))) => Ok(out),
        Ok(CallResult::Success(Err(JobFailure::Cancelled))) => Err(RunFailure::Cancelled),
        Ok(CallResult::Success(Err(e))) => Err(RunFailure::Failed(e.to_string())),
        Ok(CallResult::Timeout) => Err(RunFailure::Failed("analysis timed out".into())),
        Ok(CallResult::SenderError) => Err(RunFailure::Failed("agent stopped before answering".into())),
        Err(_) => Err(RunFailure::Failed("agent is not running".into())),
    };
    // Already recorded by the host when it answered; a timeout or a stopped agent is a failure.
    record.end(match &out {
        Ok(_) => CallEnd::Ok,
        Err(RunFailure::Cancelled) => CallEnd::Cancelled,
        Err(_) => CallEnd::Failed,
    });
    out
}

/// Leases `agent`, waiting at most `timeout` for a slot under the cap.
async fn acquire(pool: &ActorRef<PoolMsg>, agent: AgentId, timeout: Duration) -> Result<Lease, super::RuntimeError> {
    match pool.call(|r| PoolMsg::Acquire(agent, r), Some(timeout)).await {
        Ok(CallResult::Success(r)) => r,
        Ok(CallResult::Timeout) => Err(super::RuntimeError::NoSlot(agent)),
        _ => Err(super::RuntimeError::NoAnswer("agent pool")),
    }
}
