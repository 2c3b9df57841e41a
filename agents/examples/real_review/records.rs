//! The spending records a finding names, looked up in the dataset for the review's tables.

use std::collections::HashMap;

use vigia_agents::{Anomaly, Dataset};

/// The entity kinds that are spending records.
pub const SPENDING: &[&str] = &["contract", "bidding", "expense", "agreement"];

/// What a finding names of one record, for the tables.
#[derive(Clone)]
pub struct Record {
    pub kind: &'static str,
    pub id: String,
    pub number: String,
    pub supplier: String,
    pub value: f64,
    pub date: String,
    pub modality: String,
    pub legal_basis: String,
}

/// A date as ISO text, empty when unknown.
fn date(d: Option<chrono::NaiveDate>) -> String {
    d.map(|d| d.to_string()).unwrap_or_default()
}

/// Every spending record of a dataset by (kind, id).
pub fn records(ds: &Dataset) -> HashMap<(&'static str, String), Record> {
    let mut out = HashMap::new();
    let mut put = |r: Record| {
        out.insert((r.kind, r.id.clone()), r);
    };
    for c in &ds.contracts {
        put(Record {
            kind: "contract",
            id: c.id.to_string(),
            number: c.number.to_string(),
            supplier: format!("{} ({})", c.supplier.name, c.supplier.document),
            value: c.value(),
            date: date(c.signed_on),
            modality: c.modality.to_string(),
            legal_basis: c.legal_basis.to_string(),
        });
    }
    for b in &ds.biddings {
        let winner = b.winner().map(|w| format!("{} ({})", w.bidder.name, w.bidder.document)).unwrap_or_default();
        let value = b.winner().and_then(|w| w.value).unwrap_or(b.value);
        put(Record {
            kind: "bidding",
            id: b.id.to_string(),
            number: b.number.to_string(),
            supplier: winner,
            value,
            date: date(b.opened_on),
            modality: b.modality.to_string(),
            legal_basis: String::new(),
        });
    }
    for e in &ds.expenses {
        put(Record {
            kind: "expense",
            id: e.id.to_string(),
            number: e.id.to_string(),
            supplier: format!("{} ({})", e.payee.name, e.payee.document),
            value: e.value,
            date: date(e.date),
            modality: e.modality.to_string(),
            legal_basis: String::new(),
        });
    }
    for a in &ds.agreements {
        put(Record {
            kind: "agreement",
            id: a.id.clone(),
            number: a.number.clone(),
            supplier: format!("{} ({})", a.grantee.name, a.grantee.document),
            value: a.value,
            date: date(a.valid_from),
            modality: String::new(),
            legal_basis: String::new(),
        });
    }
    out
}

/// The spending records an anomaly names, primary first, without repeats.
pub fn named(a: &Anomaly) -> Vec<(&'static str, String)> {
    let e = &a.affected_entities;
    let mut out: Vec<(&'static str, String)> = Vec::new();
    for r in std::iter::once(&e.primary).chain(e.related.iter()) {
        if let Some(kind) = SPENDING.iter().find(|k| **k == r.kind) {
            let key = (*kind, r.id.clone());
            if !out.contains(&key) {
                out.push(key);
            }
        }
    }
    out
}
