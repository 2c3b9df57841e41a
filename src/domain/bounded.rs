//! A bounded, expiring cache the layers share (the upstream's answers, the analysis cache, the
//! demo datasets, the GraphQL memories): at most `max_entries` values and `max_weight` of their
//! weight (bytes, records, anomalies: whatever the owner bounds), each kept for a time to live
//! given when read. Inserting removes expired values first, then the oldest ones until both
//! bounds hold, so a long-running service keeps a fixed ceiling.

use std::collections::{HashMap, VecDeque};
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
