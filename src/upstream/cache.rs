//! The upstream response cache, bounded: at most `max_entries` answers and `max_bytes` of
//! response bodies (as received), each answer kept for the source's TTL. Inserting removes
//! expired answers first, then the oldest ones until both bounds hold, so a long-running
//! service reading many organs and months keeps a fixed ceiling. An answer is the parsed
//! body, or `None` for an empty answer (HTTP 204), which is worth caching too.

use std::sync::Arc;

use serde_json::Value;

/// Cached answers by request key (path and sorted query), weighed in bytes of body as received;
/// shared so that a hit costs a reference count, not a copy, until the caller needs one.
pub type ResponseCache = crate::domain::bounded::BoundedCache<Option<Arc<Value>>>;

#[cfg(test)]
mod tests {
    use std::time::Duration;

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
