//! The CEIS and CNEP lists: read whole from the upstream on a schedule into the store, and held
//! in memory for investigations, so a sanction check never calls the upstream per contract.

use std::sync::{Arc, RwLock, Weak};
use std::time::Duration;

use chrono::{DateTime, Utc};
use vigia_agents::model::sanction::{Sanction, sanction_from_upstream};

use super::params::Endpoint;
use super::source::UpstreamError;
use super::transparency::{Budget, TransparencyClient};
use crate::domain::ports::SanctionsStore;

/// How soon a failed refresh is tried again.
const RETRY_FAILED: Duration = Duration::from_secs(300);

/// The lists and when they were read.
type Held = (Arc<Vec<Sanction>>, Option<DateTime<Utc>>);

/// The lists as last read, shared.
#[derive(Default)]
pub struct SanctionsCache {
    store: Option<Arc<dyn SanctionsStore>>,
    held: RwLock<Held>,
}

impl SanctionsCache {
    /// Starts from what `store` holds (a store that cannot be read starts empty, logged).
    pub fn over(store: Arc<dyn SanctionsStore>) -> Self {
        let held = match store.load_sanctions() {
            Ok((list, at)) => (Arc::new(list), at),
            Err(e) => {
                tracing::warn!(error = %e, "the stored sanctions lists could not be read");
                (Arc::default(), None)
            }
        };
        SanctionsCache { store: Some(store), held: RwLock::new(held) }
    }

    /// The lists now and when they were fetched.
    pub fn snapshot(&self) -> Held {
        self.held.read().unwrap_or_else(|p| p.into_inner()).clone()
    }

    fn replace(&self, list: Vec<Sanction>, at: DateTime<Utc>) {
        if let Some(store) = &self.store
            && let Err(e) = store.replace_sanctions(&list, at)
        {
            tracing::warn!(error = %e, "the sanctions lists could not be stored");
        }
        *self.held.write().unwrap_or_else(|p| p.into_inner()) = (Arc::new(list), Some(at));
    }
}

/// Reads both lists whole (up to `max_pages` each, concurrently) and keeps them.
pub async fn refresh(
    client: &TransparencyClient,
    cache: &SanctionsCache,
    max_pages: u32,
) -> Result<usize, UpstreamError> {
    let budget = || Budget { records: usize::MAX, requests: max_pages as usize };
    let (mut ceis_budget, mut cnep_budget) = (budget(), budget());
    let (ceis, cnep) = tokio::join!(
        client.list(Endpoint::Ceis, &[], &mut ceis_budget),
        client.list(Endpoint::Cnep, &[], &mut cnep_budget)
    );
    let (ceis, cnep) = (ceis?, cnep?);
    if !(ceis.complete && cnep.complete) {
        tracing::warn!(max_pages, "a sanctions list is longer than upstream.sanctions_max_pages; kept what was read");
    }
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

/// Refreshes the lists now if they are older than `every` (or were never read), then every
/// `every`, for as long as the provider lives.
pub fn spawn_refresh(provider: Weak<super::Provider>, every: Duration) {
    tokio::spawn(async move {
        loop {
            let Some(p) = provider.upgrade() else { return };
            let wait = match p.sanctions_age() {
                Some(age) if age < every => every - age,
                _ => match p.refresh_sanctions().await {
                    Ok(n) => {
                        tracing::info!(sanctions = n, "sanctions lists refreshed");
                        every
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, class = e.class(), "sanctions refresh failed; kept the last lists");
                        RETRY_FAILED.min(every)
                    }
                },
            };
            drop(p);
            tokio::time::sleep(wait).await;
        }
    });
}
