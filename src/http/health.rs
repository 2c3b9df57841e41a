//! Health and metrics routes: `/health`, `/health/detailed`, `/health/live`, `/health/ready`,
//! `/health/metrics` and `/metrics` (Prometheus text format).

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use utoipa::ToSchema;
use utoipa_axum::routes;

use super::AppState;
use super::openapi::ApiRouter;
use crate::service::health::Detailed;

/// The health and metrics routes.
pub fn router() -> ApiRouter {
    ApiRouter::new()
        .routes(routes!(basic))
        .routes(routes!(live))
        .routes(routes!(ready))
        .routes(routes!(detailed))
        .routes(routes!(metrics))
        .alias("/metrics", routes!(metrics))
}

/// `GET /health`.
#[derive(Debug, Serialize, ToSchema)]
pub struct Health {
    /// Always `healthy` while the process answers.
    #[schema(example = "healthy")]
    pub status: &'static str,
    /// Crate version.
    pub version: &'static str,
    /// Seconds since start.
    pub uptime_seconds: f64,
}

/// `GET /health/live` and `/health/ready`.
#[derive(Debug, Serialize, ToSchema)]
pub struct Probe {
    /// `alive`, `ready` or `not_ready`.
    #[schema(example = "ready")]
    pub status: &'static str,
}

/// Whether the process answers, its version and uptime.
#[utoipa::path(get, path = "/health", tag = "health", responses((status = 200, body = Health)))]
async fn basic(State(st): State<AppState>) -> Json<Health> {
    Json(Health { status: "healthy", version: env!("CARGO_PKG_VERSION"), uptime_seconds: st.services.health.uptime() })
}

/// Liveness probe.
#[utoipa::path(get, path = "/health/live", tag = "health", responses((status = 200, body = Probe)))]
async fn live() -> Json<Probe> {
    Json(Probe { status: "alive" })
}

/// Readiness probe: 503 until the listener accepts work and once shutdown begins.
#[utoipa::path(get, path = "/health/ready", tag = "health", responses(
    (status = 200, description = "Ready", body = Probe),
    (status = 503, description = "Not ready (`not_ready`)", body = Probe),
))]
async fn ready(State(st): State<AppState>) -> Response {
    if st.services.health.is_ready() {
        Json(Probe { status: "ready" }).into_response()
    } else {
        (StatusCode::SERVICE_UNAVAILABLE, Json(Probe { status: "not_ready" })).into_response()
    }
}

/// Each component's health (store, runtime, upstream).
#[utoipa::path(get, path = "/health/detailed", tag = "health", responses(
    (status = 200, description = "Every component healthy", body = Detailed),
    (status = 503, description = "A component is degraded", body = Detailed),
))]
async fn detailed(State(st): State<AppState>) -> Response {
    let report = st.services.health.detailed().await;
    let status = if report.status == "healthy" { StatusCode::OK } else { StatusCode::SERVICE_UNAVAILABLE };
    (status, Json(report)).into_response()
}

/// Prometheus metrics in the text exposition format.
#[utoipa::path(get, path = "/health/metrics", tag = "health", responses(
    (status = 200, description = "Prometheus text format 0.0.4", content_type = "text/plain", body = String),
))]
async fn metrics(State(st): State<AppState>) -> Response {
    ([(CONTENT_TYPE, "text/plain; version=0.0.4")], st.metrics.render()).into_response()
}
