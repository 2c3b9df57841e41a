//! The axum shell: routes, state, layers. Handlers extract, make one service call and map the
//! result; they never name the actor system or the store.

mod admin;
mod admin_cache;
mod admin_compression;
mod admin_database;
mod admin_database_views;
mod admin_pools;
mod admin_pools_views;
mod admin_views;
mod agents;
mod audit;
mod auth;
pub mod auth_extract;
mod auth_layer;
mod auth_views;
mod chat;
mod chat_ws;
mod compression_meter;
pub mod error;
pub mod extract;
mod federal;
pub mod graphql;
mod health;
mod investigations;
pub mod middleware;
pub mod openapi;
mod rate_limit;
mod reports;
mod sse;
mod transparency;
pub mod upkeep;
pub mod views;
mod whitelist;

use std::sync::{Arc, OnceLock};

use axum::Router;
use axum::extract::DefaultBodyLimit;
use metrics_exporter_prometheus::{PrometheusBuilder, PrometheusHandle};
use tower::Layer;
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::normalize_path::{NormalizePath, NormalizePathLayer};

use self::openapi::ApiRouter;
use crate::runtime::ShutdownSignal;
use crate::service::Services;

/// Shared state of every handler: one pointer, so the per-request clones axum makes (each
/// `from_fn_with_state` layer and each `State` extractor) cost one atomic increment, not one
/// per service.
#[derive(Clone)]
pub struct AppState(Arc<AppParts>);

impl AppState {
    /// Wraps the parts.
    pub fn new(parts: AppParts) -> Self {
        AppState(Arc::new(parts))
    }
}

impl std::ops::Deref for AppState {
    type Target = AppParts;
    fn deref(&self) -> &AppParts {
        &self.0
    }
}

/// What the handlers share.
pub struct AppParts {
    /// Service facades.
    pub services: Services,
    /// Renders the Prometheus text.
    pub metrics: PrometheusHandle,
    /// Flips when the server begins shutting down (streams end).
    pub shutdown: ShutdownSignal,
    /// Seconds between keep-alive comments on streams.
    pub keep_alive_secs: f64,
    /// GraphQL limits and switches.
    pub graphql: crate::config::GraphqlConfig,
}

/// The process-wide Prometheus recorder (a recorder can be installed once per process; tests
/// start many apps in one process and share it).
pub fn metrics_handle() -> PrometheusHandle {
    static HANDLE: OnceLock<PrometheusHandle> = OnceLock::new();
    HANDLE
        .get_or_init(|| {
            let recorder = PrometheusBuilder::new()
                .set_buckets(&[0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0])
                .map(|b| b.build_recorder())
                .unwrap_or_else(|_| PrometheusBuilder::new().build_recorder());
            let handle = recorder.handle();
            let _ = metrics::set_global_recorder(recorder);
            upkeep::keep_up(handle.clone(), upkeep::UPKEEP_EVERY);
            handle
        })
        .clone()
}

/// Every route of the service with its documentation. Routes are added here and only through
/// [`openapi::ApiRouter`], so the OpenAPI document covers each one (tests/api/openapi.rs).
pub fn api_routes() -> ApiRouter {
    ApiRouter::new()
        .merge(health::router())
        .merge(investigations::router())
        .merge(auth::router())
        .merge(admin::router())
        .merge(admin_compression::router())
        .merge(admin_database::router())
        .merge(admin_pools::router())
        .merge(admin_cache::router())
        .merge(agents::router())
        .merge(chat::router())
        .merge(reports::router())
        .merge(whitelist::router())
        .merge(audit::router())
        .merge(transparency::router())
        .merge(federal::router())
        .merge(graphql::router())
        .merge(openapi::router())
}

/// The whole application, trailing slashes trimmed before routing. Layers, outermost first:
/// compression, body limit, [`middleware::pipeline`] (request id, envelope, security headers,
/// metrics, durable acknowledgements, authentication with its audit, rate limits), panics
/// caught.
pub fn app(state: AppState, body_limit: usize) -> NormalizePath<Router> {
    let (routes, _) = api_routes().split();
    let router = routes
        .fallback(|| async { axum::http::StatusCode::NOT_FOUND })
        .layer(graphql::extension(&state))
        .layer(CatchPanicLayer::custom(middleware::panic_response))
        .layer(axum::middleware::from_fn_with_state(state.clone(), middleware::pipeline))
        .layer(DefaultBodyLimit::max(body_limit));
    let meter = state.services.compression.meter();
    let router = router
        .layer(axum::middleware::from_fn(compression_meter::inner))
        .layer(middleware::compression())
        .layer(axum::middleware::from_fn_with_state(meter, compression_meter::outer))
        .with_state(state);
    NormalizePathLayer::trim_trailing_slash().layer(router)
}

/// Reference-counted state pieces, for `startup`.
pub type SharedServices = Arc<Services>;
