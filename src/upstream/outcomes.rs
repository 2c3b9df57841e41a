//! What one upstream source has done lately, as health reports it: when a request last
//! succeeded, the class and time of the last failure, and how often the response cache
//! answered. Measured by the source's own client ([`super::source::UpstreamSource`]) on every
//! request; nothing here is probed or assumed.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use chrono::{DateTime, Utc};
use serde::Serialize;

/// The source's outcomes so far.
#[derive(Debug, Default)]
pub struct Outcomes {
    last_success: Mutex<Option<DateTime<Utc>>>,
    last_error: Mutex<Option<(&'static str, DateTime<Utc>)>>,
    cache_hits: AtomicU64,
    cache_misses: AtomicU64,
}

impl Outcomes {
    /// A request succeeded now.
    pub fn succeeded(&self) {
        *self.last_success.lock().unwrap_or_else(|p| p.into_inner()) = Some(Utc::now());
    }

    /// A request failed now with an error of `class`.
    pub fn failed(&self, class: &'static str) {
        *self.last_error.lock().unwrap_or_else(|p| p.into_inner()) = Some((class, Utc::now()));
    }

    /// The cache answered (`hit`) or the request went upstream.
    pub fn looked_up(&self, hit: bool) {
        let counter = if hit { &self.cache_hits } else { &self.cache_misses };
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// The class of the last failure, if any request failed.
    pub fn last_error_class(&self) -> Option<&'static str> {
        self.last_error.lock().unwrap_or_else(|p| p.into_inner()).map(|(class, _)| class)
    }

    /// The report, with the cache's current size.
    pub fn health(&self, name: &'static str, host: String, (entries, bytes): (usize, usize)) -> SourceHealth {
        let last_success = *self.last_success.lock().unwrap_or_else(|p| p.into_inner());
        let last_error = *self.last_error.lock().unwrap_or_else(|p| p.into_inner());
        // A source is unhealthy while its last request failed: a success since clears it.
        let failing = match (last_error, last_success) {
            (Some((_, failed)), Some(ok)) => failed > ok,
            (Some(_), None) => true,
            (None, _) => false,
        };
        SourceHealth {
            name,
            status: if failing { "unhealthy" } else { "healthy" },
            mode: "production",
            host,
            last_success,
            last_error_class: last_error.map(|(class, _)| class),
            last_error_at: last_error.map(|(_, at)| at),
            cache: CacheFigures {
                entries,
                bytes,
                hits: self.cache_hits.load(Ordering::Relaxed),
                misses: self.cache_misses.load(Ordering::Relaxed),
            },
        }
    }
}

/// One source in `/health/detailed`.
#[derive(Debug, Clone, Serialize)]
pub struct SourceHealth {
    /// `ibge`, `pncp`, `datasus`, `inep`.
    pub name: &'static str,
    /// `unhealthy` while the last request failed, else `healthy`.
    pub status: &'static str,
    /// `production` (a client exists only in production mode).
    pub mode: &'static str,
    /// The base URL's host (and port): never a path, query or key.
    pub host: String,
    /// When a request last succeeded.
    pub last_success: Option<DateTime<Utc>>,
    /// The class of the last failure ([`super::UpstreamError::class`]).
    pub last_error_class: Option<&'static str>,
    /// When it failed.
    pub last_error_at: Option<DateTime<Utc>>,
    /// The response cache.
    pub cache: CacheFigures,
}

/// A response cache's size and use.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct CacheFigures {
    /// Answers held.
    pub entries: usize,
    /// Bytes of bodies held.
    pub bytes: usize,
    /// Requests answered from it.
    pub hits: u64,
    /// Requests that went upstream.
    pub misses: u64,
}

/// The host (and port, when given) of `url`; empty when it does not parse.
pub fn host_of(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(u) => match (u.host_str(), u.port()) {
            (Some(h), Some(p)) => format!("{h}:{p}"),
            (Some(h), None) => h.to_string(),
            _ => String::new(),
        },
        Err(_) => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_after_a_success_is_unhealthy_until_the_next_success_and_hosts_keep_no_path() {
        let o = Outcomes::default();
        assert_eq!(o.health("ibge", String::new(), (0, 0)).status, "healthy");
        o.succeeded();
        o.looked_up(false);
        std::thread::sleep(std::time::Duration::from_millis(2));
        o.failed("timeout");
        let h = o.health("ibge", host_of("https://servicodados.ibge.gov.br/api/v3"), (3, 120));
        assert_eq!(
            (h.status, h.last_error_class, h.host.as_str()),
            ("unhealthy", Some("timeout"), "servicodados.ibge.gov.br")
        );
        assert_eq!((h.cache.entries, h.cache.bytes, h.cache.misses), (3, 120, 1));
        std::thread::sleep(std::time::Duration::from_millis(2));
        o.succeeded();
        assert_eq!(o.health("ibge", String::new(), (0, 0)).status, "healthy");
        assert_eq!(host_of("http://127.0.0.1:8080/x?chave=1"), "127.0.0.1:8080");
    }
}
