//! Agent activity as a stream: the roster's states (what `/api/v1/agents/status` answers, from
//! the runtime's pool status and per-agent call statistics) sampled at a fixed period, yielding
//! an agent each time what it is doing changes: loaded or unloaded, an analysis started or
//! finished, a call counted, a failure counted, a cool-down begun or ended. The runtime has no
//! broadcast of these changes, so the stream compares snapshots; two changes within one period
//! that cancel out (a load and its unload) are not seen.

use std::collections::HashMap;
use std::time::Duration;

use futures::Stream;

use super::AgentService;
use super::agents::AgentState;
use crate::runtime::ShutdownSignal;

/// The part of an agent's state whose change is activity (memory and the cool-down's
/// remaining seconds move on their own and are not compared).
#[derive(Debug, Clone, PartialEq)]
struct Activity {
    loaded: bool,
    in_flight: usize,
    calls: u64,
    failures: u64,
    cooling_down: bool,
}

impl Activity {
    fn of(s: &AgentState) -> Activity {
        Activity {
            loaded: s.loaded,
            in_flight: s.in_flight,
            calls: s.stats.calls,
            failures: s.stats.failures,
            cooling_down: s.unavailable_for_secs.is_some(),
        }
    }
}

impl AgentService {
    /// Every change of an agent's activity from now on, sampled every `every`, until
    /// `shutdown`. The first sample is the baseline and yields nothing.
    pub fn activity(&self, every: Duration, shutdown: ShutdownSignal) -> impl Stream<Item = AgentState> + Send + use<> {
        let this = self.clone();
        async_stream::stream! {
            let mut seen: Option<HashMap<String, Activity>> = None;
            let mut tick = tokio::time::interval(every);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    _ = tick.tick() => {}
                    _ = shutdown.clone().wait() => return,
                }
                // A failed sample (the runtime stopping) is skipped; the next one compares.
                let Ok(states) = this.status().await else { continue };
                let baseline = seen.is_none();
                let previous = seen.get_or_insert_with(HashMap::new);
                for state in states {
                    let now = Activity::of(&state);
                    let changed = previous.get(&state.agent) != Some(&now);
                    previous.insert(state.agent.clone(), now);
                    if changed && !baseline {
                        yield state;
                    }
                }
            }
        }
    }
}
