//! Expense documents (empenhos, fase 1) for one investigation. `/despesas/documentos` takes
//! one day and one managing unit per call, so a year of a dozen units is over 4,000 requests:
//! when the budget cannot pay for every day, the days read are spread evenly over the months
//! of the period (every unit on each day read), visited month by month in rounds so that a cut
//! by paging still leaves every month sampled, and the notes say which days were read and how
//! many records the upstream had on them.

use std::collections::BTreeMap;

use chrono::{Datelike, NaiveDate};
use vigia_agents::model::expense::{Expense, expense_from_upstream};

use super::collect::{EXPENSE_SHARE, Part, Plan, parse, share};
use super::params::{Endpoint, dmy, months};
use super::source::UpstreamError;
use super::transparency::TransparencyClient;

/// The days to read: every day of the period when `affordable` covers them, else `affordable`
/// days spread over the months (month `i` of `m` gets `k(i+1)/m - ki/m` days, each month's
/// days centred in equal slices of it), in the order to read them: the first day of every
/// month, then the second of every month, and so on.
pub fn sample_days(from: NaiveDate, to: NaiveDate, affordable: usize) -> Vec<NaiveDate> {
    let windows = months(from, to);
    let total: usize = windows.iter().map(|(a, b)| span(*a, *b)).sum();
    let k = affordable.min(total);
    let m = windows.len();
    let per_month: Vec<Vec<NaiveDate>> = windows
        .iter()
        .enumerate()
        .map(|(i, &(first, last))| {
            let n = span(first, last);
            let want = if k == total { n } else { k * (i + 1) / m - k * i / m };
            (0..want)
                .filter_map(|j| first.checked_add_days(chrono::Days::new(((2 * j + 1) * n / (2 * want)) as u64)))
                .collect()
        })
        .collect();
    let rounds = per_month.iter().map(Vec::len).max().unwrap_or(0);
    (0..rounds).flat_map(|j| per_month.iter().filter_map(move |days| days.get(j).copied())).collect()
}

fn span(first: NaiveDate, last: NaiveDate) -> usize {
    (last - first).num_days().max(0) as usize + 1
}

/// The empenhos of `units` (the managing units the contracts name) on the days the budget
/// affords.
pub async fn expenses(
    client: &TransparencyClient,
    plan: &Plan,
    units: &[String],
) -> Result<(Vec<Expense>, Part), UpstreamError> {
    let mut budget = share(EXPENSE_SHARE, plan);
    let mut part = Part::new();
    let mut out = Vec::new();
    if units.is_empty() {
        part.notes.push("despesas not read: the contracts read name no managing unit".into());
        return Ok((out, part));
    }
    let total = span(plan.from, plan.to);
    let planned = sample_days(plan.from, plan.to, (budget.requests / units.len()).max(1));
    let mut read: Vec<NaiveDate> = Vec::new();
    'days: for &day in &planned {
        for unit in units {
            if budget.requests == 0 || budget.records == 0 {
                part.truncated = true;
                break 'days;
            }
            let query = vec![("dataEmissao", dmy(day)), ("fase", "1".to_string()), ("unidadeGestora", unit.clone())];
            let listed = client.list(Endpoint::Expenses, &query, &mut budget).await?;
            part.available += listed.received;
            part.truncated |= !listed.complete;
            part.cached &= listed.cached;
            out.extend(parse(&listed.rows, "despesa", expense_from_upstream));
        }
        read.push(day);
    }
    part.truncated |= read.len() < total;
    let days = if read.len() == total {
        format!("every day from {} to {}", dmy(plan.from), dmy(plan.to))
    } else {
        format!("{} of the {total} days of the period ({})", read.len(), by_month(&read))
    };
    part.notes.push(format!(
        "despesas (empenhos) read for {days}, all {} managing units each day: {} records available on those days",
        units.len(),
        part.available
    ));
    Ok((out, part))
}

/// `01/2024: 08, 23; 02/2024: 07, 22`.
fn by_month(days: &[NaiveDate]) -> String {
    let mut months: BTreeMap<(i32, u32), Vec<u32>> = BTreeMap::new();
    for d in days {
        months.entry((d.year(), d.month())).or_default().push(d.day());
    }
    months
        .into_iter()
        .map(|((y, m), mut days)| {
            days.sort_unstable();
            let days: Vec<String> = days.iter().map(|d| format!("{d:02}")).collect();
            format!("{m:02}/{y}: {}", days.join(", "))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(y: i32, m: u32, day: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(y, m, day).unwrap()
    }

    #[test]
    fn a_year_sampled_on_24_days_reads_two_days_of_every_month_in_rounds() {
        let days = sample_days(d(2024, 1, 1), d(2024, 12, 31), 24);
        assert_eq!(days.len(), 24);
        for m in 1..=12 {
            let of_month: Vec<u32> = days.iter().filter(|x| x.month() == m).map(|x| x.day()).collect();
            assert_eq!(of_month.len(), 2, "month {m}: {of_month:?}");
            assert!(of_month[0] < 16 && of_month[1] >= 15, "spread through the month: {of_month:?}");
        }
        // The first round visits every month before any month's second day.
        let first_round: Vec<u32> = days[..12].iter().map(|x| x.month()).collect();
        assert_eq!(first_round, (1..=12).collect::<Vec<_>>());
        assert_eq!(by_month(&days[..2]), "01/2024: 08; 02/2024: 08");
    }

    #[test]
    fn a_budget_that_covers_the_period_reads_every_day_and_a_small_one_spreads_what_it_has() {
        let march = sample_days(d(2024, 3, 1), d(2024, 3, 31), 100);
        assert_eq!(march.len(), 31);
        assert_eq!((march[0], march[30]), (d(2024, 3, 1), d(2024, 3, 31)));
        let five = sample_days(d(2024, 1, 1), d(2024, 12, 31), 5);
        let months: Vec<u32> = five.iter().map(|x| x.month()).collect();
        assert_eq!(months.len(), 5);
        assert!(months.windows(2).all(|w| w[0] < w[1]) && months[4] == 12, "spread over the year: {months:?}");
    }
}
