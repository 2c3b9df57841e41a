//! `learned_outlier`: a contract unlike any group of contracts the data has, by a model
//! learned from the data itself (linfa k-means).
//!
//! Only contracts with a learned peer group ([`crate::detect::peer_groups`]) of at least
//! [`MIN_PEERS`] scorable contracts are scored: an outlier is unusual *for what it buys*, and
//! the finding names that group. Each contract becomes a feature row: its value as a robust
//! z-score of `ln(value)` within its peer group (winsorised at +-2: prices far from their
//! peers are `price_zscore`'s business), the robust z-score of `ln(duration in days)`
//! (validity end minus start) within the group, and its purchase modality (one column per
//! frequent modality). k-means with up to 12 clusters is
//! fitted on at most 10,000 rows taken at a fixed stride (k-means++ initialisation, fixed
//! seed), and clusters holding less than 0.5% of those rows are dropped (k-means++ seeds
//! clusters at far-away points, which would give outliers a centroid of their own); every
//! contract's score is its distance to the nearest remaining centroid, in robust standard
//! deviations. Contracts whose dates are out of order (validity ending before it starts) are
//! `date_inconsistency`'s and are not scored.
//!
//! Sensitivity `s` moves the distance threshold `D(s)` through 10 (s = 0), 3.0 (s = 0.7,
//! calibrated: clean demo contracts stay under 2.5, planted ones, priced like their peers but
//! lasting a few days, sit beyond 3.6) and 2.5 (s = 1). Confidence =
//! `margin_confidence(distance - D(s), 1)`. Complexity: linear in the contracts plus k-means
//! on the sample (`O(sample x k x iterations)`, bounded).

use std::collections::HashMap;

use serde_json::json;

use crate::cancel::{AnalysisError, CancelFlag};
use crate::detect::Detector;
use crate::detect::common::{FxBuild, contract_ref, organ_ref, round2, round4};
use crate::detect::finding::{Finding, pattern, point};
use crate::detect::learn::Centroids;
use crate::detect::peer_groups::{NO_GROUP, ObjectGroup};
use crate::detect::sensitivity::{Threshold, margin_confidence, tidy};
use crate::detect::series::robust;
use crate::detect::shared::Shared;
use crate::model::anomaly::{Anomaly, AnomalyType, Severity};
use crate::model::dataset::Dataset;
use crate::model::params::DetectionParams;
use crate::text::format_brl;

/// Detector name.
pub const NAME: &str = "learned_outlier";
/// The highest confidence of an outlier finding, below the default threshold of 0.8: an
/// exploratory lead, not a finding the engine reports unasked.
pub const MAX_CONFIDENCE: f64 = 0.75;
/// The highest severity of a learned outlier: being unlike the other contracts of its group is
/// a reason to look, not evidence of an irregularity.
pub const MAX_SEVERITY: Severity = Severity::Medium;
/// Distance to the nearest centroid, as sensitivity moves it.
pub const DISTANCE: Threshold = Threshold::new(10.0, 3.0, 2.5);
/// Fewest scorable contracts to learn anything.
pub const MIN_RECORDS: usize = 200;
/// Fewest scorable contracts of a learned peer group for its members to be scored.
pub const MIN_PEERS: usize = 20;
/// Most clusters.
pub const MAX_CLUSTERS: usize = 12;
/// Most rows the model is fitted on.
pub const SAMPLE: usize = 10_000;
/// Modalities with their own column (the most frequent); the rest share one.
const MODALITY_COLUMNS: usize = 5;
/// Winsorisation of the value feature.
const VALUE_CAP: f64 = 2.0;

/// The learned outlier detector.
#[derive(Debug, Clone, Copy, Default)]
pub struct LearnedOutlier;

/// Names of the feature columns.
fn feature_names(modalities: &[&str]) -> Vec<String> {
    let mut names = vec!["value_z_in_peer_group".to_string(), "log_duration_z_in_peer_group".to_string()];
    names.extend(modalities.iter().map(|m| format!("modality: {m}")));
    names.push("modality: other".to_string());
    names
}

