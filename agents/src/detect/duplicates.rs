//! `duplicate_contracts`: the same object bought twice from the same supplier.
//!
//! Two contracts are duplicates when their objects are more than 85% similar (Jaccard index of
//! their sets of folded words, Portuguese stopwords left out), they have the same supplier
//! document, and their values are within 10% of each other or they were signed within 60
//! days. Candidate pairs come from a prefix-filtering similarity join inside each supplier
//! (rarest words first), which finds every pair above the threshold without comparing all
//! pairs. Mutual duplicates are grouped (connected components); the earliest contract is the
//! primary. Confidence: 0.65 when both the value and the date conditions hold (0.45 when one
//! does), plus up to 0.2 for similarity above 0.85 and up to 0.05 each for closeness of values
//! and dates; a group takes its strongest pair.

use std::collections::HashMap;

use chrono::Datelike;
use serde_json::json;

use super::Detector;
use super::common::{FxBuild, adjust_confidence, contract_ref, details, iso, ramp, round2, round4, severity, word_hash};
use crate::agent::{AnalysisError, CancelFlag};
use crate::model::anomaly::{
    AffectedEntities, Anomaly, AnomalyType, Context, DataPoint, Evidence, Explanation, Factor, StatisticalEvidence,
};
use crate::model::dataset::Dataset;
use crate::model::params::DetectionParams;
use crate::text::{for_each_word_bytes, format_brl, format_pct, is_stopword_bytes};

/// Detector name.
pub const NAME: &str = "duplicate_contracts";
/// The spec's literal similarity threshold (strictly above).
pub const THRESHOLD: f64 = 0.85;
/// Values within this fraction of the larger one count as close.
pub const VALUE_TOLERANCE: f64 = 0.10;
/// Signing dates within this many days count as close.
pub const MAX_DAYS: i64 = 60;

/// The duplicate contracts detector.
#[derive(Debug, Clone, Copy, Default)]
pub struct DuplicateContracts;

/// One verified pair (indices into the dataset).
#[derive(Debug, Clone, Copy)]
struct Pair {
    a: usize,
    b: usize,
    similarity: f64,
    value_diff: f64,
    days: Option<i64>,
    confidence: f64,
}

