//! How long recent runs took, measured: the service's estimate of when a new investigation
//! completes is its start plus the median of the last [`KEPT`] completed runs (those of this
//! process, seeded at start from the durations the store recorded), never a constant.

use std::collections::VecDeque;
use std::sync::Mutex;

/// Completed runs the median is taken over.
pub const KEPT: usize = 64;

/// The durations of recent completed runs, in seconds.
#[derive(Default)]
pub struct RunTimes {
    recent: Mutex<VecDeque<f64>>,
}

impl RunTimes {
    /// Records one completed run.
    pub fn record(&self, secs: f64) {
        if !(secs.is_finite() && secs >= 0.0) {
            return;
        }
        let Ok(mut recent) = self.recent.lock() else { return };
        if recent.len() == KEPT {
            recent.pop_front();
        }
        recent.push_back(secs);
    }

    /// The median duration of the recent runs; `None` before any run was measured.
    pub fn median(&self) -> Option<f64> {
        let mut v: Vec<f64> = self.recent.lock().ok()?.iter().copied().collect();
        if v.is_empty() {
            return None;
        }
        v.sort_by(f64::total_cmp);
        let mid = v.len() / 2;
        Some(if v.len().is_multiple_of(2) { (v[mid - 1] + v[mid]) / 2.0 } else { v[mid] })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_estimate_is_the_median_of_the_recent_runs_and_none_before_any() {
        let t = RunTimes::default();
        assert_eq!(t.median(), None);
        for s in [3.0, 1.0, 2.0] {
            t.record(s);
        }
        assert_eq!(t.median(), Some(2.0));
        for _ in 0..KEPT {
            t.record(10.0);
        }
        assert_eq!(t.median(), Some(10.0), "only the last runs count");
    }
}
