//! Chart-ready totals of spending rows: a breakdown by one dimension (the largest groups and the
//! rest summed as "others") and a monthly time series with the months between filled with
//! zeros. One pass over the rows each, hash maps keyed by borrowed text.

use std::collections::{BTreeMap, HashMap};

use chrono::{Datelike, NaiveDate};
use serde::Serialize;

use crate::model::dataset::Dataset;

/// One spending record as the aggregations read it.
#[derive(Debug, Clone, Copy)]
pub struct Row<'a> {
    /// The record's id.
    pub id: &'a str,
    /// SIAFI code of the organ.
    pub organ_code: &'a str,
    /// The organ's acronym or name.
    pub organ_label: &'a str,
    /// The supplier's CNPJ/CPF ("" when unknown).
    pub supplier_doc: &'a str,
    /// The supplier's name.
    pub supplier_name: &'a str,
    /// When (signing date, or the document's date).
    pub date: Option<NaiveDate>,
    /// Purchase modality.
    pub modality: &'a str,
    /// R$.
    pub value: f64,
}

impl<'a> Row<'a> {
    /// The key that tells suppliers apart: the document, else the name.
    pub fn supplier_key(&self) -> &'a str {
        if self.supplier_doc.is_empty() { self.supplier_name } else { self.supplier_doc }
    }
    /// The key that tells organs apart: the code, else the label.
    pub fn organ_key(&self) -> &'a str {
        if self.organ_code.is_empty() { self.organ_label } else { self.organ_code }
    }
}

fn label<'a>(acronym: &'a str, name: &'a str) -> &'a str {
    if acronym.is_empty() { name } else { acronym }
}

/// The contracts as rows (their final value, else the initial one).
pub fn contract_rows(ds: &Dataset) -> Vec<Row<'_>> {
    ds.contracts
        .iter()
        .map(|c| Row {
            id: &c.id,
            organ_code: &c.organ.code,
            organ_label: label(&c.organ.acronym, &c.organ.name),
            supplier_doc: &c.supplier.document,
            supplier_name: &c.supplier.name,
            date: c.signed_on,
            modality: &c.modality,
            value: c.value(),
        })
        .collect()
}

/// The expense commitments (empenhos) as rows: the phase that records a purchase, so that an
/// expense paid in three phases is counted once.
pub fn commitment_rows(ds: &Dataset) -> Vec<Row<'_>> {
    ds.expenses
        .iter()
        .filter(|e| e.is_commitment())
        .map(|e| Row {
            id: &e.id,
            organ_code: &e.organ.code,
            organ_label: label(&e.organ.acronym, &e.organ.name),
            supplier_doc: &e.payee.document,
            supplier_name: &e.payee.name,
            date: e.date,
            modality: &e.modality,
            value: e.value,
        })
        .collect()
}

/// One bar of a chart.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Bar {
    /// What tells the group apart (organ code, CNPJ, modality).
    pub key: String,
    /// What to print.
    pub label: String,
    /// R$.
    #[serde(serialize_with = "crate::detect::common::serialize_cents")]
    pub value: f64,
    /// Records.
    pub count: usize,
}

/// Totals by one dimension: the largest groups, the rest summed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Breakdown {
    /// `organ`, `supplier`, `modality`.
    pub dimension: &'static str,
    /// `contracts` or `commitments`.
    pub source: &'static str,
    /// Sum of every row, R$ (`bars` plus `others`).
    #[serde(serialize_with = "crate::detect::common::serialize_cents")]
    pub total: f64,
    /// Rows counted.
    pub records: usize,
    /// Groups in the data.
    pub groups: usize,
    /// The largest groups, largest first.
    pub bars: Vec<Bar>,
    /// Every other group summed (its label says how many); absent when none is left.
    pub others: Option<Bar>,
}

/// Totals of `rows` by `key` (with `label`), the `top` largest kept.
pub fn breakdown<'a>(
    rows: &[Row<'a>],
    dimension: &'static str,
    source: &'static str,
    top: usize,
    key: impl Fn(&Row<'a>) -> (&'a str, &'a str),
) -> Breakdown {
    let mut groups: HashMap<&str, (&str, f64, usize)> = HashMap::new();
    let mut total = 0.0;
    for r in rows {
        let (k, l) = key(r);
        let g = groups.entry(k).or_insert((l, 0.0, 0));
        g.1 += r.value;
        g.2 += 1;
        total += r.value;
    }
    let mut ranked: Vec<(&str, (&str, f64, usize))> = groups.into_iter().collect();
    ranked.sort_by(|a, b| b.1.1.total_cmp(&a.1.1).then(a.0.cmp(b.0)));
    let group_count = ranked.len();
    let bar = |(k, (l, v, n)): (&str, (&str, f64, usize))| Bar {
        key: k.to_string(),
        label: if l.is_empty() { "(não informado)".into() } else { l.to_string() },
        value: v,
        count: n,
    };
    let rest: Vec<(&str, (&str, f64, usize))> = ranked.split_off(top.min(ranked.len()));
    let others = (!rest.is_empty()).then(|| Bar {
        key: "others".into(),
        label: format!("Outros ({})", rest.len()),
        value: rest.iter().map(|r| r.1.1).sum(),
        count: rest.iter().map(|r| r.1.2).sum(),
    });
    Breakdown {
        dimension,
        source,
        total,
        records: rows.len(),
        groups: group_count,
        bars: ranked.into_iter().map(bar).collect(),
        others,
    }
}

/// One month of a series.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Point {
    /// `YYYY-MM`.
    pub period: String,
    /// R$.
    #[serde(serialize_with = "crate::detect::common::serialize_cents")]
    pub value: f64,
    /// Records.
    pub count: usize,
}

