//! The resumable event stream of an investigation: stored events first, then live ones, the
//! store read again when a subscription falls behind.

use futures::Stream;
use tokio::sync::broadcast::error::RecvError;

use super::InvestigationService;
use crate::domain::ports::InvestigationStore;
use crate::domain::{EventKind, InvestigationEvent, InvestigationId, Principal};
use crate::error::Result;
use crate::runtime::Subscription;

impl InvestigationService {
    /// The event stream of an investigation from after `last_event_id`: stored events first,
    /// then live ones, ending after the terminal event or when the server shuts down.
    pub fn stream(
        &self,
        id: InvestigationId,
        last_event_id: u64,
        viewer: Option<&Principal>,
    ) -> Result<impl Stream<Item = InvestigationEvent> + Send + use<>> {
        let ended = self.head(id, viewer)?.status.is_terminal();
        let live = self.runtime.subscribe(id);
        // Read before the stored events: a run over then had stored all it published.
        let over = live.run_over();
        let mut replay = self.store.events_after(id, last_event_id).unwrap_or_default();
        if ended && over {
            replay.extend(self.lost_end(id, &replay));
        }
        Ok(self.events(id, last_event_id, live, replay))
    }

    /// The terminal event of an ended investigation whose stored events have none, made from
    /// its record: a crash between a run's final record and its last events (written after it)
    /// lost them, and its streams would otherwise never end. Numbered after every number the
    /// run could have used (as a resumed run numbers), so no client saw that number before;
    /// not stored, and the same for every reader.
    fn lost_end(&self, id: InvestigationId, replay: &[InvestigationEvent]) -> Option<InvestigationEvent> {
        let last = match replay.last() {
            Some(last) => Some(last.clone()),
            None => self.store.events_after(id, 0).ok()?.pop(),
        };
        if last.as_ref().is_some_and(|e| e.kind.is_terminal()) {
            return None;
        }
        let inv = self.store.get(id).ok()??;
        let reserved = self.store.reserved_seq(id).ok()?.max(crate::runtime::SEQ_BLOCK);
        let seq = last.map_or(0, |e| e.seq).max(reserved) + 1;
        Some(InvestigationEvent { seq, kind: EventKind::terminal_of(&inv) })
    }

    /// The events after `last`: `replay` (read from the store once `live` was subscribed), then
    /// the live ones, reading from the store again what a lagging subscription missed.
    pub(super) fn events(
        &self,
        id: InvestigationId,
        last: u64,
        mut live: Subscription,
        mut replay: Vec<InvestigationEvent>,
    ) -> impl Stream<Item = InvestigationEvent> + Send + use<> {
        let store = self.store.clone();
        let shutdown = self.shutdown.clone();
        async_stream::stream! {
            let mut last = last;
            // One wait for the whole stream: made anew at each event, it cloned the signal and
            // registered a waiter per event.
            let stop = shutdown.clone().wait();
            tokio::pin!(stop);
            loop {
                for event in replay.drain(..) {
                    if event.seq <= last { continue; }
                    last = event.seq;
                    let terminal = event.kind.is_terminal();
                    yield event;
                    if terminal { return; }
                }
                if shutdown.is_triggered() { return; }
                let next = tokio::select! {
                    r = live.recv() => r,
                    _ = &mut stop => return,
                };
                match next {
                    Ok(event) => replay.push(event),
                    // Missed events are in the store: read them from there.
                    Err(RecvError::Lagged(_)) => replay = store.events_after(id, last).unwrap_or_default(),
                    Err(RecvError::Closed) => {
                        replay = store.events_after(id, last).unwrap_or_default();
                        if replay.is_empty() { return; }
                    }
                }
            }
        }
    }
}
