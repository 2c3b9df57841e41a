//! What span of time a dataset really covers, read from its own dates, and which months of an
//! organ's series have enough history around them to be judged. The spike, regime-change,
//! forecast, daily-burst and end-of-year detectors all ask here before judging a month.
//!
//! Three traps of real records decide the rules:
//!
//! - A download of one publication month (the Portal's monthly "Compras": contracts published
//!   in 2024-01 were signed mostly in Dec 2023 and Jan 2024, with a long tail of old ones) is
//!   not a series: its months are samples of what happened to be published then. It is
//!   recognised when the two busiest consecutive signing months hold at least
//!   [`SNAPSHOT_SHARE`] of the dated contracts, or when at least [`SNAPSHOT_SHARE`] of the
//!   publication dates fall in one month; then no month is judged.
//! - The first and last months of the data are cut by the extraction (a download made on the
//!   10th holds a third of that month), so they are never judged, and the last one is left out
//!   of the series the detectors fit, unless the data's last signing date falls in the last
//!   [`COMPLETE_DAYS`] days of its month (the data then runs to the month's end).
//! - An organ's early months are often a thin tail (the contracts of those years that are
//!   still listed, as in a registry of contracts in force) rather than its activity. Its
//!   series starts at its first *regular* month: the first month from which at least
//!   [`REGULAR_MONTHS`] of the next 12 hold contracts, and at least [`REGULAR_VOLUME`] of the
//!   contracts of its usual 12 months (the median of its 12-month windows over its last two
//!   years, where the record is most complete): a year
//!   with far fewer records than usual is taken for incomplete coverage (a source adopted
//!   gradually, a registry that keeps only contracts still in force), not for lower spending;
//!   a rise of value with the same records stays visible. The first regular month itself (its
//!   first appearance) is not judged either.

use chrono::Datelike;

use super::series::{Grid, OrganMonths, month_key, month_label};
use super::stats::median_in_place;
use crate::model::dataset::Dataset;

/// Share of the dated contracts in two consecutive signing months (or of the publication
/// dates in one month) from which a dataset is one publication month, not a series.
pub const SNAPSHOT_SHARE: f64 = 0.75;
/// Of the 12 months from an organ's first regular month, how many must hold contracts.
pub const REGULAR_MONTHS: usize = 9;
/// The 12 months from an organ's first regular month hold at least this share of the
/// contracts of its usual 12 months (the median of its 12-month windows over its last
/// [`RECENT_MONTHS`]).
pub const REGULAR_VOLUME: f64 = 2.0 / 3.0;
/// The recent months whose 12-month windows set an organ's usual year.
pub const RECENT_MONTHS: usize = 24;
/// The data's last month counts as complete when its last signing date is this close to the
/// month's end.
pub const COMPLETE_DAYS: u32 = 3;

/// What the dataset's own dates say about the span it covers.
#[derive(Debug, Clone, PartialEq)]
pub struct Coverage {
    /// Set when the dataset is one publication month: then nothing is judged.
    pub snapshot: Option<Snapshot>,
    /// Whether the data runs to the end of its last month (else that month is left out).
    pub last_complete: bool,
    /// Whether the data starts at the beginning of its first month (else that month is left
    /// out).
    pub first_complete: bool,
}

impl Coverage {
    /// Reads the coverage of a dataset from its shared monthly grid and its dates. Linear.
    pub fn of(ds: &Dataset, grid: &Grid, series: &[OrganMonths]) -> Self {
        // The first and last signing dates on the grid, in one pass.
        let (first, last) = ds
            .contracts
            .iter()
            .filter(|c| !c.organ.code.is_empty() && c.value() > 0.0)
            .filter_map(|c| c.signed_on)
            .filter(|d| month_key(*d) >= grid.first)
            .fold((None, None), |(lo, hi): (Option<chrono::NaiveDate>, Option<chrono::NaiveDate>), d| {
                (Some(lo.map_or(d, |x| x.min(d))), Some(hi.map_or(d, |x| x.max(d))))
            });
        let last_complete = last.is_some_and(|d| {
            let days = super::series::days_in_month(d.year(), d.month());
            d.day() + COMPLETE_DAYS > days
        });
        let first_complete = first.is_some_and(|d| d.day() <= COMPLETE_DAYS);
        Coverage { snapshot: snapshot(ds, grid, series), last_complete, first_complete }
    }

    /// The span of an organ's series that may be judged ([`Span`]), `None` when the dataset is
    /// one publication month or the organ never becomes regular.
    pub fn span(&self, s: &OrganMonths) -> Option<Span> {
        if self.snapshot.is_some() {
            return None;
        }
        let end = if self.last_complete { s.counts.len() } else { s.counts.len().checked_sub(1)? };
        span_within(s, usize::from(!self.first_complete), end)
    }
}

/// Why a dataset has no series to judge.
#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    /// The busiest consecutive signing months, `YYYY-MM`, or the publication month.
    pub months: String,
    /// Their share of the dated contracts.
    pub share: f64,
    /// Whether it was read from the publication dates (else from the signing dates).
    pub by_publication: bool,
}

