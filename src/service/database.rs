//! The store seen as a database for administrators: trees as tables, keys as rows, its size
//! on disk, flushes and cache capacity; the slowest operations the storage layer timed; and
//! index suggestions from the scans the list routes filtered. sled keeps one key order per
//! tree and has no secondary indexes or planner statistics, so creating an index is refused
//! per index with that reason, and "optimizing statistics" recounts every tree's rows.

use std::time::Instant;

use crate::error::{Error, Result};
use crate::storage::Store;
use crate::storage::stats::{FilterTotals, OpTotals, TableStat};

/// Store-wide figures.
#[derive(Debug, Clone)]
pub struct DatabaseStats {
    /// Trees with their key counts.
    pub tables: Vec<TableStat>,
    /// Bytes on disk.
    pub size_bytes: u64,
    /// Page-cache capacity in bytes.
    pub cache_capacity_bytes: u64,
    /// Flushes since open.
    pub flushes: u64,
    /// Writes per second since open.
    pub writes_per_second: f64,
}

/// An index suggestion.
#[derive(Debug, Clone)]
pub struct IndexSuggestion {
    /// Tree.
    pub table: &'static str,
    /// Columns the list routes filtered by.
    pub columns: Vec<&'static str>,
    /// What the filtered scans did.
    pub totals: FilterTotals,
}

/// The database facade.
pub struct DatabaseService {
    store: Store,
}

impl DatabaseService {
    /// Builds the facade.
    pub fn new(store: Store) -> Self {
        DatabaseService { store }
    }

    /// Tables, size, flushes, cache and write rate.
    pub fn stats(&self) -> Result<DatabaseStats> {
        Ok(DatabaseStats {
            tables: self.store.tables().map_err(Error::internal)?,
            size_bytes: self.store.size_on_disk(),
            cache_capacity_bytes: self.store.cache_capacity_bytes(),
            flushes: self.store.flushes(),
            writes_per_second: self.store.op_stats().writes_per_second(),
        })
    }

    /// Timed operations whose mean took at least `threshold_ms`, slowest total first.
    pub fn slow_operations(&self, threshold_ms: f64) -> Result<Vec<(&'static str, OpTotals)>> {
        if !(threshold_ms.is_finite() && threshold_ms >= 0.0) {
            return Err(Error::validation("threshold_ms", "must be a number of milliseconds >= 0"));
        }
        Ok(self
            .store
            .op_stats()
            .operations()
            .into_iter()
            .filter(|(_, t)| t.calls > 0 && t.total_micros as f64 / t.calls as f64 >= threshold_ms * 1000.0)
            .collect())
    }

    /// Filtered scans that read rows an index would have skipped.
    pub fn missing_indexes(&self) -> Vec<IndexSuggestion> {
        self.store
            .op_stats()
            .filter_scans()
            .into_iter()
            .filter(|(_, _, t)| t.scanned > t.matched)
            .map(|(table, columns, totals)| IndexSuggestion { table, columns, totals })
            .collect()
    }

    /// Recounts every tree's rows; the tables counted and the time it took.
    pub fn optimize_statistics(&self) -> Result<(usize, f64)> {
        let started = Instant::now();
        let tables = self.store.tables().map_err(Error::internal)?;
        Ok((tables.len(), started.elapsed().as_secs_f64() * 1000.0))
    }

    /// Whether `table` is a tree of the store (for index requests).
    pub fn has_table(&self, table: &str) -> Result<bool> {
        Ok(self.store.tables().map_err(Error::internal)?.iter().any(|t| t.name == table))
    }
}
