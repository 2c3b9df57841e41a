//! Single pages of the Portal da Transparência for the `/api/v1/transparency/*` routes, read
//! through the investigations' own [`TransparencyClient`] (one key, one rate limit, one cache),
//! which checks each endpoint's minimum filters before sending (`params::Endpoint::check`).
//! Pages are 15 records, a bare JSON array.

use std::sync::Arc;

use serde_json::Value;

use super::Fetched;
pub use crate::upstream::params::{Endpoint, dmy, period};
use crate::upstream::{TransparencyClient, UpstreamError};

/// Records per upstream page (fixed upstream).
pub const PAGE_SIZE: usize = 15;

/// The Portal client for single pages.
#[derive(Clone)]
pub struct PortalClient {
    client: Arc<TransparencyClient>,
}

impl PortalClient {
    /// Over the provider's client.
    pub fn new(client: Arc<TransparencyClient>) -> Self {
        PortalClient { client }
    }

    /// One page of `endpoint` with these upstream parameters (`pagina` included).
    pub async fn page(
        &self,
        endpoint: Endpoint,
        params: &[(&'static str, String)],
    ) -> Result<Fetched<Vec<Value>>, UpstreamError> {
        let (value, cache_hit) = self.client.page(endpoint, params).await?;
        Ok(Fetched { value, cache_hit })
    }
}
