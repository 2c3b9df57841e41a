//! The other half of `duplicate_contracts`: the same object contracted by one organ from
//! *different* suppliers in one purchase process at about the same value and time, the same
//! purchase contracted twice (or once, then again under another company's name).
//!
//! Identical object texts from different suppliers are common and mean nothing by themselves
//! (boilerplate, lots of one pregão), so the rule asks for strong corroboration: objects more
//! than `t(s)` alike (the same Jaccard threshold, word sets and specificity weighting as the
//! same-supplier half, [`crate::detect::pattern::duplicates`]), the same organ and the same purchase process
//! (`numeroProcesso`, non-empty), the same purchase item listed by both (`Código Item Compra`:
//! two lots or two items of one tender go to different suppliers by design, and contracts
//! without items cannot show this), different supplier documents, values within 10% of each
//! other *and* signing dates within 60 days, and not a purchase meant to contract several
//! suppliers for one object (ata de registro de preços, credenciamento by inexigibilidade,
//! chamada pública of family farming by dispensa), nor individuals (consultants or instructors
//! hired in one process at one price), nor a contract signed after the other was rescinded
//! (the next bidder taking over the remainder, [`takes_over`]). Such a group is worth an explanation, not a
//! case: its severity is medium at most. Pairs are grouped (connected
//! components) and the earliest contract is the primary.
//!
//! Complexity: contracts are blocked by (organ, process) with a hash map, and the similarity
//! join runs inside each block of at least two suppliers: linear in the contracts plus the
//! joins of small blocks.

use std::hash::Hasher;

use serde_json::json;

use crate::cancel::{AnalysisError, CancelFlag};
use crate::detect::common::{contract_ref, iso, round4, supplier_ref};
use crate::detect::finding::{Finding, point};
use crate::detect::pattern::doc_freq::DocFreq;
use crate::detect::pattern::duplicates::{MAX_DAYS, NAME, SIMILARITY, THRESHOLD, VALUE_TOLERANCE, pair_score};
use crate::detect::pattern::pair_groups::{GroupPairs, group_pairs, pair_patterns};
use crate::detect::pattern::simjoin::{Closeness, Pair, Scratch, components, pairs_in};
use crate::detect::sensitivity::tidy;
use crate::detect::shared::{Shared, par_ranges, threads_for};
use crate::model::amendment::AmendmentKind;
use crate::model::anomaly::{Anomaly, AnomalyType, Severity};
use crate::model::cnpj::{DocumentKind, document_kind};
use crate::model::contract::Contract;
use crate::model::dataset::Dataset;
use crate::model::params::DetectionParams;
use crate::text::{format_brl, format_pct};

/// Datasets at least this large split the organs over threads.
const PARALLEL_FROM: usize = 20_000;

