//! Service entities shared by every layer below the transports: investigations, their state
//! machine and events, and the ports (traits) the runtime uses to reach storage and data.

pub mod event;
pub mod investigation;
pub mod ports;
pub mod request;

pub use event::{EventKind, InvestigationEvent};
pub use investigation::{ErrorInfo, Investigation, InvestigationId, Phase, Status};
pub use request::{DataSource, Filters, InvestigationRequest};
