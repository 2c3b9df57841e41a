//! One upstream JSON source with the whole client discipline, shared by every upstream
//! client (the Portal da Transparência here, IBGE/PNCP/DataSUS/INEP in `federal/`): an
//! optional key in a sensitive header, `Accept: application/json` and a browser-like
//! `User-Agent` (the portal's WAF turns library agents away, UPSTREAM.md A.1), a token bucket
//! that waits when empty, a per-request timeout, retries with exponential backoff on 5xx and
//! transport errors, `Retry-After` honoured on 429 (and held for every request of the
//! source), and a bounded cache of answers keyed by path and sorted query.

use std::num::NonZeroU32;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};
use reqwest::StatusCode;
use reqwest::header::{ACCEPT, HeaderMap, HeaderName, HeaderValue, RETRY_AFTER, USER_AGENT};
use secrecy::{ExposeSecret, SecretString};
use serde_json::Value;

use super::cache::ResponseCache;
use super::counters::ClientCounters;
pub use super::error::UpstreamError;
use super::outcomes::{Outcomes, SourceHealth, host_of};

/// A browser-like agent: the portal's WAF answers 405 with an HTML page to library agents.
const BROWSER_AGENT: &str = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0 Vigia/0.1";

/// How to reach one upstream and how hard to press it.
#[derive(Debug, Clone)]
pub struct SourceConfig {
    /// Short name used in errors, logs and health (`portal_transparencia`, `ibge`, ...).
    pub name: &'static str,
    /// Base URL; request paths are appended to it.
    pub base_url: String,
    /// A key sent as this header on every request (its Debug prints redacted).
    pub secret_header: Option<(HeaderName, SecretString)>,
    /// Token bucket: holds this many requests, refilled at this many a minute (at least 1).
    pub requests_per_minute: u32,
    /// Timeout of one request, body included.
    pub timeout: Duration,
    /// Retries after the first attempt (5xx, 429, transport errors).
    pub retries: u32,
    /// How long an answer is served from the cache.
    pub cache_ttl: Duration,
    /// Most answers cached.
    pub cache_max_entries: usize,
    /// Most bytes of bodies cached.
    pub cache_max_bytes: usize,
}

/// One upstream; cheap to clone (the clones share the connection pool, bucket and cache).
#[derive(Clone)]
pub struct UpstreamSource {
    inner: Arc<Inner>,
}

struct Inner {
    name: &'static str,
    http: reqwest::Client,
    base: String,
    timeout: Duration,
    retries: u32,
    ttl: Duration,
    limiter: DefaultDirectRateLimiter,
    /// No request leaves before this instant (set by a 429's `Retry-After`).
    hold_until: Mutex<Option<Instant>>,
    cache: Mutex<ResponseCache>,
    counters: ClientCounters,
    outcomes: Outcomes,
}

impl std::fmt::Debug for UpstreamSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UpstreamSource").field("name", &self.inner.name).field("base", &self.inner.base).finish()
    }
}

impl UpstreamSource {
    /// Builds the client; fails if the key is not a valid header value.
    pub fn new(cfg: SourceConfig) -> Result<Self, UpstreamError> {
        let setup = |reason: String| UpstreamError::Setup { source_name: cfg.name, reason };
        let mut headers = HeaderMap::new();
        if let Some((name, key)) = &cfg.secret_header {
            let mut value = HeaderValue::from_str(key.expose_secret())
                .map_err(|_| setup("the key is not a valid header value".into()))?;
            // Sensitive: reqwest and hyper leave it out of their Debug output.
            value.set_sensitive(true);
            headers.insert(name.clone(), value);
        }
        headers.insert(ACCEPT, HeaderValue::from_static("application/json"));
        headers.insert(USER_AGENT, HeaderValue::from_static(BROWSER_AGENT));
        let http = reqwest::Client::builder()
            .default_headers(headers)
            .timeout(cfg.timeout)
            .build()
            .map_err(|e| setup(e.without_url().to_string()))?;
        let rpm = NonZeroU32::new(cfg.requests_per_minute).unwrap_or(NonZeroU32::MIN);
        // A bucket of `rpm` tokens refilled at `rpm` a minute (the token bucket): a
        // short investigation goes out at once; a long one is spaced at the upstream's rate.
        // A 429 that this still provokes is honoured through `Retry-After`.
        let quota = Quota::per_minute(rpm);
        Ok(UpstreamSource {
            inner: Arc::new(Inner {
                name: cfg.name,
                http,
                base: cfg.base_url.trim_end_matches('/').to_string(),
                timeout: cfg.timeout,
                retries: cfg.retries,
                ttl: cfg.cache_ttl,
                limiter: RateLimiter::direct(quota),
                hold_until: Mutex::new(None),
                cache: Mutex::new(ResponseCache::new(cfg.cache_max_entries, cfg.cache_max_bytes)),
                counters: ClientCounters::default(),
                outcomes: Outcomes::default(),
            }),
        })
    }