/// Spending by month, every month from the first to the last present (zeros between).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Series {
    /// `contracts` or `commitments`.
    pub source: &'static str,
    /// Sum of every row, R$ (`points` plus `undated`).
    #[serde(serialize_with = "crate::detect::common::serialize_cents")]
    pub total: f64,
    /// The months.
    pub points: Vec<Point>,
    /// Rows without a date: R$ and count.
    pub undated: Point,
}

/// The monthly series of `rows`.
pub fn monthly(rows: &[Row<'_>], source: &'static str) -> Series {
    let mut months: BTreeMap<(i32, u32), (f64, usize)> = BTreeMap::new();
    let (mut undated, mut undated_n, mut total) = (0.0, 0, 0.0);
    for r in rows {
        total += r.value;
        match r.date {
            Some(d) => {
                let m = months.entry((d.year(), d.month())).or_default();
                m.0 += r.value;
                m.1 += 1;
            }
            None => {
                undated += r.value;
                undated_n += 1;
            }
        }
    }
    let mut points = Vec::new();
    if let (Some((&first, _)), Some((&last, _))) = (months.first_key_value(), months.last_key_value()) {
        let (mut y, mut m) = first;
        while (y, m) <= last {
            let (value, count) = months.get(&(y, m)).copied().unwrap_or((0.0, 0));
            points.push(Point { period: format!("{y:04}-{m:02}"), value, count });
            (y, m) = if m == 12 { (y + 1, 1) } else { (y, m + 1) };
        }
    }
    Series { source, total, points, undated: Point { period: "undated".into(), value: undated, count: undated_n } }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A row of these organ, supplier (document and name), month, modality and value.
    pub fn row<'a>(
        organ: &'a str,
        supplier: &'a str,
        date: Option<(i32, u32)>,
        modality: &'a str,
        value: f64,
    ) -> Row<'a> {
        Row {
            id: "x",
            organ_code: organ,
            organ_label: organ,
            supplier_doc: supplier,
            supplier_name: supplier,
            date: date.and_then(|(y, m)| NaiveDate::from_ymd_opt(y, m, 10)),
            modality,
            value,
        }
    }

    #[test]
    fn a_breakdown_keeps_the_largest_groups_and_sums_the_rest() {
        let rows = [
            row("A", "s1", None, "Pregão", 100.0),
            row("A", "s2", None, "Pregão", 50.0),
            row("B", "s3", None, "", 30.0),
            row("C", "s1", None, "Dispensa", 20.0),
            row("D", "s4", None, "Dispensa", 5.0),
        ];
        let b = breakdown(&rows, "organ", "contracts", 2, |r| (r.organ_key(), r.organ_label));
        assert_eq!((b.total, b.records, b.groups), (205.0, 5, 4));
        assert_eq!(
            b.bars.iter().map(|x| (x.key.as_str(), x.value, x.count)).collect::<Vec<_>>(),
            vec![("A", 150.0, 2), ("B", 30.0, 1)]
        );
        let others = b.others.unwrap();
        assert_eq!((others.label.as_str(), others.value, others.count), ("Outros (2)", 25.0, 2));
        let m = breakdown(&rows, "modality", "contracts", 10, |r| (r.modality, r.modality));
        assert!(m.others.is_none());
        assert!(m.bars.iter().any(|x| x.label == "(não informado)" && x.value == 30.0));
    }

    #[test]
    fn a_monthly_series_fills_the_months_between_with_zeros_and_keeps_the_undated() {
        let rows = [
            row("A", "s", Some((2023, 11)), "", 10.0),
            row("A", "s", Some((2024, 2)), "", 5.0),
            row("A", "s", Some((2023, 11)), "", 1.0),
            row("A", "s", None, "", 7.0),
        ];
        let s = monthly(&rows, "contracts");
        let periods: Vec<(&str, f64)> = s.points.iter().map(|p| (p.period.as_str(), p.value)).collect();
        assert_eq!(periods, vec![("2023-11", 11.0), ("2023-12", 0.0), ("2024-01", 0.0), ("2024-02", 5.0)]);
        assert_eq!((s.undated.value, s.undated.count, s.total), (7.0, 1, 23.0));
        assert!(monthly(&[], "contracts").points.is_empty());
    }
}
