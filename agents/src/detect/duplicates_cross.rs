//! The other half of `duplicate_contracts`: the same object bought by one organ from
//! *different* suppliers at about the same value within a few weeks, the same purchase
//! contracted twice (or once, then again under another company's name).
//!
//! Objects more than `t(s)` alike (the same Jaccard threshold and word sets as the
//! same-supplier half, [`super::duplicates`]) whose contracts have the same organ, different
//! supplier documents, values within 10% of each other *and* signing dates within 60 days. A
//! different supplier is only suspicious when both the money and the time match, so the rule
//! asks for both. Pairs are grouped (connected components) and the earliest contract is the
//! primary; confidence as for a same-supplier pair close in both value and date.
//!
//! Complexity: each organ's dated contracts are blocked by object category and value band
//! (log scale, 0.11 wide, so values within 10% share a band or neighbour bands), each pair of
//! neighbour bands sorted by signing date and cut into 60-day blocks; the similarity join runs
//! over every two consecutive blocks, so every candidate pair meets in a few small runs and no
//! run spans more than one organ, one category, two bands and four months.

use std::collections::{HashMap, HashSet};

use serde_json::json;

use super::common::{FxBuild, contract_ref, iso, round4, supplier_ref};
use super::duplicates::{
    GroupPairs, MAX_DAYS, NAME, SIMILARITY, THRESHOLD, VALUE_TOLERANCE, group_pairs, pair_confidence, pair_patterns,
};
use super::finding::{Finding, point};
use super::sensitivity::tidy;
use super::shared::Shared;
use super::simjoin::{Closeness, Pair, Scratch, components, index_words, join};
use crate::agent::{AnalysisError, CancelFlag};
use crate::model::anomaly::{Anomaly, AnomalyType};
use crate::model::dataset::Dataset;
use crate::model::params::DetectionParams;
use crate::text::{format_brl, format_pct};

/// Datasets at least this large split the organs over threads.
const PARALLEL_FROM: usize = 20_000;
/// Width of a value band on the log scale: values within 10% of each other (`ln(1/0.9)`
/// apart) are in the same band or adjacent ones.
const BAND: f64 = 0.11;

/// Groups of near-identical contracts of one organ with different suppliers.
pub fn cross_supplier(
    sh: &Shared<'_>,
    p: &DetectionParams,
    cancel: &CancelFlag,
) -> Result<Vec<Anomaly>, AnalysisError> {
    let categories = sh.categories(cancel)?;
    let (order, start) = sh.organs().groups();
    let mut organs: Vec<&[u32]> = start.windows(2).map(|w| &order[w[0] as usize..w[1] as usize]).collect();
    // Organs dealt round-robin by size over the cores, largest first.
    organs.sort_by_key(|m| std::cmp::Reverse(m.len()));
    let shards = if sh.dataset().contracts.len() >= PARALLEL_FROM { super::common::cores().clamp(1, 8) } else { 1 };
    let shard = |k: usize| -> Result<Vec<Anomaly>, AnalysisError> {
        let mut scratch = Scratch::default();
        let mut out = Vec::new();
        for members in organs.iter().skip(k).step_by(shards) {
            cancel.check()?;
            out.extend(organ_duplicates(sh, categories, members, p, &mut scratch));
        }
        Ok(out)
    };
    if shards == 1 {
        return shard(0);
    }
    let results: Vec<Result<Vec<Anomaly>, AnalysisError>> = std::thread::scope(|s| {
        let shard = &shard;
        let handles: Vec<_> = (0..shards).map(|k| s.spawn(move || shard(k))).collect();
        let panicked = || Err(AnalysisError::InvalidInput("duplicate search panicked".into()));
        handles.into_iter().map(|h| h.join().unwrap_or_else(|_| panicked())).collect()
    });
    let mut out = Vec::new();
    for r in results {
        out.extend(r?);
    }
    Ok(out)
}

