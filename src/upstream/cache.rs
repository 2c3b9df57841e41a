//! The upstream response cache, bounded: at most `max_entries` answers and `max_bytes` of
//! response bodies (as received), each answer kept for the source's TTL. Inserting removes
//! expired answers first, then the oldest ones until both bounds hold, so a long-running
//! service reading many organs and months keeps a fixed ceiling. An answer is the parsed
//! body, or `None` for an empty answer (HTTP 204), which is worth caching too.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

/// Cached answers by request key (path and sorted query).
pub struct ResponseCache {
    max_entries: usize,
    max_bytes: usize,
    pages: HashMap<String, Page>,
    /// Keys in insertion order (a key inserted again moves to the back).
    order: VecDeque<(String, Instant)>,
    bytes: usize,
}

struct Page {
    at: Instant,
    /// Shared so that a hit costs a reference count, not a copy, until the caller needs one.
    body: Option<Arc<Value>>,
    bytes: usize,
}

impl ResponseCache {
    /// An empty cache holding at most `max_entries` answers and `max_bytes` of bodies.
    pub fn new(max_entries: usize, max_bytes: usize) -> Self {
        ResponseCache { max_entries, max_bytes, pages: HashMap::new(), order: VecDeque::new(), bytes: 0 }
    }

    /// The answer for `key` if cached less than `ttl` ago (`Some(None)`: an empty answer).
    pub fn get(&self, key: &str, ttl: Duration) -> Option<Option<Arc<Value>>> {
        self.pages.get(key).filter(|p| p.at.elapsed() < ttl).map(|p| p.body.clone())
    }

    /// Keeps the answer for `key` (a body of `bytes`), within the bounds.
    pub fn insert(&mut self, key: String, body: Option<Arc<Value>>, bytes: usize, ttl: Duration) {
        if bytes > self.max_bytes || self.max_entries == 0 {
            return;
        }
        self.remove(&key);
        let now = Instant::now();
        while let Some((oldest, at)) = self.order.front().cloned() {
            let expired = now.duration_since(at) >= ttl;
            let full = self.pages.len() >= self.max_entries || self.bytes + bytes > self.max_bytes;
            if !(expired || full) {
                break;
            }
            self.remove(&oldest);
        }
        self.order.push_back((key.clone(), now));
        self.bytes += bytes;
        self.pages.insert(key, Page { at: now, body, bytes });
    }

    fn remove(&mut self, key: &str) {
        if let Some(p) = self.pages.remove(key) {
            self.bytes -= p.bytes;
            self.order.retain(|(k, _)| k != key);
        }
    }

    /// Answers and bytes kept now.
    pub fn size(&self) -> (usize, usize) {
        (self.pages.len(), self.bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ENTRIES: usize = 64;
    const BYTES: usize = 4096;

    #[test]
    fn the_cache_keeps_at_most_its_bounds_evicting_the_oldest() {
        let mut c = ResponseCache::new(ENTRIES, BYTES);
        let ttl = Duration::from_secs(3600);
        for k in 0..ENTRIES + 10 {
            c.insert(format!("/p{k}"), Some(Arc::new(Value::from(k))), 10, ttl);
        }
        assert_eq!(c.size(), (ENTRIES, ENTRIES * 10));
        assert!(c.get("/p0", ttl).is_none() && c.get(&format!("/p{}", ENTRIES + 9), ttl).is_some());
        c.insert("/big".into(), None, BYTES - 100, ttl);
        assert!(c.size().1 <= BYTES);
        assert_eq!(c.get("/big", ttl), Some(None), "an empty answer is cached as one");
        c.insert("/too-big".into(), None, BYTES + 1, ttl);
        assert!(c.get("/too-big", ttl).is_none());
    }

    #[test]
    fn expired_pages_are_not_served_and_go_at_the_next_insert() {
        let mut c = ResponseCache::new(ENTRIES, BYTES);
        c.insert("/a".into(), Some(Arc::new(Value::from(1))), 5, Duration::ZERO);
        assert!(c.get("/a", Duration::ZERO).is_none());
        c.insert("/b".into(), Some(Arc::new(Value::from(2))), 5, Duration::ZERO);
        assert_eq!(c.size(), (1, 5));
    }
}
