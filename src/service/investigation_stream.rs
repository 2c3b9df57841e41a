//! The resumable event stream of an investigation: stored events first, then live ones, the
//! store read again when a subscription falls behind.

use futures::Stream;
use tokio::sync::broadcast::error::RecvError;

use super::InvestigationService;
use crate::domain::ports::InvestigationStore;
use crate::domain::{InvestigationEvent, InvestigationId, Principal};
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
        self.head(id, viewer)?;
        let live = self.runtime.subscribe(id);
        let replay = self.store.events_after(id, last_event_id).unwrap_or_default();
        Ok(self.events(id, last_event_id, live, replay))
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
                    _ = shutdown.clone().wait() => return,
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
