//! Subscriptions: `investigationUpdates` (the investigation each time it moves, from the event
//! hub the SSE stream reads, ending after it completes, fails or is cancelled) and
//! `agentActivity` (every agent's stats, then one item per load, unload, analysis started and
//! analysis finished, from the runtime's pool broadcast). Both end when the server shuts down.

use async_graphql::{Context, ID, Subscription as GqlSubscription};
use futures::{Stream, StreamExt};

use super::activity::AgentActivity;
use super::schema::{GqlResult, investigation_id, services, shared, viewer};
use super::types::Investigation;
use crate::domain::InvestigationHead;

/// The subscription root.
pub struct Subscription;

#[GqlSubscription]
impl Subscription {
    /// The investigation now, then again after each event that changed it, the last time in
    /// its final state.
    async fn investigation_updates(
        &self,
        ctx: &Context<'_>,
        investigation_id: ID,
    ) -> async_graphql::Result<impl Stream<Item = Investigation> + use<>> {
        let id = self::investigation_id(&investigation_id)?;
        let who = viewer(ctx)?.cloned();
        let svc = services(ctx).investigations.clone();
        // From the first stored event: its replay brings the head up to date at once.
        let events = svc.stream(id, 0, who.as_ref()).gql()?;
        let mut last: Option<String> = None;
        Ok(events.filter_map(move |_event| {
            // Each event is followed by the head it left; one is sent only when a field the
            // subscription exposes changed (a phase's bookkeeping alone is not an update).
            let head = svc.head(id, who.as_ref()).ok().filter(|h| {
                let seen = visible(h);
                let fresh = last.as_ref() != Some(&seen);
                last = Some(seen);
                fresh
            });
            futures::future::ready(head.map(Investigation::from))
        }))
    }

    /// Every agent's stats (`SNAPSHOT`), then one item each time an agent loads, unloads,
    /// starts or finishes an analysis, as it happens.
    async fn agent_activity(
        &self,
        ctx: &Context<'_>,
    ) -> async_graphql::Result<impl Stream<Item = AgentActivity> + use<>> {
        viewer(ctx)?;
        let shared = shared(ctx);
        Ok(shared.services.agents.activity(shared.shutdown.clone()).map(AgentActivity::from))
    }
}

/// What a subscriber can see of a head: the fields `Investigation` reads from it.
fn visible(h: &InvestigationHead) -> String {
    format!(
        "{:?}|{}|{:?}|{}|{:?}|{:?}|{:?}",
        h.status,
        h.progress.percentage,
        h.progress.current_phase,
        h.anomalies_found,
        h.risk_score,
        h.completed_at,
        h.error.as_ref().map(|e| &e.message)
    )
}
