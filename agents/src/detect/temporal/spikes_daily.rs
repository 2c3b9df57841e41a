//! Daily bursts, the daily grain of `spending_spike`: a day on which an organ signed contracts
//! of far more procurement processes than on the other days of that month.
//!
//! Each organ's contracts are laid on a zero-filled daily grid, counting distinct process
//! numbers (`numeroProcesso`) per day: one pregão that ends in forty contracts signed together
//! is one purchase, not a burst. A day with `k` processes in a month of `M` processes over `D`
//! days is compared with the month's other days: `lambda = max((M - k) / (D - 1), 0.5)` (the
//! floor keeps a quiet month from making any busy day look impossible) and `P(X >= k)` for
//! `X ~ Poisson(lambda)` is its significance. A day is flagged when `-log10 P > Q(s)`,
//! `k >= R(s) lambda` and `k >= 8`.
//!
//! Only days of months the organ's history covers are judged ([`crate::detect::coverage`]): never in
//! a dataset of one publication month (its days are whatever happened to be published then:
//! the last days of December, published in January, crowd a January download), nor in the
//! data's cut first and last months or the organ's first month. A publication batch is not a
//! burst: days are read from the signing dates, and a day on which at least
//! [`BATCH_SHARE`] of the contracts carry a signing date equal to their DOU publication date,
//! in an organ whose contracts are otherwise published after signing, is taken for a batch
//! whose publication date was copied into the signing date, and not judged. Nor is a day whose
//! processes are mostly utility supplies, leases or agreements with public bodies
//! ([`crate::detect::market`]): an organ signs the power and water of all its units at once, which is
//! no rush to buy; a day needs [`MIN_PROCESSES`] processes of other purchases.
//!
//! Baselines are monthly, so a month that is busy throughout (a monthly spike, an end-of-year
//! rush) is not a daily burst; those are the monthly grain's findings. Sensitivity `s` moves
//! `Q(s)` through 16 (s = 0), 10 (s = 0.7) and 6 (s = 1) and `R(s)` through 6, 3 and 2
//! (calibrated on planted data: over the tens of thousands of organ-days of the clean demo
//! data no day passes 6, and planted bursts reach 12 and far more). Confidence =
//! `margin_confidence(-log10 P - Q(s), 4)`. The money at stake is the day's value beyond its
//! expected share, `value (1 - lambda / k)`. Complexity: `O(n log n)` (one sort of each
//! organ's contracts by day and process).
//!
//! Severity: high at most ([`crate::model::anomaly::Anomaly::at_most`]): the pattern asks for an
//! explanation; it proves no wrong by itself.

use std::collections::HashMap;
use std::hash::BuildHasher;

use chrono::{Datelike, NaiveDate};
use serde_json::json;

use crate::cancel::{AnalysisError, CancelFlag};
use crate::detect::common::{FxBuild, round2, round4};
use crate::detect::coverage::Coverage;
use crate::detect::distributions::poisson_significance;
use crate::detect::finding::{Finding, contracts_and_organ, largest_contracts, pattern, point};
use crate::detect::market::Outside;
use crate::detect::sensitivity::{Threshold, margin_confidence, tidy};
use crate::detect::series::{days_in_month, month_key};
use crate::detect::shared::Shared;
use crate::detect::temporal::spikes::{MAX_RELATED, NAME};
use crate::model::anomaly::{Anomaly, AnomalyType};
use crate::model::params::DetectionParams;
use crate::text::{format_brl, format_decimal};

/// `-log10` of the day's Poisson tail, as sensitivity moves it.
pub const SIGNIFICANCE: Threshold = Threshold::new(16.0, 10.0, 6.0);
/// The day's processes over the month's daily rate, as sensitivity moves it.
pub const RATIO: Threshold = Threshold::new(6.0, 3.0, 2.0);
/// Fewest processes on a flagged day.
pub const MIN_PROCESSES: usize = 8;
/// Lowest daily rate a baseline may have.
pub const MIN_RATE: f64 = 0.5;
/// Share of a day's contracts signed on their publication date from which the day is read as
/// a publication batch (when the organ's other contracts are not published on signing).
pub const BATCH_SHARE: f64 = 0.8;

/// One day of one organ: its distinct processes and its contracts.
struct Day {
    date: NaiveDate,
    processes: usize,
    contracts: Vec<usize>,
}

