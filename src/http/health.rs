//! Health and metrics routes: `/health`, `/health/detailed`, `/health/live`, `/health/ready`,
//! `/health/metrics` and `/metrics` (Prometheus text format).

use axum::extract::State;
use axum::http::StatusCode;
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::json;

use super::AppState;

/// The health and metrics routes.
pub fn router() -> Router<AppState> {
    Router::new()
        .route("/health", get(basic))
        .route("/health/live", get(live))
        .route("/health/ready", get(ready))
        .route("/health/detailed", get(detailed))
        .route("/health/metrics", get(metrics))
        .route("/metrics", get(metrics))
}

async fn basic(State(st): State<AppState>) -> Json<serde_json::Value> {
    Json(json!({
        "status": "healthy",
        "version": env!("CARGO_PKG_VERSION"),
        "uptime_seconds": st.services.health.uptime(),
    }))
}

async fn live() -> Json<serde_json::Value> {
    Json(json!({"status": "alive"}))
}

async fn ready(State(st): State<AppState>) -> Response {
    if st.services.health.is_ready() {
        Json(json!({"status": "ready"})).into_response()
    } else {
        (StatusCode::SERVICE_UNAVAILABLE, Json(json!({"status": "not_ready"}))).into_response()
    }
}

async fn detailed(State(st): State<AppState>) -> Response {
    let report = st.services.health.detailed().await;
    let status = if report.status == "healthy" { StatusCode::OK } else { StatusCode::SERVICE_UNAVAILABLE };
    (status, Json(report)).into_response()
}

async fn metrics(State(st): State<AppState>) -> Response {
    ([(CONTENT_TYPE, "text/plain; version=0.0.4")], st.metrics.render()).into_response()
}
