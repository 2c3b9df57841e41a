//! Service entities shared by every layer below the transports: investigations, their state
//! machine and events, users with their roles and permissions, sessions and other credentials,
//! audit records, the admin IP whitelist, and the ports (traits) the runtime uses to reach
//! storage and data.

pub mod audit;
pub mod bounded;
pub mod chat;
pub mod cursor;
pub mod event;
pub mod head;
pub mod investigation;
pub mod ports;
pub mod request;
pub mod session;
pub mod user;
pub mod whitelist;

pub use audit::{AuditEntry, ClientContext, Outcome};
pub use event::{AnomalyFound, EventKind, InvestigationEvent};
pub use head::InvestigationHead;
pub use investigation::{ErrorInfo, Investigation, InvestigationId, Phase, Status};
pub use request::{DataSource, Filters, InvestigationRequest};
pub use session::{ApiKey, LoginAttempts, Session};
pub use user::{AuthMethod, Email, MfaState, Permission, Principal, Role, User, UserId};
pub use whitelist::WhitelistEntry;