/// The cross-supplier duplicate groups among one organ's contracts.
fn organ_duplicates(
    sh: &Shared<'_>,
    categories: &[super::category::Category],
    organ: &[u32],
    p: &DetectionParams,
    scratch: &mut Scratch,
) -> Vec<Anomaly> {
    let ds = sh.dataset();
    let cs = &ds.contracts;
    let threshold = SIMILARITY.at(p.sensitivity);
    let members: Vec<usize> = organ
        .iter()
        .map(|&i| i as usize)
        .filter(|&i| cs[i].signed_on.is_some() && cs[i].value().is_finite() && cs[i].value() > 0.0)
        .collect();
    if members.len() < 2 {
        return Vec::new();
    }
    // The organ's word sets are ordered once; the joins run over small blocks of them.
    index_words(ds, &members, scratch);
    // Blocks of (category, value band): a pair within 10% in value lies in one band or
    // two adjacent ones, and near-identical objects share a category.
    let mut blocks: HashMap<(u8, i64), Vec<(i64, usize)>, FxBuild> = HashMap::default();
    for (k, &i) in members.iter().enumerate() {
        let (value, Some(day)) = (cs[i].value(), cs[i].signed_on) else { continue };
        let band = (value.ln() / BAND).floor() as i64;
        let day = i64::from(chrono::Datelike::num_days_from_ce(&day));
        blocks.entry((categories[i] as u8, band)).or_default().push((day, k));
    }
    let mut seen: HashSet<(usize, usize), FxBuild> = HashSet::default();
    let mut pairs: Vec<Pair> = Vec::new();
    let mut keys: Vec<(u8, i64)> = blocks.keys().copied().collect();
    keys.sort_unstable();
    for (cat, band) in keys {
        let mut dated: Vec<(i64, usize)> = blocks[&(cat, band)].clone();
        dated.extend(blocks.get(&(cat, band + 1)).into_iter().flatten().copied());
        if dated.len() < 2 {
            continue;
        }
        dated.sort_unstable();
        for positions in date_runs(&dated) {
            for q in join(ds, &members, &positions, Closeness::OtherSupplier, scratch) {
                let key = (q.a.min(q.b), q.a.max(q.b));
                if q.similarity > threshold
                    && pair_confidence(q.similarity, q.value_diff, q.days, p.sensitivity) >= p.confidence_threshold
                    && seen.insert(key)
                {
                    pairs.push(q);
                }
            }
        }
    }
    if pairs.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for group in components(&members, &pairs) {
        let a = anomaly(ds, &group, &pairs, members.len(), p);
        if a.confidence >= p.confidence_threshold {
            out.push(a);
        }
    }
    out
}

/// Runs of members (positions, sorted by day) covering every pair at most [`MAX_DAYS`]
/// apart: the members of each two consecutive 60-day blocks.
fn date_runs(dated: &[(i64, usize)]) -> Vec<Vec<usize>> {
    let block = |day: i64| (day - dated[0].0) / MAX_DAYS;
    let last = block(dated[dated.len() - 1].0);
    let mut runs = Vec::new();
    let mut at = 0;
    for b in 0..=last {
        let from = at;
        while at < dated.len() && block(dated[at].0) == b {
            at += 1;
        }
        let mut to = at;
        while to < dated.len() && block(dated[to].0) == b + 1 {
            to += 1;
        }
        if to - from >= 2 {
            runs.push(dated[from..to].iter().map(|&(_, i)| i).collect());
        }
    }
    runs
}

