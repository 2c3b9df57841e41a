//! The Portal da Transparência client on the shared core ([`UpstreamSource`]): the key in
//! the `chave-api-dados` header, the rate limit, retries and cache of the core, and the
//! portal's own paging (15 rows a page, stop on a short page).

use std::time::Duration;

use reqwest::header::HeaderName;
use serde_json::Value;
use vigia_agents::Contract;
use vigia_agents::model::upstream::contract_from_upstream;

use super::source::{SourceConfig, UpstreamError, UpstreamSource};
use crate::config::UpstreamConfig;

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
                let query = [
                    ("codigoOrgao", organ.clone()),
                    ("pagina", page.to_string()),
                    ("dataInicial", from.clone()),
                    ("dataFinal", to.clone()),
                ];
                let (rows, cached) = self.get_list("/contratos", &query).await?;
                all_cached &= cached;
                for (i, row) in rows.iter().enumerate() {
                    match contract_from_upstream(i, row) {
                        Ok(c) => out.push(c),
                        Err(e) => tracing::warn!(organ = %organ, page, error = %e, "skipping an upstream record"),
                    }
                }
                if rows.len() < PAGE_SIZE {
                    break;
                }
            }
        }
        Ok((out, all_cached))
    }

    /// One page of a list endpoint: the portal answers a bare JSON array.
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
        let query =
            [("codigoOrgao", organ.to_string()), ("pagina", "1".into()), ("dataInicial", from), ("dataFinal", to)];
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
