//! The company register in production mode: suppliers' partners, address, phone and opening
//! date read from a public mirror of the Receita Federal CNPJ data (`GET {base}/{cnpj14}`, the
//! shape [`supplier_profile_from_upstream`] reads), with the upstream discipline of
//! [`UpstreamSource`] (token bucket, timeout, retries, `Retry-After`; no key) and the answers
//! kept in the store for `ttl_days`, so repeated investigations cost no calls. A 404 is an
//! answer ("not in the register") and is kept too. Any other failure is a note: the register
//! never makes an investigation fail or fall back.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use chrono::Utc;
use futures::{StreamExt, stream};
use vigia_agents::Contract;
use vigia_agents::model::registry_facts::{SupplierProfile, supplier_profile_from_upstream};

use super::source::{SourceConfig, UpstreamError, UpstreamSource};
use crate::config::{RegistryConfig, UpstreamConfig};
use crate::domain::ports::{RegistryEntry, RegistryStore};

/// The register's name in errors, logs and notes.
pub const SOURCE: &str = "company_register";

/// Lookups in flight at once; the token bucket decides when each goes out.
const CONCURRENCY: usize = 8;

/// The register client with its store.
pub struct RegistryClient {
    source: UpstreamSource,
    store: Arc<dyn RegistryStore>,
    ttl: chrono::Duration,
    max_suppliers: usize,
}

impl std::fmt::Debug for RegistryClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RegistryClient").field("source", &self.source).field("max", &self.max_suppliers).finish()
    }
}

/// How one supplier's lookup ended.
enum Outcome {
    Found(Box<SupplierProfile>, bool),
    Absent(bool),
    Failed(String),
    /// Not tried: the register had already failed in this investigation.
    NotTried,
}

impl RegistryClient {
    /// The client when `registry.base_url` is set (`None`: off). Timeout and retries are
    /// `[upstream]`'s; the store is the cache, so the in-memory cache is kept small.
    pub fn new(
        cfg: &RegistryConfig,
        upstream: &UpstreamConfig,
        store: Arc<dyn RegistryStore>,
    ) -> Result<Option<Self>, UpstreamError> {
        let Some(base) = &cfg.base_url else { return Ok(None) };
        let source = UpstreamSource::new(SourceConfig {
            name: SOURCE,
            base_url: base.clone(),
            secret_header: None,
            requests_per_minute: cfg.requests_per_minute,
            timeout: Duration::from_secs_f64(upstream.timeout_secs),
            retries: upstream.retries,
            cache_ttl: Duration::from_secs(60),
            cache_max_entries: 16,
            cache_max_bytes: 1 << 20,
        })?;
        let ttl = chrono::Duration::seconds((cfg.ttl_days * 86_400.0) as i64);
        Ok(Some(RegistryClient { source, store, ttl, max_suppliers: cfg.max_suppliers }))
    }

    /// The register's client as `/health/detailed` shows it, and how many answers the store
    /// keeps (`None` when the store cannot say).
    pub fn health(&self) -> (super::outcomes::SourceHealth, Option<usize>) {
        (self.source.health(), self.store.registry_entries().ok())
    }

    /// The register's facts for the suppliers of `contracts` (most money first, up to the
    /// budget), with notes saying how many were looked up, found, absent, failed and skipped.
    pub async fn suppliers(&self, contracts: &[Contract]) -> (Vec<SupplierProfile>, Vec<String>) {
        let (chosen, skipped) = select(contracts, self.max_suppliers);
        let down = AtomicBool::new(false);
        // The futures are built first: a closure returning a future that borrows its argument
        // is not general enough for the provider's boxed `Send` future.
        let lookups: Vec<_> = chosen.iter().map(|cnpj| self.one(cnpj, &down)).collect();
        let outcomes: Vec<Outcome> = stream::iter(lookups).buffer_unordered(CONCURRENCY).collect().await;
        let mut profiles = Vec::new();
        let (mut found, mut absent, mut read, mut not_tried) = (0, 0, 0, 0);
        let mut failures = Vec::new();
        for o in outcomes {
            match o {
                Outcome::Found(p, fetched) => {
                    found += 1;
                    read += usize::from(fetched);
                    profiles.push(*p);
                }
                Outcome::Absent(fetched) => {
                    absent += 1;
                    read += usize::from(fetched);
                }
                Outcome::Failed(e) => failures.push(e),
                Outcome::NotTried => not_tried += 1,
            }
        }
        profiles.sort_by(|a, b| a.cnpj.cmp(&b.cnpj));
        let mut notes = vec![format!(
            "company register: {} suppliers looked up ({read} read from the register, the rest stored), {found} found, \
             {absent} not in the register, {} failed, {skipped} skipped by registry.max_suppliers",
            chosen.len(),
            failures.len() + not_tried
        )];
        if let Some(first) = failures.first() {
            notes.push(format!(
                "company register failed for {} suppliers ({not_tried} not tried after the failure): {first}",
                failures.len() + not_tried
            ));
        }
        (profiles, notes)
    }

    async fn one(&self, cnpj: &str, down: &AtomicBool) -> Outcome {
        match self.store.load_registry_entry(cnpj) {
            Ok(Some(entry)) if Utc::now() - entry.at < self.ttl => {
                return entry.profile.map_or(Outcome::Absent(false), |p| Outcome::Found(Box::new(p), false));
            }
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "reading a stored register answer"),
        }
        // One failure (down, slow, refusing) makes the rest not worth the wait: retries and
        // timeouts would multiply by the number of suppliers.
        if down.load(Ordering::Relaxed) {
            return Outcome::NotTried;
        }
        let profile = match self.source.get_shared(&format!("/{cnpj}"), &[]).await {
            Ok(Some(body)) => match supplier_profile_from_upstream(0, &body) {
                Ok(p) if p.cnpj == cnpj => Some(p),
                Ok(p) => return Outcome::Failed(format!("asked for {cnpj}, the register answered {}", p.cnpj)),
                Err(e) => return Outcome::Failed(e.to_string()),
            },
            Ok(None) | Err(UpstreamError::Rejected { status: 404, .. }) => None,
            Err(e) => {
                down.store(true, Ordering::Relaxed);
                return Outcome::Failed(e.to_string());
            }
        };
        let entry = RegistryEntry { profile, at: Utc::now() };
        if let Err(e) = self.store.put_registry_entry(cnpj, &entry) {
            tracing::warn!(error = %e, "storing a register answer");
        }
        entry.profile.map_or(Outcome::Absent(true), |p| Outcome::Found(Box::new(p), true))
    }
}

/// The distinct suppliers with a 14-digit CNPJ (CPFs and blanks skipped), most contracted
/// money first (ties by CNPJ, so a budget cut is the same on every run), at most `max`; and how
/// many were left out by `max`.
pub fn select(contracts: &[Contract], max: usize) -> (Vec<String>, usize) {
    let mut money: HashMap<&str, f64> = HashMap::new();
    for c in contracts {
        let doc: &str = &c.supplier.document;
        if doc.len() == 14 && doc.bytes().all(|b| b.is_ascii_digit()) {
            *money.entry(doc).or_default() += c.value().max(0.0);
        }
    }
    let mut ranked: Vec<(&str, f64)> = money.into_iter().collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
    let skipped = ranked.len().saturating_sub(max);
    (ranked.into_iter().take(max).map(|(d, _)| d.to_string()).collect(), skipped)
}

#[cfg(test)]
#[path = "registry_tests.rs"]
mod tests;
