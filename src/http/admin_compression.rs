//! Admin compression routes under `/api/v1/admin/compression`: metrics (what the response
//! compression layer counted since start), algorithms (each one's level and measured ratio
//! and encoding time), optimize (hints) and test (a codec run on a sample at a level).
//! Ratios are compressed size over original size (lower is better). Every route needs an
//! [`AdminUser`].

use std::collections::HashMap;

use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::AppState;
use super::auth_extract::AdminUser;
use super::error::ApiError;
use super::openapi::ApiRouter;
use crate::error::Error;
use crate::service::compression::{ALGORITHMS, AlgorithmTotals};
use axum::Json;
use utoipa_axum::routes;

type ApiResult = Result<Response, ApiError>;

/// The compression routes.
pub fn router() -> ApiRouter {
    ApiRouter::new()
        .routes(routes!(metrics))
        .routes(routes!(algorithms))
        .routes(routes!(optimize))
        .routes(routes!(test))
}

/// Mean per-response ratio, `None` before any response.
fn avg_ratio(t: &AlgorithmTotals) -> Option<f64> {
    (t.responses > 0).then(|| t.ratio_sum / t.responses as f64)
}

#[utoipa::path(get, path = "/api/v1/admin/compression/metrics", tag = "admin",  security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Bytes in and out per algorithm, measured on responses", body = Object),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
    ))]
async fn metrics(State(st): State<AppState>, _: AdminUser) -> ApiResult {
    let s = st.services.compression.metrics();
    let all = s.all();
    let algorithms: serde_json::Map<String, Value> =
        ALGORITHMS.iter().map(|a| (a.name().to_string(), json!(s.of(*a).responses))).collect();
    Ok(Json(json!({
        "total_requests": s.total,
        "compressed_requests": all.responses,
        "compression_ratio": (all.original_bytes > 0).then(|| all.compressed_bytes as f64 / all.original_bytes as f64),
        "avg_compression_ratio": avg_ratio(&all),
        "bytes_saved": all.original_bytes.saturating_sub(all.compressed_bytes),
        "original_bytes": all.original_bytes,
        "compressed_bytes": all.compressed_bytes,
        "uncompressed_large_bytes": s.uncompressed_large_bytes,
        "algorithms": algorithms,
    }))
    .into_response())
}

#[utoipa::path(get, path = "/api/v1/admin/compression/algorithms", tag = "admin",  security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Supported algorithms with their measured ratios", body = Object),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
    ))]
async fn algorithms(State(st): State<AppState>, _: AdminUser) -> ApiResult {
    let s = st.services.compression.metrics();
    let mut list: Vec<Value> = ALGORITHMS
        .iter()
        .map(|a| {
            let t = s.of(*a);
            json!({
                "name": a.name(),
                "level": a.layer_level(),
                "avg_ratio": avg_ratio(&t),
                "avg_time_ms": (t.responses > 0).then(|| t.encode_micros as f64 / t.responses as f64 / 1000.0),
                "responses": t.responses,
                "supported": true,
            })
        })
        .collect();
    // Built without tower-http's zstd feature: listed so clients know it is not offered.
    list.push(json!({"name": "zstd", "level": null, "avg_ratio": null, "avg_time_ms": null, "responses": 0,
        "supported": false}));
    Ok(Json(json!({"algorithms": list})).into_response())
}

#[utoipa::path(get, path = "/api/v1/admin/compression/optimize", tag = "admin",  security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Advice from the measured ratios", body = Object),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
    ))]
async fn optimize(State(st): State<AppState>, _: AdminUser) -> ApiResult {
    let recs = st.services.compression.optimize().await?;
    let recs: Vec<Value> = recs
        .iter()
        .map(|r| {
            let mut v = json!({"type": r.kind, "message": r.message});
            if let Some(mb) = r.potential_savings_mb {
                v["potential_savings_mb"] = json!(mb);
            }
            if let Some(why) = &r.reasoning {
                v["reasoning"] = json!(why);
            }
            v
        })
        .collect();
    Ok(Json(json!({"recommendations": recs})).into_response())
}

#[utoipa::path(get, path = "/api/v1/admin/compression/test", tag = "admin", params(("algorithm" = Option<String>, Query, description = "gzip (default), br or deflate"), ("level" = Option<u32>, Query, description = "Compression level")), security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Compresses a sample and reports size and time", body = Object),
        (status = 400, description = "VALIDATION_ERROR"),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
    ))]
async fn test(State(st): State<AppState>, _: AdminUser, Query(q): Query<HashMap<String, String>>) -> ApiResult {
    let algorithm = q.get("algorithm").map_or("gzip", String::as_str);
    let level = match q.get("level") {
        Some(raw) => Some(raw.trim().parse::<u32>().map_err(|_| Error::validation("level", "must be an integer"))?),
        None => None,
    };
    let t = st.services.compression.test(algorithm, level).await?;
    Ok(Json(json!({
        "algorithm": t.algorithm.name(),
        "level": t.level,
        "original_size": t.original_size,
        "compressed_size": t.compressed_size,
        "compression_ratio": t.ratio(),
        "compression_time_ms": t.compression_time_ms,
    }))
    .into_response())
}
