//! `supplier_concentration`: one supplier holding too large a share of an organ's contracted
//! value in a year.
//!
//! Only organ-years with at least 5 contracts and 3 distinct suppliers are judged (with fewer,
//! a large share says little). Sensitivity `s` moves the share threshold `t(s)` through 60%
//! (s = 0), 30% (s = 0.7, calibrated: clean demo suppliers stay under 15% of an organ-year,
//! planted ones hold 40-50%) and the spec's literal 25% (s = 1). Confidence =
//! `margin_confidence(share - t(s), 0.10)` (see [`super::sensitivity`]), times 0.95 for
//! organ-years of fewer than 10 contracts. The anomaly names the supplier's largest contracts
//! in the organ-year (at most 500; `supplier_contracts` gives the count). Complexity: linear
//! (one pass to group by organ-year, one per group to sum by supplier).

use serde_json::json;

use super::Detector;
use super::common::{iso, organ_name, round2, round4, supplier_ref};
use super::finding::{Finding, contracts_and_organ, largest_contracts, pattern, point};
use super::sensitivity::{Threshold, margin_confidence, tidy};
use super::shared::{NONE, Shared};
use super::stats::hhi;
use crate::agent::{AnalysisError, CancelFlag};
use crate::model::anomaly::{Anomaly, AnomalyType, DataPoint};
use crate::model::dataset::Dataset;
use crate::model::params::DetectionParams;
use crate::text::{format_brl, format_pct};

/// Detector name.
pub const NAME: &str = "supplier_concentration";
/// The spec's literal threshold on a supplier's share of value.
pub const THRESHOLD: f64 = 0.25;
/// Fewest contracts in an organ-year to judge it.
pub const MIN_CONTRACTS: usize = 5;
/// Fewest distinct suppliers in an organ-year to judge it.
pub const MIN_SUPPLIERS: usize = 3;
/// The share threshold as sensitivity moves it.
pub const SHARE: Threshold = Threshold::new(0.60, 0.30, THRESHOLD);
/// Most contracts named by one anomaly (the largest first).
pub const MAX_RELATED: usize = 500;

/// The supplier concentration detector.
#[derive(Debug, Clone, Copy, Default)]
pub struct SupplierConcentration;

/// Confidence of a flag at this share and sensitivity.
pub fn confidence_for(share: f64, contracts: usize, sensitivity: f64) -> f64 {
    let base = margin_confidence(share - SHARE.at(sensitivity), 0.10);
    tidy(if contracts < 10 { base * 0.95 } else { base })
}

impl Detector for SupplierConcentration {
    fn name(&self) -> &'static str {
        NAME
    }
    fn kind(&self) -> AnomalyType {
        AnomalyType::PatternAnomaly
    }
    fn run_shared(
        &self,
        sh: &Shared<'_>,
        p: &DetectionParams,
        cancel: &CancelFlag,
    ) -> Result<Vec<Anomaly>, AnalysisError> {
        let ds = sh.dataset();
        let suppliers = sh.suppliers();
        let threshold = SHARE.at(p.sensitivity);
        // Value per supplier id, reset after each organ-year through the list of ids touched.
        let mut acc = vec![0.0f64; suppliers.names.len()];
        let mut touched: Vec<u32> = Vec::new();
        let mut out = Vec::new();
        for g in sh.organ_years() {
            cancel.check()?;
            if g.members.len() < MIN_CONTRACTS {
                continue;
            }
            let mut total = 0.0;
            for &i in &g.members {
                let v = ds.contracts[i as usize].value();
                total += v;
                let s = suppliers.ids[i as usize];
                if s != NONE {
                    if acc[s as usize] == 0.0 {
                        touched.push(s);
                    }
                    acc[s as usize] += v;
                }
            }
            let n_suppliers = touched.len();
            let shares: Vec<(u32, f64)> = touched.iter().map(|&s| (s, acc[s as usize])).collect();
            for &s in &touched {
                acc[s as usize] = 0.0;
            }
            touched.clear();
            if n_suppliers < MIN_SUPPLIERS || total <= 0.0 {
                continue;
            }
            let group_hhi = hhi(shares.iter().map(|(_, v)| v / total));
            let mut heavy: Vec<(&str, u32, f64)> = shares
                .iter()
                .filter(|(_, v)| v / total > threshold)
                .map(|&(s, v)| (suppliers.names[s as usize], s, v))
                .collect();
            heavy.sort_by(|a, b| a.0.cmp(b.0));
            let flagged = heavy.len();
            for (doc, s, value) in heavy {
                let idx: Vec<usize> =
                    g.members.iter().map(|&i| i as usize).filter(|&i| suppliers.ids[i] == s).collect();
                let og = OrganYear {
                    organ: g.organ,
                    year: g.year,
                    total,
                    contracts: g.members.len(),
                    suppliers: n_suppliers,
                    flagged,
                    supplier_contracts: idx.len(),
                };
                let a = anomaly(ds, &og, doc, value, &idx, group_hhi, p);
                if a.confidence >= p.confidence_threshold {
                    out.push(a);
                }
            }
        }
        Ok(out)
    }
}

