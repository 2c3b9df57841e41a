//! The CEIS and CNEP lists: read whole from the upstream on a schedule into the store, and held
//! in memory for investigations, so a sanction check never calls the upstream per contract.

use std::sync::Arc;

use chrono::Utc;
use vigia_agents::model::sanction::{Sanction, sanction_from_upstream};

use super::params::Endpoint;
use super::schedule::{Kept, read_both};
use super::source::UpstreamError;
use super::transparency::TransparencyClient;
use crate::domain::ports::SanctionsStore;

/// The lists as last read, shared.
pub type SanctionsCache = Kept<Vec<Sanction>>;

/// The name of the lists in logs.
pub const WHAT: &str = "sanctions";

/// The lists kept in `store` (read now, replaced at each refresh).
pub fn over(store: Arc<dyn SanctionsStore>) -> SanctionsCache {
    let loaded = store.load_sanctions();
    Kept::stored(WHAT, loaded, move |list: &Vec<Sanction>, at| store.replace_sanctions(list, at))
}

/// Reads both lists whole (up to `upstream.sanctions_max_pages` each) and keeps them.
pub async fn refresh(
    client: &TransparencyClient,
    cache: &SanctionsCache,
    max_pages: u32,
) -> Result<usize, UpstreamError> {
    let (ceis, cnep) = read_both(client, (Endpoint::Ceis, Endpoint::Cnep), max_pages).await?;
    let mut list = Vec::with_capacity(ceis.rows.len() + cnep.rows.len());
    for (i, row) in ceis.rows.iter().chain(cnep.rows.iter()).enumerate() {
        match sanction_from_upstream(i, row) {
            Ok(s) => list.push(s),
            Err(e) => tracing::warn!(error = %e, "skipping a sanctions record"),
        }
    }
    let n = list.len();
    cache.replace(list, Utc::now());
    Ok(n)
}
