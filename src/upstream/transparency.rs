//! The Portal da Transparência client: `GET /contratos` per organ and page, with the key in
//! the `chave-api-dados` header (marked sensitive, never logged), a request-rate limit that
//! waits when reached, retries of transient failures honouring `Retry-After`, and a cache of
//! answers for `cache_ttl_secs`.

use std::num::NonZeroU32;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use governor::{DefaultDirectRateLimiter, Quota, RateLimiter};
use reqwest::StatusCode;
use reqwest::header::{ACCEPT, HeaderMap, HeaderValue, RETRY_AFTER, USER_AGENT};
use secrecy::ExposeSecret;
use serde_json::Value;
use vigia_agents::Contract;
use vigia_agents::model::upstream::contract_from_upstream;

use super::cache::ResponseCache;
use crate::config::UpstreamConfig;

/// Upstream page size (fixed upstream).
const PAGE_SIZE: usize = 15;

/// Why the upstream could not deliver. Messages never contain the key.
#[derive(Debug, thiserror::Error)]
pub enum UpstreamError {
    /// The client could not be built.
    #[error("client set-up failed: {0}")]
    Setup(String),
    /// The upstream answered with an error status.
    #[error("upstream answered {status} for {path}")]
    Status {
        /// HTTP status.
        status: u16,
        /// Path and query (no key).
        path: String,
    },
    /// Transport failure or timeout.
    #[error("upstream unreachable: {0}")]
    Transport(String),
    /// The body was not the expected JSON.
    #[error("unexpected upstream body: {0}")]
    Body(String),
}

/// The client; one per process, shared.
pub struct TransparencyClient {
    http: reqwest::Client,
    base: String,
    limiter: DefaultDirectRateLimiter,
    retries: u32,
    max_pages: u32,
    ttl: Duration,
    cache: Mutex<ResponseCache>,
    counters: super::counters::ClientCounters,
}

impl TransparencyClient {
    /// Builds the client from `[upstream]`; needs `api_key`.
    pub fn new(cfg: &UpstreamConfig) -> Result<Self, UpstreamError> {
        let key = cfg.api_key.as_ref().ok_or_else(|| UpstreamError::Setup("no upstream key configured".into()))?;
        let mut headers = HeaderMap::new();
        let mut key_value = HeaderValue::from_str(key.expose_secret())
            .map_err(|_| UpstreamError::Setup("the key is not a valid header value".into()))?;
        key_value.set_sensitive(true);
        headers.insert("chave-api-dados", key_value);
        headers.insert(ACCEPT, HeaderValue::from_static("application/json"));
        // The portal's WAF turns away default library user agents (UPSTREAM.md A.1).
        headers.insert(USER_AGENT, HeaderValue::from_static("Mozilla/5.0 (X11; Linux x86_64) Vigia/0.1"));
        let http = reqwest::Client::builder()
            .default_headers(headers)
            .timeout(Duration::from_secs_f64(cfg.timeout_secs))
            .build()
            .map_err(|e| UpstreamError::Setup(e.to_string()))?;
        let rpm = NonZeroU32::new(cfg.requests_per_minute).unwrap_or(NonZeroU32::MIN);
        Ok(TransparencyClient {
            http,
            base: cfg.api_url.trim_end_matches('/').to_string(),
            limiter: RateLimiter::direct(Quota::per_minute(rpm)),
            retries: cfg.retries,
            max_pages: cfg.max_pages.max(1),
            ttl: Duration::from_secs(cfg.cache_ttl_secs),
            cache: Mutex::new(ResponseCache::default()),
            counters: Default::default(),
        })
    }

    /// Contracts of the given organs signed in `year` (and `month`, if given). Returns the
    /// contracts and whether every page came from the cache. Records that do not parse are
    /// skipped with a warning; the upstream's own shape is not trusted blindly.
    pub async fn contracts(
        &self,
        organs: &[String],
        year: i32,
        month: Option<u32>,
    ) -> Result<(Vec<Contract>, bool), UpstreamError> {
        let (from, to) = period(year, month);
        let mut out = Vec::new();
        let mut all_cached = true;
        for organ in organs {
            for page in 1..=self.max_pages {
                let path = format!("/contratos?codigoOrgao={organ}&pagina={page}&dataInicial={from}&dataFinal={to}");
                let (rows, cached) = self.get_list(&path).await?;
                all_cached &= cached;
                for (i, row) in rows.iter().enumerate() {
                    match contract_from_upstream(i, row) {
                        Ok(c) => out.push(c),
                        Err(e) => tracing::warn!(path = %path, error = %e, "skipping an upstream record"),
                    }
                }
                if rows.len() < PAGE_SIZE {
                    break;
                }
            }
        }
        Ok((out, all_cached))
    }

