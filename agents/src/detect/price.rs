//! `price_zscore`: a contract whose value is out of line with its peers.
//!
//! Contract values are heavily right-skewed, so the z-score is taken on `ln(value)` and within
//! a peer group: the object category (from the object text) and the purchase modality. Groups
//! with fewer than 8 contracts fall back to the category alone, then to all contracts. The spec's
//! literal rule flags `z > 1.5`; the confidence grows with z (0.3 at 1.5, 0.8 at 2.5, 0.97 at 4)
//! and is lowered for coarser baselines and small groups.

use std::collections::HashMap;

use serde_json::json;

use super::Detector;
use super::category::{Category, categorise};
use super::common::{adjust_confidence, contract_ref, details, iso, ramp, round2, round4, severity};
use super::stats::{mean_std, median};
use crate::agent::{AnalysisError, CancelFlag};
use crate::model::anomaly::{
    AffectedEntities, Anomaly, AnomalyType, Context, DataPoint, Evidence, Explanation, Factor, StatisticalEvidence,
};
use crate::model::dataset::Dataset;
use crate::model::params::DetectionParams;
use crate::text::{format_brl, format_decimal, format_pct};

/// Detector name.
pub const NAME: &str = "price_zscore";
/// The spec's literal threshold on the z-score.
pub const THRESHOLD: f64 = 1.5;
/// Smallest peer group used as a baseline.
pub const MIN_GROUP: usize = 8;

/// The price z-score detector.
#[derive(Debug, Clone, Copy, Default)]
pub struct PriceZScore;

/// Which baseline a contract was compared with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Baseline {
    PeerGroup,
    Category,
    Global,
}

impl Baseline {
    /// Confidence multiplier: coarser baselines say less.
    fn factor(self) -> f64 {
        match self {
            Baseline::PeerGroup => 1.0,
            Baseline::Category => 0.92,
            Baseline::Global => 0.8,
        }
    }
    fn as_str(self) -> &'static str {
        match self {
            Baseline::PeerGroup => "peer_group",
            Baseline::Category => "category",
            Baseline::Global => "global",
        }
    }
}

/// Statistics of one baseline group.
struct Group {
    label: String,
    size: usize,
    mean_log: f64,
    std_log: f64,
    median: f64,
    flagged: usize,
}

impl Group {
    fn of(label: String, members: &[usize], logs: &[f64], values: &[f64]) -> Group {
        let l: Vec<f64> = members.iter().map(|&i| logs[i]).collect();
        let v: Vec<f64> = members.iter().map(|&i| values[i]).collect();
        let (mean_log, std_log) = mean_std(&l);
        let std_log = if std_log > 1e-9 { std_log } else { 0.0 };
        let flagged =
            if std_log > 0.0 { l.iter().filter(|x| (*x - mean_log) / std_log > THRESHOLD).count() } else { 0 };
        Group { label, size: members.len(), mean_log, std_log, median: median(&v), flagged }
    }
    fn z(&self, log: f64) -> f64 {
        if self.std_log > 0.0 { (log - self.mean_log) / self.std_log } else { 0.0 }
    }
}

/// Confidence of a flag at this z, before the sensitivity shift.
pub fn confidence_for(z: f64, baseline_factor: f64, size: usize) -> f64 {
    let base = if z <= 2.5 { ramp(z, THRESHOLD, 0.3, 2.5, 0.8) } else { ramp(z, 2.5, 0.8, 4.0, 0.97) };
    let small = if size < 20 { 0.9 } else { 1.0 };
    base * baseline_factor * small
}

impl Detector for PriceZScore {
    fn name(&self) -> &'static str {
        NAME
    }
    fn kind(&self) -> AnomalyType {
        AnomalyType::PriceAnomaly
    }
    fn run(&self, ds: &Dataset, p: &DetectionParams, cancel: &CancelFlag) -> Result<Vec<Anomaly>, AnalysisError> {
        let n = ds.contracts.len();
        let mut cats = Vec::with_capacity(n);
        let mut mods = Vec::with_capacity(n);
        let mut logs = Vec::with_capacity(n);
        let mut values = Vec::with_capacity(n);
        let mut modality_ids: HashMap<&str, u32> = HashMap::new();
        let mut modality_names: Vec<&str> = Vec::new();
        for (i, c) in ds.contracts.iter().enumerate() {
            if i % 4096 == 0 {
                cancel.check()?;
            }
            let next = modality_ids.len() as u32;
            let m = *modality_ids.entry(c.modality.as_str()).or_insert_with(|| {
                modality_names.push(c.modality.as_str());
                next
            });
            let v = c.value();
            cats.push(categorise(&c.object));
            mods.push(m);
            values.push(v);
            logs.push(if v > 0.0 && v.is_finite() { v.ln() } else { f64::NAN });
        }
        let valid = |i: &usize| logs[*i].is_finite();
        let mut peer_members: HashMap<(Category, u32), Vec<usize>> = HashMap::new();
        let mut cat_members: HashMap<Category, Vec<usize>> = HashMap::new();
        let mut all_members = Vec::with_capacity(n);
        for i in (0..n).filter(valid) {
            peer_members.entry((cats[i], mods[i])).or_default().push(i);
            cat_members.entry(cats[i]).or_default().push(i);
            all_members.push(i);
        }
        cancel.check()?;
        let global = Group::of("todos os contratos".to_string(), &all_members, &logs, &values);
        let cat_groups: HashMap<Category, Group> = cat_members
            .iter()
            .filter(|(_, m)| m.len() >= MIN_GROUP)
            .map(|(c, m)| (*c, Group::of(c.label().to_string(), m, &logs, &values)))
            .collect();
        let mut peer_groups: HashMap<(Category, u32), Group> = HashMap::new();
        for (k, m) in peer_members.iter().filter(|(_, m)| m.len() >= MIN_GROUP) {
            cancel.check()?;
            let label = format!("{} / {}", k.0.label(), modality_names[k.1 as usize]);
            peer_groups.insert(*k, Group::of(label, m, &logs, &values));
        }
        let mut out = Vec::new();
        for i in all_members {
            if i % 4096 == 0 {
                cancel.check()?;
            }
            let (group, baseline) = match peer_groups.get(&(cats[i], mods[i])) {
                Some(g) => (g, Baseline::PeerGroup),
                None => match cat_groups.get(&cats[i]) {
                    Some(g) => (g, Baseline::Category),
                    None => (&global, Baseline::Global),
                },
            };
            if group.size < MIN_GROUP {
                continue;
            }
            let z = group.z(logs[i]);
            if z > THRESHOLD
                && adjust_confidence(confidence_for(z, baseline.factor(), group.size), p.sensitivity)
                    >= p.confidence_threshold
            {
                out.push(anomaly(ds, i, group, baseline, z, p));
            }
        }
        Ok(out)
    }
}