/// The daily bursts of every organ.
pub fn bursts(
    sh: &Shared<'_>,
    coverage: &Coverage,
    p: &DetectionParams,
    cancel: &CancelFlag,
) -> Result<Vec<Anomaly>, AnalysisError> {
    let (q, r) = (SIGNIFICANCE.at(p.sensitivity), RATIO.at(p.sensitivity));
    let (grid, series) = sh.organ_months(cancel)?;
    let (order, start) = sh.organs().groups();
    let names = &sh.organs().names;
    let mut out = Vec::new();
    for k in 0..start.len().saturating_sub(1) {
        cancel.check()?;
        let members = &order[start[k] as usize..start[k + 1] as usize];
        if members.len() < MIN_PROCESSES {
            continue;
        }
        let Ok(at) = series.binary_search_by(|s| s.organ.cmp(&names[k])) else { continue };
        let Some(span) = coverage.span(&series[at]) else { continue };
        let judged = |d: NaiveDate| {
            let m = month_key(d) - grid.first;
            m >= 0 && span.judges(m as usize, 1, 0)
        };
        let same_day = same_day_share(sh, members.iter().map(|&i| i as usize));
        let days = organ_days(sh, members);
        let mut month_total: HashMap<(i32, u32), usize, FxBuild> = HashMap::default();
        for d in &days {
            *month_total.entry((d.date.year(), d.date.month())).or_default() += d.processes;
        }
        for (at, d) in days.iter().enumerate().filter(|(_, d)| d.processes >= MIN_PROCESSES && judged(d.date)) {
            if same_day < BATCH_SHARE && same_day_share(sh, d.contracts.iter().copied()) >= BATCH_SHARE {
                continue;
            }
            if purchases(sh, &d.contracts) < MIN_PROCESSES {
                continue;
            }
            let in_month = month_total[&(d.date.year(), d.date.month())];
            let lambda = ((in_month - d.processes) as f64
                / (days_in_month(d.date.year(), d.date.month()).max(2) - 1) as f64)
                .max(MIN_RATE);
            let significance = poisson_significance(d.processes, lambda);
            if significance > q && d.processes as f64 >= r * lambda {
                let confidence = tidy(margin_confidence(significance - q, 4.0));
                if confidence >= p.confidence_threshold {
                    let burst = Burst { days: &days, at, lambda, significance, q, r };
                    out.push(anomaly(sh, &burst, confidence, p.sensitivity));
                }
            }
        }
    }
    Ok(out)
}

/// Distinct processes among a day's contracts that are purchases an organ can rush: utility
/// supplies, leases and agreements with public bodies ([`crate::detect::market`]) are formalised in
/// batches (an organ signs the power and water of all its units at once) and are left out.
fn purchases(sh: &Shared<'_>, contracts: &[usize]) -> usize {
    let (cs, outside) = (&sh.dataset().contracts, sh.outside());
    let mut processes: Vec<&str> = contracts
        .iter()
        .filter(|&&i| !matches!(outside[i], Some(Outside::Utility | Outside::Lease | Outside::PublicBody)))
        .map(|&i| &cs[i])
        .map(|c| if c.process_number.is_empty() { c.id.as_str() } else { c.process_number.as_str() })
        .collect();
    processes.sort_unstable();
    processes.dedup();
    processes.len()
}

/// Share of these contracts (among those with both dates) signed on their publication date.
fn same_day_share(sh: &Shared<'_>, idx: impl Iterator<Item = usize>) -> f64 {
    let cs = &sh.dataset().contracts;
    let (mut same, mut both) = (0usize, 0usize);
    for i in idx {
        if let (Some(s), Some(p)) = (cs[i].signed_on, cs[i].published_on) {
            both += 1;
            same += usize::from(s == p);
        }
    }
    same as f64 / both.max(1) as f64
}

/// An organ's signed contracts grouped by day, with the distinct processes of each day.
fn organ_days(sh: &Shared<'_>, members: &[u32]) -> Vec<Day> {
    let ds = sh.dataset();
    let mut rows: Vec<(NaiveDate, u64, usize)> = members
        .iter()
        .filter_map(|&i| {
            let c = &ds.contracts[i as usize];
            let process = if c.process_number.is_empty() { c.id.as_str() } else { c.process_number.as_str() };
            c.signed_on.map(|d| (d, FxBuild::default().hash_one(process), i as usize))
        })
        .collect();
    rows.sort_unstable();
    let mut days: Vec<Day> = Vec::new();
    let mut last_process = None;
    for (date, process, i) in rows {
        match days.last_mut() {
            Some(d) if d.date == date => {
                d.processes += usize::from(last_process != Some(process));
                d.contracts.push(i);
            }
            _ => days.push(Day { date, processes: 1, contracts: vec![i] }),
        }
        last_process = Some(process);
    }
    days
}