/// Groups of near-identical contracts of one organ and purchase process with different
/// suppliers.
pub fn cross_supplier(
    sh: &Shared<'_>,
    df: &DocFreq,
    p: &DetectionParams,
    cancel: &CancelFlag,
) -> Result<Vec<Anomaly>, AnalysisError> {
    let ds = sh.dataset();
    let cs = &ds.contracts;
    let mut runs: Vec<Vec<usize>> = blocks(sh)
        .into_iter()
        .filter(|run| run.len() >= 2 && run.iter().any(|&i| cs[i].supplier.document != cs[run[0]].supplier.document))
        .collect();
    runs.sort_unstable_by_key(|r| (std::cmp::Reverse(r.len()), r[0]));
    let shards = if cs.len() >= PARALLEL_FROM { crate::detect::common::cores().clamp(1, 8) } else { 1 };
    let shard = |k: usize| -> Result<Vec<Anomaly>, AnalysisError> {
        let mut scratch = Scratch::default();
        let mut out = Vec::new();
        for (done, run) in runs.iter().skip(k).step_by(shards).enumerate() {
            if done % 256 == 0 {
                cancel.check()?;
            }
            out.extend(process_duplicates(ds, run, df, p, &mut scratch));
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

/// The contracts of each (organ, purchase process) block of at least two, each block in dataset
/// order: contracts with a process number, a signing date and a positive value, not made with
/// an individual (individuals hired in one process at one price are a call for several
/// people: consultants, instructors, credenciamento). Each contract's key is hashed on several
/// threads, then the keys are sorted; equal hashes are checked against the texts, so a
/// collision never joins two blocks.
fn blocks(sh: &Shared<'_>) -> Vec<Vec<usize>> {
    let cs = &sh.dataset().contracts;
    let organs = sh.organs();
    let eligible = |c: &Contract| {
        let value = c.value();
        let individual = matches!(
            document_kind(&c.supplier.document),
            DocumentKind::Cpf | DocumentKind::MaskedCpf | DocumentKind::InvalidCpf
        );
        !c.process_number.is_empty() && c.signed_on.is_some() && value.is_finite() && value > 0.0 && !individual
    };
    let mut keyed: Vec<(u64, u32)> = par_ranges(cs.len(), threads_for(cs.len()), |from, to| {
        (from..to)
            .filter(|&i| eligible(&cs[i]))
            .map(|i| {
                let mut h = rustc_hash::FxHasher::default();
                h.write_u32(organs.ids[i]);
                h.write(cs[i].process_number.as_bytes());
                (h.finish(), i as u32)
            })
            .collect()
    });
    keyed.sort_unstable();
    let key = |i: u32| (cs[i as usize].organ.code.as_str(), cs[i as usize].process_number.as_str());
    let mut out = Vec::new();
    for same in keyed.chunk_by(|a, b| a.0 == b.0).filter(|g| g.len() >= 2) {
        let mut members: Vec<u32> = same.iter().map(|k| k.1).collect();
        if members.iter().all(|&i| key(i) == key(members[0])) {
            out.push(members.into_iter().map(|i| i as usize).collect());
            continue;
        }
        // A hash collision: the blocks by their texts.
        members.sort_by(|&a, &b| key(a).cmp(&key(b)).then(a.cmp(&b)));
        out.extend(
            members
                .chunk_by(|&a, &b| key(a) == key(b))
                .filter(|g| g.len() >= 2)
                .map(|g| g.iter().map(|&i| i as usize).collect()),
        );
    }
    out
}

/// The cross-supplier duplicate groups among the contracts of one purchase process.
fn process_duplicates(
    ds: &Dataset,
    run: &[usize],
    df: &DocFreq,
    p: &DetectionParams,
    scratch: &mut Scratch,
) -> Vec<Anomaly> {
    let threshold = SIMILARITY.at(p.sensitivity);
    let mut pairs = pairs_in(ds, run, Closeness::OtherSupplier, Some(df), None, scratch);
    pairs.retain(|q| {
        q.similarity > threshold
            && pair_score(q, p.sensitivity) >= p.confidence_threshold
            && !takes_over(&ds.contracts[q.a], &ds.contracts[q.b])
    });
    let mut out = Vec::new();
    for group in components(run, &pairs) {
        let a = anomaly(ds, &group, &pairs, run.len(), p);
        if a.confidence >= p.confidence_threshold {
            out.push(a);
        }
    }
    out
}

/// Whether one of two contracts ended early (a rescisão, or a rescinded situation) by the time
/// the other was signed: the next bidder of the same process then takes over what remained
/// (Lei 14.133/2021, art. 90, §§ 2º and 7º; Lei 8.666/1993, art. 24, XI), the same object from
/// another supplier by design.
pub fn takes_over(a: &Contract, b: &Contract) -> bool {
    let ended_by = |x: &Contract, on: Option<chrono::NaiveDate>| {
        crate::text::fold(&x.situation).contains("rescin")
            || x.amendments.iter().any(|m| {
                m.kinds.contains(&AmendmentKind::Termination)
                    && (on.is_none() || m.signed_on.is_none() || m.signed_on <= on)
            })
    };
    let (first, second) = if a.signed_on <= b.signed_on { (a, b) } else { (b, a) };
    ended_by(first, second.signed_on)
}

fn anomaly(ds: &Dataset, group: &[usize], pairs: &[Pair], process_contracts: usize, p: &DetectionParams) -> Anomaly {
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
            "{} contratou praticamente o mesmo objeto (\"{}\") de {} fornecedores diferentes no mesmo processo {}, \
             por valores a no máximo {} de distância e com até {} dias entre as assinaturas. Pode ser a mesma compra \
             feita duas vezes, ou repetida em nome de outra empresa: vale pedir ao órgão as entregas de cada contrato.",
            primary.organ.name,
            primary.object.chars().take(100).collect::<String>(),
            docs.len(),
            primary.process_number,
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
             literal {THRESHOLD}) for contracts of organ {} in process {} with different suppliers, values within {} \
             and signing dates within {MAX_DAYS} days; {} pairs in the group; severity capped at medium",
            max_sim,
            SIMILARITY.at(s),
            primary.organ.code,
            primary.process_number,
            format_pct(VALUE_TOLERANCE),
            inside.len()
        ),
        primary: contract_ref(primary),
        related,
        data_points: members.iter().map(|&i| point("contract_value", cs[i].value(), iso(cs[i].signed_on))).collect(),
        patterns: pair_patterns(ds, &inside, "near_duplicate_pair_other_supplier"),
        method: "jaccard_word_sets",
        score: max_sim,
        contamination: members.len() as f64 / process_contracts.max(1) as f64,
        peer: Some(json!({
            "group": format!("contracts of organ {} in process {}", primary.organ.code, primary.process_number),
            "process_contracts": process_contracts,
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
            ("baseline", json!("same_process_close_value_and_date")),
            ("process", json!(primary.process_number)),
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
    .at_most(Severity::Medium)
}

#[cfg(test)]
#[path = "duplicates_cross_tests.rs"]
mod tests;
