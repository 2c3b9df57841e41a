//! A bounded, expiring cache the layers share (the upstream's answers, the analysis cache, the
//! demo datasets, the GraphQL memories): at most `max_entries` values and `max_weight` of their
//! weight (bytes, records, anomalies: whatever the owner bounds), each kept for a time to live
//! given when read. Inserting removes expired values first, then the oldest ones until both
//! bounds hold, so a long-running service keeps a fixed ceiling.
//!
//! Beside it, [`Recent`]: the last few things a hot path made (a results body with its digest,
//! an encoded batch of events, a dataset's derived facts), found again by whatever makes two
//! of them the same, newest first; and [`Derived`]: what was made from a shared value (a
//! finding's event, the line that cites it), found again by that value's identity.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant};

/// Values by key, oldest inserted first out.
pub struct BoundedCache<V> {
    max_entries: usize,
    max_weight: usize,
    values: HashMap<String, Kept<V>>,
    /// Keys in insertion order (a key inserted again moves to the back).
    order: VecDeque<(String, Instant)>,
    weight: usize,
}

struct Kept<V> {
    at: Instant,
    value: V,
    weight: usize,
}

impl<V: Clone> BoundedCache<V> {
    /// An empty cache holding at most `max_entries` values and `max_weight` of weight.
    pub fn new(max_entries: usize, max_weight: usize) -> Self {
        BoundedCache { max_entries, max_weight, values: HashMap::new(), order: VecDeque::new(), weight: 0 }
    }

    /// The value for `key` if inserted less than `ttl` ago.
    pub fn get(&self, key: &str, ttl: Duration) -> Option<V> {
        self.values.get(key).filter(|k| k.at.elapsed() < ttl).map(|k| k.value.clone())
    }

    /// Keeps `value` for `key` (of `weight`) within the bounds, dropping values older than
    /// `ttl` and then the oldest; a value heavier than the whole bound is not kept.
    pub fn insert(&mut self, key: String, value: V, weight: usize, ttl: Duration) {
        if weight > self.max_weight || self.max_entries == 0 {
            return;
        }
        self.remove(&key);
        let now = Instant::now();
        while let Some((oldest, at)) = self.order.front().cloned() {
            let expired = now.duration_since(at) >= ttl;
            let full = self.values.len() >= self.max_entries || self.weight + weight > self.max_weight;
            if !(expired || full) {
                break;
            }
            self.remove(&oldest);
        }
        self.order.push_back((key.clone(), now));
        self.weight += weight;
        self.values.insert(key, Kept { at: now, value, weight });
    }

    fn remove(&mut self, key: &str) {
        if let Some(k) = self.values.remove(key) {
            self.weight -= k.weight;
            self.order.retain(|(o, _)| o != key);
        }
    }

    /// Values and weight kept now.
    pub fn size(&self) -> (usize, usize) {
        (self.values.len(), self.weight)
    }
}

/// The last `capacity` items remembered, newest first, behind a lock of their own.
pub struct Recent<T> {
    capacity: usize,
    items: Mutex<VecDeque<T>>,
}

impl<T> Recent<T> {
    /// Remembering at most `capacity` items (at least one).
    pub fn new(capacity: usize) -> Self {
        Recent { capacity: capacity.max(1), items: Mutex::new(VecDeque::with_capacity(capacity)) }
    }

    /// What `f` makes of the newest item it accepts.
    pub fn find_map<R>(&self, f: impl FnMut(&T) -> Option<R>) -> Option<R> {
        self.lock().iter().find_map(f)
    }

    /// Remembers `item` as the newest, after forgetting the items `stale` names (the one it
    /// replaces, those no longer of use) and, when full, the oldest.
    pub fn remember(&self, item: T, stale: impl FnMut(&T) -> bool) {
        let mut stale = stale;
        let mut items = self.lock();
        items.retain(|t| !stale(t));
        if items.len() == self.capacity {
            items.pop_back();
        }
        items.push_front(item);
    }

