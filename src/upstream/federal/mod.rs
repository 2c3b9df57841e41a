//! Clients of the public federal sources: IBGE (localidades and population aggregates), PNCP
//! (consulta v1 contratos), DataSUS (the Ministry of Health's open-data API: CNES
//! establishments), INEP (its open datasets in a CKAN catalogue), and single pages of the Portal
//! da Transparência for the `/transparency/*` routes. Each is a thin layer over one
//! [`UpstreamSource`] (rate limit, timeout, retries, `Retry-After`, cache, error classes): these
//! files only build requests, check parameters before sending and read the answers' shapes.

pub mod datasus;
pub mod ibge;
pub mod inep;
pub mod pncp;
pub mod portal;
pub mod regional;

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use super::source::{SourceConfig, UpstreamSource};
use super::{TransparencyClient, UpstreamError};
use crate::config::{FederalConfig, UpstreamConfig};

/// Answers cached per source at most.
const CACHE_ENTRIES: usize = 2048;
/// Bytes of bodies cached per source at most (IBGE's municipal population is about 0.5 MB).
const CACHE_BYTES: usize = 16 << 20;

/// A body and whether it came from the cache.
#[derive(Debug, Clone)]
pub struct Fetched<T> {
    /// What was read.
    pub value: T,
    /// Served from the cache.
    pub cache_hit: bool,
}

/// The federal sources of a production deployment.
#[derive(Clone)]
pub struct FederalSources {
    /// IBGE.
    pub ibge: ibge::IbgeClient,
    /// PNCP.
    pub pncp: pncp::PncpClient,
    /// DataSUS.
    pub datasus: datasus::DatasusClient,
    /// INEP.
    pub inep: inep::InepClient,
    /// Portal da Transparência pages (with the key).
    pub portal: portal::PortalClient,
}

impl FederalSources {
    /// The clients, when the Portal client exists (production mode: a key is configured);
    /// `None` in demo mode. The Portal's pages go through `portal`, the investigations' client.
    pub fn new(
        upstream: &UpstreamConfig,
        federal: &FederalConfig,
        portal: Option<Arc<TransparencyClient>>,
    ) -> Result<Option<Self>, UpstreamError> {
        let Some(portal) = portal else { return Ok(None) };
        let public = |name: &'static str, base: &str| {
            UpstreamSource::new(source_config(name, base, federal.requests_per_minute, upstream))
        };
        Ok(Some(FederalSources {
            ibge: ibge::IbgeClient::new(public("ibge", &federal.ibge_url)?),
            pncp: pncp::PncpClient::new(public("pncp", &federal.pncp_url)?),
            datasus: datasus::DatasusClient::new(public("datasus", &federal.datasus_url)?),
            inep: inep::InepClient::new(public("inep", &federal.inep_url)?),
            portal: portal::PortalClient::new(portal),
        }))
    }
}

impl FederalSources {
    /// The health of IBGE, PNCP, DataSUS and INEP as their clients measured it.
    pub fn health(&self) -> Vec<super::outcomes::SourceHealth> {
        [self.ibge.source(), self.pncp.source(), self.datasus.source(), self.inep.source()]
            .into_iter()
            .map(UpstreamSource::health)
            .collect()
    }
}

fn source_config(name: &'static str, base: &str, requests_per_minute: u32, upstream: &UpstreamConfig) -> SourceConfig {
    SourceConfig {
        name,
        base_url: base.to_string(),
        secret_header: None,
        requests_per_minute,
        timeout: Duration::from_secs_f64(upstream.timeout_secs),
        retries: upstream.retries,
        cache_ttl: Duration::from_secs(upstream.cache_ttl_secs),
        cache_max_entries: CACHE_ENTRIES,
        cache_max_bytes: CACHE_BYTES,
    }
}

/// `GET` through `src`: the body (`None` on 204) and whether it was cached.
async fn get(
    src: &UpstreamSource,
    path: &str,
    query: &[(&str, String)],
) -> Result<Fetched<Option<Arc<Value>>>, UpstreamError> {
    let (value, cache_hit) = src.get_traced(path, query).await?;
    Ok(Fetched { value, cache_hit })
}

/// The error for a body of the wrong shape.
fn malformed(src: &UpstreamSource, path: &str, reason: impl Into<String>) -> UpstreamError {
    UpstreamError::Malformed { source_name: src.name(), path: path.to_string(), reason: reason.into() }
}

/// The error for a request refused before sending.
pub(crate) fn missing(src: &UpstreamSource, path: &str, reason: impl Into<String>) -> UpstreamError {
    UpstreamError::MissingParameters { source_name: src.name(), path: path.to_string(), reason: reason.into() }
}
