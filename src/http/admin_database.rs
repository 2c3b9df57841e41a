//! Admin database routes under `/api/v1/admin/database`, over the embedded store: stats (trees
//! as tables, keys as rows), slow operations timed by the storage layer, index suggestions
//! from the list routes' filtered scans, index creation (refused per index: sled has no
//! secondary indexes) and a recount of every tree. Every route needs an [`AdminUser`].

use std::collections::HashMap;
use std::time::Instant;

use axum::extract::{Query, State};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use super::AppState;
use super::admin_database_views::{
    CreatedIndexes, DatabaseStatsView, IndexOutcome, MissingIndex, MissingIndexes, SlowQueries, SlowQuery,
    StatisticsOptimized, TableView,
};
use super::auth_extract::AdminUser;
use super::error::ApiError;
use super::extract::ApiJson;
use super::openapi::ApiRouter;
use crate::error::Error;
use axum::Json;
use utoipa_axum::routes;

type ApiResult = Result<Response, ApiError>;

/// The database routes.
pub fn router() -> ApiRouter {
    ApiRouter::new()
        .routes(routes!(stats))
        .routes(routes!(slow))
        .routes(routes!(missing))
        .routes(routes!(create_indexes))
        .routes(routes!(optimize_statistics))
}

const MIB: f64 = 1024.0 * 1024.0;

#[utoipa::path(get, path = "/api/v1/admin/database/database-stats", tag = "admin",  security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Trees, sizes, flushes, cache and write rate of the store", body = DatabaseStatsView),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
    ))]
async fn stats(State(st): State<AppState>, _: AdminUser) -> ApiResult {
    let s = st.services.database.stats()?;
    let tables = s.tables.iter().map(|t| TableView { name: t.name.clone(), rows: t.rows }).collect();
    Ok(Json(DatabaseStatsView {
        engine: "sled (embedded)",
        total_tables: s.tables.len(),
        total_size_mb: s.size_bytes as f64 / MIB,
        total_rows: s.tables.iter().map(|t| t.rows).sum::<u64>(),
        // sled 0.34 does not expose its page-cache hits.
        cache_hit_ratio: None,
        cache_capacity_mb: s.cache_capacity_bytes as f64 / MIB,
        transactions_per_second: s.writes_per_second,
        flushes: s.flushes,
        // An embedded store: no connections.
        active_connections: None,
        tables,
    })
    .into_response())
}

#[utoipa::path(get, path = "/api/v1/admin/database/analyze-slow-queries", tag = "admin", params(("threshold_ms" = Option<f64>, Query, description = "Slowest operations above this many milliseconds")), security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Store operations slower than the threshold", body = SlowQueries),
        (status = 400, description = "VALIDATION_ERROR"),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
    ))]
async fn slow(State(st): State<AppState>, _: AdminUser, Query(q): Query<HashMap<String, String>>) -> ApiResult {
    let threshold = match q.get("threshold_ms") {
        Some(raw) => raw.trim().parse::<f64>().map_err(|_| Error::validation("threshold_ms", "must be a number"))?,
        None => 0.0,
    };
    let ops = st.services.database.slow_operations(threshold)?;
    let list: Vec<SlowQuery> = ops
        .iter()
        .map(|(name, t)| {
            let avg = t.total_micros as f64 / t.calls as f64 / 1000.0;
            let scan = name.ends_with(".list") || name.ends_with(".scan");
            SlowQuery {
                query: name,
                avg_time_ms: avg,
                max_time_ms: t.max_micros as f64 / 1000.0,
                call_count: t.calls,
                total_time_ms: t.total_micros as f64 / 1000.0,
                rows_read: t.rows,
                suggestion: if scan {
                    "reads every row of the tree on each call: keep a small index record per item and page over it"
                } else {
                    "point operation: time is dominated by decoding the value; keep stored values small"
                },
            }
        })
        .collect();
    Ok(Json(SlowQueries { threshold_ms: threshold, total_slow_queries: list.len(), slow_queries: list })
        .into_response())
}

#[utoipa::path(get, path = "/api/v1/admin/database/missing-indexes", tag = "admin",  security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Index suggestions from filtered list scans", body = MissingIndexes),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
    ))]
async fn missing(State(st): State<AppState>, _: AdminUser) -> ApiResult {
    let list: Vec<MissingIndex> = st
        .services
        .database
        .missing_indexes()
        .iter()
        .map(|s| {
            let skipped = s.totals.scanned - s.totals.matched;
            MissingIndex {
                table: s.table,
                columns: s.columns.clone(),
                // Rows an index on these columns would not have read, per call.
                estimated_impact: skipped as f64 / s.totals.calls as f64,
                rows_scanned: s.totals.scanned,
                rows_matched: s.totals.matched,
                affected_queries: s.totals.calls,
            }
        })
        .collect();
    Ok(Json(MissingIndexes { total_missing: list.len(), missing_indexes: list }).into_response())
}

#[derive(Deserialize, utoipa::ToSchema)]
struct IndexSpec {
    table: String,
    columns: Vec<String>,
    name: String,
}

#[derive(Deserialize, utoipa::ToSchema)]
struct CreateIndexes {
    indexes: Vec<IndexSpec>,
}

#[utoipa::path(post, path = "/api/v1/admin/database/create-indexes", tag = "admin", request_body = CreateIndexes, security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Each index refused (sled has no secondary indexes)", body = CreatedIndexes),
        (status = 400, description = "VALIDATION_ERROR"),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
    ))]
async fn create_indexes(State(st): State<AppState>, _: AdminUser, ApiJson(b): ApiJson<CreateIndexes>) -> ApiResult {
    let mut details = Vec::new();
    for ix in &b.indexes {
        let started = Instant::now();
        let status = if !st.services.database.has_table(&ix.table)? {
            "failed: no such table"
        } else if ix.columns.is_empty() {
            "failed: no columns"
        } else {
            "failed: the embedded store (sled) keeps one key order per tree and has no secondary indexes"
        };
        details.push(IndexOutcome { name: ix.name.clone(), status, time_ms: started.elapsed().as_secs_f64() * 1000.0 });
    }
    Ok(Json(CreatedIndexes { created_indexes: 0, failed_indexes: details.len(), details }).into_response())
}

#[utoipa::path(post, path = "/api/v1/admin/database/optimize-statistics", tag = "admin",  security(("bearer_jwt" = []), ("api_key" = [])),
    responses(
        (status = 200, description = "Every tree recounted", body = StatisticsOptimized),
        (status = 403, description = "PERMISSOES_INSUFICIENTES"),
    ))]
async fn optimize_statistics(State(st): State<AppState>, _: AdminUser) -> ApiResult {
    let (tables, ms) = st.services.database.optimize_statistics()?;
    Ok(Json(StatisticsOptimized { success: true, tables_optimized: tables, total_time_ms: ms }).into_response())
}
