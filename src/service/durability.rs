//! Durability of acknowledged changes: a change a client is told about survives a crash.
//! Services write to the store as they go; the transports call [`Durability::commit`] before
//! answering any request that may have changed state (every method but GET, HEAD and
//! OPTIONS, whatever its status: a refused login still counts towards the lockout), so logout,
//! revocations, lockout counters, API keys, registrations, password changes, the whitelist and
//! the agent settings are all on disk before the response leaves. Concurrent commits share one
//! flush of the store's single flusher (group commit), so the cost is one fsync per batch.

use crate::error::{Error, ErrorCode, Result};
use crate::storage::Store;

/// Makes acknowledged changes durable.
pub struct Durability {
    store: Store,
}

impl Durability {
    /// Over `store`.
    pub fn new(store: Store) -> Self {
        Durability { store }
    }

    /// Waits until every write made before the call is on disk.
    pub async fn commit(&self) -> Result<()> {
        self.store.flush().await.map_err(|e| {
            tracing::error!(error = %e, "an acknowledged change could not be made durable");
            Error::new(ErrorCode::ServiceUnavailable, "the change could not be saved durably; try again")
        })
    }
}
