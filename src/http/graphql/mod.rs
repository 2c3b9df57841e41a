//! GraphQL (async-graphql) on `/graphql`: queries and mutations over HTTP (POST, or GET with
//! the query in the URL) and subscriptions over WebSocket with either `graphql-transport-ws`
//! or the older `graphql-ws` protocol, on the same path. The resolvers call the service
//! facades the REST routes call. Beside it: `/graphql/playground` (an IDE whose assets are in
//! the binary), `/graphql/health` and `/graphql/examples`.
//!
//! - [`schema`]: building the schema with its limits; the caller and errors of resolvers.
//! - [`query`], [`mutation`], [`subscription`]: the roots; [`types`], [`inputs`],
//!   [`activity`]: the types.
//! - [`transport`]: the one handler of `/graphql` (caller, persisted queries, cache, limits).
//! - [`cache`]: the anonymous-answer cache and the persisted queries.
//! - [`refusals`]: error codes, and refusals on subscription connections in the audit trail.
//! - [`pages`]: playground, health and examples.

mod activity;
mod cache;
mod examples;
mod inputs;
mod mutation;
mod pages;
mod query;
mod refusals;
pub mod schema;
mod subscription;
mod transport;
mod types;

use std::sync::Arc;
use std::time::Duration;

use axum::Extension;

use super::AppState;
use crate::config::GraphqlConfig;
use schema::{Shared, VigiaSchema};

/// How long an anonymous query's answer is reused.
pub const CACHE_TTL: Duration = Duration::from_secs(300);

/// What the GraphQL routes share.
pub struct Gql {
    /// The schema with the configured limits.
    pub schema: VigiaSchema,
    /// The schema answering introspection queries (when introspection is on).
    pub introspection: Option<VigiaSchema>,
    /// Answers to anonymous queries.
    pub cache: cache::ResponseCache,
    /// Persisted queries.
    pub persisted: cache::PersistedQueries,
    /// The limits and switches.
    pub config: GraphqlConfig,
}

impl Gql {
    /// The schemas over the state's services.
    pub fn new(state: &AppState, config: &GraphqlConfig) -> Gql {
        let shared = Shared { services: state.services.clone(), shutdown: state.shutdown.clone() };
        Gql {
            schema: schema::build(shared.clone(), config),
            introspection: config.introspection_enabled.then(|| schema::build_introspection(shared, config)),
            cache: cache::ResponseCache::new(CACHE_TTL),
            persisted: cache::PersistedQueries::default(),
            config: config.clone(),
        }
    }
}

/// The GraphQL routes; they read their schemas from the [`extension`] the app adds.
pub fn router() -> super::openapi::ApiRouter {
    super::openapi::ApiRouter::new().routes(utoipa_axum::routes!(transport::graphql)).merge(pages::routes())
}

/// The schemas over the state's services, with its GraphQL limits and switches, for the
/// GraphQL handlers.
pub fn extension(state: &AppState) -> Extension<Arc<Gql>> {
    Extension(Arc::new(Gql::new(state, &state.graphql)))
}
