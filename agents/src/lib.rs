//! `vigia-agents`: WHAT Vigia analyses. Spending records and their normalisation from the
//! upstream's JSON, the anomaly detectors, the named analysis agents and the deterministic demo
//! data generator. Pure Rust: nothing here knows about actors, HTTP or storage; the host passes
//! data in and gets plain values back.
//!
//! The crate's map, its modules pointing one way (`agents` -> `detect` -> `model`, `cancel`):
//! - [`cancel`]: the cancellation flag and the analysis error detectors and agents share.
//! - [`model`]: spending records, anomalies, reports, and reading the upstream's and the
//!   Portal's records.
//! - [`detect`]: the engine, the detectors grouped by what they find (`price`, `pattern`,
//!   `temporal`, `relationship`, `compliance`) and the pieces they share.
//! - [`agents`]: the `Agent` trait, the named agents and their roster.
//! - [`conversation`]: the chat's brain: routing (senna), session memory (nanã), plans
//!   (abaporu) and answers phrased from structured facts (drummond).
//! - [`demo`]: synthetic data with planted anomalies; never imports `detect`.
//! - [`text`], [`organs`], [`query`]: text helpers, the federal organs, reading a query.

pub mod agents;
pub mod cancel;
pub mod conversation;
pub mod demo;
pub mod detect;
pub mod lang;
pub mod model;
pub mod organs;
pub mod query;
#[cfg(test)]
mod testutil;
pub mod text;

#[cfg(test)]
mod layout_tests;

pub use agents::Agent;
pub use agents::roster::{AgentId, instantiate};
pub use cancel::{AnalysisError, CancelFlag};
pub use conversation::{
    AnomalyBrief, AnswerFacts, Entities, Intent, Language, Plan, PlanStep, Route, Senna, SessionMemory, abaporu,
    drummond, nana,
};
pub use detect::context::AnalysisContext;
pub use detect::engine;
pub use detect::findings::FindingsCache;
pub use model::anomaly::{Anomaly, AnomalyType, Severity};
pub use model::contract::Contract;
pub use model::dataset::Dataset;
pub use model::params::DetectionParams;
pub use model::records_text::records_from_text;
pub use model::report::{AgentOutput, Artifact};
