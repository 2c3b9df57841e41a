//! The Prometheus recorder's pending histogram samples are drained without a scrape. A test
//! binary of its own: it reads the process-wide heap of the counting allocator, which tests
//! running alongside in a shared binary would move.

use std::time::{Duration, Instant};

use metrics_exporter_prometheus::PrometheusBuilder;
use vigia::http::upkeep::keep_up;
use vigia::runtime::memory;

#[test]
fn pending_histogram_samples_are_drained_without_a_scrape() {
    let recorder = PrometheusBuilder::new().set_buckets(&[0.001, 0.01, 0.1, 1.0]).unwrap().build_recorder();
    let before = memory::heap_bytes();
    metrics::with_local_recorder(&recorder, || {
        for k in 0..1_000_000 {
            metrics::histogram!("test_duration_seconds", "route" => "/health").record(k as f64 * 1e-6);
        }
    });
    let held = memory::heap_bytes() - before;
    // What the service did per request until now: the sample stays until a scrape.
    std::thread::sleep(Duration::from_millis(300));
    assert!(memory::heap_bytes() - before > 8 << 20, "a million pending samples hold about 16 MB ({held} bytes)");
    keep_up(recorder.handle(), Duration::from_millis(50));
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut left = held;
    while Instant::now() < deadline {
        // Traffic goes on: recording threads are where drained blocks are finally freed
        // (the bucket frees them through epoch-based reclamation when a thread next pins).
        metrics::with_local_recorder(&recorder, || {
            for _ in 0..1_000 {
                metrics::histogram!("test_duration_seconds", "route" => "/health").record(0.001);
            }
        });
        left = memory::heap_bytes() - before;
        if left < held / 10 {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    println!("1M samples held {held} bytes; {left} bytes left after upkeep");
    assert!(left < held / 10, "upkeep left {left} of {held} bytes");
}
