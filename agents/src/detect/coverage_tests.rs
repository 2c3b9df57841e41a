//! Tests of the coverage rules, and hand-made series the series detectors' tests share.

use super::*;
use crate::cancel::CancelFlag;
use crate::detect::series::organ_months;
use crate::detect::{temporal::end_of_year, temporal::forecast, temporal::regime, temporal::spikes};
use crate::model::contract::Contract;
use crate::model::params::DetectionParams;
use crate::testutil::contract;

/// `months` months of an organ from `(year, month)`, `per_month` contracts of about `value`
/// each, signed from the 1st to the 31st (or the month's last day) (so the first and last months are
/// complete); ids are `{organ}-{t}-{k}` for month `t` of the series.
pub(crate) fn monthly(organ: &str, from: (i32, u32), months: usize, per_month: usize, value: f64) -> Vec<Contract> {
    let mut cs = Vec::new();
    for t in 0..months {
        let m0 = from.1 as usize - 1 + t;
        let (y, m) = (from.0 + (m0 / 12) as i32, 1 + (m0 % 12) as u32);
        for k in 0..per_month {
            let last = crate::detect::series::days_in_month(y, m);
            let day = if per_month == 1 { 1 } else { (1 + (k * 30 / (per_month - 1)) as u32).min(last) };
            let v = value * (1.0 + 0.03 * ((t * 7 + k) % 5) as f64);
            cs.push(contract(&format!("{organ}-{t}-{k}"), "LIMPEZA", &format!("S{k}"), organ, v, (y, m, day)));
        }
    }
    cs
}

fn coverage(cs: Vec<Contract>) -> (Coverage, Vec<Option<Span>>) {
    let ds = Dataset::from_contracts(cs);
    let (grid, series) = organ_months(&ds, &CancelFlag::new()).unwrap();
    let c = Coverage::of(&ds, &grid, &series);
    let spans = series.iter().map(|s| c.span(s)).collect();
    (c, spans)
}

/// A Portal download of contracts published in January 2024: most signed in December 2023
/// and January 2024, a long tail of old ones.
fn publication_month() -> Vec<Contract> {
    let mut cs = Vec::new();
    for k in 0..400usize {
        let (y, m) = if k % 3 == 0 { (2023, 12) } else { (2024, 1) };
        let organ = ["26000", "36000", "30000", "25000"][k % 4];
        cs.push(contract(
            &format!("p{k}"),
            "LIMPEZA",
            &format!("S{}", k % 9),
            organ,
            1000.0,
            (y, m, 1 + (k % 28) as u32),
        ));
    }
    for k in 0..60usize {
        let (y, m) = (2015 + (k / 8) as i32, 1 + (k % 12) as u32);
        cs.push(contract(&format!("old{k}"), "LIMPEZA", "S1", ["26000", "36000"][k % 2], 5000.0, (y, m, 5)));
    }
    cs
}

#[test]
fn a_download_of_one_publication_month_has_no_series_to_judge() {
    let (c, spans) = coverage(publication_month());
    let snap = c.snapshot.clone().unwrap();
    assert!(!snap.by_publication && snap.months == "2023-12 e 2024-01" && snap.share > 0.85, "{snap:?}");
    assert!(snap.reason().contains("único mês de publicação"));
    assert!(spans.iter().all(Option::is_none));
    let ds = Dataset::from_contracts(publication_month());
    let p = DetectionParams { sensitivity: 1.0, ..DetectionParams::default() };
    for name in [spikes::NAME, regime::NAME, forecast::NAME, end_of_year::NAME] {
        let found = crate::detect::by_name(name).unwrap().run(&ds, &p, &CancelFlag::new()).unwrap();
        assert!(found.is_empty(), "{name}: {found:?}");
    }
}

#[test]
fn publication_dates_crowded_in_one_month_also_make_a_snapshot() {
    let mut cs = monthly("26000", (2022, 1), 24, 3, 100.0);
    for c in cs.iter_mut() {
        c.published_on = chrono::NaiveDate::from_ymd_opt(2024, 1, 10);
    }
    let (c, _) = coverage(cs);
    assert!(c.snapshot.is_some_and(|s| s.by_publication && s.months == "2024-01"));
}

#[test]
fn two_years_of_steady_contracting_are_a_series_from_the_first_month() {
    let (c, spans) = coverage(monthly("26000", (2023, 1), 24, 4, 100.0));
    assert!(c.snapshot.is_none() && c.first_complete && c.last_complete);
    assert_eq!(spans, vec![Some(Span { start: 0, end: 24 })]);
    let sp = spans[0].unwrap();
    assert!(!sp.judges(0, 0, 0), "an organ's first appearance is never judged");
    assert!(sp.judges(12, 12, 3) && !sp.judges(11, 12, 3) && !sp.judges(22, 12, 3));
}

#[test]
fn a_cut_last_month_and_a_thin_early_tail_are_left_out_of_the_span() {
    let mut cs = monthly("26000", (2023, 1), 24, 4, 100.0);
    // The extraction ran on 2025-01-10: January 2025 holds a few days.
    cs.push(contract("cut", "LIMPEZA", "S1", "26000", 100.0, (2025, 1, 10)));
    // Three old contracts still listed, years before the organ's regular activity.
    for (k, y) in [2015, 2018, 2020].into_iter().enumerate() {
        cs.push(contract(&format!("old{k}"), "LIMPEZA", "S1", "26000", 100.0, (y, 6, 15)));
    }
    let (c, spans) = coverage(cs);
    assert!(!c.last_complete && !c.first_complete);
    let sp = spans[0].unwrap();
    // The grid starts in 2015-06; 2023-01 is month 91 of it; the cut month 2025-01 (115) is left out.
    assert_eq!(sp, Span { start: 91, end: 115 });
    assert!(plausible(&chrono::NaiveDate::from_ymd_opt(2024, 1, 1).unwrap()));
    assert!(!plausible(&chrono::NaiveDate::from_ymd_opt(1900, 1, 1).unwrap()));
}

#[test]
fn a_ramp_of_few_contracts_before_the_organ_s_usual_volume_is_not_its_history() {
    // Two contracts a month for three years (what is still listed of those years), then ten.
    let mut cs = monthly("26000", (2020, 1), 36, 2, 100.0);
    cs.extend(monthly("26000", (2023, 1), 24, 10, 100.0).into_iter().map(|mut c| {
        c.id = format!("n{}", c.id).into();
        c
    }));
    let (_, spans) = coverage(cs);
    // The usual 12 months hold 120 contracts; the 12 from 2022-09 on hold 4 x 2 + 8 x 10 = 88,
    // the first window over two-thirds of it.
    let sp = spans[0].unwrap();
    assert!(sp.start >= 28 && sp.start <= 36, "{sp:?}");
}
