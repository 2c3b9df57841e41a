//! The failed-login schedule (spec, Authentication item 13): after k consecutive failures the
//! next attempt waits 0, 1, 5, 15, 60 or 300 seconds (k = 0..5), scaled by
//! `auth.login_delay_scale`; the sixth failure locks the account for 300 s (scaled). An attempt
//! made before its time is refused without looking at the password. Success, the end of a lock
//! and an admin unlock reset the count.
//!
//! Each attempt is counted as a failure when it begins (so concurrent guesses cannot all slip
//! through before one is recorded); a successful one then clears the record.

use chrono::{DateTime, Duration, Utc};

use crate::domain::LoginAttempts;

/// Seconds to wait before the next attempt after k failures.
pub const SCHEDULE_SECS: [f64; 6] = [0.0, 1.0, 5.0, 15.0, 60.0, 300.0];
/// The failure that locks the account.
pub const LOCKING_FAILURE: u32 = 6;
/// Seconds a lock lasts.
pub const LOCK_SECS: f64 = 300.0;

/// Why an attempt is not even considered.
#[derive(Debug, Clone, PartialEq)]
pub enum Refusal {
    /// Locked until this time.
    Locked {
        /// End of the lock.
        until: DateTime<Utc>,
    },
    /// Too soon after the last failure.
    TooSoon {
        /// Time left to wait.
        retry_after: Duration,
    },
}

fn scaled(secs: f64, scale: f64) -> Duration {
    Duration::microseconds((secs * scale * 1e6).round() as i64)
}

/// Starts an attempt at `now`: refuses it, or returns the record with this attempt counted as
/// a failure (and the account locked if it is the sixth).
pub fn begin(prev: Option<&LoginAttempts>, now: DateTime<Utc>, scale: f64) -> Result<LoginAttempts, Refusal> {
    let mut a = prev.cloned().unwrap_or_default();
    if let Some(until) = a.locked_until {
        if now < until {
            return Err(Refusal::Locked { until });
        }
        a = LoginAttempts::default();
    }
    if let Some(at) = a.next_allowed_at
        && now < at
    {
        return Err(Refusal::TooSoon { retry_after: at - now });
    }
    a.failures += 1;
    if a.failures >= LOCKING_FAILURE {
        a.locked_until = Some(now + scaled(LOCK_SECS, scale));
        a.next_allowed_at = None;
    } else {
        let k = (a.failures as usize).min(SCHEDULE_SECS.len() - 1);
        a.next_allowed_at = Some(now + scaled(SCHEDULE_SECS[k], scale));
    }
    Ok(a)
}

/// Whether this record is the one that just locked the account.
pub fn just_locked(a: &LoginAttempts) -> bool {
    a.failures == LOCKING_FAILURE && a.locked_until.is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_schedule_spaces_attempts_and_the_sixth_failure_locks() {
        let scale = 1.0;
        let mut now = Utc::now();
        let mut rec: Option<LoginAttempts> = None;
        for (k, wait) in SCHEDULE_SECS.iter().enumerate().take(5) {
            let a = begin(rec.as_ref(), now, scale).unwrap();
            assert_eq!(a.failures as usize, k + 1);
            let next = SCHEDULE_SECS[k + 1];
            assert_eq!(a.next_allowed_at, Some(now + scaled(next, scale)), "after {} failures (waited {wait})", k + 1);
            if next > 0.0 {
                let early = begin(Some(&a), now, scale).unwrap_err();
                assert_eq!(early, Refusal::TooSoon { retry_after: scaled(next, scale) });
            }
            now += scaled(next, scale);
            rec = Some(a);
        }
        let locked = begin(rec.as_ref(), now, scale).unwrap();
        assert!(just_locked(&locked));
        let until = now + scaled(LOCK_SECS, scale);
        assert_eq!(begin(Some(&locked), now + Duration::seconds(299), scale), Err(Refusal::Locked { until }));
        let after = begin(Some(&locked), until, scale).unwrap();
        assert_eq!(after.failures, 1, "the count starts again once the lock ends");
    }

    #[test]
    fn the_scale_shrinks_every_wait() {
        let now = Utc::now();
        let a = begin(None, now, 0.01).unwrap();
        assert_eq!(a.next_allowed_at, Some(now + Duration::milliseconds(10)));
    }
}