fn anomaly(ds: &Dataset, i: usize, g: &Group, baseline: Baseline, z: f64, p: &DetectionParams) -> Anomaly {
    let c = &ds.contracts[i];
    let value = c.value();
    let at_stake = (value - g.median).max(0.0);
    let confidence = adjust_confidence(confidence_for(z, baseline.factor(), g.size), p.sensitivity);
    let ratio = if g.median > 0.0 { value / g.median } else { f64::INFINITY };
    let contamination = g.flagged as f64 / g.size as f64;
    let mut td = details(NAME, THRESHOLD, at_stake);
    td.insert("z_score".into(), json!(round4(z)));
    td.insert("peer_group".into(), json!(g.label));
    td.insert("peer_size".into(), json!(g.size));
    td.insert("baseline".into(), json!(baseline.as_str()));
    td.insert("peer_median".into(), json!(round2(g.median)));
    td.insert("value".into(), json!(round2(value)));
    td.insert("ratio_to_median".into(), json!(round2(ratio)));
    td.insert("organ".into(), json!(c.organ.code));
    td.insert("supplier".into(), json!(c.supplier.document));
    let when = iso(c.signed_on);
    let supplier = if c.supplier.name.is_empty() { "fornecedor não informado" } else { c.supplier.name.as_str() };
    let number = if c.number.is_empty() { c.id.as_str() } else { c.number.as_str() };
    let description = format!(
        "Contrato {} com {} de {} custa {} vezes a mediana de {} dos {} contratos comparáveis ({}; z = {})",
        number,
        supplier,
        format_brl(value),
        format_decimal(ratio, 1),
        format_brl(g.median),
        g.size,
        g.label,
        format_decimal(z, 2)
    );
    let human = format!(
        "O contrato {} ({}) foi assinado por {} com {}, valor {} vezes maior que o contrato típico do mesmo \
         tipo ({} contratos de {}). A diferença para a mediana é de {}; vale pedir ao órgão a pesquisa de preços.",
        number,
        c.object.chars().take(120).collect::<String>(),
        format_brl(value),
        supplier,
        format_decimal(ratio, 1),
        g.size,
        g.label,
        format_brl(at_stake)
    );
    let technical = format!(
        "z-score of ln(value) within the {} baseline '{}' (n = {}, mean ln = {:.3}, sd ln = {:.3}): z = {:.3} > {}. \
         {} of the group exceeds the threshold.",
        baseline.as_str(),
        g.label,
        g.size,
        g.mean_log,
        g.std_log,
        z,
        THRESHOLD,
        format_pct(contamination)
    );
    Anomaly {
        id: format!("{NAME}-{}", c.id),
        kind: AnomalyType::PriceAnomaly,
        severity: severity(confidence, at_stake),
        confidence,
        description,
        technical_details: td,
        affected_entities: AffectedEntities { primary: contract_ref(c), related: Vec::new() },
        evidence: Evidence {
            data_points: vec![
                DataPoint { metric: "value".into(), value: round2(value), timestamp: when.clone() },
                DataPoint { metric: "peer_median".into(), value: round2(g.median), timestamp: when.clone() },
                DataPoint { metric: "z_score".into(), value: round4(z), timestamp: when },
            ],
            patterns: vec![json!({
                "name": "price_above_peer_group",
                "description": format!("{:.1}x the peer median", ratio),
                "ratio_to_median": round2(ratio),
            })],
            statistical_analysis: Some(StatisticalEvidence {
                method: "zscore_log_peer_group".into(),
                anomaly_score: round4(z),
                contamination: round4(contamination),
            }),
        },
        context: Context {
            peer_comparison: Some(json!({
                "group": g.label,
                "baseline": baseline.as_str(),
                "size": g.size,
                "median": round2(g.median),
                "mean_log": round4(g.mean_log),
                "std_log": round4(g.std_log),
            })),
            ..Context::default()
        },
        explanation: Some(Explanation {
            human_readable: human,
            technical,
            contributing_factors: vec![
                Factor {
                    factor: "z_score".into(),
                    impact: 0.7,
                    description: format!("ln(value) is {z:.2} standard deviations above the group mean"),
                },
                Factor {
                    factor: "ratio_to_median".into(),
                    impact: 0.2,
                    description: format!("value is {ratio:.1} times the peer median"),
                },
                Factor {
                    factor: "baseline".into(),
                    impact: 0.1,
                    description: format!("compared with the {} baseline of {} contracts", baseline.as_str(), g.size),
                },
            ],
        }),
    }
}

#[cfg(test)]
#[path = "price_tests.rs"]
mod tests;
