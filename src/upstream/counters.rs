//! Counters of the upstream HTTP client, the one connection pool this service keeps
//! (reqwest's, per host): requests in flight and in all, failures, time spent waiting at the
//! request-rate limit before a request could go out, and time the requests took. Read by the
//! admin connection-pool routes; reset by them.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// The client's counters.
#[derive(Debug, Default)]
pub struct ClientCounters {
    active: AtomicU64,
    requests: AtomicU64,
    failures: AtomicU64,
    waits: AtomicU64,
    wait_micros: AtomicU64,
    request_micros: AtomicU64,
}

/// A request in flight.
pub struct InFlight<'a> {
    counters: &'a ClientCounters,
    sent: std::time::Instant,
}

impl InFlight<'_> {
    /// The request ended; `ok` when it succeeded.
    pub fn finish(self, ok: bool) {
        let c = self.counters;
        c.request_micros.fetch_add(self.sent.elapsed().as_micros() as u64, Ordering::Relaxed);
        if !ok {
            c.failures.fetch_add(1, Ordering::Relaxed);
        }
    }
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.counters.active.fetch_sub(1, Ordering::Relaxed);
    }
}

/// A read of the counters.
#[derive(Debug, Clone, Copy, Default)]
pub struct ClientStats {
    /// Requests in flight now.
    pub active: u64,
    /// Requests sent since start (or the last reset).
    pub requests: u64,
    /// Of those, failed ones (transport or error status).
    pub failures: u64,
    /// Requests that had to wait at the rate limit.
    pub waits: u64,
    /// Mean wait of those, in ms.
    pub avg_wait_ms: Option<f64>,
    /// Mean request time, in ms.
    pub avg_request_ms: Option<f64>,
}

impl ClientCounters {
    /// A request waited `waited` at the rate limit before going out.
    pub fn waited(&self, waited: Duration) {
        if waited >= Duration::from_millis(1) {
            self.waits.fetch_add(1, Ordering::Relaxed);
            self.wait_micros.fetch_add(waited.as_micros() as u64, Ordering::Relaxed);
        }
    }

    /// A request went out; it stays in flight until the guard is finished or dropped (a
    /// request whose future is dropped mid-flight, as when a run is cancelled, leaves too).
    pub fn started(&self) -> InFlight<'_> {
        self.active.fetch_add(1, Ordering::Relaxed);
        self.requests.fetch_add(1, Ordering::Relaxed);
        InFlight { counters: self, sent: std::time::Instant::now() }
    }

    /// The counters now.
    pub fn read(&self) -> ClientStats {
        let requests = self.requests.load(Ordering::Relaxed);
        let waits = self.waits.load(Ordering::Relaxed);
        let mean =
            |micros: &AtomicU64, n: u64| (n > 0).then(|| micros.load(Ordering::Relaxed) as f64 / n as f64 / 1000.0);
        ClientStats {
            active: self.active.load(Ordering::Relaxed),
            requests,
            failures: self.failures.load(Ordering::Relaxed),
            waits,
            avg_wait_ms: mean(&self.wait_micros, waits),
            avg_request_ms: mean(&self.request_micros, requests),
        }
    }

    /// Zeroes every total (requests in flight stay counted).
    pub fn reset(&self) {
        for c in [&self.requests, &self.failures, &self.waits, &self.wait_micros, &self.request_micros] {
            c.store(0, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_track_flight_failures_and_waits_and_reset_keeps_the_flight() {
        let c = ClientCounters::default();
        c.waited(Duration::from_millis(4));
        let held = c.started();
        c.started().finish(false);
        let s = c.read();
        assert_eq!((s.active, s.requests, s.failures, s.waits), (1, 2, 1, 1));
        assert!((s.avg_wait_ms.unwrap() - 4.0).abs() < 1e-9);
        c.reset();
        assert_eq!((c.read().active, c.read().requests), (1, 0));
        drop(held);
        assert_eq!(c.read().active, 0);
    }
}
