//! Ports: what the runtime needs from storage and from data sources, as traits the outer
//! layers implement. The runtime depends on these, never on sled or reqwest.

use futures::future::BoxFuture;
use vigia_agents::Dataset;
use vigia_agents::query::QueryIntent;

use super::event::InvestigationEvent;
use super::investigation::{Investigation, InvestigationId, Provenance};
use super::request::{DataSource, Filters};

/// A failure behind a port; the message is safe to log (no secrets).
#[derive(Debug, Clone, thiserror::Error)]
pub enum PortError {
    /// The store could not read or write.
    #[error("storage: {0}")]
    Storage(String),
    /// The data source could not deliver.
    #[error("data source: {0}")]
    Data(String),
}

/// Durable investigations and their events.
pub trait InvestigationStore: Send + Sync + 'static {
    /// Inserts or replaces an investigation: replacing is a run's final save, a terminal
    /// record over its running one; a crash during it may leave the head saying the run is
    /// under way, which the service's start-up repairs from the record.
    fn save(&self, inv: &Investigation) -> Result<(), PortError>;
    /// Writes only the head (status and progress) of a running investigation: a run moves its
    /// progress a dozen times and its full record only at the start and the end. Reading the
    /// full record of a running investigation takes its progress from the head.
    fn save_progress(&self, inv: &Investigation) -> Result<(), PortError>;
    /// Reads one.
    fn get(&self, id: InvestigationId) -> Result<Option<Investigation>, PortError>;
    /// Every investigation, oldest first.
    fn list(&self) -> Result<Vec<Investigation>, PortError>;
    /// Appends consecutive events (the first `seq` must be the next one) as one write: a run
    /// persists what one step produced (an agent's findings, insights and progress) together.
    fn append_events(&self, id: InvestigationId, events: &[InvestigationEvent]) -> Result<(), PortError>;
    /// Appends one event (its `seq` must be the next one).
    fn append_event(&self, id: InvestigationId, event: &InvestigationEvent) -> Result<(), PortError> {
        self.append_events(id, std::slice::from_ref(event))
    }
    /// Events with `seq > after`, in order.
    fn events_after(&self, id: InvestigationId, after: u64) -> Result<Vec<InvestigationEvent>, PortError>;
    /// Makes every write so far durable.
    fn flush(&self) -> BoxFuture<'_, Result<(), PortError>>;
    /// The highest event sequence number a run of `id` may have published (0 when none was
    /// reserved): a resumed run numbers its events after it.
    fn reserved_seq(&self, id: InvestigationId) -> Result<u64, PortError>;
    /// Records that sequence numbers up to `upto` may be published (durable at the next flush).
    fn reserve_seq(&self, id: InvestigationId, upto: u64) -> Result<(), PortError>;
}

/// What to fetch for one investigation.
#[derive(Debug, Clone)]
pub struct DataQuery {
    /// The natural-language query.
    pub query: String,
    /// The requested source.
    pub source: DataSource,
    /// What the query asks for (organs, year, month, minimum value).
    pub intent: QueryIntent,
    /// The request's filters.
    pub filters: Filters,
}

/// Records and where they came from.
#[derive(Debug, Clone)]
pub struct DataBatch {
    /// Normalised records, shared: a dataset served again (demo data, a cached answer) is not
    /// copied for each investigation.
    pub dataset: std::sync::Arc<Dataset>,
    /// Source, demo flag, freshness, cache hit, fallback reason.
    pub provenance: Provenance,
}

/// Fetches records for an investigation (upstream API, or demo data).
pub trait DataProvider: Send + Sync + 'static {
    /// Fetches; an upstream failure is not an error but a fallback to demo data, recorded in
    /// `provenance.fallback_reason`. Errors are for requests no source can serve.
    fn fetch<'a>(&'a self, query: &'a DataQuery) -> BoxFuture<'a, Result<DataBatch, PortError>>;
}

/// The stored sanctions lists and when they were fetched (`None`: never).
pub type StoredSanctions = (Vec<vigia_agents::model::sanction::Sanction>, Option<chrono::DateTime<chrono::Utc>>);

/// The CEIS and CNEP sanctions lists kept locally: refreshed from the upstream on a schedule,
/// read by every investigation, so a sanction check never calls the upstream per contract.
pub trait SanctionsStore: Send + Sync + 'static {
    /// The stored lists and when they were fetched (`None`: never).
    fn load_sanctions(
        &self,
    ) -> Result<(Vec<vigia_agents::model::sanction::Sanction>, Option<chrono::DateTime<chrono::Utc>>), PortError>;
    /// Replaces the stored lists.
    fn replace_sanctions(
        &self,
        sanctions: &[vigia_agents::model::sanction::Sanction],
        at: chrono::DateTime<chrono::Utc>,
    ) -> Result<(), PortError>;
}

/// One organ of the portal's organ lists (`/orgaos-siafi`, `/orgaos-siape`: `{codigo, descricao}`).
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct OrganCode {
    /// `codigo`.
    pub code: String,
    /// `descricao`.
    pub name: String,
}

/// The SIAFI and SIAPE organ lists: investigations name SIAFI organs, `/servidores` takes SIAPE
/// codes, and the names are what links the two.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct OrganCodes {
    /// `/orgaos-siafi`.
    pub siafi: Vec<OrganCode>,
    /// `/orgaos-siape`.
    pub siape: Vec<OrganCode>,
}

/// The organ lists kept locally, refreshed from the upstream on a schedule like the sanctions.
pub trait OrganCodesStore: Send + Sync + 'static {
    /// The stored lists and when they were fetched (`None`: never).
    fn load_organ_codes(&self) -> Result<(OrganCodes, Option<chrono::DateTime<chrono::Utc>>), PortError>;
    /// Replaces the stored lists.
    fn replace_organ_codes(&self, codes: &OrganCodes, at: chrono::DateTime<chrono::Utc>) -> Result<(), PortError>;
}

/// One supplier's answer from the company register, as last read: its facts, or `None` when
/// the register does not know the CNPJ (a fact too), with the time it was read.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RegistryEntry {
    /// The facts; `None`: not in the register.
    pub profile: Option<vigia_agents::model::registry_facts::SupplierProfile>,
    /// When the register answered.
    pub at: chrono::DateTime<chrono::Utc>,
}

/// Register answers kept locally by CNPJ, so repeated investigations do not read the register
/// again while an answer is younger than `registry.ttl_days`.
pub trait RegistryStore: Send + Sync + 'static {
    /// The stored answer for a 14-digit CNPJ (`None`: never read).
    fn load_registry_entry(&self, cnpj: &str) -> Result<Option<RegistryEntry>, PortError>;
    /// Stores (replaces) the answer for a CNPJ.
    fn put_registry_entry(&self, cnpj: &str, entry: &RegistryEntry) -> Result<(), PortError>;
    /// How many answers are kept.
    fn registry_entries(&self) -> Result<usize, PortError>;
}
