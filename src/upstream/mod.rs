//! Data for investigations: the Portal da Transparência client (key, rate limit, retry,
//! cache) and the demo generator, behind the domain's `DataProvider` port. Production mode
//! uses the API and falls back to demo data when it fails; demo mode uses demo data only.

mod cache;
pub mod counters;
mod error;
pub mod federal;
pub mod source;
mod transparency;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use chrono::{Datelike, Utc};
use futures::FutureExt;
use futures::future::BoxFuture;
use vigia_agents::demo::{DemoSpec, Flavour, generate_until};

pub use source::{SourceConfig, UpstreamError, UpstreamSource};
pub use transparency::TransparencyClient;

use crate::config::{DemoConfig, UpstreamConfig};
use crate::domain::DataSource;
use crate::domain::investigation::Provenance;
use crate::domain::ports::{DataBatch, DataProvider, DataQuery, PortError};

/// The data provider of the running service.
pub struct Provider {
    api: Option<Arc<TransparencyClient>>,
    demo: DemoConfig,
    default_organs: Vec<String>,
}

impl Provider {
    /// Production mode when the config has a key, demo mode otherwise.
    pub fn new(upstream: &UpstreamConfig, demo: DemoConfig) -> Result<Provider, UpstreamError> {
        let api = match &upstream.api_key {
            Some(_) => Some(Arc::new(TransparencyClient::new(upstream)?)),
            None => None,
        };
        Ok(Provider { api, demo, default_organs: upstream.default_organs.clone() })
    }

    /// Whether this deployment can serve a data source: every source in demo mode (all data
    /// is synthetic), only the Portal da Transparência in production mode.
    pub fn supports(&self, source: DataSource) -> bool {
        self.api.is_none() || source == DataSource::PortalTransparencia
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

    /// Checks the upstream this deployment reads with one real request (production mode):
    /// its latency, or why it failed; `None` in demo mode, where nothing is reached.
    pub async fn probe(&self) -> Option<Result<std::time::Duration, String>> {
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

    /// Generates demo data on the blocking pool (it is CPU-bound: about a second per million
    /// contracts in release). Dropping the future (a run aborted at shutdown, a cancelled
    /// investigation) stops the generation at its next chunk instead of letting it run on.
    async fn demo_batch_async(
        &self,
        q: &DataQuery,
        organs: Vec<String>,
        fallback_reason: Option<String>,
    ) -> Result<DataBatch, PortError> {
        let this = Provider { api: None, demo: self.demo.clone(), default_organs: self.default_organs.clone() };
        let q = q.clone();
        let stop = StopOnDrop(Arc::new(AtomicBool::new(false)));
        let flag = stop.0.clone();
        let batch = tokio::task::spawn_blocking(move || {
            this.demo_batch_until(&q, organs, fallback_reason, &|| flag.load(Ordering::Relaxed))
        })
        .await
        .map_err(|e| PortError::Data(format!("demo data generation failed: {e}")))?;
        drop(stop);
        batch.ok_or_else(|| PortError::Data("demo data generation was stopped".into()))
    }

    fn demo_batch(&self, q: &DataQuery, organs: Vec<String>, fallback_reason: Option<String>) -> DataBatch {
        match self.demo_batch_until(q, organs, fallback_reason, &|| false) {
            Some(batch) => batch,
            // Never asked to stop: the generation always completes.
            None => DataBatch { dataset: Default::default(), provenance: demo_provenance(None) },
        }
    }

    fn demo_batch_until(
        &self,
        q: &DataQuery,
        organs: Vec<String>,
        fallback_reason: Option<String>,
        stop: &(dyn Fn() -> bool + Sync),
    ) -> Option<DataBatch> {
        let spec = DemoSpec {
            seed: self.demo.seed,
            contracts: self.demo.records,
            organ_codes: if q.intent.organ_codes.is_empty() && q.filters.organizations.is_empty() {
                Vec::new()
            } else {
                organs
            },
            year: q.intent.year,
        };
        let data = generate_until(&spec, Flavour::Normal, stop)?;
        Some(DataBatch { dataset: data.dataset, provenance: demo_provenance(fallback_reason) })
    }

    /// Demo data for `vigia investigate --records N` and direct agent calls.
    pub fn demo(&self, q: &DataQuery, records: usize, seed: u64) -> DataBatch {
        let organs = self.organs(q);
        let p = Provider { api: None, demo: DemoConfig { seed, records }, default_organs: self.default_organs.clone() };
        p.demo_batch(q, organs, None)
    }
}

/// Sets its flag when dropped: the generation it guards stops at its next check.
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Where demo data comes from.
fn demo_provenance(fallback_reason: Option<String>) -> Provenance {
    Provenance {
        source: "demo_data".into(),
        demo_mode: true,
        fetched_at: Some(Utc::now()),
        cache_hit: false,
        fallback_reason,
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
            let year = q.intent.year.unwrap_or_else(|| Utc::now().year());
            match api.contracts(&organs, year, q.intent.month).await {
                Ok((contracts, cache_hit)) => Ok(DataBatch {
                    dataset: shared(vigia_agents::Dataset::from_contracts(contracts)),
                    provenance: Provenance {
                        source: "portal_transparencia_api".into(),
                        demo_mode: false,
                        fetched_at: Some(Utc::now()),
                        cache_hit,
                        fallback_reason: None,
                    },
                }),
                Err(e) => {
                    tracing::warn!(error = %e, "upstream failed; falling back to demo data");
                    self.demo_batch_async(q, organs, Some(e.to_string())).await
                }
            }
        }
        .boxed()
    }
}

/// A dataset whose repeated texts (organs, units, suppliers, ...) are one allocation each.
fn shared(mut dataset: vigia_agents::Dataset) -> vigia_agents::Dataset {
    dataset.share_text();
    dataset
}
