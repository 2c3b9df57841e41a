//! Per-investigation event fan-out: a bounded broadcast channel per running investigation.
//! Events are persisted before they are published, so a subscriber that lags or connects late
//! reads the missing ones from the store (see `service::investigations::stream`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::broadcast;

use crate::domain::{InvestigationEvent, InvestigationId};

/// Events buffered per investigation before a slow subscriber lags (and re-reads the store).
const CAPACITY: usize = 256;

/// The registry of live event channels.
#[derive(Clone, Default)]
pub struct EventHub {
    channels: Arc<Mutex<HashMap<InvestigationId, broadcast::Sender<InvestigationEvent>>>>,
}

impl EventHub {
    fn sender(&self, id: InvestigationId) -> broadcast::Sender<InvestigationEvent> {
        let mut map = self.channels.lock().unwrap_or_else(|p| p.into_inner());
        map.entry(id).or_insert_with(|| broadcast::channel(CAPACITY).0).clone()
    }

    /// Subscribes to live events of `id` (the channel is created if the run has not started).
    pub fn subscribe(&self, id: InvestigationId) -> broadcast::Receiver<InvestigationEvent> {
        self.sender(id).subscribe()
    }

    /// Publishes to current subscribers (none is fine).
    pub fn publish(&self, id: InvestigationId, event: InvestigationEvent) {
        let _ = self.sender(id).send(event);
    }

    /// Drops the channel once the run ended; subscribers drain what is buffered, then see
    /// the channel closed.
    pub fn close(&self, id: InvestigationId) {
        self.channels.lock().unwrap_or_else(|p| p.into_inner()).remove(&id);
    }
}
