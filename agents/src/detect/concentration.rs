//! `supplier_concentration`: one supplier holding more than 25% of an organ's contracted value
//! in a year.
//!
//! Only organ-years with at least 5 contracts and 3 distinct suppliers are judged (with fewer,
//! a large share says little). The confidence grows with the share (0.45 at 25%, 0.85 at 40%,
//! 0.97 at 60% and above) and is lowered for organ-years with fewer than 10 contracts.

use std::collections::HashMap;

use serde_json::json;

use super::Detector;
use super::common::{
    FxBuild, adjust_confidence, by_organ_year, contract_ref, details, organ_name, organ_ref, ramp, round2, round4,
    severity, supplier_ref,
};
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

/// The supplier concentration detector.
#[derive(Debug, Clone, Copy, Default)]
pub struct SupplierConcentration;

/// Confidence of a flag at this share, before the sensitivity shift.
pub fn confidence_for(share: f64, contracts: usize) -> f64 {
    let base =
        if share <= 0.40 { ramp(share, THRESHOLD, 0.45, 0.40, 0.85) } else { ramp(share, 0.40, 0.85, 0.60, 0.97) };
    if contracts < 10 { base * 0.9 } else { base }
}

impl Detector for SupplierConcentration {
    fn name(&self) -> &'static str {
        NAME
    }
    fn kind(&self) -> AnomalyType {
        AnomalyType::PatternAnomaly
    }
    fn run(&self, ds: &Dataset, p: &DetectionParams, cancel: &CancelFlag) -> Result<Vec<Anomaly>, AnalysisError> {
        let mut out = Vec::new();
        for ((organ, year), members) in by_organ_year(ds) {
            cancel.check()?;
            if members.len() < MIN_CONTRACTS {
                continue;
            }
            let mut per_supplier: HashMap<&str, (f64, Vec<usize>), FxBuild> = HashMap::default();
            let mut total = 0.0;
            for &i in &members {
                let c = &ds.contracts[i];
                let v = c.value();
                total += v;
                if c.supplier.document.is_empty() {
                    continue;
                }
                let e = per_supplier.entry(c.supplier.document.as_str()).or_default();
                e.0 += v;
                e.1.push(i);
            }
            if per_supplier.len() < MIN_SUPPLIERS || total <= 0.0 {
                continue;
            }
            let group_hhi = hhi(per_supplier.values().map(|(v, _)| v / total));
            let flagged = per_supplier.values().filter(|(v, _)| v / total > THRESHOLD).count();
            let mut heavy: Vec<(&&str, &(f64, Vec<usize>))> =
                per_supplier.iter().filter(|(_, (v, _))| v / total > THRESHOLD).collect();
            heavy.sort_by(|a, b| a.0.cmp(b.0));
            for (doc, (value, idx)) in heavy {
                let g =
                    OrganYear { organ, year, total, contracts: members.len(), suppliers: per_supplier.len(), flagged };
                let a = anomaly(ds, &g, doc, *value, idx, group_hhi, p);
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
    let confidence = adjust_confidence(confidence_for(share, g.contracts), p.sensitivity);
    let mut related: Vec<_> = idx.iter().map(|&i| contract_ref(&ds.contracts[i])).collect();
    related.push(organ_ref(first));
    let organ = organ_name(first);
    let supplier = supplier_ref(first);
    let mut td = details(NAME, THRESHOLD, value);
    td.insert("organ".into(), json!(g.organ));
    td.insert("year".into(), json!(g.year));
    td.insert("supplier".into(), json!(doc));
    td.insert("share".into(), json!(round4(share)));
    td.insert("supplier_value".into(), json!(round2(value)));
    td.insert("organ_year_total".into(), json!(round2(g.total)));
    td.insert("supplier_contracts".into(), json!(idx.len()));
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
        idx.len(),
        format_pct(THRESHOLD)
    );
    let human = format!(
        "Em {}, {} ({}) ficou com {} de tudo o que {} contratou ({} de {}), em {} contratos. \
         Há {} fornecedores no período; uma fatia tão grande pede a verificação da competitividade das licitações.",
        g.year,
        supplier.name,
        doc,
        format_pct(share),
        organ,
        format_brl(value),
        format_brl(g.total),
        idx.len(),
        g.suppliers
    );
    let technical = format!(
        "share of value of supplier {} in organ {} year {}: {:.4} > {} (n contracts = {}, n suppliers = {}, HHI = {:.0})",
        doc, g.organ, g.year, share, THRESHOLD, g.contracts, g.suppliers, group_hhi
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
                    description: format!("{} of the value against a 25% threshold", format_pct(share)),
                },
                Factor {
                    factor: "contracts".into(),
                    impact: 0.2,
                    description: format!("{} of {} contracts in the organ-year", idx.len(), g.contracts),
                },
            ],
        }),
    }
}

#[cfg(test)]
#[path = "concentration_tests.rs"]
mod tests;
