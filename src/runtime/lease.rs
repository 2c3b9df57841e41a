//! Leases of loaded agents. An agent is in use from the moment the pool leases it until the
//! lease is dropped, not only while its analysis runs, so the cap never evicts an agent a
//! running investigation holds between the lease and the start of its analysis. A lease
//! request the cap cannot serve now (every loaded agent in use) waits in the pool's queue and
//! is served, in arrival order, when a lease is returned: with a cap of one, the agents of an
//! investigation take turns instead of evicting each other.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use ractor::{ActorRef, RpcReplyPort};
use vigia_agents::AgentId;

use super::RuntimeError;
use super::host::{HostMsg, HostShared};
use super::pool::PoolMsg;

/// What the pool hands out: a ref to a live host, counted as in use until dropped.
pub(crate) struct Lease {
    /// The agent's host.
    pub host: ActorRef<HostMsg>,
    shared: Arc<HostShared>,
    pool: ActorRef<PoolMsg>,
}

impl Lease {
    /// Counts a new lease of the host whose shared state is `shared`.
    pub(crate) fn new(host: ActorRef<HostMsg>, shared: Arc<HostShared>, pool: ActorRef<PoolMsg>) -> Lease {
        shared.leases.fetch_add(1, Ordering::AcqRel);
        Lease { host, shared, pool }
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        self.shared.leases.fetch_sub(1, Ordering::AcqRel);
        // The pool may be gone at shutdown; then nobody waits.
        let _ = self.pool.cast(PoolMsg::Released);
    }
}

/// A lease request waiting for a slot under the cap.
pub(crate) type Waiter = (AgentId, RpcReplyPort<Result<Lease, RuntimeError>>);

/// The lease requests waiting for a slot, in arrival order.
#[derive(Default)]
pub(crate) struct Waiting {
    queue: VecDeque<Waiter>,
}

impl Waiting {
    /// Queues a request.
    pub(crate) fn push(&mut self, w: Waiter) {
        self.queue.push_back(w);
    }

    /// Takes every waiting request out, in arrival order, dropping those whose caller stopped
    /// waiting (timed out or cancelled).
    pub(crate) fn take(&mut self) -> Vec<Waiter> {
        std::mem::take(&mut self.queue).into_iter().filter(|(_, r)| !r.is_closed()).collect()
    }

    /// Puts back requests that still cannot be served, ahead of any newer ones.
    pub(crate) fn put_back(&mut self, mut ws: Vec<Waiter>) {
        ws.extend(self.queue.drain(..));
        self.queue = ws.into();
    }

    /// Requests waiting now.
    pub(crate) fn len(&self) -> usize {
        self.queue.len()
    }
}