/// Jaccard index of two sets given as slices sorted in the same total order.
fn jaccard(x: &[(u32, u64)], y: &[(u32, u64)]) -> f64 {
    let (mut i, mut j, mut common) = (0, 0, 0usize);
    while i < x.len() && j < y.len() {
        match x[i].cmp(&y[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    let union = x.len() + y.len() - common;
    if union == 0 { 0.0 } else { common as f64 / union as f64 }
}

/// The hashed word set of an object text (sorted, deduplicated).
pub fn word_set(object: &str) -> Vec<u64> {
    let mut set = Vec::with_capacity(40);
    for_each_word_bytes(object, |w| {
        if !is_stopword_bytes(w) {
            set.push(word_hash(w));
        }
        true
    });
    set.sort_unstable();
    set.dedup();
    set
}

/// Jaccard similarity of two object texts, as the detector computes it.
pub fn similarity(a: &str, b: &str) -> f64 {
    let key = |s: Vec<u64>| s.into_iter().map(|h| (0u32, h)).collect::<Vec<_>>();
    jaccard(&key(word_set(a)), &key(word_set(b)))
}

/// Confidence of one pair, before the sensitivity shift.
pub fn pair_confidence(similarity: f64, value_diff: f64, days: Option<i64>) -> f64 {
    let value_close = value_diff <= VALUE_TOLERANCE;
    let date_close = days.is_some_and(|d| d <= MAX_DAYS);
    let base = if value_close && date_close { 0.65 } else { 0.45 };
    let v = if value_close { 1.0 - value_diff / VALUE_TOLERANCE } else { 0.0 };
    let d = days.filter(|d| *d <= MAX_DAYS).map_or(0.0, |d| 1.0 - d as f64 / MAX_DAYS as f64);
    base + ramp(similarity, THRESHOLD, 0.0, 1.0, 0.2) + 0.05 * v + 0.05 * d
}

impl Detector for DuplicateContracts {
    fn name(&self) -> &'static str {
        NAME
    }
    fn kind(&self) -> AnomalyType {
        AnomalyType::PatternAnomaly
    }
    fn run(&self, ds: &Dataset, p: &DetectionParams, cancel: &CancelFlag) -> Result<Vec<Anomaly>, AnalysisError> {
        let cs = &ds.contracts;
        let mut order: Vec<usize> =
            (0..cs.len()).filter(|&i| !cs[i].supplier.document.is_empty() && cs[i].value().is_finite()).collect();
        order.sort_by(|&a, &b| cs[a].supplier.document.cmp(&cs[b].supplier.document).then(a.cmp(&b)));
        let mut out = Vec::new();
        let mut done = 0usize;
        let mut start = 0;
        let mut scratch = Scratch::default();
        while start < order.len() {
            let doc = &cs[order[start]].supplier.document;
            let mut end = start + 1;
            while end < order.len() && cs[order[end]].supplier.document == *doc {
                end += 1;
            }
            let run = &order[start..end];
            start = end;
            if run.len() < 2 {
                continue;
            }
            done += run.len();
            if done >= 2048 {
                cancel.check()?;
                done = 0;
            }
            let pairs = supplier_pairs(ds, run, &mut scratch);
            if !pairs.is_empty() {
                for group in components(run, &pairs) {
                    out.push(anomaly(ds, &group, &pairs, run.len(), p));
                }
            }
        }
        Ok(out)
    }
}

/// Scratch space reused from one supplier to the next.
#[derive(Default)]
struct Scratch {
    freq: HashMap<u64, u32, FxBuild>,
    index: HashMap<u64, Vec<(u32, u32)>, FxBuild>,
    candidates: Vec<u32>,
}

/// Fewest common words two sets of these sizes need to reach the Jaccard threshold.
fn min_overlap(a: usize, b: usize) -> usize {
    ((THRESHOLD * (a + b) as f64) / (1.0 + THRESHOLD) - 1e-9).ceil() as usize
}

/// Every verified duplicate pair among the contracts of one supplier.
///
/// Prefix filtering with positions (PPJoin): words are ordered rarest first within the
/// supplier; two sets above the threshold share a word among their first
/// `|x| - ceil(0.85 |x|) + 1`, and the first shared word's positions bound the overlap.
fn supplier_pairs(ds: &Dataset, run: &[usize], scratch: &mut Scratch) -> Vec<Pair> {
    let cs = &ds.contracts;
    let sets: Vec<Vec<u64>> = run.iter().map(|&i| word_set(&cs[i].object)).collect();
    scratch.freq.clear();
    scratch.index.clear();
    for s in &sets {
        for h in s {
            *scratch.freq.entry(*h).or_default() += 1;
        }
    }
    let ordered: Vec<Vec<(u32, u64)>> = sets
        .iter()
        .map(|s| {
            let mut v: Vec<(u32, u64)> = s.iter().map(|h| (scratch.freq.get(h).copied().unwrap_or(0), *h)).collect();
            v.sort_unstable();
            v
        })
        .collect();
    let values: Vec<f64> = run.iter().map(|&i| cs[i].value()).collect();
    let days: Vec<Option<i64>> = run.iter().map(|&i| cs[i].signed_on.map(|d| i64::from(d.num_days_from_ce()))).collect();
    let mut pairs = Vec::new();
    for (x, tokens) in ordered.iter().enumerate() {
        let len = tokens.len();
        if len == 0 {
            continue;
        }
        let prefix = (len - (85 * len).div_ceil(100) + 1).min(len);
        scratch.candidates.clear();
        for (i, t) in tokens[..prefix].iter().enumerate() {
            let list = scratch.index.entry(t.1).or_default();
            for &(y, j) in list.iter() {
                let other = ordered[y as usize].len();
                let bound = 1 + (len - i - 1).min(other - j as usize - 1);
                if bound >= min_overlap(len, other) {
                    scratch.candidates.push(y);
                }
            }
            list.push((x as u32, i as u32));
        }
        scratch.candidates.sort_unstable();
        scratch.candidates.dedup();
        for &y in &scratch.candidates {
            let y = y as usize;
            let (va, vb) = (values[y], values[x]);
            let value_diff = if va.max(vb) > 0.0 { (va - vb).abs() / va.max(vb) } else { 0.0 };
            let apart = match (days[y], days[x]) {
                (Some(a), Some(b)) => Some((a - b).abs()),
                _ => None,
            };
            if value_diff > VALUE_TOLERANCE && !apart.is_some_and(|d| d <= MAX_DAYS) {
                continue;
            }
            let similarity = jaccard(&ordered[y], tokens);
            if similarity > THRESHOLD {
                let confidence = pair_confidence(similarity, value_diff, apart);
                pairs.push(Pair { a: run[y], b: run[x], similarity, value_diff, days: apart, confidence });
            }
        }
    }
    pairs
}

/// Groups of mutually connected contracts, each sorted by signing date then id (earliest first).
fn components(run: &[usize], pairs: &[Pair]) -> Vec<Vec<usize>> {
    let pos: HashMap<usize, usize, FxBuild> = run.iter().enumerate().map(|(k, i)| (*i, k)).collect();
    let mut parent: Vec<usize> = (0..run.len()).collect();
    fn find(parent: &mut [usize], mut x: usize) -> usize {
        while parent[x] != x {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        x
    }
    for p in pairs {
        let (Some(&a), Some(&b)) = (pos.get(&p.a), pos.get(&p.b)) else { continue };
        let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
        if ra != rb {
            parent[ra.max(rb)] = ra.min(rb);
        }
    }
    let mut groups: HashMap<usize, Vec<usize>, FxBuild> = HashMap::default();
    let involved: Vec<usize> = pairs.iter().flat_map(|p| [p.a, p.b]).collect();
    for i in involved {
        if let Some(&k) = pos.get(&i) {
            let r = find(&mut parent, k);
            groups.entry(r).or_default().push(i);
        }
    }
    let mut out: Vec<Vec<usize>> = groups
        .into_values()
        .map(|mut g| {
            g.sort_unstable();
            g.dedup();
            g
        })
        .collect();
    out.sort();
    out
}

fn anomaly(ds: &Dataset, group: &[usize], pairs: &[Pair], supplier_contracts: usize, p: &DetectionParams) -> Anomaly {
    let cs = &ds.contracts;
    let mut members = group.to_vec();
    members.sort_by(|&a, &b| {
        let key = |i: usize| (cs[i].signed_on.is_none(), cs[i].signed_on, &cs[i].id);
        key(a).cmp(&key(b))
    });
    let primary = &cs[members[0]];
    let inside: Vec<&Pair> = pairs.iter().filter(|q| group.contains(&q.a) && group.contains(&q.b)).collect();
    let best = inside.iter().map(|q| q.confidence).fold(0.0, f64::max);
    let max_sim = inside.iter().map(|q| q.similarity).fold(0.0, f64::max);
    let min_sim = inside.iter().map(|q| q.similarity).fold(1.0, f64::min);
    let max_vdiff = inside.iter().map(|q| q.value_diff).fold(0.0, f64::max);
    let max_days = inside.iter().filter_map(|q| q.days).max();
    let at_stake: f64 = members[1..].iter().map(|&i| cs[i].value()).sum();
    let confidence = adjust_confidence(best, p.sensitivity);
    let mut td = details(NAME, THRESHOLD, at_stake);
    td.insert("similarity".into(), json!(round4(max_sim)));
    td.insert("min_similarity".into(), json!(round4(min_sim)));
    td.insert("supplier".into(), json!(primary.supplier.document));
    td.insert("supplier_name".into(), json!(primary.supplier.name));
    td.insert("organ".into(), json!(primary.organ.code));
    td.insert("group_size".into(), json!(members.len()));
    td.insert("max_value_difference".into(), json!(round4(max_vdiff)));
    td.insert("max_days_apart".into(), json!(max_days));
    td.insert("value_tolerance".into(), json!(VALUE_TOLERANCE));
    td.insert("max_days".into(), json!(MAX_DAYS));
    let data_points = members
        .iter()
        .map(|&i| DataPoint { metric: "contract_value".into(), value: round2(cs[i].value()), timestamp: iso(cs[i].signed_on) })
        .collect();
    let patterns = inside
        .iter()
        .map(|q| {
            json!({
                "name": "near_duplicate_pair",
                "description": format!("{} and {}", cs[q.a].id, cs[q.b].id),
                "contracts": [cs[q.a].id, cs[q.b].id],
                "similarity": round4(q.similarity),
                "value_difference": round4(q.value_diff),
                "days_apart": q.days,
            })
        })
        .collect();
    let ids: Vec<&str> = members.iter().map(|&i| cs[i].id.as_str()).collect();
    let description = format!(
        "{} contratos de {} com objeto {} idêntico e valores próximos (contratos {}); {} além do primeiro",
        members.len(),
        primary.supplier.name,
        format_pct(max_sim),
        ids.join(", "),
        format_brl(at_stake)
    );
    let human = format!(
        "{} assinou {} contratos com {} para praticamente o mesmo objeto (\"{}\"), com valores a no máximo {} de \
         distância{}. Pode ser o mesmo serviço pago duas vezes: vale confirmar com o órgão.",
        primary.organ.name,
        members.len(),
        primary.supplier.name,
        primary.object.chars().take(100).collect::<String>(),
        format_pct(max_vdiff),
        max_days.map_or(String::new(), |d| format!(" e assinados com até {d} dias de diferença"))
    );
    let technical = format!(
        "Jaccard similarity of object word sets {:.3}-{:.3} > {} for the same supplier document {}, with values \
         within {} or signing dates within {} days; {} pairs in the group",
        min_sim,
        max_sim,
        THRESHOLD,
        primary.supplier.document,
        format_pct(VALUE_TOLERANCE),
        MAX_DAYS,
        inside.len()
    );
    Anomaly {
        id: format!("{NAME}-{}", primary.id),
        kind: AnomalyType::PatternAnomaly,
        severity: severity(confidence, at_stake),
        confidence,
        description,
        technical_details: td,
        affected_entities: AffectedEntities {
            primary: contract_ref(primary),
            related: members[1..].iter().map(|&i| contract_ref(&cs[i])).collect(),
        },
        evidence: Evidence {
            data_points,
            patterns,
            statistical_analysis: Some(StatisticalEvidence {
                method: "jaccard_word_sets".into(),
                anomaly_score: round4(max_sim),
                contamination: round4(members.len() as f64 / supplier_contracts.max(1) as f64),
            }),
        },
        context: Context {
            peer_comparison: Some(json!({
                "group": format!("contracts of supplier {}", primary.supplier.document),
                "supplier_contracts": supplier_contracts,
            })),
            ..Context::default()
        },
        explanation: Some(Explanation {
            human_readable: human,
            technical,
            contributing_factors: vec![
                Factor { factor: "similarity".into(), impact: 0.6, description: format!("objects {:.0}% alike", max_sim * 100.0) },
                Factor { factor: "same_supplier".into(), impact: 0.2, description: "same supplier document".into() },
                Factor {
                    factor: "close_value_or_date".into(),
                    impact: 0.2,
                    description: format!(
                        "values within {}{}",
                        format_pct(max_vdiff),
                        max_days.map_or(String::new(), |d| format!(", at most {d} days apart"))
                    ),
                },
            ],
        }),
    }
}

#[cfg(test)]
#[path = "duplicates_tests.rs"]
mod tests;
