//! Agent activity as a stream: every agent's state once (the snapshot, what
//! `/api/v1/agents/status` answers), then one item per event of the runtime's pool broadcast
//! (an agent loaded, unloaded and why, an analysis started or finished), each with the agent's
//! state right after it. The stream subscribes before it takes the snapshot, so nothing that
//! happens meanwhile is lost (it may be in the snapshot and arrive as an event too). A
//! subscriber too slow for the broadcast's buffer gets a `Lagged` item saying how many events
//! it missed, then a fresh snapshot; the pool never waits for it.

use chrono::{DateTime, Utc};
use futures::Stream;
use tokio::sync::broadcast::Receiver;
use tokio::sync::broadcast::error::RecvError;

use super::AgentService;
use super::agents::AgentState;
use crate::runtime::ShutdownSignal;
use crate::runtime::activity::PoolEvent;

/// What an activity item reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActivityKind {
    /// The agent's state when the stream began (or after a lag).
    Snapshot,
    /// It was loaded.
    Loaded,
    /// It was unloaded (`reason` says why).
    Unloaded,
    /// An analysis began on it.
    AnalysisStarted,
    /// An analysis on it ended (`ok`, `error`, `duration_ms`).
    AnalysisFinished,
    /// The subscriber fell behind and missed `missed` events; a snapshot follows.
    Lagged,
}

/// One item of the stream.
#[derive(Debug, Clone)]
pub struct ActivityItem {
    /// What happened.
    pub kind: ActivityKind,
    /// The agent's state right after it (`None` for `Lagged`).
    pub agent: Option<AgentState>,
    /// Why it was unloaded: `idle`, `evicted`, `admin`, `forgotten` or `shutdown`.
    pub reason: Option<&'static str>,
    /// Whether a finished analysis answered.
    pub ok: Option<bool>,
    /// What went wrong with a finished analysis (`cancelled` included).
    pub error: Option<String>,
    /// A finished analysis's wall time on the agent, milliseconds.
    pub duration_ms: Option<f64>,
    /// Events a lagging subscriber missed.
    pub missed: Option<u64>,
    /// When it happened (when the snapshot was taken, for snapshots).
    pub at: DateTime<Utc>,
}

impl ActivityItem {
    fn new(kind: ActivityKind, agent: Option<AgentState>, at: DateTime<Utc>) -> ActivityItem {
        ActivityItem { kind, agent, reason: None, ok: None, error: None, duration_ms: None, missed: None, at }
    }
}

/// Where the stream's items come from: the service in production, fixed states in tests.
trait Roster: Send + Sync + 'static {
    /// Every agent's state now (empty when the runtime cannot say, as when it stops).
    fn snapshot(&self) -> impl Future<Output = Vec<AgentState>> + Send;
    /// An event as an item.
    fn item(&self, event: PoolEvent) -> ActivityItem;
}

impl Roster for AgentService {
    async fn snapshot(&self) -> Vec<AgentState> {
        self.status().await.unwrap_or_default()
    }

    fn item(&self, event: PoolEvent) -> ActivityItem {
        AgentService::item(self, event)
    }
}

/// A snapshot of `roster`, then an item per event of `events`, a `Lagged` item and a fresh
/// snapshot when the receiver fell behind, until `shutdown` or the broadcast closes.
fn follow(
    roster: impl Roster,
    mut events: Receiver<PoolEvent>,
    shutdown: ShutdownSignal,
) -> impl Stream<Item = ActivityItem> + Send {
    async_stream::stream! {
        let mut snapshot = true;
        loop {
            if std::mem::take(&mut snapshot) {
                let at = Utc::now();
                for state in roster.snapshot().await {
                    yield ActivityItem::new(ActivityKind::Snapshot, Some(state), at);
                }
            }
            let event = tokio::select! {
                e = events.recv() => e,
                _ = shutdown.clone().wait() => return,
            };
            match event {
                Ok(event) => yield roster.item(event),
                Err(RecvError::Lagged(missed)) => {
                    yield ActivityItem { missed: Some(missed), ..ActivityItem::new(ActivityKind::Lagged, None, Utc::now()) };
                    snapshot = true;
                }
                Err(RecvError::Closed) => return,
            }
        }
    }
}

impl AgentService {
    /// Every agent's state, then its activity as it happens, until `shutdown`. It listens from
    /// the call on, before its snapshot is taken.
    pub fn activity(&self, shutdown: ShutdownSignal) -> impl Stream<Item = ActivityItem> + Send + use<> {
        follow(self.clone(), self.pool_events(), shutdown)
    }

