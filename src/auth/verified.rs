//! A bounded cache of tokens whose algorithm, signature and issuer were already verified, keyed
//! by the SHA-256 of the token. An RS256 signature check costs about 30 µs; a client sends the
//! same access token with every request for its 15 minutes, so only its first request pays it.
//! Expiry is still checked on every hit, and what can change during a token's life (its
//! session, its revocation, the user) is checked by the caller on every request, never cached.

use std::collections::HashMap;
use std::sync::Mutex;

use aws_lc_rs::digest::{SHA256, digest};

use super::keys::Claims;

/// The SHA-256 of a token (the cache never holds the token itself).
pub fn token_digest(token: &str) -> [u8; 32] {
    let mut out = [0u8; 32];
    out.copy_from_slice(digest(&SHA256, token.as_bytes()).as_ref());
    out
}

/// Verified claims by token digest, at most `capacity` of them.
pub struct VerifiedTokens {
    entries: Mutex<HashMap<[u8; 32], Claims>>,
    capacity: usize,
}

impl VerifiedTokens {
    /// An empty cache.
    pub fn new(capacity: usize) -> Self {
        VerifiedTokens { entries: Mutex::new(HashMap::new()), capacity: capacity.max(1) }
    }

    /// The claims of a token verified before.
    pub fn get(&self, key: &[u8; 32]) -> Option<Claims> {
        self.entries.lock().unwrap_or_else(|p| p.into_inner()).get(key).cloned()
    }

    /// Remembers a verified token. When full, expired entries go first, then everything (a
    /// full cache only costs the next requests one signature check each).
    pub fn insert(&self, key: [u8; 32], claims: &Claims, now_secs: i64) {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        if entries.len() >= self.capacity {
            entries.retain(|_, c| c.exp >= now_secs);
            if entries.len() >= self.capacity {
                entries.clear();
            }
        }
        entries.insert(key, claims.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::TokenKind;

    fn claims(exp: i64) -> Claims {
        Claims {
            sub: uuid::Uuid::nil(),
            email: String::new(),
            role: String::new(),
            permissoes: Vec::new(),
            iat: 0,
            exp,
            jti: String::new(),
            iss: String::new(),
            sid: uuid::Uuid::nil(),
            typ: TokenKind::Access,
        }
    }

    #[test]
    fn the_cache_stays_within_its_capacity_dropping_expired_entries_first() {
        let cache = VerifiedTokens::new(2);
        cache.insert(token_digest("a"), &claims(10), 0);
        cache.insert(token_digest("b"), &claims(100), 0);
        cache.insert(token_digest("c"), &claims(100), 50);
        assert!(cache.get(&token_digest("a")).is_none(), "expired entries go first");
        assert!(cache.get(&token_digest("b")).is_some() && cache.get(&token_digest("c")).is_some());
        cache.insert(token_digest("d"), &claims(100), 50);
        assert_eq!(cache.entries.lock().unwrap().len(), 1);
    }
}