/// The day judged, among its organ's days.
struct Burst<'d> {
    days: &'d [Day],
    at: usize,
    lambda: f64,
    significance: f64,
    q: f64,
    r: f64,
}

fn anomaly(sh: &Shared<'_>, b: &Burst<'_>, confidence: f64, sensitivity: f64) -> Anomaly {
    let ds = sh.dataset();
    let day = &b.days[b.at];
    let first = &ds.contracts[day.contracts[0]];
    let organ = crate::detect::common::organ_name(first);
    let date = day.date.format("%Y-%m-%d").to_string();
    let value: f64 = day.contracts.iter().map(|&i| ds.contracts[i].value()).sum();
    let ratio = day.processes as f64 / b.lambda;
    let at_stake = value * (1.0 - b.lambda / day.processes as f64).max(0.0);
    let named = largest_contracts(ds, day.contracts.clone(), MAX_RELATED);
    let related = contracts_and_organ(ds, &named, first);
    let data_points = b
        .days
        .iter()
        .filter(|d| (d.date - day.date).num_days().abs() <= 7)
        .map(|d| point("daily_processes", d.processes as f64, Some(d.date.format("%Y-%m-%d").to_string())))
        .collect();
    let a = Finding {
        detector: NAME,
        kind: AnomalyType::TemporalAnomaly,
        key: format!("{}-{}", first.organ.code, date),
        confidence,
        at_stake,
        threshold: round4(b.q),
        description: format!(
            "{organ} assinou contratos de {} processos em {date} ({} contratos, {}), {} vezes a média diária do mês",
            day.processes,
            day.contracts.len(),
            format_brl(value),
            format_decimal(ratio, 1)
        ),
        human_pt: format!(
            "Em {date}, {organ} assinou contratos de {} processos de compra diferentes ({} contratos somando {}), \
             quando os outros dias do mês tiveram em média {}. Uma rajada assim num só dia pede a explicação do \
             que foi comprado às pressas.",
            day.processes,
            day.contracts.len(),
            format_brl(value),
            format_decimal(b.lambda, 1)
        ),
        human_en: format!(
            "On {date}, the organ signed contracts of {} different purchase processes, {ratio:.1} times the other days \
             of the month.",
            day.processes
        ),
        technical: format!(
            "distinct processes per day on a zero-filled daily grid: k = {} against a Poisson rate of {:.3} from the \
             month's other days; -log10 P(X >= k) = {:.2} > {:.2} and k >= {:.2} x rate (thresholds at sensitivity {})",
            day.processes, b.lambda, b.significance, b.q, b.r, sensitivity
        ),
        primary: crate::detect::common::organ_ref(first),
        related,
        data_points,
        patterns: vec![pattern(
            "daily_burst",
            format!("{date} holds {ratio:.1}x the month's daily rate of purchase processes"),
            json!({"date": date, "processes": day.processes, "contracts": day.contracts.len(), "ratio_to_rate": round2(ratio)}),
        )],
        method: "poisson_tail_daily_processes",
        score: b.significance,
        contamination: 1.0 / b.days.len().max(1) as f64,
        peer: Some(json!({
            "baseline": "organ_month_daily_rate",
            "organ": first.organ.code.as_str(),
            "daily_rate": round4(b.lambda),
        })),
        regulatory: None,
        factors: vec![
            ("significance".into(), 0.6, format!("-log10 p = {:.1} under the month's daily rate", b.significance)),
            ("processes".into(), 0.4, format!("{} distinct processes on one day", day.processes)),
        ],
        details: vec![
            ("grain", json!("day")),
            ("organ", json!(first.organ.code.as_str())),
            ("date", json!(date)),
            ("processes", json!(day.processes)),
            ("contracts", json!(day.contracts.len())),
            ("daily_rate", json!(round4(b.lambda))),
            ("significance", json!(round4(b.significance))),
            ("sensitivity", json!(sensitivity)),
            ("baseline", json!("organ_month_daily_rate")),
            ("day_value", json!(round2(value))),
        ],
    }
    .build();
    a.at_most(crate::model::anomaly::Severity::High)
}

#[cfg(test)]
#[path = "spikes_daily_tests.rs"]
mod tests;