    /// The source's short name.
    pub fn name(&self) -> &'static str {
        self.inner.name
    }

    /// `GET base+path?query`: `Some(body)` on 2xx, `None` on 204. Served from the cache when
    /// the same path and query were fetched less than the TTL ago.
    pub async fn get_json(&self, path: &str, query: &[(&str, String)]) -> Result<Option<Value>, UpstreamError> {
        Ok(self.get_shared(path, query).await?.map(Arc::unwrap_or_clone))
    }

    /// [`Self::get_json`] without copying a cached body.
    pub async fn get_shared(&self, path: &str, query: &[(&str, String)]) -> Result<Option<Arc<Value>>, UpstreamError> {
        self.get_traced(path, query).await.map(|(body, _)| body)
    }

    /// [`Self::get_shared`], also saying whether the answer came from the cache.
    pub async fn get_traced(
        &self,
        path: &str,
        query: &[(&str, String)],
    ) -> Result<(Option<Arc<Value>>, bool), UpstreamError> {
        let key = cache_key(path, query);
        let hit = self.lock_cache().get(&key, self.inner.ttl);
        self.inner.outcomes.looked_up(hit.is_some());
        if let Some(hit) = hit {
            return Ok((hit, true));
        }
        match self.fetch(path, query).await {
            Ok((body, bytes)) => {
                self.inner.outcomes.succeeded();
                let body = body.map(Arc::new);
                self.lock_cache().insert(key, body.clone(), bytes, self.inner.ttl);
                Ok((body, false))
            }
            // A 404 is the upstream answering that the resource does not exist (the company
            // register's "no such CNPJ"): the caller decides what it means; the source is up.
            Err(e @ UpstreamError::Rejected { status: 404, .. }) => {
                self.inner.outcomes.succeeded();
                Err(e)
            }
            Err(e) => {
                self.inner.outcomes.failed(e.class());
                tracing::warn!(source = self.inner.name, class = e.class(), error = %e, "upstream request failed");
                Err(e)
            }
        }
    }

    /// One request with retries; the parsed body (if any) and its size in bytes.
    async fn fetch(&self, path: &str, query: &[(&str, String)]) -> Result<(Option<Value>, usize), UpstreamError> {
        let inner = &self.inner;
        let url = format!("{}{}", inner.base, path);
        let at = |path: &str| path.to_string();
        let mut attempt = 0u32;
        loop {
            self.wait_turn().await;
            let flight = inner.counters.started();
            let result = inner.http.get(&url).query(query).send().await;
            let result = match result {
                Ok(resp) if resp.status() == StatusCode::NO_CONTENT => Ok(None),
                Ok(resp) if resp.status().is_success() => match resp.bytes().await {
                    Ok(body) => Ok(Some(body)),
                    Err(e) => Err(Err(e)),
                },
                Ok(resp) => Err(Ok(resp)),
                Err(e) => Err(Err(e)),
            };
            flight.finish(result.is_ok());
            let retry_in = match result {
                Ok(None) => return Ok((None, 0)),
                Ok(Some(body)) => {
                    let value: Value = serde_json::from_slice(&body).map_err(|e| UpstreamError::Malformed {
                        source_name: inner.name,
                        path: at(path),
                        reason: e.to_string(),
                    })?;
                    return Ok((Some(value), body.len()));
                }
                Err(Ok(resp)) => {
                    let status = resp.status();
                    let last = attempt >= inner.retries;
                    if status == StatusCode::TOO_MANY_REQUESTS {
                        match retry_after(resp.headers()) {
                            // Waiting longer than a request may take would break the budget:
                            // give up now rather than call before the upstream allows.
                            Some(wait) if wait > inner.timeout || last => {
                                return Err(UpstreamError::RateLimited { source_name: inner.name, path: at(path) });
                            }
                            Some(wait) => {
                                self.hold(wait);
                                wait
                            }
                            None if last => {
                                return Err(UpstreamError::RateLimited { source_name: inner.name, path: at(path) });
                            }
                            None => backoff(attempt),
                        }
                    } else if status.is_server_error() {
                        if last {
                            return Err(UpstreamError::ServerError {
                                source_name: inner.name,
                                path: at(path),
                                status: status.as_u16(),
                                attempts: attempt + 1,
                            });
                        }
                        backoff(attempt)
                    } else if matches!(status.as_u16(), 401 | 403 | 405) {
                        return Err(UpstreamError::Blocked {
                            source_name: inner.name,
                            path: at(path),
                            status: status.as_u16(),
                        });
                    } else {
                        let body = resp.text().await.unwrap_or_default();
                        return Err(UpstreamError::Rejected {
                            source_name: inner.name,
                            path: at(path),
                            status: status.as_u16(),
                            message: upstream_message(&body),
                        });
                    }
                }
                Err(Err(e)) if e.is_timeout() => {
                    // Not retried: an upstream that took the whole timeout once is unlikely to
                    // be quicker at once, and the caller's fallback should not wait 4x as long.
                    return Err(UpstreamError::Timeout {
                        source_name: inner.name,
                        path: at(path),
                        secs: inner.timeout.as_secs_f64(),
                    });
                }
                Err(Err(e)) => {
                    if attempt >= inner.retries {
                        return Err(UpstreamError::Transport {
                            source_name: inner.name,
                            path: at(path),
                            reason: e.without_url().to_string(),
                        });
                    }
                    backoff(attempt)
                }
            };
            attempt += 1;
            tracing::debug!(source = inner.name, path, attempt, wait_ms = retry_in.as_millis() as u64, "retrying");
            tokio::time::sleep(retry_in).await;
        }
    }

    /// Waits for a `Retry-After` hold to pass, then for a token.
    async fn wait_turn(&self) {
        let waiting = Instant::now();
        let hold = *self.inner.hold_until.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(until) = hold {
            tokio::time::sleep_until(until.into()).await;
        }
        self.inner.limiter.until_ready().await;
        self.inner.counters.waited(waiting.elapsed());
    }

    fn hold(&self, wait: Duration) {
        let until = Instant::now() + wait;
        let mut hold = self.inner.hold_until.lock().unwrap_or_else(|p| p.into_inner());
        *hold = Some(hold.map_or(until, |h| h.max(until)));
    }

    /// A request without cache or retry (health probes): how long the upstream took.
    pub async fn probe(&self, path: &str, query: &[(&str, String)]) -> Result<Duration, UpstreamError> {
        let result = self.probe_once(path, query).await;
        match &result {
            Ok(_) => self.inner.outcomes.succeeded(),
            Err(e) => self.inner.outcomes.failed(e.class()),
        }
        result
    }

    async fn probe_once(&self, path: &str, query: &[(&str, String)]) -> Result<Duration, UpstreamError> {
        let started = Instant::now();
        let result = self.inner.http.get(format!("{}{}", self.inner.base, path)).query(query).send().await;
        let name = self.inner.name;
        match result {
            Ok(resp) if resp.status().is_success() => Ok(started.elapsed()),
            Ok(resp) => {
                let status = resp.status().as_u16();
                Err(match status {
                    401 | 403 | 405 => UpstreamError::Blocked { source_name: name, path: path.into(), status },
                    429 => UpstreamError::RateLimited { source_name: name, path: path.into() },
                    s if s >= 500 => {
                        UpstreamError::ServerError { source_name: name, path: path.into(), status, attempts: 1 }
                    }
                    _ => {
                        UpstreamError::Rejected { source_name: name, path: path.into(), status, message: String::new() }
                    }
                })
            }
            Err(e) if e.is_timeout() => Err(UpstreamError::Timeout {
                source_name: name,
                path: path.into(),
                secs: self.inner.timeout.as_secs_f64(),
            }),
            Err(e) => Err(UpstreamError::Transport {
                source_name: name,
                path: path.into(),
                reason: e.without_url().to_string(),
            }),
        }
    }

    /// The HTTP client's counters.
    pub fn counters(&self) -> &ClientCounters {
        &self.inner.counters
    }

    /// Answers and bytes the cache holds now.
    pub fn cache_size(&self) -> (usize, usize) {
        self.lock_cache().size()
    }

    /// The class of the last failed request ([`UpstreamError::class`]), if any failed.
    pub fn last_error_class(&self) -> Option<&'static str> {
        self.inner.outcomes.last_error_class()
    }

    /// The source's health as its own requests measured it: last success, last failure's
    /// class, the cache's size and use, the base URL's host.
    pub fn health(&self) -> SourceHealth {
        self.inner.outcomes.health(self.inner.name, host_of(&self.inner.base), self.cache_size())
    }

    fn lock_cache(&self) -> std::sync::MutexGuard<'_, ResponseCache> {
        self.inner.cache.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The cache key: the path and the query sorted by name, so parameter order does not matter.