    /// An event as an item: the agent's state from the event's figures and its call statistics.
    fn item(&self, event: PoolEvent) -> ActivityItem {
        // An agent that loaded or ran has an analysis: it is implemented.
        let agent = event.agent();
        let state = |loaded, in_flight, memory_mb| Some(self.state_of(agent, true, loaded, in_flight, memory_mb));
        match event {
            PoolEvent::Loaded { memory_mb, at, .. } => {
                ActivityItem::new(ActivityKind::Loaded, state(true, 0, Some(memory_mb)), at)
            }
            PoolEvent::Unloaded { reason, at, .. } => ActivityItem {
                reason: Some(reason.as_str()),
                ..ActivityItem::new(ActivityKind::Unloaded, state(false, 0, None), at)
            },
            PoolEvent::AnalysisStarted { in_flight, memory_mb, at, .. } => {
                ActivityItem::new(ActivityKind::AnalysisStarted, state(true, in_flight, Some(memory_mb)), at)
            }
            PoolEvent::AnalysisFinished { error, duration_ms, in_flight, memory_mb, at, .. } => ActivityItem {
                ok: Some(error.is_none()),
                error,
                duration_ms: Some(duration_ms),
                ..ActivityItem::new(ActivityKind::AnalysisFinished, state(true, in_flight, Some(memory_mb)), at)
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use futures::StreamExt;
    use vigia_agents::AgentId;

    use super::*;
    use crate::runtime::activity::{CAPACITY, PoolEvents, UnloadReason};
    use crate::runtime::shutdown_channel;

    /// One agent, always unloaded; events become items without a state.
    struct Fixed;

    impl Roster for Fixed {
        async fn snapshot(&self) -> Vec<AgentState> {
            let id = AgentId::Zumbi;
            vec![AgentState {
                agent: id.as_str().into(),
                name: id.display_name().into(),
                role: id.role().into(),
                implemented: true,
                loaded: false,
                in_flight: 0,
                memory_mb: None,
                unavailable_for_secs: None,
                stats: Default::default(),
            }]
        }

        fn item(&self, event: PoolEvent) -> ActivityItem {
            let kind = match event {
                PoolEvent::Loaded { .. } => ActivityKind::Loaded,
                _ => ActivityKind::Unloaded,
            };
            ActivityItem::new(kind, None, Utc::now())
        }
    }

    #[tokio::test]
    async fn a_subscriber_that_falls_behind_is_told_how_many_it_missed_and_gets_a_fresh_snapshot() {
        let events = PoolEvents::default();
        let (_trigger, shutdown) = shutdown_channel();
        let stream = follow(Fixed, events.subscribe(), shutdown);
        // Nobody reads while the pool sends more than the broadcast keeps: the pool never waits.
        let sent = CAPACITY + 10;
        for i in 0..sent {
            let event = if i % 2 == 0 {
                PoolEvent::Loaded { agent: AgentId::Zumbi, memory_mb: 1.0, at: Utc::now() }
            } else {
                let reason = UnloadReason::Admin;
                PoolEvent::Unloaded { agent: AgentId::Zumbi, reason, cancelled_analyses: 0, at: Utc::now() }
            };
            events.send(event);
        }
        let items: Vec<ActivityItem> = stream.take(3 + CAPACITY).collect().await;
        let kinds: Vec<ActivityKind> = items.iter().map(|i| i.kind).collect();
        assert_eq!(kinds[..3], [ActivityKind::Snapshot, ActivityKind::Lagged, ActivityKind::Snapshot]);
        assert_eq!(items[1].missed, Some(10));
        assert!(items[1].agent.is_none());
        // Then the newest CAPACITY events, in the order they were sent.
        assert_eq!(kinds[3], ActivityKind::Loaded);
        assert!(kinds[3..].windows(2).all(|w| w[0] != w[1]), "loads and unloads alternate");
    }

    #[tokio::test]
    async fn the_stream_ends_when_the_server_shuts_down() {
        let events = PoolEvents::default();
        let (trigger, shutdown) = shutdown_channel();
        let mut stream = Box::pin(follow(Fixed, events.subscribe(), shutdown));
        assert_eq!(stream.next().await.map(|i| i.kind), Some(ActivityKind::Snapshot));
        trigger.trigger();
        assert!(stream.next().await.is_none());
    }
}
