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
use super::common::{contract_ref, details, organ_name, organ_ref, round2, round4, severity, supplier_ref};
use super::sensitivity::{Threshold, margin_confidence, tidy};
use super::shared::{NONE, Shared};
use super::stats::hhi;
use crate::agent::{AnalysisError, CancelFlag};
use crate::model::anomaly::{
    AffectedEntities, Anomaly, AnomalyType, Context, DataPoint, Evidence, Explanation, Factor, StatisticalEvidence,
};
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
    let mut largest = idx.to_vec();
    if largest.len() > MAX_RELATED {
        largest.sort_by(|&a, &b| ds.contracts[b].value().total_cmp(&ds.contracts[a].value()).then(a.cmp(&b)));
        largest.truncate(MAX_RELATED);
        largest.sort_unstable();
    }
    let idx = &largest[..];
    let mut related: Vec<_> = idx.iter().map(|&i| contract_ref(&ds.contracts[i])).collect();
    related.push(organ_ref(first));
    let organ = organ_name(first);
    let supplier = supplier_ref(first);
    let mut td = details(NAME, round4(threshold), value);
    td.insert("literal_threshold".into(), json!(THRESHOLD));
    td.insert("sensitivity".into(), json!(p.sensitivity));
    td.insert("baseline".into(), json!("organ_year_total"));
    td.insert("organ".into(), json!(g.organ));
    td.insert("year".into(), json!(g.year));
    td.insert("supplier".into(), json!(doc));
    td.insert("share".into(), json!(round4(share)));
    td.insert("supplier_value".into(), json!(round2(value)));
    td.insert("organ_year_total".into(), json!(round2(g.total)));
    td.insert("supplier_contracts".into(), json!(g.supplier_contracts));
    td.insert("n_contracts".into(), json!(g.contracts));
    td.insert("n_suppliers".into(), json!(g.suppliers));
    td.insert("hhi".into(), json!(round2(group_hhi)));
    let data_points = idx
        .iter()
        .map(|&i| {
            let c = &ds.contracts[i];
            DataPoint {
                metric: "contract_value".into(),
                value: round2(c.value()),
                timestamp: c.signed_on.map(|d| d.format("%Y-%m-%d").to_string()),
            }
        })
        .chain([
            DataPoint { metric: "supplier_share".into(), value: round4(share), timestamp: Some(format!("{}", g.year)) },
            DataPoint { metric: "hhi".into(), value: round2(group_hhi), timestamp: Some(format!("{}", g.year)) },
        ])
        .collect();
    let description = format!(
        "{} recebeu {} ({}) do valor contratado por {} em {}, em {} contratos; limite de {}",
        supplier.name,
        format_brl(value),
        format_pct(share),
        organ,
        g.year,
        g.supplier_contracts,
        format_pct(threshold)
    );
    let human = format!(
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
    );
    let technical = format!(
        "share of value of supplier {} in organ {} year {}: {:.4} > {:.4} (threshold at sensitivity {}; the spec's \
         literal {}) (n contracts = {}, n suppliers = {}, HHI = {:.0})",
        doc, g.organ, g.year, share, threshold, p.sensitivity, THRESHOLD, g.contracts, g.suppliers, group_hhi
    );
    Anomaly {
        id: format!("{NAME}-{}-{}-{}", g.organ, g.year, doc),
        kind: AnomalyType::PatternAnomaly,
        severity: severity(confidence, value),
        confidence,
        description,
        technical_details: td,
        affected_entities: AffectedEntities { primary: supplier, related },
        evidence: Evidence {
            data_points,
            patterns: vec![json!({
                "name": "supplier_concentration",
                "description": format!("one supplier holds {} of the organ-year's value", format_pct(share)),
                "share": round4(share),
                "hhi": round2(group_hhi),
            })],
            statistical_analysis: Some(StatisticalEvidence {
                method: "share_of_total".into(),
                anomaly_score: round4(share),
                contamination: round4(g.flagged as f64 / g.suppliers as f64),
            }),
        },
        context: Context {
            peer_comparison: Some(json!({
                "group": format!("{} {}", g.organ, g.year),
                "organ": g.organ,
                "year": g.year,
                "total_value": round2(g.total),
                "contracts": g.contracts,
                "suppliers": g.suppliers,
                "equal_share": round4(1.0 / g.suppliers as f64),
            })),
            regulatory_context: Some(json!({
                "rule": "Lei 14.133/2021, art. 5 (competitividade) e art. 11",
                "note": "concentração acima de 25% do valor anual de um órgão em um único fornecedor",
            })),
            ..Context::default()
        },
        explanation: Some(Explanation {
            human_readable: human,
            technical,
            contributing_factors: vec![
                Factor {
                    factor: "share".into(),
                    impact: 0.8,
                    description: format!(
                        "{} of the value against a {} threshold",
                        format_pct(share),
                        format_pct(threshold)
                    ),
                },
                Factor {
                    factor: "contracts".into(),
                    impact: 0.2,
                    description: format!("{} of {} contracts in the organ-year", g.supplier_contracts, g.contracts),
                },
            ],
        }),
    }
}

#[cfg(test)]
#[path = "concentration_tests.rs"]
mod tests;
