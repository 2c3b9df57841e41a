//! Admin compression routes under `/api/v1/admin/compression`: metrics (what the response
//! compression layer counted since start), algorithms (each one's level and measured ratio
//! and encoding time), optimize (hints) and test (a codec run on a sample at a level).
//! Ratios are compressed size over original size (lower is better). Every route needs an
//! [`AdminUser`].

use std::collections::{BTreeMap, HashMap};

use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use utoipa::ToSchema;

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

/// Compression of the responses served since start.
#[derive(Debug, Serialize, ToSchema)]
pub struct CompressionMetrics {
    /// Responses measured.
    pub total_requests: u64,
    /// Responses compressed.
    pub compressed_requests: u64,
    /// Compressed bytes over original bytes, over all compressed responses.
    pub compression_ratio: Option<f64>,
    /// Mean per-response ratio.
    pub avg_compression_ratio: Option<f64>,
    /// Bytes not sent thanks to compression.
    pub bytes_saved: u64,
    /// Bytes before compression.
    pub original_bytes: u64,
    /// Bytes sent.
    pub compressed_bytes: u64,
    /// Bytes of large responses sent uncompressed.
    pub uncompressed_large_bytes: u64,
    /// Responses per algorithm.
    pub algorithms: BTreeMap<String, u64>,
}

/// One algorithm with its measured figures.
#[derive(Debug, Serialize, ToSchema)]
pub struct AlgorithmView {
    /// `gzip`, `br`, `deflate` or `zstd`.
    pub name: &'static str,
    /// Level the server uses (null when not offered).
    pub level: Option<u32>,
    /// Mean ratio measured.
    pub avg_ratio: Option<f64>,
    /// Mean encoding time measured.
    pub avg_time_ms: Option<f64>,
    /// Responses compressed with it.
    pub responses: u64,
    /// Whether the server offers it.
    pub supported: bool,
}

/// The algorithms.
#[derive(Debug, Serialize, ToSchema)]
pub struct AlgorithmList {
    /// Each algorithm.
    pub algorithms: Vec<AlgorithmView>,
}

/// One piece of advice.
#[derive(Debug, Serialize, ToSchema)]
pub struct RecommendationView {
    /// Kind of advice.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The advice.
    pub message: String,
    /// MiB that following it would save, when measurable.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub potential_savings_mb: Option<f64>,
    /// Why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning: Option<String>,
}

/// Advice from the measured figures.
#[derive(Debug, Serialize, ToSchema)]
pub struct Recommendations {
    /// Each piece of advice.
    pub recommendations: Vec<RecommendationView>,
}

/// A compression of a sample.
#[derive(Debug, Serialize, ToSchema)]
pub struct CompressionTest {
    /// Algorithm used.
    pub algorithm: &'static str,
    /// Level used.
    pub level: u32,
    /// Sample size.
    pub original_size: usize,
    /// Compressed size.
    pub compressed_size: usize,
    /// Compressed over original.
    pub compression_ratio: f64,
    /// Time it took.
    pub compression_time_ms: f64,
}

/// Mean per-response ratio, `None` before any response.
fn avg_ratio(t: &AlgorithmTotals) -> Option<f64> {
    (t.responses > 0).then(|| t.ratio_sum / t.responses as f64)
}

#[utoipa::path(get, path = "/api/v1/admin/compression/metrics", tag = "admin",  security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Bytes in and out per algorithm, measured on responses", body = CompressionMetrics),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
    ))]
async fn metrics(State(st): State<AppState>, _: AdminUser) -> ApiResult {
    let s = st.services.compression.metrics();
    let all = s.all();
    let algorithms = ALGORITHMS.iter().map(|a| (a.name().to_string(), s.of(*a).responses)).collect();
    Ok(Json(CompressionMetrics {
        total_requests: s.total,
        compressed_requests: all.responses,
        compression_ratio: (all.original_bytes > 0).then(|| all.compressed_bytes as f64 / all.original_bytes as f64),
        avg_compression_ratio: avg_ratio(&all),
        bytes_saved: all.original_bytes.saturating_sub(all.compressed_bytes),
        original_bytes: all.original_bytes,
        compressed_bytes: all.compressed_bytes,
        uncompressed_large_bytes: s.uncompressed_large_bytes,
        algorithms,
    })
    .into_response())
}

#[utoipa::path(get, path = "/api/v1/admin/compression/algorithms", tag = "admin",  security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Supported algorithms with their measured ratios", body = AlgorithmList),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
    ))]
async fn algorithms(State(st): State<AppState>, _: AdminUser) -> ApiResult {
    let s = st.services.compression.metrics();
    let mut list: Vec<AlgorithmView> = ALGORITHMS
        .iter()
        .map(|a| {
            let t = s.of(*a);
            AlgorithmView {
                name: a.name(),
                level: Some(a.layer_level()),
                avg_ratio: avg_ratio(&t),
                avg_time_ms: (t.responses > 0).then(|| t.encode_micros as f64 / t.responses as f64 / 1000.0),
                responses: t.responses,
                supported: true,
            }
        })
        .collect();
    // Built without tower-http's zstd feature: listed so clients know it is not offered.
    list.push(AlgorithmView {
        name: "zstd",
        level: None,
        avg_ratio: None,
        avg_time_ms: None,
        responses: 0,
        supported: false,
    });
    Ok(Json(AlgorithmList { algorithms: list }).into_response())
}

#[utoipa::path(get, path = "/api/v1/admin/compression/optimize", tag = "admin",  security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Advice from the measured ratios", body = Recommendations),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
    ))]
async fn optimize(State(st): State<AppState>, _: AdminUser) -> ApiResult {
    let recs = st.services.compression.optimize().await?;
    let recommendations = recs
        .iter()
        .map(|r| RecommendationView {
            kind: r.kind,
            message: r.message.clone(),
            potential_savings_mb: r.potential_savings_mb,
            reasoning: r.reasoning.clone(),
        })
        .collect();
    Ok(Json(Recommendations { recommendations }).into_response())
}

#[utoipa::path(get, path = "/api/v1/admin/compression/test", tag = "admin", params(("algorithm" = Option<String>, Query, description = "gzip (default), br or deflate"), ("level" = Option<u32>, Query, description = "Compression level")), security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Compresses a sample and reports size and time", body = CompressionTest),
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
    Ok(Json(CompressionTest {
        algorithm: t.algorithm.name(),
        level: t.level,
        original_size: t.original_size,
        compressed_size: t.compressed_size,
        compression_ratio: t.ratio(),
        compression_time_ms: t.compression_time_ms,
    })
    .into_response())
}
