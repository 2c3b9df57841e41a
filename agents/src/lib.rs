//! `vigia-agents`: WHAT Vigia analyses. Spending records and their normalisation from the
//! upstream's JSON, the anomaly detectors, the named analysis agents and the deterministic demo
//! data generator. Pure Rust: nothing here knows about actors, HTTP or storage; the host passes
//! data in and gets plain values back.

pub mod agent;
pub mod anita;
pub mod bonifacio;
pub mod ceuci;
pub mod demo;
pub mod detect;
pub mod engine;
pub mod findings;
pub mod machado;
pub mod model;
pub mod narrative;
pub mod narrative_detectors;
pub mod obaluaie;
pub mod organs;
pub mod oxossi;
pub mod query;
pub mod registry;
#[cfg(test)]
mod testutil;
pub mod text;
pub mod zumbi;

pub use agent::{Agent, AgentOutput, AnalysisContext, AnalysisError, CancelFlag, instantiate};
pub use findings::FindingsCache;
pub use model::anomaly::{Anomaly, AnomalyType, Severity};
pub use model::contract::Contract;
pub use model::dataset::Dataset;
pub use model::params::DetectionParams;
pub use model::records_text::records_from_text;
pub use registry::AgentId;
