//! How the admin database routes' answers look on the wire, as typed structs so the OpenAPI
//! document derives their schemas.

use serde::Serialize;
use utoipa::ToSchema;

/// One tree of the store.
#[derive(Debug, Serialize, ToSchema)]
pub struct TableView {
    /// Tree name.
    pub name: String,
    /// Keys in it.
    pub rows: u64,
}

/// The store's figures.
#[derive(Debug, Serialize, ToSchema)]
pub struct DatabaseStatsView {
    /// `sled (embedded)`.
    pub engine: &'static str,
    /// Trees.
    pub total_tables: usize,
    /// Size on disk, MiB.
    pub total_size_mb: f64,
    /// Keys in all trees.
    pub total_rows: u64,
    /// Always null: sled 0.34 does not expose its page-cache hits.
    pub cache_hit_ratio: Option<f64>,
    /// Page cache capacity, MiB.
    pub cache_capacity_mb: f64,
    /// Writes per second, measured.
    pub transactions_per_second: f64,
    /// Flushes since start.
    pub flushes: u64,
    /// Always null: an embedded store has no connections.
    pub active_connections: Option<u64>,
    /// Each tree.
    pub tables: Vec<TableView>,
}

/// A store operation slower than the threshold.
#[derive(Debug, Serialize, ToSchema)]
pub struct SlowQuery {
    /// Operation name, e.g. `investigations.list`.
    pub query: &'static str,
    /// Mean time.
    pub avg_time_ms: f64,
    /// Slowest call.
    pub max_time_ms: f64,
    /// Calls since start.
    pub call_count: u64,
    /// Time of all calls.
    pub total_time_ms: f64,
    /// Rows read by all calls.
    pub rows_read: u64,
    /// What would make it faster.
    pub suggestion: &'static str,
}

/// The slow store operations.
#[derive(Debug, Serialize, ToSchema)]
pub struct SlowQueries {
    /// The threshold applied.
    pub threshold_ms: f64,
    /// How many.
    pub total_slow_queries: usize,
    /// Each one, slowest first.
    pub slow_queries: Vec<SlowQuery>,
}

/// An index the list route's filtered scans would have used.
#[derive(Debug, Serialize, ToSchema)]
pub struct MissingIndex {
    /// Tree.
    pub table: &'static str,
    /// Filtered fields.
    pub columns: Vec<&'static str>,
    /// Rows an index would not have read, per call.
    pub estimated_impact: f64,
    /// Rows scanned.
    pub rows_scanned: u64,
    /// Rows that matched.
    pub rows_matched: u64,
    /// Scans.
    pub affected_queries: u64,
}

/// Index suggestions.
#[derive(Debug, Serialize, ToSchema)]
pub struct MissingIndexes {
    /// How many.
    pub total_missing: usize,
    /// Each suggestion.
    pub missing_indexes: Vec<MissingIndex>,
}

/// One requested index's outcome.
#[derive(Debug, Serialize, ToSchema)]
pub struct IndexOutcome {
    /// Index name as requested.
    pub name: String,
    /// Why it was not created.
    pub status: &'static str,
    /// Time the attempt took.
    pub time_ms: f64,
}

/// Outcome of an index request.
#[derive(Debug, Serialize, ToSchema)]
pub struct CreatedIndexes {
    /// Always 0: sled has no secondary indexes.
    pub created_indexes: usize,
    /// Indexes refused.
    pub failed_indexes: usize,
    /// Each one.
    pub details: Vec<IndexOutcome>,
}

/// A recount of every tree.
#[derive(Debug, Serialize, ToSchema)]
pub struct StatisticsOptimized {
    /// Always true.
    pub success: bool,
    /// Trees recounted.
    pub tables_optimized: usize,
    /// Time it took.
    pub total_time_ms: f64,
}
