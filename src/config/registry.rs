//! `[registry]`: the company register (Receita Federal CNPJ data as served by public mirrors
//! such as BrasilAPI `/api/cnpj/v1` or minhareceita.org) that gives suppliers' partners,
//! address, phone and opening date in production mode. Unset `base_url` = off.

use serde::Deserialize;

/// `[registry]`
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RegistryConfig {
    /// Base URL; a CNPJ is read at `{base_url}/{cnpj14}`. Unset: no register is read.
    pub base_url: Option<String>,
    /// Requests per minute to the register; the client waits when reached.
    pub requests_per_minute: u32,
    /// Most suppliers looked up per investigation, the most money in the dataset first.
    pub max_suppliers: usize,
    /// Days a stored register answer (found or not found) is used before it is read again.
    pub ttl_days: f64,
}

impl Default for RegistryConfig {
    fn default() -> Self {
        Self { base_url: None, requests_per_minute: 60, max_suppliers: 100, ttl_days: 30.0 }
    }
}

impl RegistryConfig {
    /// An http(s) base URL when set, at least one request a minute, a TTL of days >= 0.
    pub fn check(&self) -> Result<(), (&'static str, &'static str)> {
        if !http_url_or_unset(self.base_url.as_deref()) {
            return Err(("registry.base_url", "must be an http:// or https:// URL"));
        }
        if self.requests_per_minute == 0 {
            return Err(("registry.requests_per_minute", "must be at least 1"));
        }
        if !(self.ttl_days.is_finite() && self.ttl_days >= 0.0) {
            return Err(("registry.ttl_days", "must be a number of days >= 0"));
        }
        Ok(())
    }
}

/// Whether an optional base URL is unset or an http(s) URL (`[registry]` and `[llm]`).
pub(super) fn http_url_or_unset(url: Option<&str>) -> bool {
    url.is_none_or(|u| u.starts_with("http://") || u.starts_with("https://"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_register_is_off_by_default_and_bad_values_name_their_key() {
        let d = RegistryConfig::default();
        assert_eq!((d.base_url.as_deref(), d.requests_per_minute, d.max_suppliers), (None, 60, 100));
        assert!(d.check().is_ok());
        let bad = |f: fn(&mut RegistryConfig)| {
            let mut c = RegistryConfig::default();
            f(&mut c);
            c.check().unwrap_err().0
        };
        assert_eq!(bad(|c| c.base_url = Some("ftp://x".into())), "registry.base_url");
        assert_eq!(bad(|c| c.requests_per_minute = 0), "registry.requests_per_minute");
        assert_eq!(bad(|c| c.ttl_days = -1.0), "registry.ttl_days");
    }
}
