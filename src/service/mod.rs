//! Typed facades the transports call: one per resource. Each method validates, makes the
//! runtime or storage calls and returns domain values or a `crate::Error`.

pub mod admin;
pub mod agent_activity;
pub mod agent_request;
pub mod agents;
pub mod audit;
pub mod auth;
pub mod cache_warming;
pub mod chat;
pub mod chat_reply;
pub mod compression;
pub mod contracts;
pub mod database;
pub mod durability;
pub mod federal;
mod federal_demo;
mod federal_params;
pub mod health;
pub mod investigations;
pub mod orchestration;
pub mod pools;
pub mod reports;
pub mod retention;
pub mod transparency;
pub mod whitelist;

use std::sync::Arc;

pub use admin::AdminService;
pub use agents::AgentService;
pub use audit::AuditService;
pub use auth::AuthService;
pub use durability::Durability;
pub use health::HealthService;
pub use investigations::InvestigationService;
pub use whitelist::WhitelistService;

/// The tiered request rate limiter, as the transports use it.
pub use crate::auth::ratelimit::{Admission, RateLimits, Refusal as RateRefusal, Tier};

/// Every service, shared by the HTTP shell (and later GraphQL).
#[derive(Clone)]
pub struct Services {
    /// Investigations.
    pub investigations: Arc<InvestigationService>,
    /// Health and readiness.
    pub health: Arc<HealthService>,
    /// Login, tokens, sessions, accounts.
    pub auth: Arc<AuthService>,
    /// Agent lazy loading.
    pub admin: Arc<AdminService>,
    /// Direct agent calls.
    pub agents: Arc<AgentService>,
    /// Chat turns and history.
    pub chat: Arc<chat::ChatService>,
    /// Reports of investigations.
    pub reports: Arc<reports::ReportService>,
    /// The admin IP whitelist.
    pub whitelist: Arc<WhitelistService>,
    /// The audit trail.
    pub audit: Arc<AuditService>,
    /// Request rate limits.
    pub rate_limits: Arc<RateLimits>,
    /// Durable acknowledgements.
    pub durability: Arc<Durability>,
    /// Response compression figures and codec tests.
    pub compression: Arc<compression::CompressionService>,
    /// The store seen as a database.
    pub database: Arc<database::DatabaseService>,
    /// Connection pools.
    pub pools: Arc<pools::PoolsService>,
    /// Cache warming.
    pub cache_warming: Arc<cache_warming::CacheWarmingService>,
    /// Pages of the Portal da Transparência (`/api/v1/transparency/*`).
    pub transparency: Arc<transparency::TransparencyService>,
    /// The federal sources (`/api/v1/federal/*`).
    pub federal: Arc<federal::FederalService>,
}