impl Detector for LearnedOutlier {
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
        let cs = &ds.contracts;
        let objects = sh.object_groups(cancel)?;
        let mut rows: Vec<u32> = Vec::new();
        let mut logs = Vec::new();
        let mut groups = Vec::new();
        let mut durations = Vec::new();
        for (i, c) in cs.iter().enumerate() {
            if i % 16_384 == 0 {
                cancel.check()?;
            }
            let v = c.value();
            let (Some(from), Some(until)) = (c.valid_from, c.valid_until) else { continue };
            let days = (until - from).num_days();
            let group = objects.group_of[i];
            if !(v > 0.0 && v.is_finite()) || days <= 0 || group == NO_GROUP {
                continue;
            }
            rows.push(i as u32);
            logs.push(v.ln());
            groups.push(group);
            durations.push((days as f64).ln());
        }
        // Only contracts with a peer group of their own are scored: value and duration are
        // standardised within it (what a contract costs and lasts depends on what it buys).
        let mut by_group: Vec<(Vec<f64>, Vec<f64>)> = vec![(Vec::new(), Vec::new()); objects.groups.len()];
        for k in 0..rows.len() {
            let g = &mut by_group[groups[k] as usize];
            g.0.push(logs[k]);
            g.1.push(durations[k]);
        }
        let keep: Vec<bool> = (0..rows.len()).map(|k| by_group[groups[k] as usize].0.len() >= MIN_PEERS).collect();
        let mut at = 0;
        for k in 0..rows.len() {
            if keep[k] {
                rows[at] = rows[k];
                logs[at] = logs[k];
                groups[at] = groups[k];
                durations[at] = durations[k];
                at += 1;
            }
        }
        rows.truncate(at);
        logs.truncate(at);
        groups.truncate(at);
        durations.truncate(at);
        if rows.len() < MIN_RECORDS {
            return Ok(Vec::new());
        }
        let stats: Vec<((f64, f64), (f64, f64))> = by_group
            .iter()
            .map(
                |(v, d)| if v.len() >= MIN_PEERS { (robust(v, 0.1), robust(d, 0.1)) } else { ((0.0, 1.0), (0.0, 1.0)) },
            )
            .collect();
        let mut mod_count: HashMap<&str, usize, FxBuild> = HashMap::default();
        for &i in &rows {
            *mod_count.entry(cs[i as usize].modality.as_str()).or_default() += 1;
        }
        let mut modalities: Vec<(&str, usize)> = mod_count.into_iter().collect();
        modalities.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        let columns: Vec<&str> = modalities.iter().take(MODALITY_COLUMNS).map(|m| m.0).collect();
        let dim = 2 + columns.len() + 1;
        let mut features = Vec::with_capacity(rows.len() * dim);
        for (k, &i) in rows.iter().enumerate() {
            let ((m, s), (dm, ds)) = stats[groups[k] as usize];
            features.push(((logs[k] - m) / s).clamp(-VALUE_CAP, VALUE_CAP));
            features.push((durations[k] - dm) / ds);
            let modality = cs[i as usize].modality.as_str();
            let col = columns.iter().position(|c| *c == modality).unwrap_or(columns.len());
            features.extend((0..=columns.len()).map(|c| if c == col { 1.0 } else { 0.0 }));
        }
        cancel.check()?;
        let k = (rows.len() / 50).clamp(2, MAX_CLUSTERS);
        let Some(model) = Centroids::fit_substantial(&features, dim, k, SAMPLE, 0.005) else { return Ok(Vec::new()) };
        cancel.check()?;
        let t = DISTANCE.at(p.sensitivity);
        let names = feature_names(&columns);
        let mut scored: Vec<(usize, usize, f64)> = Vec::new();
        let mut flagged = 0usize;
        for (k, row) in features.chunks_exact(dim).enumerate() {
            if k % 16_384 == 0 {
                cancel.check()?;
            }
            let (c, d2) = model.nearest(row);
            let d = d2.sqrt();
            if d > t {
                flagged += 1;
                scored.push((k, c, d));
            }
        }
        let contamination = flagged as f64 / rows.len() as f64;
        let mut out = Vec::new();
        for (k, c, d) in scored {
            // Far from every learned group says the contract is unusual, not what is wrong with
            // it: read on real records, such findings were emergencies, leases and project
            // budgets. Below the default confidence threshold, they are shown only to who asks
            // for exploratory leads (a lower confidence_threshold).
            let confidence = tidy(margin_confidence(d - t, 1.0)).min(MAX_CONFIDENCE);
            if confidence < p.confidence_threshold {
                continue;
            }
            let row = &features[k * dim..(k + 1) * dim];
            let contributions: Vec<(String, f64)> = names
                .iter()
                .zip(row.iter().zip(model.centroid(c)))
                .map(|(n, (x, m))| (n.clone(), (x - m) * (x - m)))
                .collect();
            let group = &objects.groups[groups[k] as usize];
            let case =
                Case { index: rows[k] as usize, cluster: c, distance: d, row, centroid: model.centroid(c), group };
            out.push(anomaly(ds, &case, &names, &contributions, (t, contamination), confidence, p.sensitivity));
        }
        Ok(out)
    }
}

