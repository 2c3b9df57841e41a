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

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use axum::Extension;

use super::AppState;
use crate::config::GraphqlConfig;
use schema::{Shared, VigiaSchema};

/// How long an anonymous query's answer is reused.
pub const CACHE_TTL: Duration = Duration::from_secs(300);

/// What the GraphQL routes share. The schemas are built at their first use, not at start:
/// building one registers every type of the API (code all over the binary, and memory), and a
/// service that is never asked a GraphQL question need not hold them.
pub struct Gql {
    shared: Shared,
    schema: OnceLock<VigiaSchema>,
    introspection: OnceLock<VigiaSchema>,
    /// Answers to anonymous queries.
    pub cache: cache::ResponseCache,
    /// Persisted queries.
    pub persisted: cache::PersistedQueries,
    /// The limits and switches.
    pub config: GraphqlConfig,
}

impl Gql {
    /// The GraphQL state over the state's services.
    pub fn new(state: &AppState, config: &GraphqlConfig) -> Gql {
        Gql {
            shared: Shared { services: state.services.clone(), shutdown: state.shutdown.clone() },
            schema: OnceLock::new(),
            introspection: OnceLock::new(),
            cache: cache::ResponseCache::new(CACHE_TTL),
            persisted: cache::PersistedQueries::default(),
            config: config.clone(),
        }
    }

    /// The schema with the configured limits.
    pub fn schema(&self) -> &VigiaSchema {
        self.schema.get_or_init(|| schema::build(self.shared.clone(), &self.config))
    }

    /// The schema answering introspection queries, when introspection is on.
    pub fn introspection(&self) -> Option<&VigiaSchema> {
        self.config
            .introspection_enabled
            .then(|| self.introspection.get_or_init(|| schema::build_introspection(self.shared.clone(), &self.config)))
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
