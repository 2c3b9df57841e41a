//! Typed facades the transports call: one per resource. Each method validates, makes the
//! runtime or storage calls and returns domain values or a `crate::Error`.

pub mod health;
pub mod investigations;

use std::sync::Arc;

pub use health::HealthService;
pub use investigations::InvestigationService;

/// Every service, shared by the HTTP shell (and later GraphQL).
#[derive(Clone)]
pub struct Services {
    /// Investigations.
    pub investigations: Arc<InvestigationService>,
    /// Health and readiness.
    pub health: Arc<HealthService>,
}
