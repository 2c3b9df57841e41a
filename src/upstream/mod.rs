//! Data for investigations: the Portal da Transparência client (on the shared core in
//! [`source`]) and the demo generator, behind the domain's `DataProvider` port. Production
//! mode fetches every record kind within a budget ([`collect`]) plus the sanctions lists kept
//! in the store ([`sanctions`]), servants through the organ lists kept the same way
//! ([`organs`], [`schedule`]), and falls back to demo data when the upstream fails; demo mode
//! uses demo data only. [`llm`] is the client of the optional language model that phrases
//! chat answers.

mod cache;
mod collect;
pub mod counters;
mod demo;
mod error;
mod expenses;
pub mod federal;
pub mod llm;
mod organs;
pub mod outcomes;
mod params;
pub mod registry;
mod sanctions;
mod schedule;
mod servants;
pub mod source;
mod transparency;

use std::sync::Arc;
use std::time::Duration;

use chrono::{Datelike, Utc};
use futures::FutureExt;
use futures::future::BoxFuture;

pub use source::{SourceConfig, UpstreamError, UpstreamSource};
pub use transparency::TransparencyClient;

use crate::config::{DemoConfig, RegistryConfig, UpstreamConfig};
use crate::domain::DataSource;
use crate::domain::investigation::Provenance;
use crate::domain::ports::{
    DataBatch, DataProvider, DataQuery, OrganCodesStore, PortError, RegistryStore, SanctionsStore,
};

/// The data provider of the running service.
pub struct Provider {
    api: Option<Arc<TransparencyClient>>,
    demo: DemoConfig,
    default_organs: Vec<String>,
    record_budget: usize,
    request_budget: usize,
    sanctions: sanctions::SanctionsCache,
    sanctions_refresh: Duration,
    sanctions_max_pages: u32,
    organ_codes: organs::OrganCodesCache,
    organ_codes_refresh: Duration,
    max_pages: u32,
    registry: Option<Arc<registry::RegistryClient>>,
}

impl Provider {
    /// Production mode when the config has a key, demo mode otherwise.
    pub fn new(upstream: &UpstreamConfig, demo: DemoConfig) -> Result<Provider, UpstreamError> {
        let api = match &upstream.api_key {
            Some(_) => Some(Arc::new(TransparencyClient::new(upstream)?)),
            None => None,
        };
        Ok(Provider {
            api,
            demo,
            default_organs: upstream.default_organs.clone(),
            record_budget: upstream.record_budget,
            request_budget: upstream.request_budget,
            sanctions: sanctions::SanctionsCache::empty(sanctions::WHAT),
            sanctions_refresh: Duration::from_secs(upstream.sanctions_refresh_secs.max(1)),
            sanctions_max_pages: upstream.sanctions_max_pages,
            organ_codes: organs::OrganCodesCache::empty(organs::WHAT),
            organ_codes_refresh: Duration::from_secs(upstream.organ_codes_refresh_secs.max(1)),
            max_pages: upstream.max_pages.max(1),
            registry: None,
        })
    }

    /// Keeps the sanctions lists in `store` (read now, replaced at each refresh).
    pub fn with_sanctions_store(mut self, store: Arc<dyn SanctionsStore>) -> Self {
        self.sanctions = sanctions::over(store);
        self
    }

    /// Reads suppliers' facts from the company register configured in `[registry]` (nothing
    /// when `registry.base_url` is unset), its answers kept in `store`; production mode only.
    pub fn with_registry(
        mut self,
        cfg: &RegistryConfig,
        upstream: &UpstreamConfig,
        store: Arc<dyn RegistryStore>,
    ) -> Result<Self, UpstreamError> {
        self.registry = registry::RegistryClient::new(cfg, upstream, store)?.map(Arc::new);
        Ok(self)
    }

    /// Keeps the SIAFI and SIAPE organ lists in `store` (read now, replaced at each refresh).
    pub fn with_organ_codes_store(mut self, store: Arc<dyn OrganCodesStore>) -> Self {
        self.organ_codes = organs::over(store);
        self
    }

    /// Production mode: refreshes the sanctions and organ lists now if stale, then on their
    /// schedules, for as long as the provider lives. Demo mode: nothing to refresh.
    pub fn start_sanctions_refresh(self: &Arc<Self>) {
        if self.api.is_some() {
            schedule::spawn(Arc::downgrade(self), sanctions::WHAT, self.sanctions_refresh, Self::sanctions_age, |p| {
                p.refresh_sanctions().boxed()
            });
            schedule::spawn(
                Arc::downgrade(self),
                organs::WHAT,
                self.organ_codes_refresh,
                |p| p.organ_codes.age(),
                |p| p.refresh_organ_codes().boxed(),
            );
        }
    }

    /// Reads the SIAFI and SIAPE organ lists from the upstream and keeps them; how many
    /// organs were kept.
    pub async fn refresh_organ_codes(&self) -> Result<usize, UpstreamError> {
        organs::refresh(self.api_or_setup()?, &self.organ_codes, self.max_pages).await
    }

    /// Organs held (SIAFI, SIAPE) and when they were read.
    pub fn organ_codes_state(&self) -> ((usize, usize), Option<chrono::DateTime<Utc>>) {
        let (codes, at) = self.organ_codes.snapshot();
        ((codes.siafi.len(), codes.siape.len()), at)
    }

    fn api_or_setup(&self) -> Result<&TransparencyClient, UpstreamError> {
        self.api.as_deref().ok_or_else(|| UpstreamError::Setup {
            source_name: transparency::SOURCE,
            reason: "demo mode has no upstream".into(),
        })
    }