fn cache_key(path: &str, query: &[(&str, String)]) -> String {
    let mut pairs: Vec<&(&str, String)> = query.iter().collect();
    pairs.sort();
    let mut key = path.to_string();
    for (i, (k, v)) in pairs.into_iter().enumerate() {
        key.push(if i == 0 { '?' } else { '&' });
        key.push_str(k);
        key.push('=');
        key.push_str(v);
    }
    key
}

fn backoff(attempt: u32) -> Duration {
    Duration::from_millis(250 * 2u64.pow(attempt.min(6)))
}

/// `Retry-After` in seconds or as an HTTP date.
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let raw = headers.get(RETRY_AFTER)?.to_str().ok()?.trim();
    if let Ok(secs) = raw.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let at = chrono::DateTime::parse_from_rfc2822(raw).ok()?;
    let wait = at.with_timezone(&chrono::Utc) - chrono::Utc::now();
    Some(wait.to_std().unwrap_or(Duration::ZERO))
}

/// The upstream's error text: its `{"Erro na API": "..."}` message, else the body's start.
fn upstream_message(body: &str) -> String {
    let text = serde_json::from_str::<Value>(body)
        .ok()
        .and_then(|v| v.as_object().and_then(|o| o.values().find_map(|v| v.as_str().map(str::to_string))))
        .unwrap_or_else(|| body.to_string());
    text.chars().take(200).collect()
}

#[cfg(test)]
#[path = "source_tests.rs"]
mod tests;
