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
    /// Every start asks for it: the durations are copied to the stack and the middle one
    /// selected, not sorted.
    pub fn median(&self) -> Option<f64> {
        let mut kept = [0f64; KEPT];
        let n = {
            let recent = self.recent.lock().ok()?;
            kept.iter_mut().zip(recent.iter()).for_each(|(k, r)| *k = *r);
            recent.len().min(KEPT)
        };
        let v = &mut kept[..n];
        if v.is_empty() {
            return None;
        }
        let mid = v.len() / 2;
        let (below, &mut middle, _) = v.select_nth_unstable_by(mid, f64::total_cmp);
        if n.is_multiple_of(2) {
            let under = below.iter().copied().max_by(f64::total_cmp).unwrap_or(middle);
            Some((under + middle) / 2.0)
        } else {
            Some(middle)
        }
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
        t.record(7.0);
        assert_eq!(t.median(), Some(2.5), "an even count: the mean of the middle two");
        for _ in 0..KEPT {
            t.record(10.0);
        }
        assert_eq!(t.median(), Some(10.0), "only the last runs count");
    }
}
