//! What a report is rendered from, in plain values: the findings, insights and recommendations
//! of an analysis, the parameters it ran with and the scope of its data ([`Scope`]: records by
//! kind, organs, period, data gaps). A host that stored a finished investigation builds a
//! [`ReportInput`] from what it kept and renders it again without the dataset.

use std::collections::BTreeMap;
use std::sync::Arc;

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

use crate::model::anomaly::Anomaly;
use crate::model::dataset::Dataset;
use crate::model::params::DetectionParams;
use crate::model::report::Insight;

/// Most findings a report lists by default (the rest are counted in a note).
pub const DEFAULT_MAX_FINDINGS: usize = 50;

/// Everything a report says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReportInput {
    /// The report's title.
    pub title: String,
    /// When the report was made, if the host wants it printed.
    #[serde(default)]
    pub generated_at: Option<DateTime<Utc>>,
    /// What the data covered.
    pub scope: Scope,
    /// The findings (any order: the report puts the most severe first), shared with the
    /// results they come from.
    #[serde(with = "crate::model::report::shared_vec")]
    pub anomalies: Vec<Arc<Anomaly>>,
    /// The agents' insights.
    #[serde(default)]
    pub insights: Vec<Insight>,
    /// The next steps.
    #[serde(default)]
    pub recommendations: Vec<String>,
    /// The parameters of the analysis.
    pub params: DetectionParams,
    /// The detectors that ran (by name).
    pub detectors: Vec<String>,
    /// Most findings listed; the rest are counted.
    pub max_findings: usize,
}

impl ReportInput {
    /// The input for the results of an analysis that ran every registered detector with
    /// `params` (what an investigation does), listing at most [`DEFAULT_MAX_FINDINGS`] findings.
    pub fn from_results(
        title: String,
        scope: Scope,
        anomalies: Vec<Arc<Anomaly>>,
        insights: Vec<Insight>,
        recommendations: Vec<String>,
        params: DetectionParams,
    ) -> ReportInput {
        ReportInput {
            title,
            generated_at: None,
            scope,
            anomalies,
            insights,
            recommendations,
            params,
            detectors: crate::detect::NAMES.iter().map(|d| d.to_string()).collect(),
            max_findings: DEFAULT_MAX_FINDINGS,
        }
    }
}

/// A count of records of one kind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordCount {
    /// `contratos`, `despesas`, ...
    pub kind: String,
    /// How many.
    pub count: usize,
}

/// An organ and how many records of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrganCount {
    /// SIAFI code.
    pub code: String,
    /// Name.
    pub name: String,
    /// Records.
    pub records: usize,
}

/// Missing or empty data of one kind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DataGap {
    /// What is missing ("contratos sem fundamento legal").
    pub what: String,
    /// How many records lack it.
    pub count: usize,
    /// Out of how many.
    pub of: usize,
}

/// What the data covered.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Scope {
    /// Records by kind (kinds with none left out).
    pub records: Vec<RecordCount>,
    /// Organs, most records first.
    pub organs: Vec<OrganCount>,
    /// The earliest and latest dates of the records (signing, document, agreement start).
    pub period: Option<(NaiveDate, NaiveDate)>,
    /// Data gaps seen (only those with at least one record).
    pub gaps: Vec<DataGap>,
}