fn anomaly(ds: &Dataset, group: &[usize], pairs: &[Pair], organ_contracts: usize, p: &DetectionParams) -> Anomaly {
    let cs = &ds.contracts;
    let mut members = group.to_vec();
    members.sort_by(|&a, &b| (cs[a].signed_on, &cs[a].id).cmp(&(cs[b].signed_on, &cs[b].id)));
    let primary = &cs[members[0]];
    let GroupPairs { inside, best, max_sim, max_vdiff, max_days, .. } = group_pairs(group, pairs, p.sensitivity);
    let max_days = max_days.unwrap_or(0);
    let s = p.sensitivity;
    let at_stake: f64 = members[1..].iter().map(|&i| cs[i].value()).sum();
    let mut suppliers: Vec<&str> = members.iter().map(|&i| cs[i].supplier.name.as_str()).collect();
    suppliers.dedup();
    let ids: Vec<&str> = members.iter().map(|&i| cs[i].id.as_str()).collect();
    let mut related: Vec<_> = members[1..].iter().map(|&i| contract_ref(&cs[i])).collect();
    let mut docs: Vec<&str> = Vec::new();
    for &i in &members {
        if !docs.contains(&cs[i].supplier.document.as_str()) {
            docs.push(cs[i].supplier.document.as_str());
            related.push(supplier_ref(&cs[i]));
        }
    }
    Finding {
        detector: NAME,
        kind: AnomalyType::PatternAnomaly,
        key: format!("cross-{}", primary.id),
        confidence: tidy(best),
        at_stake,
        threshold: round4(SIMILARITY.at(s)),
        description: format!(
            "{} contratos de {} com fornecedores diferentes ({}) para objeto {} idêntico, valores a até {} e {} dias \
             (contratos {}); {} além do primeiro",
            members.len(),
            primary.organ.name,
            suppliers.join(", "),
            format_pct(max_sim),
            format_pct(max_vdiff),
            max_days,
            ids.join(", "),
            format_brl(at_stake)
        ),
        human_pt: format!(
            "{} contratou praticamente o mesmo objeto (\"{}\") de {} fornecedores diferentes, por valores a no máximo \
             {} de distância e com até {} dias entre as assinaturas. Pode ser a mesma compra feita duas vezes, ou \
             repetida em nome de outra empresa: vale pedir ao órgão as duas entregas.",
            primary.organ.name,
            primary.object.chars().take(100).collect::<String>(),
            docs.len(),
            format_pct(max_vdiff),
            max_days
        ),
        human_en: format!(
            "The organ bought practically the same object from {} different suppliers at values within {} and at most \
             {} days apart: possibly the same purchase made twice.",
            docs.len(),
            format_pct(max_vdiff),
            max_days
        ),
        technical: format!(
            "Jaccard similarity of object word sets up to {:.3} > {:.3} (threshold at sensitivity {s}; the spec's \
             literal {THRESHOLD}) for contracts of organ {} with different suppliers, values within {} and signing \
             dates within {MAX_DAYS} days; {} pairs in the group",
            max_sim,
            SIMILARITY.at(s),
            primary.organ.code,
            format_pct(VALUE_TOLERANCE),
            inside.len()
        ),
        primary: contract_ref(primary),
        related,
        data_points: members.iter().map(|&i| point("contract_value", cs[i].value(), iso(cs[i].signed_on))).collect(),
        patterns: pair_patterns(ds, &inside, "near_duplicate_pair_other_supplier"),
        method: "jaccard_word_sets",
        score: max_sim,
        contamination: members.len() as f64 / organ_contracts.max(1) as f64,
        peer: Some(json!({
            "group": format!("contracts of organ {} within {MAX_DAYS} days", primary.organ.code),
            "organ_contracts": organ_contracts,
        })),
        regulatory: None,
        factors: vec![
            ("similarity".into(), 0.5, format!("objects {:.0}% alike", max_sim * 100.0)),
            ("close_value".into(), 0.25, format!("values within {}", format_pct(max_vdiff))),
            ("close_date".into(), 0.25, format!("at most {max_days} days apart")),
        ],
        details: vec![
            ("rule", json!("other_supplier")),
            ("literal_threshold", json!(THRESHOLD)),
            ("sensitivity", json!(s)),
            ("baseline", json!("same_organ_close_value_and_date")),
            ("similarity", json!(round4(max_sim))),
            ("organ", json!(primary.organ.code)),
            ("suppliers", json!(docs)),
            ("group_size", json!(members.len())),
            ("max_value_difference", json!(round4(max_vdiff))),
            ("max_days_apart", json!(max_days)),
            ("value_tolerance", json!(VALUE_TOLERANCE)),
            ("max_days", json!(MAX_DAYS)),
        ],
    }
    .build()
}
