//! Two bounded memories of the GraphQL endpoint:
//! - [`ResponseCache`]: the answers to anonymous queries, reused for identical ones (same
//!   text, operation and variables) for a fixed time (300 s), only when they had no errors.
//!   Signed-in callers are never answered from it (what they see depends on who they are).
//! - [`PersistedQueries`]: Apollo's automatic persisted queries. A client sends
//!   `extensions.persistedQuery.sha256Hash` without the query; an unknown hash is answered with
//!   `PERSISTED_QUERY_NOT_FOUND`, and the client sends the query with its hash once, which is
//!   checked and kept.

use std::sync::Mutex;
use std::time::Duration;

use async_graphql::parser::types::OperationType;
use async_graphql::{ErrorExtensions, Request, ServerError};
use bytes::Bytes;
use sha2::{Digest, Sha256};

use crate::domain::bounded::BoundedCache;

/// Answers kept at most.
const RESPONSES_KEPT: usize = 1024;
/// Persisted queries kept at most.
const QUERIES_KEPT: usize = 4096;
/// Longest query text cached or persisted, bytes (a longer one still runs).
const MAX_QUERY_BYTES: usize = 64 * 1024;

/// The hex SHA-256 of a text.
fn sha256_hex(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

/// Kept without expiry (persisted queries): only the entry bound drops them.
const FOREVER: Duration = Duration::MAX;

/// At most `cap` entries, each weighing one, oldest inserted first out.
fn bounded<V: Clone>(cap: usize) -> BoundedCache<V> {
    BoundedCache::new(cap, cap)
}

/// Answers to anonymous queries.
pub struct ResponseCache {
    ttl: Duration,
    kept: Mutex<BoundedCache<Bytes>>,
}

impl ResponseCache {
    /// A cache whose answers are fresh for `ttl`.
    pub fn new(ttl: Duration) -> Self {
        ResponseCache { ttl, kept: Mutex::new(bounded(RESPONSES_KEPT)) }
    }

    /// The key of a request: its text, operation name and variables; `None` for a text too
    /// long to keep. Only query operations are put in the cache (see [`operation_type`]), so a
    /// key found there is a query's, and a hit costs no parse.
    pub fn key(req: &Request) -> Option<String> {
        if req.query.len() > MAX_QUERY_BYTES {
            return None;
        }
        let variables = serde_json::to_string(&req.variables).ok()?;
        let name = req.operation_name.as_deref().unwrap_or("");
        Some(sha256_hex(&format!("{}\u{0}{name}\u{0}{variables}", req.query)))
    }

    /// A fresh answer to the request of `key`.
    pub fn get(&self, key: &str) -> Option<Bytes> {
        self.kept.lock().unwrap_or_else(|p| p.into_inner()).get(key, self.ttl)
    }

    /// Keeps the answer to the request of `key`.
    pub fn put(&self, key: String, body: Bytes) {
        self.kept.lock().unwrap_or_else(|p| p.into_inner()).insert(key, body, 1, self.ttl);
    }
}

/// The type of the operation a request runs: of its named operation, or of its only one;
/// `None` when the document does not parse or names no single operation (it will not run).
/// The parsed document stays in the request, so executing it does not parse it again.
pub fn operation_type(req: &mut Request) -> Option<OperationType> {
    let name = req.operation_name.clone();
    let doc = req.parsed_query().ok()?;
    let op = match (name, doc.operations.iter().count()) {
        (Some(name), _) => doc.operations.iter().find(|(n, _)| n.is_some_and(|n| n.as_str() == name))?.1,
        (None, 1) => doc.operations.iter().next()?.1,
        (None, _) => return None,
    };
    Some(op.node.ty)
}

/// Queries persisted by their hash.
pub struct PersistedQueries {
    kept: Mutex<BoundedCache<String>>,
}

impl Default for PersistedQueries {
    fn default() -> Self {
        PersistedQueries { kept: Mutex::new(bounded(QUERIES_KEPT)) }
    }
}

impl PersistedQueries {
    /// Fills in the query of a request that names a persisted one, or persists the query it
    /// carries with its hash. Requests without `persistedQuery` pass unchanged.
    pub fn resolve(&self, req: &mut Request) -> Result<(), ServerError> {
        let Some(pq) = req.extensions.get("persistedQuery") else { return Ok(()) };
        let pq = pq.clone().into_json().unwrap_or_default();
        if pq.get("version").and_then(serde_json::Value::as_i64) != Some(1) {
            return Err(refusal("persisted query version 1 is the only one supported", "VALIDATION_ERROR"));
        }
        let Some(hash) = pq.get("sha256Hash").and_then(serde_json::Value::as_str).map(str::to_ascii_lowercase) else {
            return Err(refusal("persistedQuery needs its sha256Hash", "VALIDATION_ERROR"));
        };
        let mut kept = self.kept.lock().unwrap_or_else(|p| p.into_inner());
        if req.query.trim().is_empty() {
            req.query = kept
                .get(&hash, FOREVER)
                .ok_or_else(|| refusal("PersistedQueryNotFound", "PERSISTED_QUERY_NOT_FOUND"))?;
            return Ok(());
        }
        if sha256_hex(&req.query) != hash {
            return Err(refusal("the query does not match its sha256Hash", "VALIDATION_ERROR"));
        }
        if req.query.len() <= MAX_QUERY_BYTES {
            kept.insert(hash, req.query.clone(), 1, FOREVER);
        }
        Ok(())
    }
}

/// A request-level error with its code.
fn refusal(message: &str, code: &'static str) -> ServerError {
    async_graphql::Error::new(message)
        .extend_with(|_, e| e.set("code", code))
        .into_server_error(async_graphql::Pos::default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operations_are_told_apart_and_variables_make_a_different_key() {
        let ty = |q: &str| operation_type(&mut Request::new(q));
        assert_eq!(ty("{ agentStats { agentName } }"), Some(OperationType::Query));
        assert_eq!(ty("mutation { cancelInvestigation(id: \"x\") { id } }"), Some(OperationType::Mutation));
        assert_eq!(ty("subscription { agentActivity { agentName } }"), Some(OperationType::Subscription));
        assert_eq!(ty("{ not closed"), None);
        assert_eq!(ty("query A { me { id } } mutation B { x }"), None, "two operations, none named");
        let q = "query Q($id: ID!) { investigation(id: $id) { id } }";
        let a = Request::new(q).variables(async_graphql::Variables::from_json(serde_json::json!({"id": "a"})));
        let b = Request::new(q).variables(async_graphql::Variables::from_json(serde_json::json!({"id": "b"})));
        assert_ne!(ResponseCache::key(&a), ResponseCache::key(&b));
    }

    #[test]
    fn the_cache_forgets_answers_after_their_time_and_keeps_a_bounded_number() {
        let cache = ResponseCache::new(Duration::from_millis(30));
        cache.put("k".into(), Bytes::from_static(b"{}"));
        assert!(cache.get("k").is_some());
        std::thread::sleep(Duration::from_millis(40));
        assert!(cache.get("k").is_none());
        let cache = ResponseCache::new(Duration::from_secs(60));
        for i in 0..RESPONSES_KEPT + 10 {
            cache.put(i.to_string(), Bytes::from_static(b"{}"));
        }
        assert_eq!(cache.kept.lock().unwrap().size().0, RESPONSES_KEPT);
    }

    #[test]
    fn a_persisted_query_is_found_by_its_hash_once_sent_and_a_wrong_hash_is_refused() {
        let apq = PersistedQueries::default();
        let query = "{ agentStats { agentName } }";
        let with_hash = |q: &str, hash: &str| {
            let mut r = Request::new(q);
            let ext = serde_json::json!({"version": 1, "sha256Hash": hash});
            r.extensions.insert("persistedQuery".into(), async_graphql::Value::from_json(ext).unwrap());
            r
        };
        let hash = sha256_hex(query);
        let err = apq.resolve(&mut with_hash("", &hash)).unwrap_err();
        assert_eq!(err.message, "PersistedQueryNotFound");
        assert!(apq.resolve(&mut with_hash(query, "00")).is_err());
        apq.resolve(&mut with_hash(query, &hash)).unwrap();
        let mut by_hash = with_hash("", &hash);
        apq.resolve(&mut by_hash).unwrap();
        assert_eq!(by_hash.query, query);
    }
}
