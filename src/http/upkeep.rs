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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::memory;
    use metrics_exporter_prometheus::PrometheusBuilder;

    /// Heap bytes held by `samples` histogram observations recorded on this thread into a fresh
    /// recorder, measured after `wait` with upkeep every `every` (or none).
    fn held_after(samples: usize, every: Option<Duration>, wait: Duration) -> i64 {
        let recorder = PrometheusBuilder::new().set_buckets(&[0.001, 0.01, 0.1, 1.0]).unwrap().build_recorder();
        if let Some(every) = every {
            keep_up(recorder.handle(), every);
        }
        let before = memory::heap_bytes();
        metrics::with_local_recorder(&recorder, || {
            for k in 0..samples {
                metrics::histogram!("test_duration_seconds", "route" => "/health").record(k as f64 * 1e-6);
            }
        });
        std::thread::sleep(wait);
        let held = memory::heap_bytes() - before;
        drop(recorder);
        held
    }

    #[test]
    fn pending_histogram_samples_are_drained_without_a_scrape() {
        // 1M samples hold about 8 MB until drained; other tests running alongside move the
        // process-wide heap by far less than the 4 MB margin.
        let drained = held_after(1_000_000, Some(Duration::from_millis(50)), Duration::from_millis(500));
        assert!(drained < 4 << 20, "{drained} bytes still held after upkeep");
        let kept = held_after(1_000_000, None, Duration::from_millis(500));
        assert!(kept > 4 << 20, "without upkeep the samples stay ({kept} bytes): the measurement sees them");
    }
}
