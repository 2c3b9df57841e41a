//! Per-investigation event fan-out: a bounded broadcast channel per running investigation.
//! Events are persisted before they are published, so a subscriber that lags or connects late
//! reads the missing ones from the store (see `service::investigations::stream`). A channel
//! lives while its run does ([`EventHub::begin`] to [`EventHub::close`]) or while a
//! [`Subscription`] holds it: the last subscription of an investigation that is not running
//! removes it, so streams of finished investigations leave nothing behind.
//!
//! A run's starter may watch it as its starter ([`EventHub::subscribe_as_starter`]): while it
//! is the only subscriber, the starter makes the run's end durable itself, with its own answer
//! (the chat stores its reply in the same flush), before telling anyone. A run that completes
//! while its starter watches hands it the results it ends with ([`EventHub::hand_to_starter`]),
//! so the starter does not read back from the store what the run just wrote.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use tokio::sync::broadcast;

use crate::domain::investigation::Results;
use crate::domain::{InvestigationEvent, InvestigationId};

/// Events buffered per investigation before a slow subscriber lags (and re-reads the store).
/// They are buffered shared (`Arc`): a channel's slots are allocated when it opens, one per
/// event it can buffer, and a run opens one.
const CAPACITY: usize = 256;

/// The registry of live event channels.
#[derive(Clone, Default)]
pub struct EventHub {
    inner: Arc<Mutex<Channels>>,
}

#[derive(Default)]
struct Channels {
    senders: HashMap<InvestigationId, broadcast::Sender<Arc<InvestigationEvent>>>,
    running: HashSet<InvestigationId>,
    /// Investigations watched by their starter (until its subscription drops).
    starters: HashSet<InvestigationId>,
    /// Results handed to a starter, until it takes them or its subscription drops.
    handed: HashMap<InvestigationId, Box<Results>>,
}

/// A subscriber's live events of one investigation; dropping it releases the channel when
/// nothing else needs it.
pub struct Subscription {
    rx: broadcast::Receiver<Arc<InvestigationEvent>>,
    id: InvestigationId,
    hub: EventHub,
    starter: bool,
}

impl Subscription {
    /// Whether the run of its investigation is over here (or was never started here): no more
    /// events of it will be published, and every event it published was stored before.
    pub fn run_over(&self) -> bool {
        !self.hub.lock().running.contains(&self.id)
    }

    /// The next live event (see [`broadcast::Receiver::recv`]): the last subscriber to read
    /// an event takes it without a copy.
    pub async fn recv(&mut self) -> Result<InvestigationEvent, broadcast::error::RecvError> {
        self.rx.recv().await.map(Arc::unwrap_or_clone)
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        let mut ch = self.hub.lock();
        if self.starter {
            ch.starters.remove(&self.id);
            ch.handed.remove(&self.id);
        }
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

    fn sender(&self, id: InvestigationId) -> broadcast::Sender<Arc<InvestigationEvent>> {
        self.lock().senders.entry(id).or_insert_with(|| broadcast::channel(CAPACITY).0).clone()
    }

    /// Marks the run of `id` as started: its channel stays until [`EventHub::close`].
    pub fn begin(&self, id: InvestigationId) {
        self.lock().running.insert(id);
    }

    /// Subscribes to live events of `id` (the channel is created if the run has not started).
    pub fn subscribe(&self, id: InvestigationId) -> Subscription {
        Subscription { rx: self.sender(id).subscribe(), id, hub: self.clone(), starter: false }
    }

    /// Subscribes the starter of the run of `id`: while no one else subscribes, the run leaves
    /// making its end durable to the starter ([`EventHub::only_starter_watches`]).
    pub fn subscribe_as_starter(&self, id: InvestigationId) -> Subscription {
        let rx = self.sender(id).subscribe();
        self.lock().starters.insert(id);
        Subscription { rx, id, hub: self.clone(), starter: true }
    }

    /// Whether the run's starter still watches it and no one else does.
    pub fn only_starter_watches(&self, id: InvestigationId) -> bool {
        let ch = self.lock();
        ch.starters.contains(&id) && ch.senders.get(&id).is_some_and(|tx| tx.receiver_count() == 1)
    }

    /// Hands the results a run of `id` completed with to its starter, if it still watches
    /// (under the lock its subscription's drop takes, so nothing is left behind); gives them
    /// back otherwise.
    pub fn hand_to_starter(&self, id: InvestigationId, results: Box<Results>) -> Option<Box<Results>> {
        let mut ch = self.lock();
        if !ch.starters.contains(&id) {
            return Some(results);
        }
        ch.handed.insert(id, results);
        None
    }

    /// The results the run of `id` handed to its starter ([`EventHub::hand_to_starter`]).
    pub fn take_handed(&self, id: InvestigationId) -> Option<Box<Results>> {
        self.lock().handed.remove(&id)
    }

    /// Publishes to current subscribers, in order (none is fine): the channel is looked up
    /// once for all of them.
    pub fn publish(&self, id: InvestigationId, events: impl IntoIterator<Item = InvestigationEvent>) {
        let tx = self.sender(id);
        for event in events {
            let _ = tx.send(Arc::new(event));
        }
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

    #[test]
    fn only_a_starter_watching_alone_is_told_it_watches_alone() {
        let hub = EventHub::default();
        let id = InvestigationId(uuid::Uuid::now_v7());
        hub.begin(id);
        assert!(!hub.only_starter_watches(id), "no one watches");
        let plain = hub.subscribe(id);
        assert!(!hub.only_starter_watches(id), "a plain subscriber is not the starter");
        let starter = hub.subscribe_as_starter(id);
        assert!(!hub.only_starter_watches(id), "someone else watches too");
        drop(plain);
        assert!(hub.only_starter_watches(id));
        drop(starter);
        assert!(!hub.only_starter_watches(id), "the starter went away");
        let other = hub.subscribe(id);
        assert!(!hub.only_starter_watches(id), "a later subscriber alone is not the starter");
        drop(other);
    }

    #[test]
    fn results_are_handed_only_to_a_watching_starter_and_go_with_its_subscription() {
        let hub = EventHub::default();
        let id = InvestigationId(uuid::Uuid::now_v7());
        let results = || Box::new(Results { records_analyzed: 7, ..Results::default() });
        assert!(hub.hand_to_starter(id, results()).is_some(), "no starter: given back");
        let starter = hub.subscribe_as_starter(id);
        assert!(hub.hand_to_starter(id, results()).is_none());
        assert_eq!(hub.take_handed(id).map(|r| r.records_analyzed), Some(7));
        assert!(hub.take_handed(id).is_none(), "taken once");
        assert!(hub.hand_to_starter(id, results()).is_none());
        drop(starter);
        assert!(hub.take_handed(id).is_none(), "dropped with the subscription");
    }
}