    /// Items remembered now.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether nothing is remembered.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<T>> {
        self.items.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Values made from shared values (`Arc<T>`) and a key, kept by the shared value's identity:
/// its address, with a weak reference to the value beside what was made from it, so the address
/// is not another value's while the entry lives (and the value itself is not kept alive). When
/// `capacity` entries are kept, those of values gone are let go, and all if none was.
pub struct Derived<T, K, V> {
    capacity: usize,
    kept: Mutex<Made<T, K, V>>,
}

/// What a [`Derived`] keeps: by the shared value's address and the key, the value (weakly) and
/// what was made from it.
type Made<T, K, V> = HashMap<(usize, K), (Weak<T>, V)>;

impl<T, K: Eq + std::hash::Hash, V: Clone> Derived<T, K, V> {
    /// Keeping at most `capacity` entries.
    pub fn new(capacity: usize) -> Self {
        Derived { capacity: capacity.max(1), kept: Mutex::default() }
    }

    /// What was made from this very `of` with `key`, else what `make` makes now (kept).
    pub fn get_or(&self, of: &Arc<T>, key: K, make: impl FnOnce() -> V) -> V {
        let at = (Arc::as_ptr(of) as usize, key);
        if let Some((_, made)) = self.lock().get(&at) {
            return made.clone();
        }
        let made = make();
        let mut kept = self.lock();
        if kept.len() >= self.capacity {
            kept.retain(|_, (value, _)| value.strong_count() > 0);
            if kept.len() >= self.capacity {
                kept.clear();
            }
        }
        kept.insert(at, (Arc::downgrade(of), made.clone()));
        made
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Made<T, K, V>> {
        self.kept.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod derived_tests {
    use std::sync::Arc;

    use super::Derived;

    #[test]
    fn what_is_made_from_a_shared_value_is_made_once_and_an_equal_value_elsewhere_gets_its_own() {
        let derived = Derived::new(2);
        let (a, b) = (Arc::new(String::from("x")), Arc::new(String::from("x")));
        let mut made = 0;
        let mut make = |s: &str| {
            made += 1;
            format!("{s}{made}")
        };
        assert_eq!(derived.get_or(&a, 0, || make(&a)), "x1");
        assert_eq!(derived.get_or(&a, 0, || make(&a)), "x1", "made once");
        assert_eq!(derived.get_or(&a, 1, || make(&a)), "x2", "another key");
        assert_eq!(derived.get_or(&b, 0, || make(&b)), "x3", "full: all let go, then kept");
        assert_eq!(derived.get_or(&a, 0, || make(&a)), "x4");
        drop(b);
        let c = Arc::new(String::from("y"));
        assert_eq!(derived.get_or(&c, 0, || make(&c)), "y5", "full: the gone value's entry let go");
        assert_eq!(derived.get_or(&a, 0, || make(&a)), "x4", "the living value's entry kept");
        assert_eq!(Arc::strong_count(&a), 1, "the value is not kept alive");
    }
}

#[cfg(test)]
mod recent_tests {
    use super::Recent;

    #[test]
    fn the_newest_is_found_first_stale_items_go_and_the_oldest_leaves_when_full() {
        let recent = Recent::new(3);
        for n in 1..=3 {
            recent.remember((n % 2, n), |_| false);
        }
        assert_eq!(recent.find_map(|&(k, n)| (k == 1).then_some(n)), Some(3));
        recent.remember((1, 4), |&(k, _)| k == 1);
        assert_eq!(recent.len(), 2, "both items of key 1 were replaced");
        for n in 5..=7 {
            recent.remember((0, n), |_| false);
        }
        assert_eq!(recent.len(), 3);
        assert_eq!(recent.find_map(|&(k, n)| (k == 1).then_some(n)), None, "the oldest left");
    }
}