    /// Reads the CEIS and CNEP lists from the upstream and keeps them; how many were kept.
    pub async fn refresh_sanctions(&self) -> Result<usize, UpstreamError> {
        sanctions::refresh(self.api_or_setup()?, &self.sanctions, self.sanctions_max_pages).await
    }

    /// How long ago the sanctions lists were read (`None`: never).
    pub fn sanctions_age(&self) -> Option<Duration> {
        self.sanctions.age()
    }

    /// The company register's client and the answers kept (`None`: no register configured).
    pub fn registry_state(&self) -> Option<(outcomes::SourceHealth, Option<usize>)> {
        self.registry.as_ref().map(|r| r.health())
    }

    /// Sanctions held and when they were read.
    pub fn sanctions_state(&self) -> (usize, Option<chrono::DateTime<Utc>>) {
        let (list, at) = self.sanctions.snapshot();
        (list.len(), at)
    }

    /// Whether this deployment can serve a data source: every source in demo mode (all data
    /// is synthetic), only the Portal da Transparência in production mode.
    pub fn supports(&self, source: DataSource) -> bool {
        self.api.is_none() || source == DataSource::PortalTransparencia
    }

    /// The Portal client (production mode), shared with the `/transparency/*` routes so one
    /// key has one rate limit.
    pub fn transparency_client(&self) -> Option<Arc<TransparencyClient>> {
        self.api.clone()
    }

    /// Whether real data is used.
    pub fn production_mode(&self) -> bool {
        self.api.is_some()
    }

    /// Pages and bytes the upstream response cache holds (production mode).
    pub fn cache_size(&self) -> Option<(usize, usize)> {
        self.api.as_ref().map(|api| api.cache_size())
    }

    /// The upstream HTTP client's counters (production mode; demo mode has no client).
    pub fn client_counters(&self) -> Option<&counters::ClientCounters> {
        self.api.as_ref().map(|api| api.counters())
    }

    /// The class of the last failed upstream request ([`UpstreamError::class`]).
    pub fn last_error_class(&self) -> Option<&'static str> {
        self.api.as_ref().and_then(|api| api.last_error_class())
    }

    /// Checks the upstream this deployment reads with one real request (production mode):
    /// its latency, or why it failed; `None` in demo mode, where nothing is reached.
    pub async fn probe(&self) -> Option<Result<Duration, String>> {
        let api = self.api.as_ref()?;
        let organ = self.default_organs.first().map_or("26000", String::as_str);
        Some(api.probe(organ).await.map_err(|e| e.to_string()))
    }

    /// Organs to search: the request's organ codes, else those the query names, else defaults.
    fn organs(&self, q: &DataQuery) -> Vec<String> {
        let from_filters: Vec<String> = q.filters.organizations.iter().filter(|o| o.len() == 5).cloned().collect();
        if !from_filters.is_empty() {
            from_filters
        } else if !q.intent.organ_codes.is_empty() {
            q.intent.organ_codes.clone()
        } else {
            self.default_organs.clone()
        }
    }

    /// The fetch for `q`: its organs, its date range (else its year and month, else this
    /// year) and minimum value, within the configured budgets.
    fn plan(&self, q: &DataQuery) -> collect::Plan {
        let (from, to) = match &q.filters.date_range {
            Some(r) => (r.start, r.end),
            None => params::period(q.intent.year.unwrap_or_else(|| Utc::now().year()), q.intent.month),
        };
        collect::Plan {
            organs: self.organs(q),
            from,
            to,
            min_value: q.intent.min_value,
            record_budget: self.record_budget,
            request_budget: self.request_budget,
            organ_codes: match self.organ_codes.snapshot() {
                (codes, Some(_)) => Some(codes),
                (_, None) => None,
            },
            registry: self.registry.clone(),
        }
    }

    /// Every record kind from the upstream, with the stored sanctions lists.
    async fn production_batch(&self, api: &TransparencyClient, q: &DataQuery) -> Result<DataBatch, UpstreamError> {
        let got = collect::collect(api, &self.plan(q)).await?;
        let mut dataset = got.dataset;
        let mut notes = got.notes;
        let (sanctions, at) = self.sanctions.snapshot();
        match at {
            Some(at) => notes.push(format!("CEIS and CNEP lists as read at {}", at.to_rfc3339())),
            None => notes.push("CEIS and CNEP lists not read yet: sanctions were not checked".into()),
        }
        dataset.sanctions = sanctions.as_ref().clone();
        Ok(DataBatch {
            dataset: Arc::new(demo::shared(dataset)),
            provenance: Provenance {
                source: "portal_transparencia_api".into(),
                demo_mode: false,
                fetched_at: Some(Utc::now()),
                cache_hit: got.cache_hit,
                fallback_reason: None,
                records_available: Some(got.available + sanctions.len()),
                truncated: got.truncated,
                notes,
                content_key: None,
            },
        })
    }
}

impl DataProvider for Provider {
    fn fetch<'a>(&'a self, q: &'a DataQuery) -> BoxFuture<'a, Result<DataBatch, PortError>> {
        async move {
            let organs = self.organs(q);
            let Some(api) = &self.api else {
                return self.demo_batch_async(q, organs, None).await;
            };
            if q.source != DataSource::PortalTransparencia {
                return Err(PortError::Data(format!(
                    "data source {} is not available in this deployment",
                    q.source.as_str()
                )));
            }
            match self.production_batch(api, q).await {
                Ok(batch) => Ok(batch),
                Err(e) => {
                    tracing::warn!(error = %e, class = e.class(), "upstream failed; falling back to demo data");
                    self.demo_batch_async(q, organs, Some(e.to_string())).await
                }
            }
        }
        .boxed()
    }
}