/// One scored contract.
struct Case<'a> {
    index: usize,
    cluster: usize,
    distance: f64,
    row: &'a [f64],
    centroid: &'a [f64],
    group: &'a ObjectGroup,
}

fn anomaly(
    ds: &Dataset,
    case: &Case<'_>,
    names: &[String],
    contributions: &[(String, f64)],
    (t, contamination): (f64, f64),
    confidence: f64,
    sensitivity: f64,
) -> Anomaly {
    let c = &ds.contracts[case.index];
    let total: f64 = contributions.iter().map(|x| x.1).sum::<f64>().max(f64::MIN_POSITIVE);
    let mut ranked: Vec<&(String, f64)> = contributions.iter().collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1));
    let days = match (c.valid_from, c.valid_until) {
        (Some(a), Some(b)) => (b - a).num_days(),
        _ => 0,
    };
    let number = if c.number.is_empty() { c.id.as_str() } else { c.number.as_str() };
    let top = &ranked[0].0;
    Finding {
        detector: NAME,
        kind: AnomalyType::PatternAnomaly,
        key: c.id.clone().to_string(),
        confidence,
        at_stake: c.value(),
        threshold: round4(t),
        description: format!(
            "Contrato {} ({}, {}, vigência de {} dias) não se parece com nenhum grupo de contratos dos dados; o que \
             mais o afasta: {}",
            number,
            format_brl(c.value()),
            c.modality,
            days,
            top
        ),
        human_pt: format!(
            "Um modelo de agrupamento (k-means) aprendido sobre todos os contratos coloca o contrato {} ({}) longe \
             de qualquer grupo: {:.1} desvios do contrato típico mais próximo. O fator principal é {} (vigência de {} \
             dias para {}). Vale conferir se os dados estão corretos e se a contratação faz sentido.",
            number,
            c.object.chars().take(100).collect::<String>(),
            case.distance,
            top,
            days,
            format_brl(c.value())
        ),
        human_en: format!(
            "A k-means model of all contracts places contract {number} {:.1} robust deviations from the nearest \
             cluster, mainly because of {top}.",
            case.distance
        ),
        technical: format!(
            "distance to the nearest of the k-means centroids (cluster {}) in robust-standardised features [{}]: \
             {:.3} > {:.3} (threshold at sensitivity {}; 2.5 at 1.0); {:.4}% of the scored contracts exceed it",
            case.cluster,
            names.join(", "),
            case.distance,
            t,
            sensitivity,
            contamination * 100.0
        ),
        primary: contract_ref(c),
        related: vec![organ_ref(c)],
        data_points: names
            .iter()
            .zip(case.row)
            .map(|(n, x)| point(n, *x, None))
            .chain(std::iter::once(point("distance", case.distance, None)))
            .collect(),
        patterns: vec![pattern(
            "far_from_every_cluster",
            format!("{:.1} deviations from cluster {}", case.distance, case.cluster),
            json!({"cluster": case.cluster, "centroid": case.centroid.iter().map(|x| round4(*x)).collect::<Vec<_>>()}),
        )],
        method: "kmeans_nearest_centroid_distance",
        score: case.distance,
        contamination,
        peer: Some(json!({
            "baseline": "kmeans_cluster",
            "cluster": case.cluster,
            "peer_group": case.group.terms,
            "peer_size": case.group.size,
        })),
        regulatory: None,
        factors: ranked
            .iter()
            .take(3)
            .map(|(n, v)| (n.clone(), v / total, format!("{:.2} of the squared distance", v)))
            .collect(),
        details: vec![
            ("distance", json!(round4(case.distance))),
            ("cluster", json!(case.cluster)),
            ("duration_days", json!(days)),
            ("sensitivity", json!(sensitivity)),
            ("baseline", json!("kmeans_cluster")),
            ("main_feature", json!(top)),
            ("peer_group", json!(case.group.terms)),
            ("peer_size", json!(case.group.size)),
            ("value", json!(round2(c.value()))),
        ],
    }
    .build()
    .at_most(MAX_SEVERITY)
}

#[cfg(test)]
#[path = "outliers_tests.rs"]
mod tests;
