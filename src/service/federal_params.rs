//! What the federal and transparency routes share: typed reading of query parameters (each
//! bad value a `VALIDATION_ERROR` naming its field), the `{data, meta}` answer with its mode
//! (`source`, `demo_mode`, `data_status`, `warning`), and the one rule that sorts upstream
//! failures into the request's fault (a 400) and the upstream's (fall back).

use std::collections::HashMap;

use chrono::NaiveDate;
use serde_json::{Value, json};

use crate::error::{Error, Result};
use crate::upstream::UpstreamError;

/// A route's query parameters.
#[derive(Debug, Clone, Default)]
pub struct Query(pub HashMap<String, String>);

impl Query {
    /// The trimmed, non-empty value of `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).map(|v| v.trim()).filter(|v| !v.is_empty())
    }

    /// A 1-based page number (1 when absent, at most 10,000).
    pub fn page(&self, key: &str) -> Result<u32> {
        match self.get(key) {
            None => Ok(1),
            Some(v) => v
                .parse::<u32>()
                .ok()
                .filter(|p| (1..=10_000).contains(p))
                .ok_or_else(|| Error::validation(key, "a page number from 1 to 10000")),
        }
    }

    /// An integer in `range`.
    pub fn int(&self, key: &str, range: std::ops::RangeInclusive<u32>) -> Result<Option<u32>> {
        self.get(key)
            .map(|v| {
                v.parse::<u32>().ok().filter(|n| range.contains(n)).ok_or_else(|| {
                    Error::validation(key, format!("an integer from {} to {}", range.start(), range.end()))
                })
            })
            .transpose()
    }

    /// A finite number.
    pub fn number(&self, key: &str) -> Result<Option<f64>> {
        self.get(key)
            .map(|v| v.parse::<f64>().ok().filter(|n| n.is_finite()).ok_or_else(|| Error::validation(key, "a number")))
            .transpose()
    }

    /// A year from 1990 to 2100.
    pub fn year(&self, key: &str) -> Result<Option<i32>> {
        Ok(self.int(key, 1990..=2100)?.map(|y| y as i32))
    }

    /// A month from 1 to 12.
    pub fn month(&self, key: &str) -> Result<Option<u32>> {
        self.int(key, 1..=12)
    }

    /// A code of exactly `len` digits.
    pub fn digits(&self, key: &str, len: usize) -> Result<Option<String>> {
        self.get(key)
            .map(|v| {
                (v.len() == len && v.bytes().all(|b| b.is_ascii_digit()))
                    .then(|| v.to_string())
                    .ok_or_else(|| Error::validation(key, format!("a code of {len} digits")))
            })
            .transpose()
    }

    /// A date as `YYYY-MM-DD`, `YYYYMMDD` or `DD/MM/YYYY`.
    pub fn date(&self, key: &str) -> Result<Option<NaiveDate>> {
        self.get(key)
            .map(|v| {
                ["%Y-%m-%d", "%Y%m%d", "%d/%m/%Y"]
                    .iter()
                    .find_map(|f| NaiveDate::parse_from_str(v, f).ok())
                    .ok_or_else(|| Error::validation(key, "a date as YYYY-MM-DD"))
            })
            .transpose()
    }
}

/// Where an answer's data came from.
#[derive(Debug, Clone)]
pub enum Mode {
    /// The upstream answered.
    Production {
        /// The `source` value.
        source: &'static str,
        /// Served from the client's cache.
        cache_hit: bool,
    },
    /// No key is configured: demo data or the offline table.
    Demo,
    /// The upstream failed: demo data or the offline table, and why.
    Fallback(UpstreamError),
}

/// `{data, meta}` with the mode's fields merged into `meta` after `extra`'s (a `source` in
/// `extra` is kept).
pub fn answer(data: Value, mode: Mode, extra: Value) -> Value {
    let mut meta = match extra {
        Value::Object(m) => m,
        _ => Default::default(),
    };
    let fields = match &mode {
        Mode::Production { source, cache_hit } => {
            json!({"source": source, "demo_mode": false, "data_status": "completed", "cache_hit": cache_hit})
        }
        Mode::Demo => json!({"source": "demo_data", "demo_mode": true, "data_status": "completed"}),
        Mode::Fallback(e) => json!({"source": "demo_data", "demo_mode": true, "data_status": "completed_fallback",
            "warning": format!("upstream failed ({}): {e}; answered from the service's own data", e.class()),
            "upstream_error": e.class()}),
    };
    if let Value::Object(f) = fields {
        for (k, v) in f {
            // An offline answer may name its own source (`ibge_offline_table`).
            if !(k == "source" && meta.contains_key("source")) {
                meta.insert(k, v);
            }
        }
    }
    json!({"data": data, "meta": meta})
}

/// Sorts an upstream failure: the request's fault (a parameter the upstream requires, an
/// upstream 4xx other than 401/403/405/429) is a validation error; anything else is the
/// upstream's and is handed back to fall back on.
pub fn upstream_failure(e: UpstreamError) -> Result<UpstreamError> {
    match &e {
        UpstreamError::MissingParameters { reason, .. } => Err(Error::validation("query", reason.clone())),
        UpstreamError::Rejected { status, message, .. } => {
            Err(Error::validation("query", format!("the upstream refused the request (HTTP {status}): {message}"))
                .with("upstream_status", *status))
        }
        _ => Ok(e),
    }
}
