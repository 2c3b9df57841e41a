//! Request rate limits per caller tier: a keyed GCRA limiter from governor (GCRA behaves as a
//! token bucket whose capacity is the burst) plus a per-key semaphore for concurrent requests.
//! Anonymous callers are keyed by address, authenticated ones by user id; admins are not
//! limited.
//!
//! | Tier | Per hour | Burst | Concurrent |
//! |---|---|---|---|
//! | anonymous | 100 | 10 | 2 |
//! | authenticated | 1,000 | 100 | 10 |
//! | premium | 10,000 | 1,000 | 50 |
//! | admin | unlimited | | |

use std::collections::HashMap;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use governor::clock::{Clock, DefaultClock};
use governor::middleware::StateInformationMiddleware;
use governor::state::keyed::DefaultKeyedStateStore;
use governor::{Quota, RateLimiter};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Which limits apply to a caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tier {
    /// No (valid) credentials: keyed by address.
    Anonymous,
    /// A signed-in user or service account.
    Authenticated,
    /// A premium user.
    Premium,
    /// An administrator: unlimited.
    Admin,
}

/// One tier's limits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Sustained requests per hour.
    pub per_hour: u32,
    /// Requests allowed at once after a quiet period (the bucket's capacity).
    pub burst: u32,
    /// Requests handled at the same time.
    pub concurrent: u32,
}

const ANONYMOUS: Limits = Limits { per_hour: 100, burst: 10, concurrent: 2 };
const AUTHENTICATED: Limits = Limits { per_hour: 1_000, burst: 100, concurrent: 10 };
const PREMIUM: Limits = Limits { per_hour: 10_000, burst: 1_000, concurrent: 50 };

impl Tier {
    /// The spec's limits; `None` for admins.
    pub fn limits(self) -> Option<Limits> {
        match self {
            Tier::Anonymous => Some(ANONYMOUS),
            Tier::Authenticated => Some(AUTHENTICATED),
            Tier::Premium => Some(PREMIUM),
            Tier::Admin => None,
        }
    }
}

/// A request let through: the figures for the `X-RateLimit-*` headers, and the concurrency
/// slot, released when this is dropped.
#[derive(Debug)]
pub struct Admission {
    /// Requests per hour of the tier.
    pub limit: u32,
    /// Requests that could be made right now (tokens left in the bucket).
    pub remaining: u32,
    /// Epoch seconds when the bucket is full again.
    pub reset_epoch: u64,
    _slot: OwnedSemaphorePermit,
}

/// A request refused.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    /// Requests per hour of the tier.
    pub limit: u32,
    /// How long until a request would be let through.
    pub retry_after: Duration,
    /// Epoch seconds when the bucket is full again.
    pub reset_epoch: u64,
    /// `true` when the bucket is empty, `false` when too many requests are in flight.
    pub rate: bool,
}

type Keyed = RateLimiter<String, DefaultKeyedStateStore<String>, DefaultClock, StateInformationMiddleware>;

struct TierState {
    limits: Limits,
    limiter: Keyed,
    slots: Mutex<HashMap<String, Arc<Semaphore>>>,
}

impl TierState {
    fn new(limits: Limits) -> TierState {
        let quota = Quota::per_hour(nonzero(limits.per_hour)).allow_burst(nonzero(limits.burst));
        TierState {
            limits,
            limiter: RateLimiter::keyed(quota).with_middleware::<StateInformationMiddleware>(),
            slots: Mutex::new(HashMap::new()),
        }
    }
}

/// How often (in checks) idle keys are forgotten, so the maps do not grow without bound.
const SWEEP_EVERY: u64 = 4096;

/// The limiter of every tier.
pub struct RateLimits {
    enabled: bool,
    tiers: [TierState; 3],
    checks: AtomicU64,
}

fn nonzero(n: u32) -> NonZeroU32 {
    NonZeroU32::new(n).unwrap_or(NonZeroU32::MIN)
}

fn epoch_after(d: Duration) -> u64 {
    (SystemTime::now() + d).duration_since(UNIX_EPOCH).map_or(0, |e| e.as_secs_f64().ceil() as u64)
}

impl RateLimits {
    /// The spec's tiers; `enabled = false` lets everything through with no headers.
    pub fn new(enabled: bool) -> RateLimits {
        RateLimits {
            enabled,
            tiers: [TierState::new(ANONYMOUS), TierState::new(AUTHENTICATED), TierState::new(PREMIUM)],
            checks: AtomicU64::new(0),
        }
    }

