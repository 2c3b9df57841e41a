//! The upstream response cache, bounded: at most [`MAX_ENTRIES`] pages and [`MAX_BYTES`] of
//! response bodies, each page kept for the configured TTL. Inserting removes expired pages
//! first, then the oldest ones until both bounds hold, so a long-running service reading many
//! organs and months keeps a fixed ceiling.

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

use serde_json::Value;

/// Most pages kept.
pub const MAX_ENTRIES: usize = 1024;
/// Most bytes of response bodies kept (as received).
pub const MAX_BYTES: usize = 64 * 1024 * 1024;

/// Cached pages by request path.
#[derive(Default)]
pub struct ResponseCache {
    pages: HashMap<String, Page>,
    /// Paths in insertion order (a path inserted again moves to the back).
    order: VecDeque<(String, Instant)>,
    bytes: usize,
}

struct Page {
    at: Instant,
    rows: Vec<Value>,
    bytes: usize,
}

impl ResponseCache {
    /// The rows of `path` if cached less than `ttl` ago.
    pub fn get(&self, path: &str, ttl: Duration) -> Option<Vec<Value>> {
        self.pages.get(path).filter(|p| p.at.elapsed() < ttl).map(|p| p.rows.clone())
    }

    /// Keeps the rows of `path` (a body of `bytes`), within the bounds.
    pub fn insert(&mut self, path: String, rows: Vec<Value>, bytes: usize, ttl: Duration) {
        if bytes > MAX_BYTES {
            return;
        }
        self.remove(&path);
        let now = Instant::now();
        while let Some((oldest, at)) = self.order.front().cloned() {
            let expired = now.duration_since(at) >= ttl;
            let full = self.pages.len() >= MAX_ENTRIES || self.bytes + bytes > MAX_BYTES;
            if !(expired || full) {
                break;
            }
            self.remove(&oldest);
        }
        self.order.push_back((path.clone(), now));
        self.bytes += bytes;
        self.pages.insert(path, Page { at: now, rows, bytes });
    }

    fn remove(&mut self, path: &str) {
        if let Some(p) = self.pages.remove(path) {
            self.bytes -= p.bytes;
            self.order.retain(|(k, _)| k != path);
        }
    }

    /// Pages and bytes kept now.
    pub fn size(&self) -> (usize, usize) {
        (self.pages.len(), self.bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_keeps_at_most_its_bounds_evicting_the_oldest() {
        let mut c = ResponseCache::default();
        let ttl = Duration::from_secs(3600);
        for k in 0..MAX_ENTRIES + 10 {
            c.insert(format!("/p{k}"), vec![Value::from(k)], 10, ttl);
        }
        assert_eq!(c.size(), (MAX_ENTRIES, MAX_ENTRIES * 10));
        assert!(c.get("/p0", ttl).is_none() && c.get(&format!("/p{}", MAX_ENTRIES + 9), ttl).is_some());
        c.insert("/big".into(), Vec::new(), MAX_BYTES - 100, ttl);
        assert!(c.size().1 <= MAX_BYTES);
        assert!(c.get("/big", ttl).is_some());
    }

    #[test]
    fn expired_pages_are_not_served_and_go_at_the_next_insert() {
        let mut c = ResponseCache::default();
        c.insert("/a".into(), vec![Value::from(1)], 5, Duration::ZERO);
        assert!(c.get("/a", Duration::ZERO).is_none());
        c.insert("/b".into(), vec![Value::from(2)], 5, Duration::ZERO);
        assert_eq!(c.size(), (1, 5));
    }
}
