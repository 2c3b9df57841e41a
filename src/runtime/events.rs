//! Per-investigation event fan-out: a bounded broadcast channel per running investigation.
//! Events are persisted before they are published, so a subscriber that lags or connects late
//! reads the missing ones from the store (see `service::investigations::stream`). A channel
//! lives while its run does ([`EventHub::begin`] to [`EventHub::close`]) or while a
//! [`Subscription`] holds it: the last subscription of an investigation that is not running
//! removes it, so streams of finished investigations leave nothing behind.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use tokio::sync::broadcast;

use crate::domain::{InvestigationEvent, InvestigationId};

/// Events buffered per investigation before a slow subscriber lags (and re-reads the store).
const CAPACITY: usize = 256;

/// The registry of live event channels.
#[derive(Clone, Default)]
pub struct EventHub {
    inner: Arc<Mutex<Channels>>,
}

#[derive(Default)]
struct Channels {
    senders: HashMap<InvestigationId, broadcast::Sender<InvestigationEvent>>,
    running: HashSet<InvestigationId>,
}

/// A subscriber's live events of one investigation; dropping it releases the channel when
/// nothing else needs it.
pub struct Subscription {
    rx: broadcast::Receiver<InvestigationEvent>,
    id: InvestigationId,
    hub: EventHub,
}

impl Subscription {
    /// The next live event (see [`broadcast::Receiver::recv`]).
    pub async fn recv(&mut self) -> Result<InvestigationEvent, broadcast::error::RecvError> {
        self.rx.recv().await
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        let mut ch = self.hub.lock();
        let unused =
            !ch.running.contains(&self.id) && ch.senders.get(&self.id).is_some_and(|tx| tx.receiver_count() <= 1);
        if unused {
            ch.senders.remove(&self.id);
        }
    }
}

impl EventHub {
    fn lock(&self) -> std::sync::MutexGuard<'_, Channels> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn sender(&self, id: InvestigationId) -> broadcast::Sender<InvestigationEvent> {
        self.lock().senders.entry(id).or_insert_with(|| broadcast::channel(CAPACITY).0).clone()
    }

    /// Marks the run of `id` as started: its channel stays until [`EventHub::close`].
    pub fn begin(&self, id: InvestigationId) {
        self.lock().running.insert(id);
    }

    /// Subscribes to live events of `id` (the channel is created if the run has not started).
    pub fn subscribe(&self, id: InvestigationId) -> Subscription {
        Subscription { rx: self.sender(id).subscribe(), id, hub: self.clone() }
    }

    /// Publishes to current subscribers (none is fine).
    pub fn publish(&self, id: InvestigationId, event: InvestigationEvent) {
        let _ = self.sender(id).send(event);
    }

    /// Drops the channel once the run ended; subscribers drain what is buffered, then see
    /// the channel closed.
    pub fn close(&self, id: InvestigationId) {
        let mut ch = self.lock();
        ch.running.remove(&id);
        ch.senders.remove(&id);
    }

    /// Channels held now (running investigations and those with subscribers).
    pub fn channels(&self) -> usize {
        self.lock().senders.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_of_an_investigation_that_is_not_running_leaves_no_channel_behind() {
        let hub = EventHub::default();
        let id = InvestigationId(uuid::Uuid::now_v7());
        let (a, b) = (hub.subscribe(id), hub.subscribe(id));
        drop(a);
        assert_eq!(hub.channels(), 1, "another subscriber still holds it");
        drop(b);
        assert_eq!(hub.channels(), 0);
    }

    #[test]
    fn a_running_investigation_keeps_its_channel_until_it_closes() {
        let hub = EventHub::default();
        let id = InvestigationId(uuid::Uuid::now_v7());
        hub.begin(id);
        drop(hub.subscribe(id));
        assert_eq!(hub.channels(), 1);
        hub.close(id);
        assert_eq!(hub.channels(), 0);
    }
}
