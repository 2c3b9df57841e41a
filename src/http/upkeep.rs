//! Upkeep of the Prometheus recorder. A recorder built with `build_recorder` (one per process,
//! shared by every app a test process starts) keeps each histogram observation in a pending
//! list until someone drains it into the buckets: a scrape of `/metrics` or `run_upkeep`.
//! Without either, every request's duration sample stayed in memory for good (RSS grew 15-20
//! bytes per request under load). A thread of its own drains them on a fixed beat.

use std::time::Duration;

use metrics_exporter_prometheus::PrometheusHandle;

/// How often pending histogram samples are drained into their buckets.
pub const UPKEEP_EVERY: Duration = Duration::from_secs(5);

/// Drains `handle`'s pending samples every `every`, for the life of the process (the recorder
/// it serves is process-wide too). A thread, not a task: the recorder outlives any one runtime.
/// (tests/metrics_upkeep.rs measures it in a process of its own: the heap is process-wide.)
pub fn keep_up(handle: PrometheusHandle, every: Duration) {
    let spawned = std::thread::Builder::new().name("metrics-upkeep".into()).spawn(move || {
        loop {
            std::thread::sleep(every);
            handle.run_upkeep();
        }
    });
    if let Err(e) = spawned {
        tracing::warn!(error = %e, "no metrics upkeep thread: histogram samples drain only when scraped");
    }
}
