//! What the storage layer measures about itself: per operation, calls, rows read and time
//! (total and worst), and the writes counted for a rate; plus each tree's row count and the
//! database's size. The admin database routes read these; nothing here is estimated.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use super::{StorageError, Store};

/// Totals of one named operation.
#[derive(Debug, Clone, Copy, Default)]
pub struct OpTotals {
    /// Times it ran.
    pub calls: u64,
    /// Rows it read (for scans, every row it went through).
    pub rows: u64,
    /// Microseconds it took in all.
    pub total_micros: u64,
    /// Its slowest run, in microseconds.
    pub max_micros: u64,
}

/// The counters of one store.
#[derive(Debug)]
pub struct OpStats {
    opened: Instant,
    writes: AtomicU64,
    ops: Mutex<HashMap<&'static str, OpTotals>>,
    filters: Mutex<HashMap<(&'static str, Vec<&'static str>), FilterTotals>>,
}

/// Totals of list calls that filtered a scanned tree by the same columns.
#[derive(Debug, Clone, Copy, Default)]
pub struct FilterTotals {
    /// Calls.
    pub calls: u64,
    /// Rows read.
    pub scanned: u64,
    /// Rows that passed the filters.
    pub matched: u64,
}

impl Default for OpStats {
    fn default() -> Self {
        OpStats { opened: Instant::now(), writes: AtomicU64::new(0), ops: Mutex::default(), filters: Mutex::default() }
    }
}

impl OpStats {
    /// Runs `f`, recording its time under `op` with the rows `rows` says it read.
    pub fn time<T>(&self, op: &'static str, f: impl FnOnce() -> T, rows: impl FnOnce(&T) -> u64) -> T {
        let started = Instant::now();
        let out = f();
        let micros = started.elapsed().as_micros() as u64;
        let n = rows(&out);
        let mut ops = self.ops.lock().unwrap_or_else(|p| p.into_inner());
        let t = ops.entry(op).or_default();
        t.calls += 1;
        t.rows += n;
        t.total_micros += micros;
        t.max_micros = t.max_micros.max(micros);
        out
    }

    /// A list route scanned `scanned` rows of `table` and kept `matched` by `columns` (an
    /// index on them would have read only the matches).
    pub fn filtered(&self, table: &'static str, columns: Vec<&'static str>, scanned: u64, matched: u64) {
        if columns.is_empty() {
            return;
        }
        let mut f = self.filters.lock().unwrap_or_else(|p| p.into_inner());
        let t = f.entry((table, columns)).or_default();
        t.calls += 1;
        t.scanned += scanned;
        t.matched += matched;
    }

    /// Every filtered scan, most rows skipped first.
    pub fn filter_scans(&self) -> Vec<(&'static str, Vec<&'static str>, FilterTotals)> {
        let f = self.filters.lock().unwrap_or_else(|p| p.into_inner());
        let mut v: Vec<_> = f.iter().map(|((t, c), n)| (*t, c.clone(), *n)).collect();
        v.sort_by_key(|(_, _, n)| std::cmp::Reverse(n.scanned - n.matched));
        v
    }

    /// A write reached a tree.
    pub fn wrote(&self) {
        self.writes.fetch_add(1, Ordering::Relaxed);
    }

    /// Every operation's totals, slowest total first.
    pub fn operations(&self) -> Vec<(&'static str, OpTotals)> {
        let mut v: Vec<_> = self.ops.lock().unwrap_or_else(|p| p.into_inner()).iter().map(|(k, t)| (*k, *t)).collect();
        v.sort_by_key(|(_, t)| std::cmp::Reverse(t.total_micros));
        v
    }

    /// Writes per second since the store opened.
    pub fn writes_per_second(&self) -> f64 {
        self.writes.load(Ordering::Relaxed) as f64 / self.opened.elapsed().as_secs_f64().max(1e-3)
    }
}

/// One tree seen as a table.
#[derive(Debug, Clone)]
pub struct TableStat {
    /// Tree name.
    pub name: String,
    /// Keys it holds.
    pub rows: u64,
}

impl Store {
    /// The storage layer's own measurements.
    pub fn op_stats(&self) -> &OpStats {
        &self.stats
    }

    /// Every tree (the default one included) with its key count; counting walks each tree's
    /// keys, so it costs a scan of the store.
    pub fn tables(&self) -> Result<Vec<TableStat>, StorageError> {
        let mut out = Vec::new();
        for name in self.db.tree_names() {
            let tree = self.db.open_tree(&name)?;
            let label = String::from_utf8_lossy(&name).into_owned();
            out.push(TableStat { name: label, rows: tree.len() as u64 });
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    /// The page-cache capacity the store was opened with, in bytes.
    pub fn cache_capacity_bytes(&self) -> u64 {
        self.cache_capacity
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timed_operations_add_up_calls_rows_and_the_worst_run() {
        let s = OpStats::default();
        s.time("scan", || vec![1, 2, 3], |v| v.len() as u64);
        s.time("scan", || vec![1], |v| v.len() as u64);
        let (name, t) = s.operations()[0];
        assert_eq!((name, t.calls, t.rows), ("scan", 2, 4));
        assert!(t.max_micros <= t.total_micros);
    }

    #[test]
    fn tables_count_the_keys_of_every_tree() {
        let store = Store::temporary().unwrap();
        let rows = |s: &Store| s.tables().unwrap().into_iter().find(|t| t.name == "settings").unwrap().rows;
        let before = rows(&store);
        store.settings.insert("a", vec![1]).unwrap();
        assert_eq!(rows(&store), before + 1);
        let tables = store.tables().unwrap();
        assert!(tables.iter().any(|t| t.name == "investigations"));
    }
}
