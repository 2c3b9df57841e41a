//! Time series of contracted value per organ on a regular, zero-filled monthly grid (every
//! organ on the same grid, from the dataset's first signing month to its last), the base of
//! the spike, regime-change and forecast detectors. Built in one pass: linear in the
//! contracts plus organs x months.

use arcstr::ArcStr;
use std::collections::HashMap;

use chrono::{Datelike, NaiveDate};

use super::common::FxBuild;
use super::stats::median_in_place;
use crate::cancel::{AnalysisError, CancelFlag};
use crate::model::dataset::Dataset;

/// Longest grid built, in months (40 years); older contracts are left out.
pub const MAX_MONTHS: i32 = 480;

/// A month as `year * 12 + month0`.
pub fn month_key(d: NaiveDate) -> i32 {
    d.year() * 12 + d.month0() as i32
}

/// Days in a month of the Gregorian calendar.
pub fn days_in_month(year: i32, month: u32) -> u32 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// `YYYY-MM` of a month key.
pub fn month_label(key: i32) -> String {
    format!("{}-{:02}", key.div_euclid(12), key.rem_euclid(12) + 1)
}

/// One organ's monthly series.
#[derive(Debug, Clone)]
pub struct OrganMonths {
    /// SIAFI code (shared with the contracts).
    pub organ: ArcStr,
    /// Index of one of its contracts (for names).
    pub example: usize,
    /// Contracted value per month of the grid (zero when nothing was signed).
    pub values: Vec<f64>,
    /// Contracts signed per month.
    pub counts: Vec<u32>,
    /// The contracts of each month (indices into the dataset).
    pub members: Vec<Vec<u32>>,
}

impl OrganMonths {
    /// `ln(value + floor)` per month, the floor being 1% of the median active month (so empty
    /// months sit well below every active one without going to minus infinity).
    pub fn logs(&self) -> Vec<f64> {
        let mut active: Vec<f64> = self.values.iter().copied().filter(|v| *v > 0.0).collect();
        let floor = if active.is_empty() { 1.0 } else { (0.01 * median_in_place(&mut active)).max(1.0) };
        self.values.iter().map(|v| (v + floor).ln()).collect()
    }
    /// Mean contracts per month.
    pub fn mean_count(&self) -> f64 {
        self.counts.iter().map(|c| f64::from(*c)).sum::<f64>() / self.counts.len().max(1) as f64
    }
}

/// The shared grid: its first month key and length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grid {
    /// First month (`year * 12 + month0`).
    pub first: i32,
    /// Number of months.
    pub len: usize,
}

/// Every organ's monthly series, sorted by organ code. Contracts without an organ, a signing
/// date or a positive value are left out.
pub fn organ_months(ds: &Dataset, cancel: &CancelFlag) -> Result<(Grid, Vec<OrganMonths>), AnalysisError> {
    let cs = &ds.contracts;
    let usable = |i: usize| {
        let c = &cs[i];
        c.signed_on.is_some() && !c.organ.code.is_empty() && c.value() > 0.0 && c.value().is_finite()
    };
    let keys: Vec<i32> = cs.iter().map(|c| c.signed_on.map_or(i32::MIN, month_key)).collect();
    let (mut lo, mut hi) = (i32::MAX, i32::MIN);
    for i in (0..cs.len()).filter(|&i| usable(i)) {
        lo = lo.min(keys[i]);
        hi = hi.max(keys[i]);
    }
    if lo > hi {
        return Ok((Grid { first: 0, len: 0 }, Vec::new()));
    }
    let lo = lo.max(hi - MAX_MONTHS + 1);
    let len = (hi - lo + 1) as usize;
    let mut slot: HashMap<&str, usize, FxBuild> = HashMap::default();
    let mut out: Vec<OrganMonths> = Vec::new();
    for (i, c) in cs.iter().enumerate() {
        if i % 16_384 == 0 {
            cancel.check()?;
        }
        if !usable(i) || keys[i] < lo {
            continue;
        }
        let k = *slot.entry(c.organ.code.as_str()).or_insert_with(|| {
            out.push(OrganMonths {
                organ: c.organ.code.clone(),
                example: i,
                values: vec![0.0; len],
                counts: vec![0; len],
                members: vec![Vec::new(); len],
            });
            out.len() - 1
        });
        let m = (keys[i] - lo) as usize;
        let s = &mut out[k];
        s.values[m] += c.value();
        s.counts[m] += 1;
        s.members[m].push(i as u32);
    }
    out.sort_by(|a, b| a.organ.cmp(&b.organ));
    Ok((Grid { first: lo, len }, out))
}

/// Median and 1.4826 MAD (at least `floor`) of a slice, without changing it.
pub fn robust(values: &[f64], floor: f64) -> (f64, f64) {
    let mut v = values.to_vec();
    let m = median_in_place(&mut v);
    for x in v.iter_mut() {
        *x = (*x - m).abs();
    }
    (m, (1.4826 * median_in_place(&mut v)).max(floor))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::contract;

    #[test]
    fn the_grid_is_zero_filled_and_shared_by_every_organ() {
        let ds = Dataset::from_contracts(vec![
            contract("1", "X", "S", "26000", 10.0, (2024, 1, 5)),
            contract("2", "X", "S", "26000", 5.0, (2024, 4, 5)),
            contract("3", "X", "S", "36000", 7.0, (2024, 2, 5)),
            contract("4", "X", "S", "36000", 0.0, (2023, 2, 5)),
        ]);
        let (grid, series) = organ_months(&ds, &CancelFlag::new()).unwrap();
        assert_eq!(grid, Grid { first: 2024 * 12, len: 4 });
        assert_eq!(series.len(), 2);
        assert_eq!(series[0].organ, "26000");
        assert_eq!(series[0].values, vec![10.0, 0.0, 0.0, 5.0]);
        assert_eq!(series[1].counts, vec![0, 1, 0, 0]);
        assert_eq!(series[1].members[1], vec![2]);
        assert_eq!(month_label(grid.first + 3), "2024-04");
        let logs = series[0].logs();
        assert!(logs[1] < logs[3] && logs[1].is_finite());
    }
}