    async fn get_list(&self, path: &str) -> Result<(Vec<Value>, bool), UpstreamError> {
        if let Some(rows) = self.cached(path) {
            return Ok((rows, true));
        }
        let url = format!("{}{}", self.base, path);
        let mut attempt = 0;
        loop {
            let waiting = Instant::now();
            self.limiter.until_ready().await;
            self.counters.waited(waiting.elapsed());
            let flight = self.counters.started();
            let result = self.http.get(&url).send().await;
            flight.finish(result.as_ref().is_ok_and(|r| r.status().is_success()));
            let retry_in = match result {
                Ok(resp) if resp.status().is_success() => {
                    let body = resp.bytes().await.map_err(|e| UpstreamError::Body(e.without_url().to_string()))?;
                    let rows: Value = serde_json::from_slice(&body).map_err(|e| UpstreamError::Body(e.to_string()))?;
                    let rows = match rows {
                        Value::Array(rows) => rows,
                        other => {
                            return Err(UpstreamError::Body(format!("expected a JSON array, got {}", kind(&other))));
                        }
                    };
                    self.cache.lock().unwrap_or_else(|p| p.into_inner()).insert(
                        path.to_string(),
                        rows.clone(),
                        body.len(),
                        self.ttl,
                    );
                    return Ok((rows, false));
                }
                Ok(resp) => {
                    let status = resp.status();
                    let transient = status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error();
                    if !transient || attempt >= self.retries {
                        return Err(UpstreamError::Status { status: status.as_u16(), path: path.to_string() });
                    }
                    retry_after(resp.headers()).unwrap_or_else(|| backoff(attempt))
                }
                Err(e) => {
                    if attempt >= self.retries {
                        return Err(UpstreamError::Transport(e.without_url().to_string()));
                    }
                    backoff(attempt)
                }
            };
            attempt += 1;
            tracing::debug!(path, attempt, "retrying upstream request");
            tokio::time::sleep(retry_in).await;
        }
    }

    /// One real request, no cache and no retry: the first page of `organ`'s contracts of the
    /// current month. Answers how long the upstream took, or why it failed.
    pub async fn probe(&self, organ: &str) -> Result<Duration, UpstreamError> {
        let today = chrono::Utc::now().date_naive();
        let (from, to) = period(chrono::Datelike::year(&today), Some(chrono::Datelike::month(&today)));
        let path = format!("/contratos?codigoOrgao={organ}&pagina=1&dataInicial={from}&dataFinal={to}");
        let started = Instant::now();
        let resp = self
            .http
            .get(format!("{}{path}", self.base))
            .send()
            .await
            .map_err(|e| UpstreamError::Transport(e.without_url().to_string()))?;
        if !resp.status().is_success() {
            return Err(UpstreamError::Status { status: resp.status().as_u16(), path });
        }
        Ok(started.elapsed())
    }

    /// The HTTP client's counters.
    pub fn counters(&self) -> &super::counters::ClientCounters {
        &self.counters
    }

    /// Pages and bytes the response cache holds now.
    pub fn cache_size(&self) -> (usize, usize) {
        self.cache.lock().unwrap_or_else(|p| p.into_inner()).size()
    }

    fn cached(&self, path: &str) -> Option<Vec<Value>> {
        self.cache.lock().unwrap_or_else(|p| p.into_inner()).get(path, self.ttl)
    }
}

fn backoff(attempt: u32) -> Duration {
    Duration::from_millis(250 * 2u64.pow(attempt.min(6)))
}

fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let secs: u64 = headers.get(RETRY_AFTER)?.to_str().ok()?.trim().parse().ok()?;
    Some(Duration::from_secs(secs.min(30)))
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Object(_) => "an object",
        Value::String(_) => "a string",
        _ => "another value",
    }
}

/// `DD/MM/AAAA` bounds of a year or month (URL-encoded slashes are not needed by reqwest's
/// URL parser, which keeps `/` in queries; the portal accepts both).
fn period(year: i32, month: Option<u32>) -> (String, String) {
    match month {
        Some(m) => {
            let last = match m {
                2 if chrono::NaiveDate::from_ymd_opt(year, 2, 29).is_some() => 29,
                2 => 28,
                4 | 6 | 9 | 11 => 30,
                _ => 31,
            };
            (format!("01/{m:02}/{year}"), format!("{last}/{m:02}/{year}"))
        }
        None => (format!("01/01/{year}"), format!("31/12/{year}")),
    }
}