    /// Whether limits apply at all.
    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// Admits or refuses one request of `key` in `tier`. `Ok(None)`: not limited (disabled, or
    /// an admin).
    pub fn admit(&self, tier: Tier, key: &str) -> Result<Option<Admission>, Refusal> {
        let state = match tier {
            _ if !self.enabled => return Ok(None),
            Tier::Admin => return Ok(None),
            Tier::Anonymous => &self.tiers[0],
            Tier::Authenticated => &self.tiers[1],
            Tier::Premium => &self.tiers[2],
        };
        if self.checks.fetch_add(1, Ordering::Relaxed) % SWEEP_EVERY == SWEEP_EVERY - 1 {
            self.sweep();
        }
        let Limits { per_hour, burst, concurrent } = state.limits;
        let refill = Duration::from_secs_f64(3600.0 / f64::from(per_hour));
        let full_in = |remaining: u32| refill * burst.saturating_sub(remaining);
        let slot = {
            let mut slots = state.slots.lock().unwrap_or_else(|p| p.into_inner());
            slots.entry(key.to_string()).or_insert_with(|| Arc::new(Semaphore::new(concurrent as usize))).clone()
        };
        // Take the concurrency slot first, so a request refused for concurrency spends no token.
        let Ok(slot) = slot.try_acquire_owned() else {
            return Err(Refusal {
                limit: per_hour,
                retry_after: Duration::from_secs(1),
                reset_epoch: epoch_after(Duration::ZERO),
                rate: false,
            });
        };
        match state.limiter.check_key(&key.to_string()) {
            Ok(snapshot) => {
                let remaining = snapshot.remaining_burst_capacity();
                Ok(Some(Admission {
                    limit: per_hour,
                    remaining,
                    reset_epoch: epoch_after(full_in(remaining)),
                    _slot: slot,
                }))
            }
            Err(not_until) => {
                let retry_after = not_until.wait_time_from(state.limiter.clock().now());
                Err(Refusal { limit: per_hour, retry_after, reset_epoch: epoch_after(full_in(0)), rate: true })
            }
        }
    }

    /// Forgets keys whose bucket is full again and that have nothing in flight.
    fn sweep(&self) {
        for state in &self.tiers {
            state.limiter.retain_recent();
            let max = state.limits.concurrent as usize;
            let mut slots = state.slots.lock().unwrap_or_else(|p| p.into_inner());
            slots.retain(|_, s| Arc::strong_count(s) > 1 || s.available_permits() < max);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_anonymous_bucket_lets_the_burst_through_then_refuses_with_a_wait() {
        let limits = RateLimits::new(true);
        let mut remaining = Vec::new();
        for _ in 0..10 {
            let a = limits.admit(Tier::Anonymous, "ip:10.0.0.1").unwrap().unwrap();
            assert_eq!(a.limit, 100);
            remaining.push(a.remaining);
        }
        assert_eq!(remaining, (0..10).rev().collect::<Vec<_>>());
        let refused = limits.admit(Tier::Anonymous, "ip:10.0.0.1").unwrap_err();
        assert!(refused.rate);
        assert!(refused.retry_after > Duration::from_secs(30) && refused.retry_after <= Duration::from_secs(36));
        assert!(limits.admit(Tier::Anonymous, "ip:10.0.0.2").is_ok(), "keys are independent");
    }

    #[test]
    fn concurrent_requests_beyond_the_tier_cap_are_refused_until_one_ends() {
        let limits = RateLimits::new(true);
        let first = limits.admit(Tier::Anonymous, "k").unwrap();
        let _second = limits.admit(Tier::Anonymous, "k").unwrap();
        let refused = limits.admit(Tier::Anonymous, "k").unwrap_err();
        assert!(!refused.rate);
        drop(first);
        assert!(limits.admit(Tier::Anonymous, "k").is_ok());
    }

    #[test]
    fn admins_and_a_disabled_limiter_are_not_limited() {
        assert!(RateLimits::new(true).admit(Tier::Admin, "u").unwrap().is_none());
        let off = RateLimits::new(false);
        for _ in 0..50 {
            assert!(off.admit(Tier::Anonymous, "k").unwrap().is_none());
        }
        assert_eq!(Tier::Premium.limits().unwrap().burst, 1_000);
    }
}