impl Snapshot {
    /// One Portuguese sentence saying why no month is judged (for an agent's insight).
    pub fn reason(&self) -> String {
        let what =
            if self.by_publication { "das datas de publicação cai em" } else { "dos contratos foi assinada em" };
        format!(
            "Os dados cobrem um único mês de publicação ({:.0}% {} {}): não há série temporal para julgar picos, \
             mudanças de patamar, previsões ou concentração em dezembro",
            self.share * 100.0,
            what,
            self.months
        )
    }
}

/// Whether the dataset is one publication month (see the module's notes), from the monthly
/// counts of the shared grid and the publication dates. Linear.
pub fn snapshot(ds: &Dataset, grid: &Grid, series: &[OrganMonths]) -> Option<Snapshot> {
    let mut per_month = vec![0u64; grid.len];
    for s in series {
        for (m, c) in s.counts.iter().enumerate() {
            per_month[m] += u64::from(*c);
        }
    }
    let total: u64 = per_month.iter().sum();
    if total > 0 {
        let (at, pair) = (0..grid.len)
            .map(|m| (m, per_month[m] + per_month.get(m + 1).copied().unwrap_or(0)))
            .max_by_key(|&(m, v)| (v, std::cmp::Reverse(m)))?;
        let share = pair as f64 / total as f64;
        if share >= SNAPSHOT_SHARE && grid.len > 2 {
            let first = grid.first + at as i32;
            let months = format!("{} e {}", month_label(first), month_label(first + 1));
            return Some(Snapshot { months, share, by_publication: false });
        }
    }
    publication_month(ds)
}

/// The month holding at least [`SNAPSHOT_SHARE`] of the (plausible) publication dates, when at
/// least half of the contracts have one.
fn publication_month(ds: &Dataset) -> Option<Snapshot> {
    let mut counts: std::collections::HashMap<i32, usize, super::common::FxBuild> = Default::default();
    let mut dated = 0usize;
    for k in ds.contracts.iter().filter_map(|c| c.published_on.filter(plausible).map(month_key)) {
        *counts.entry(k).or_default() += 1;
        dated += 1;
    }
    if dated * 2 < ds.contracts.len() || dated == 0 {
        return None;
    }
    let (month, n) = counts.iter().max_by_key(|(k, n)| (**n, std::cmp::Reverse(**k)))?;
    let share = *n as f64 / dated as f64;
    (share >= SNAPSHOT_SHARE).then(|| Snapshot { months: month_label(*month), share, by_publication: true })
}

/// Whether a date can be real: the sentinels of missing dates (1900-01-01 and the like) are
/// not.
pub fn plausible(d: &chrono::NaiveDate) -> bool {
    d.year() >= 1950
}

/// The months of one organ's series that may be judged, as indices into the shared grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// The organ's first regular month (its first appearance, never judged itself).
    pub start: usize,
    /// One past the last month fitted: the data's last month is left out when it is cut by
    /// the extraction.
    pub end: usize,
}

impl Span {
    /// Months in the span.
    pub fn len(&self) -> usize {
        self.end.saturating_sub(self.start)
    }
    /// Whether the span holds no month.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Whether all twelve months of `year` lie in the span (on `grid`).
    pub fn covers_year(&self, grid: &Grid, year: i32) -> bool {
        let january = year * 12 - grid.first;
        january >= self.start as i32 && january + 12 <= self.end as i32
    }
    /// Whether month `m` has at least `before` months of the span before it (the first
    /// regular month excluded from judgement by `before >= 1`) and `after` after it.
    pub fn judges(&self, m: usize, before: usize, after: usize) -> bool {
        m >= self.start + before.max(1) && m + after < self.end
    }
}

/// The span of an organ's series within months `from..end` ([`Span`]), `None` when it never
/// becomes regular there.
fn span_within(s: &OrganMonths, from: usize, end: usize) -> Option<Span> {
    let counts = &s.counts;
    let window = |m: usize| &counts[m..(m + 12).min(end)];
    // The usual year of the organ: the median contracts of its full 12-month windows over its
    // last [`RECENT_MONTHS`] (incomplete coverage is a thing of the past: a source fills up
    // from its adoption on, a registry of contracts in force thins out backwards).
    let last_full = end.saturating_sub(11);
    let mut years: Vec<f64> = (from.max(last_full.saturating_sub(RECENT_MONTHS))..last_full)
        .map(|m| window(m).iter().map(|c| f64::from(*c)).sum())
        .collect();
    let usual_year = if years.is_empty() { 0.0 } else { median_in_place(&mut years) };
    let start = (from..end).find(|&m| {
        let w = window(m);
        let active = w.iter().filter(|c| **c > 0).count();
        let contracts: f64 = w.iter().map(|c| f64::from(*c)).sum();
        counts[m] > 0
            && active >= REGULAR_MONTHS.min(w.len())
            && (w.len() < 12 || contracts >= REGULAR_VOLUME * usual_year)
    })?;
    Some(Span { start, end })
}

/// Mean contracts per month over a span.
pub fn mean_count(s: &OrganMonths, sp: Span) -> f64 {
    s.counts[sp.start..sp.end].iter().map(|c| f64::from(*c)).sum::<f64>() / sp.len().max(1) as f64
}

#[cfg(test)]
#[path = "coverage_tests.rs"]
pub(crate) mod tests;