impl Scope {
    /// The scope of a dataset.
    pub fn of(ds: &Dataset) -> Scope {
        let kinds = [
            ("contratos", ds.contracts.len()),
            ("licitações", ds.biddings.len()),
            ("despesas", ds.expenses.len()),
            ("convênios", ds.agreements.len()),
            ("servidores", ds.servants.len()),
            ("cadastros de fornecedores", ds.suppliers.len()),
            ("sanções", ds.sanctions.len()),
        ];
        let records = kinds
            .iter()
            .filter(|(_, n)| *n > 0)
            .map(|(k, n)| RecordCount { kind: (*k).to_string(), count: *n })
            .collect();
        let mut organs: BTreeMap<&str, (&str, usize)> = BTreeMap::new();
        let organ_refs = ds
            .contracts
            .iter()
            .map(|c| &c.organ)
            .chain(ds.expenses.iter().map(|e| &e.organ))
            .chain(ds.agreements.iter().map(|a| &a.organ))
            .chain(ds.biddings.iter().map(|b| &b.organ));
        for o in organ_refs.filter(|o| !o.code.is_empty()) {
            let e = organs.entry(o.code.as_str()).or_insert((o.name.as_str(), 0));
            e.1 += 1;
            if e.0.is_empty() {
                e.0 = o.name.as_str();
            }
        }
        let mut organs: Vec<OrganCount> = organs
            .into_iter()
            .map(|(code, (name, records))| OrganCount { code: code.into(), name: name.into(), records })
            .collect();
        organs.sort_by(|a, b| b.records.cmp(&a.records).then(a.code.cmp(&b.code)));
        let dates = ds
            .contracts
            .iter()
            .filter_map(|c| c.signed_on)
            .chain(ds.expenses.iter().filter_map(|e| e.date))
            .chain(ds.agreements.iter().filter_map(|a| a.valid_from))
            .chain(ds.biddings.iter().filter_map(|b| b.opened_on));
        let period = dates.fold(None, |acc: Option<(NaiveDate, NaiveDate)>, d| match acc {
            None => Some((d, d)),
            Some((a, b)) => Some((a.min(d), b.max(d))),
        });
        Scope { records, organs, period, gaps: gaps(ds) }
    }
}

/// The gaps a reader of the findings should know of.
fn gaps(ds: &Dataset) -> Vec<DataGap> {
    let (c, e, a) = (&ds.contracts, &ds.expenses, &ds.agreements);
    let candidates = [
        ("contratos sem fundamento legal", c.iter().filter(|x| x.legal_basis.trim().is_empty()).count(), c.len()),
        ("contratos sem data de assinatura", c.iter().filter(|x| x.signed_on.is_none()).count(), c.len()),
        ("contratos sem CNPJ/CPF do fornecedor", c.iter().filter(|x| x.supplier.document.is_empty()).count(), c.len()),
        ("contratos sem valor", c.iter().filter(|x| x.value() <= 0.0).count(), c.len()),
        ("contratos sem modalidade", c.iter().filter(|x| x.modality.trim().is_empty()).count(), c.len()),
        ("despesas sem data", e.iter().filter(|x| x.date.is_none()).count(), e.len()),
        ("convênios sem UF", a.iter().filter(|x| x.uf.trim().is_empty()).count(), a.len()),
        ("convênios sem início de vigência", a.iter().filter(|x| x.valid_from.is_none()).count(), a.len()),
    ];
    candidates
        .into_iter()
        .filter(|(_, n, _)| *n > 0)
        .map(|(what, count, of)| DataGap { what: what.to_string(), count, of })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::contract;

    #[test]
    fn the_scope_counts_records_organs_the_period_and_the_gaps() {
        let mut late = contract("2", "X", "", "26000", 10.0, (2024, 6, 30));
        late.organ.name = "Ministério da Educação".into();
        let undated = {
            let mut c = contract("3", "X", "S", "36000", 10.0, (2024, 1, 1));
            c.signed_on = None;
            c
        };
        let ds = Dataset::from_contracts(vec![contract("1", "X", "S", "36000", 10.0, (2023, 2, 1)), late, undated]);
        let s = Scope::of(&ds);
        assert_eq!(s.records, vec![RecordCount { kind: "contratos".into(), count: 3 }]);
        assert_eq!(s.organs[0], OrganCount { code: "36000".into(), name: "Órgão 36000".into(), records: 2 });
        assert_eq!(
            s.period,
            Some((NaiveDate::from_ymd_opt(2023, 2, 1).unwrap(), NaiveDate::from_ymd_opt(2024, 6, 30).unwrap()))
        );
        let gap = |w: &str| s.gaps.iter().find(|g| g.what == w).map(|g| (g.count, g.of));
        assert_eq!(gap("contratos sem fundamento legal"), Some((3, 3)));
        assert_eq!(gap("contratos sem data de assinatura"), Some((1, 3)));
        assert_eq!(gap("contratos sem CNPJ/CPF do fornecedor"), Some((1, 3)));
        assert_eq!(gap("contratos sem valor"), None);
    }
}
