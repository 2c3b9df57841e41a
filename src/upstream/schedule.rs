//! Reference lists read whole from the upstream on a schedule (the CEIS and CNEP sanctions,
//! the SIAFI and SIAPE organ codes): held in memory for investigations, written to the store
//! at each refresh so a restart starts from the last read, and refreshed by one task per list
//! for as long as the provider lives.

use std::sync::{Arc, RwLock, Weak};
use std::time::Duration;

use chrono::{DateTime, Utc};
use futures::future::BoxFuture;

use super::Provider;
use super::params::Endpoint;
use super::source::UpstreamError;
use super::transparency::{Budget, Listed, TransparencyClient};
use crate::domain::ports::PortError;

/// How soon a failed refresh is tried again.
const RETRY_FAILED: Duration = Duration::from_secs(300);

/// Writes a list to the store.
type Save<T> = Box<dyn Fn(&T, DateTime<Utc>) -> Result<(), PortError> + Send + Sync>;

/// One list as last read and when (`None`: never), shared by every reader.
pub struct Kept<T> {
    what: &'static str,
    save: Option<Save<T>>,
    held: RwLock<(Arc<T>, Option<DateTime<Utc>>)>,
}

impl<T: Default> Kept<T> {
    /// An empty list kept in memory only.
    pub fn empty(what: &'static str) -> Self {
        Kept { what, save: None, held: RwLock::new((Arc::default(), None)) }
    }

    /// Starts from what `loaded` read from the store (a store that cannot be read starts
    /// empty, logged), and writes every replacement through `save`.
    pub fn stored(
        what: &'static str,
        loaded: Result<(T, Option<DateTime<Utc>>), PortError>,
        save: impl Fn(&T, DateTime<Utc>) -> Result<(), PortError> + Send + Sync + 'static,
    ) -> Self {
        let held = match loaded {
            Ok((list, at)) => (Arc::new(list), at),
            Err(e) => {
                tracing::warn!(list = what, error = %e, "a stored reference list could not be read");
                (Arc::default(), None)
            }
        };
        Kept { what, save: Some(Box::new(save)), held: RwLock::new(held) }
    }
}

impl<T> Kept<T> {
    /// The list now and when it was read.
    pub fn snapshot(&self) -> (Arc<T>, Option<DateTime<Utc>>) {
        let held = self.held.read().unwrap_or_else(|p| p.into_inner());
        (held.0.clone(), held.1)
    }

    /// How long ago the list was read (`None`: never).
    pub fn age(&self) -> Option<Duration> {
        let at = self.held.read().unwrap_or_else(|p| p.into_inner()).1;
        at.map(|at| (Utc::now() - at).to_std().unwrap_or(Duration::ZERO))
    }

    /// Replaces the list (in the store first; a store failure is logged and the list is still
    /// used: the next start reads the previous one).
    pub fn replace(&self, list: T, at: DateTime<Utc>) {
        if let Some(save) = &self.save
            && let Err(e) = save(&list, at)
        {
            tracing::warn!(list = self.what, error = %e, "a reference list could not be stored");
        }
        *self.held.write().unwrap_or_else(|p| p.into_inner()) = (Arc::new(list), Some(at));
    }
}

/// Reads two whole lists concurrently, up to `max_pages` pages each (a longer list is kept
/// as far as it was read, logged).
pub async fn read_both(
    client: &TransparencyClient,
    (a, b): (Endpoint, Endpoint),
    max_pages: u32,
) -> Result<(Listed, Listed), UpstreamError> {
    let budget = || Budget { records: usize::MAX, requests: max_pages as usize };
    let (mut budget_a, mut budget_b) = (budget(), budget());
    let (a_rows, b_rows) = tokio::join!(client.list(a, &[], &mut budget_a), client.list(b, &[], &mut budget_b));
    let (a_rows, b_rows) = (a_rows?, b_rows?);
    for (endpoint, listed) in [(a, &a_rows), (b, &b_rows)] {
        if !listed.complete {
            tracing::warn!(
                path = endpoint.path(),
                max_pages,
                "a reference list is longer than its page cap; kept what was read"
            );
        }
    }
    Ok((a_rows, b_rows))
}

/// Reads one list: how many records were kept.
pub type Refresh = for<'a> fn(&'a Provider) -> BoxFuture<'a, Result<usize, UpstreamError>>;

/// Refreshes a list now if it is older than `every` (or was never read), then every `every`
/// (after a failure, in [`RETRY_FAILED`] at most), for as long as the provider lives.
pub fn spawn(
    provider: Weak<Provider>,
    what: &'static str,
    every: Duration,
    age: fn(&Provider) -> Option<Duration>,
    refresh: Refresh,
) {
    tokio::spawn(async move {
        loop {
            let Some(p) = provider.upgrade() else { return };
            let wait = match age(&p) {
                Some(age) if age < every => every - age,
                _ => match refresh(&p).await {
                    Ok(n) => {
                        tracing::info!(list = what, records = n, "reference list refreshed");
                        every
                    }
                    Err(e) => {
                        tracing::warn!(list = what, error = %e, class = e.class(), "refresh failed; kept the last list");
                        RETRY_FAILED.min(every)
                    }
                },
            };
            drop(p);
            tokio::time::sleep(wait).await;
        }
    });
}
