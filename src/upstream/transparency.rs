//! The Portal da Transparência client on the shared core ([`UpstreamSource`]): the key in
//! the `chave-api-dados` header, the rate limit, retries and cache of the core, and the
//! portal's own paging (15 rows a page, stop on a short page).

use std::time::Duration;

use super::params::{Endpoint, dmy, period};
use super::source::{SourceConfig, UpstreamError, UpstreamSource};
use crate::config::UpstreamConfig;
use reqwest::header::HeaderName;
use serde_json::Value;

/// The source's name in errors, logs and health.
pub const SOURCE: &str = "portal_transparencia";
/// Most answers cached (pages of 15 records).
const CACHE_MAX_ENTRIES: usize = 1024;
/// Most bytes of bodies cached.
const CACHE_MAX_BYTES: usize = 64 * 1024 * 1024;

/// Upstream page size (fixed upstream).
const PAGE_SIZE: usize = 15;

/// The client; one per process, shared.
pub struct TransparencyClient {
    src: UpstreamSource,
    max_pages: u32,
}

/// What one fetch may still spend: records kept and requests sent.
#[derive(Debug, Clone, Copy)]
pub struct Budget {
    /// Records that may still be kept.
    pub records: usize,
    /// Requests that may still be sent.
    pub requests: usize,
}

/// The rows of a paged list.
#[derive(Debug, Default)]
pub struct Listed {
    /// Rows kept (within the record budget).
    pub rows: Vec<Value>,
    /// Rows the upstream sent, kept or not.
    pub received: usize,
    /// Whether the list ended (a short page) rather than the budget or the page cap.
    pub complete: bool,
    /// Whether every page came from the cache.
    pub cached: bool,
}

impl TransparencyClient {
    /// Builds the client from `[upstream]`; needs `api_key`.
    pub fn new(cfg: &UpstreamConfig) -> Result<Self, UpstreamError> {
        let key = cfg
            .api_key
            .clone()
            .ok_or_else(|| UpstreamError::Setup { source_name: SOURCE, reason: "no upstream key configured".into() })?;
        let src = UpstreamSource::new(SourceConfig {
            name: SOURCE,
            base_url: cfg.api_url.clone(),
            secret_header: Some((HeaderName::from_static("chave-api-dados"), key)),
            requests_per_minute: cfg.requests_per_minute,
            timeout: Duration::from_secs_f64(cfg.timeout_secs),
            retries: cfg.retries,
            cache_ttl: Duration::from_secs(cfg.cache_ttl_secs),
            cache_max_entries: CACHE_MAX_ENTRIES,
            cache_max_bytes: CACHE_MAX_BYTES,
        })?;
        Ok(TransparencyClient { src, max_pages: cfg.max_pages.max(1) })
    }

    /// Every page of a list endpoint for `query` (plus `pagina`), until a short page, the
    /// page cap, or the budget; rows past the record budget are counted but not kept.
    pub async fn list(
        &self,
        endpoint: Endpoint,
        query: &[(&'static str, String)],
        budget: &mut Budget,
    ) -> Result<Listed, UpstreamError> {
        endpoint.check(query)?;
        let mut out = Listed { rows: Vec::new(), received: 0, complete: false, cached: true };
        for page in 1..=self.max_pages {
            if budget.records == 0 || budget.requests == 0 {
                return Ok(out);
            }
            let mut q = query.to_vec();
            q.push(("pagina", page.to_string()));
            budget.requests -= 1;
            let (rows, cached) = self.get_list(endpoint.path(), &q).await?;
            out.cached &= cached;
            let received = rows.len();
            out.received += received;
            let keep = received.min(budget.records);
            budget.records -= keep;
            out.rows.extend(rows.into_iter().take(keep));
            if keep < received {
                return Ok(out);
            }
            if received < PAGE_SIZE {
                out.complete = true;
                return Ok(out);
            }
        }
        Ok(out)
    }

    /// One page of a list endpoint (`query` carries `pagina`), its minimum filters checked
    /// first: the rows and whether they came from the cache. For the `/transparency/*` routes,
    /// which page through the same client (one rate limit per key).
    pub async fn page(
        &self,
        endpoint: Endpoint,
        query: &[(&'static str, String)],
    ) -> Result<(Vec<Value>, bool), UpstreamError> {
        endpoint.check(query)?;
        self.get_list(endpoint.path(), query).await
    }

    /// The rows of a detail endpoint for one record (`?id=`), answered in one call.
    pub async fn detail(&self, endpoint: Endpoint, id: &str) -> Result<(Vec<Value>, bool), UpstreamError> {
        let query = [("id", id.to_string())];
        endpoint.check(&query)?;
        self.get_list(endpoint.path(), &query).await
    }

    /// One answer of a list endpoint: the portal answers a bare JSON array.
    async fn get_list(&self, path: &str, query: &[(&str, String)]) -> Result<(Vec<Value>, bool), UpstreamError> {
        let (body, cached) = self.src.get_traced(path, query).await?;
        match body.as_deref() {
            None => Ok((Vec::new(), cached)),
            Some(Value::Array(rows)) => Ok((rows.clone(), cached)),
            Some(other) => Err(UpstreamError::Malformed {
                source_name: SOURCE,
                path: path.to_string(),
                reason: format!("expected a JSON array, got {}", kind(other)),
            }),
        }
    }

    /// One real request, no cache and no retry: the first page of `organ`'s contracts of the
    /// current month. Answers how long the upstream took, or why it failed.
    pub async fn probe(&self, organ: &str) -> Result<Duration, UpstreamError> {
        let today = chrono::Utc::now().date_naive();
        let (from, to) = period(chrono::Datelike::year(&today), Some(chrono::Datelike::month(&today)));
        let query = [
            ("codigoOrgao", organ.to_string()),
            ("pagina", "1".into()),
            ("dataInicial", dmy(from)),
            ("dataFinal", dmy(to)),
        ];
        self.src.probe("/contratos", &query).await
    }

    /// The HTTP client's counters.
    pub fn counters(&self) -> &super::counters::ClientCounters {
        self.src.counters()
    }

    /// Pages and bytes the response cache holds now.
    pub fn cache_size(&self) -> (usize, usize) {
        self.src.cache_size()
    }

    /// The class of the last failed upstream request.
    pub fn last_error_class(&self) -> Option<&'static str> {
        self.src.last_error_class()
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Object(_) => "an object",
        Value::String(_) => "a string",
        _ => "another value",
    }
}