/// The organ-year judged.
struct OrganYear<'a> {
    organ: &'a str,
    year: i32,
    total: f64,
    contracts: usize,
    suppliers: usize,
    flagged: usize,
    supplier_contracts: usize,
}

fn anomaly(
    ds: &Dataset,
    g: &OrganYear<'_>,
    doc: &str,
    value: f64,
    idx: &[usize],
    group_hhi: f64,
    p: &DetectionParams,
) -> Anomaly {
    let first = &ds.contracts[idx[0]];
    let share = value / g.total;
    let threshold = SHARE.at(p.sensitivity);
    let confidence = confidence_for(share, g.contracts, p.sensitivity);
    let idx = largest_contracts(ds, idx.to_vec(), MAX_RELATED);
    let organ = organ_name(first);
    let supplier = supplier_ref(first);
    let year = Some(format!("{}", g.year));
    Finding {
        detector: NAME,
        kind: AnomalyType::PatternAnomaly,
        key: format!("{}-{}-{}", g.organ, g.year, doc),
        confidence,
        at_stake: value,
        threshold: round4(threshold),
        description: format!(
            "{} recebeu {} ({}) do valor contratado por {} em {}, em {} contratos; limite de {}",
            supplier.name,
            format_brl(value),
            format_pct(share),
            organ,
            g.year,
            g.supplier_contracts,
            format_pct(threshold)
        ),
        human_pt: format!(
            "Em {}, {} ({}) ficou com {} de tudo o que {} contratou ({} de {}), em {} contratos. \
             Há {} fornecedores no período; uma fatia tão grande pede a verificação da competitividade das licitações. \
             (One supplier holds {:.1}% of the organ's contracted value in the year.)",
            g.year,
            supplier.name,
            doc,
            format_pct(share),
            organ,
            format_brl(value),
            format_brl(g.total),
            g.supplier_contracts,
            g.suppliers,
            share * 100.0
        ),
        human_en: String::new(),
        technical: format!(
            "share of value of supplier {} in organ {} year {}: {:.4} > {:.4} (threshold at sensitivity {}; the spec's \
             literal {}) (n contracts = {}, n suppliers = {}, HHI = {:.0})",
            doc, g.organ, g.year, share, threshold, p.sensitivity, THRESHOLD, g.contracts, g.suppliers, group_hhi
        ),
        primary: supplier,
        related: contracts_and_organ(ds, &idx, first),
        data_points: idx
            .iter()
            .map(|&i| point("contract_value", ds.contracts[i].value(), iso(ds.contracts[i].signed_on)))
            .chain([
                DataPoint { metric: "supplier_share".into(), value: round4(share), timestamp: year.clone() },
                point("hhi", group_hhi, year),
            ])
            .collect(),
        patterns: vec![pattern(
            "supplier_concentration",
            format!("one supplier holds {} of the organ-year's value", format_pct(share)),
            json!({"share": round4(share), "hhi": round2(group_hhi)}),
        )],
        method: "share_of_total",
        score: share,
        contamination: g.flagged as f64 / g.suppliers as f64,
        peer: Some(json!({
            "group": format!("{} {}", g.organ, g.year),
            "organ": g.organ,
            "year": g.year,
            "total_value": round2(g.total),
            "contracts": g.contracts,
            "suppliers": g.suppliers,
            "equal_share": round4(1.0 / g.suppliers as f64),
        })),
        regulatory: Some(json!({
            "rule": "Lei 14.133/2021, art. 5 (competitividade) e art. 11",
            "note": "concentração acima de 25% do valor anual de um órgão em um único fornecedor",
        })),
        factors: vec![
            (
                "share".into(),
                0.8,
                format!("{} of the value against a {} threshold", format_pct(share), format_pct(threshold)),
            ),
            (
                "contracts".into(),
                0.2,
                format!("{} of {} contracts in the organ-year", g.supplier_contracts, g.contracts),
            ),
        ],
        details: vec![
            ("literal_threshold", json!(THRESHOLD)),
            ("sensitivity", json!(p.sensitivity)),
            ("baseline", json!("organ_year_total")),
            ("organ", json!(g.organ)),
            ("year", json!(g.year)),
            ("supplier", json!(doc)),
            ("share", json!(round4(share))),
            ("supplier_value", json!(round2(value))),
            ("organ_year_total", json!(round2(g.total))),
            ("supplier_contracts", json!(g.supplier_contracts)),
            ("n_contracts", json!(g.contracts)),
            ("n_suppliers", json!(g.suppliers)),
            ("hhi", json!(round2(group_hhi))),
        ],
    }
    .build()
}

#[cfg(test)]
#[path = "concentration_tests.rs"]
mod tests;
