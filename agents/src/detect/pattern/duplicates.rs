//! `duplicate_contracts`: the same object bought twice from the same supplier, or (see
//! [`crate::detect::pattern::duplicates_cross`]) from different suppliers at about the same value and time.
//!
//! Two contracts are duplicates when their objects are more than [`SIMILARITY`] alike (Jaccard
//! index of their sets of folded words, Portuguese stopwords left out), they have the same
//! supplier document, and their values are within 10% of each other or they were signed within
//! 60 days. Candidate pairs come from a prefix-filtering similarity join inside each supplier
//! (rarest words first), which finds every pair above 0.85 without comparing all pairs; objects
//! of fewer than 4 content words take no part (boilerplate such as "MATERIAL DE CONSUMO" says
//! nothing about which purchase it is). Mutual duplicates are grouped (connected components);
//! the earliest contract is the primary.
//!
//! Sensitivity `s` moves the similarity threshold `t(s)` through 0.95 (s = 0), 0.85 (s = 0.7,
//! calibrated: planted copies differ by one word, about 0.93-0.97) and 0.85 (s = 1, the spec's
//! literal 85%). Pair confidence = `margin_confidence(similarity - t(s), 0.04)` (see
//! [`crate::detect::sensitivity`]) times a closeness factor: 1.0 when both the value and the date are
//! close, `0.8 + 0.2 * max(0, (s - 0.7) / 0.3)` when only one is (so at the defaults only pairs
//! close in both are reported, and at s = 1 the literal rule "value or date" applies in full).
//! A group takes its strongest pair.
//!
//! How alike two texts are says little when the text is boilerplate: a pair's confidence is
//! also multiplied by how specific the rarest word the two objects share is within the dataset
//! ([`crate::detect::pattern::doc_freq`]; full weight for a word in at most the square root of the texts,
//! proportionally less above), so copies of a text many contracts carry barely count. Empty
//! objects, "não se aplica" and the secret-information notice are never compared. Two
//! contracts of one ata de registro de preços signed by different managing units are each unit
//! buying its share, not a duplicate. Where both contracts of a supplier list their items, they must share
//! a line of the same quantity at the same unit price: two lots of one tender, or two draws
//! of different quantities on one ata, are two purchases. Near-identical texts that each name
//! a specific thing the other does not ("... EM CURITIBA", "... EM MANAUS") are two purchases
//! too ([`crate::detect::pattern::doc_freq::DocFreq::name_different_things`]). Two contracts that are each made
//! with the supplier because of who it is or what it leases, or for a court order (utilities,
//! state companies and public bodies, a building's lessor, an exclusive maker, a court-ordered
//! medicine) are each a consumer unit, service, property or order of their own, whose standard
//! texts seldom say which: alike texts do not make them one purchase.
//!
//! Complexity: near-linear. Each object is tokenised once (`O(total words)`); the join indexes
//! a prefix of a few rare words per object and only verifies candidates sharing one, so the
//! cost follows the number of near-duplicate pairs, not the square of a supplier's contracts.

use serde_json::json;

use crate::cancel::{AnalysisError, CancelFlag};
use crate::detect::Detector;
use crate::detect::common::{contract_ref, iso, round4};
use crate::detect::finding::{Finding, point};
use crate::detect::pattern::doc_freq::DocCounter;
use crate::detect::pattern::pair_groups::{GroupPairs, group_pairs, pair_patterns};
use crate::detect::pattern::simjoin::{Closeness, Pair, Scratch, components, pairs_in};
pub use crate::detect::pattern::simjoin::{similarity, word_set};
use crate::detect::sensitivity::{Threshold, margin_confidence, tidy};
use crate::detect::shared::{Shared, par_each};
use crate::model::anomaly::{Anomaly, AnomalyType, Severity};
use crate::model::contract::Contract;
use crate::model::dataset::Dataset;
use crate::model::params::DetectionParams;
use crate::text::{format_brl, format_pct};

/// Detector name.
pub const NAME: &str = "duplicate_contracts";
/// The highest severity of a same-supplier duplicate: two records of one purchase ask the
/// organ to confirm whether it was paid twice; they do not show it was.
pub const MAX_SEVERITY: Severity = Severity::High;
/// The spec's literal similarity threshold (strictly above); the lowest any sensitivity uses.
pub const THRESHOLD: f64 = 0.85;
/// The similarity threshold as sensitivity moves it.
pub const SIMILARITY: Threshold = Threshold::new(0.95, 0.85, THRESHOLD);
/// Values within this fraction of the larger one count as close.
pub const VALUE_TOLERANCE: f64 = 0.10;
/// Signing dates within this many days count as close.
pub const MAX_DAYS: i64 = 60;
/// Datasets at least this large split the suppliers over threads.
const PARALLEL_FROM: usize = 20_000;

/// The pairs a shard found in its supplier runs (each run by its index), waiting for the
/// dataset's word frequencies.
type RunPairs = Vec<(usize, Vec<Pair>)>;

/// The duplicate contracts detector.
#[derive(Debug, Clone, Copy, Default)]
pub struct DuplicateContracts;

/// Confidence of one pair at sensitivity `s`.
pub fn pair_confidence(similarity: f64, value_diff: f64, days: Option<i64>, s: f64) -> f64 {
    let value_close = value_diff <= VALUE_TOLERANCE;
    let date_close = days.is_some_and(|d| d <= MAX_DAYS);
    let closeness =
        if value_close && date_close { 1.0 } else { 0.8 + 0.2 * ((s.clamp(0.0, 1.0) - 0.7) / 0.3).clamp(0.0, 1.0) };
    margin_confidence(similarity - SIMILARITY.at(s), 0.04) * closeness
}

/// The confidence of a verified pair: [`pair_confidence`] times how specific the text the two
/// objects share is ([`specificity_factor`]).
pub fn pair_score(q: &Pair, s: f64) -> f64 {
    pair_confidence(q.similarity, q.value_diff, q.days, s) * specificity_factor(q.specificity)
}

/// Specificity (of the rarest shared word, [`crate::detect::pattern::doc_freq`]) at which a shared text counts
/// in full: a word in at most the square root of the dataset's texts.
pub const SPECIFIC: f64 = 0.5;

/// How much a shared text counts: 1 from [`SPECIFIC`] up, proportionally less below it
/// (boilerplate many contracts carry barely counts).
pub fn specificity_factor(specificity: f64) -> f64 {
    (specificity / SPECIFIC).clamp(0.0, 1.0)
}

impl Detector for DuplicateContracts {
    fn name(&self) -> &'static str {
        NAME
    }
    fn kind(&self) -> AnomalyType {
        AnomalyType::PatternAnomaly
    }
    fn slow(&self) -> bool {
        true
    }
    fn run_shared(
        &self,
        sh: &Shared<'_>,
        p: &DetectionParams,
        cancel: &CancelFlag,
    ) -> Result<Vec<Anomaly>, AnalysisError> {
        let ds = sh.dataset();
        let cs = &ds.contracts;
        let (order, start) = sh.suppliers().groups();
        let mut runs: Vec<Vec<usize>> = start
            .windows(2)
            .map(|w| {
                order[w[0] as usize..w[1] as usize]
                    .iter()
                    .map(|&i| i as usize)
                    .filter(|&i| cs[i].value().is_finite())
                    .collect()
            })
            .collect();
        runs.retain(|r| r.len() >= 2);
        // Suppliers dealt round-robin by size, so the shards get equal work; each shard then
        // takes its own smallest first, because its scratch maps only grow and clearing them
        // costs their capacity.
        runs.sort_by_key(|r| (r.len(), r[0]));
        let shards = if cs.len() >= PARALLEL_FROM { crate::detect::common::cores().clamp(1, 8) } else { 1 };
        let threshold = SIMILARITY.at(p.sensitivity);
        // The dataset's word frequencies are counted as the suppliers' objects are tokenised
        // for the join (each text read once); the pairs wait for them to be complete before
        // their shared words are weighed.
        let shard = |k: usize| -> Result<(RunPairs, DocCounter), AnalysisError> {
            let mut counter = DocCounter::new(cs.len());
            let mut out = Vec::new();
            let mut done = 0usize;
            let mut scratch = Scratch::default();
            for (r, run) in runs.iter().enumerate().skip(k).step_by(shards) {
                done += run.len();
                if done >= 2048 {
                    cancel.check()?;
                    done = 0;
                }
                let mut pairs = pairs_in(ds, run, Closeness::ValueOrDate, None, Some(&mut counter), &mut scratch);
                // What does not depend on the frequencies (their weight is at most 1).
                pairs.retain(|q| {
                    q.similarity > threshold
                        && pair_confidence(q.similarity, q.value_diff, q.days, p.sensitivity) >= p.confidence_threshold
                        && !one_purchase(&cs[q.a], &cs[q.b])
                        && !(tied_to_supplier(&cs[q.a]) && tied_to_supplier(&cs[q.b]))
                });
                if !pairs.is_empty() {
                    out.push((r, pairs));
                }
            }
            Ok((out, counter))
        };
        let found = if shards == 1 { vec![shard(0)] } else { par_each((0..shards).collect(), shards, shard) };
        let (found, mut counters): (Vec<RunPairs>, Vec<DocCounter>) =
            found.into_iter().collect::<Result<Vec<_>, _>>()?.into_iter().unzip();
        let mut counter = counters.pop().unwrap_or_else(|| DocCounter::new(cs.len()));
        for other in counters {
            counter.merge(other);
        }
        // The texts no supplier run holds are counted too.
        let mut in_run = vec![false; cs.len()];
        for &i in runs.iter().flatten() {
            in_run[i] = true;
        }
        let mut seen = Vec::new();
        for i in (0..cs.len()).filter(|&i| !in_run[i]) {
            counter.add_text(&cs[i].object, &mut seen);
        }
        drop(in_run);
        let df = counter.finish();
        let groups = |found: RunPairs| {
            let mut out = Vec::new();
            for (r, mut pairs) in found {
                pairs.retain_mut(|q| {
                    let (a, b) = (&cs[q.a].object, &cs[q.b].object);
                    if df.name_different_things(a, b, SPECIFIC) {
                        return false;
                    }
                    q.specificity = df.specificity(df.rarest_shared(a, b));
                    pair_score(q, p.sensitivity) >= p.confidence_threshold
                });
                if pairs.is_empty() {
                    continue;
                }
                let run = &runs[r];
                for group in components(run, &pairs) {
                    let a = anomaly(ds, &group, &pairs, run.len(), p);
                    if a.confidence >= p.confidence_threshold {
                        out.push(a);
                    }
                }
            }
            out
        };
        let mut out: Vec<Anomaly> = par_each(found, shards, groups).into_iter().flatten().collect();
        out.extend(crate::detect::pattern::duplicates_cross::cross_supplier(sh, &df, p, cancel)?);
        out.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(out)
    }
}

/// Whether two contracts of one supplier are one purchase rather than the same thing bought
/// twice: the same document published twice (same unit and number), or contracts of the same
/// purchase process (lots of one bidding, orders from one ata de registro de preço, the
/// empenhos of one contract), which share an object text by construction.
pub fn one_purchase(a: &Contract, b: &Contract) -> bool {
    let same_document = !a.number.is_empty() && a.number == b.number && a.unit.code == b.unit.code;
    let same_process = !a.process_number.is_empty() && a.process_number == b.process_number;
    same_document || same_process
}

/// Whether a contract is made with its supplier because of who it is or what it leases, or
/// for a court order (a utility, a state company or public body, a building's lessor, an
/// exclusive maker: see
/// [`crate::detect::legal_grounds::tied_to_supplier`]): one consumer unit, service or property each,
/// under a standard text that seldom names which.
fn tied_to_supplier(c: &Contract) -> bool {
    let public = crate::model::cnpj::document_kind(&c.supplier.document) == crate::model::cnpj::DocumentKind::UgCode;
    crate::detect::legal_grounds::tied_to_supplier(&c.object, &c.supplier.name, public)
}

fn anomaly(ds: &Dataset, group: &[usize], pairs: &[Pair], supplier_contracts: usize, p: &DetectionParams) -> Anomaly {
    let cs = &ds.contracts;
    let mut members = group.to_vec();
    members.sort_by(|&a, &b| {
        let key = |i: usize| (cs[i].signed_on.is_none(), cs[i].signed_on, &cs[i].id);
        key(a).cmp(&key(b))
    });
    let primary = &cs[members[0]];
    let GroupPairs { inside, best, max_sim, min_sim, max_vdiff, max_days, specificity } =
        group_pairs(group, pairs, p.sensitivity);
    let s = p.sensitivity;
    let at_stake: f64 = members[1..].iter().map(|&i| cs[i].value()).sum();
    let confidence = tidy(best);
    let threshold = SIMILARITY.at(s);
    let ids: Vec<&str> = members.iter().map(|&i| cs[i].id.as_str()).collect();
    Finding {
        detector: NAME,
        kind: AnomalyType::PatternAnomaly,
        key: primary.id.to_string(),
        confidence,
        at_stake,
        threshold: round4(threshold),
        description: format!(
            "{} contratos de {} com objeto {} idêntico e valores próximos (contratos {}); {} além do primeiro",
            members.len(),
            primary.supplier.name,
            format_pct(max_sim),
            ids.join(", "),
            format_brl(at_stake)
        ),
        human_pt: format!(
            "{} assinou {} contratos com {} para praticamente o mesmo objeto (\"{}\"), com valores a no máximo {} \
             de distância{}. Pode ser o mesmo serviço pago duas vezes: vale confirmar com o órgão.",
            primary.organ.name,
            members.len(),
            primary.supplier.name,
            primary.object.chars().take(100).collect::<String>(),
            format_pct(max_vdiff),
            max_days.map_or(String::new(), |d| format!(" e assinados com até {d} dias de diferença"))
        ),
        human_en: String::new(),
        technical: format!(
            "Jaccard similarity of object word sets {:.3}-{:.3} > {:.3} (threshold at sensitivity {}; the spec's \
             literal {}) for the same supplier document {}, with values within {} or signing dates within {} days; {} \
             pairs in the group",
            min_sim,
            max_sim,
            threshold,
            s,
            THRESHOLD,
            primary.supplier.document,
            format_pct(VALUE_TOLERANCE),
            MAX_DAYS,
            inside.len()
        ),
        primary: contract_ref(primary),
        related: members[1..].iter().map(|&i| contract_ref(&cs[i])).collect(),
        data_points: members.iter().map(|&i| point("contract_value", cs[i].value(), iso(cs[i].signed_on))).collect(),
        patterns: pair_patterns(ds, &inside, "near_duplicate_pair"),
        method: "jaccard_word_sets",
        score: max_sim,
        contamination: members.len() as f64 / supplier_contracts.max(1) as f64,
        peer: Some(json!({
            "group": format!("contracts of supplier {}", primary.supplier.document),
            "supplier_contracts": supplier_contracts,
        })),
        regulatory: None,
        factors: vec![
            ("similarity".into(), 0.6, format!("objects {:.0}% alike", max_sim * 100.0)),
            ("same_supplier".into(), 0.2, "same supplier document".into()),
            (
                "close_value_or_date".into(),
                0.2,
                format!(
                    "values within {}{}",
                    format_pct(max_vdiff),
                    max_days.map_or(String::new(), |d| format!(", at most {d} days apart"))
                ),
            ),
        ],
        details: vec![
            ("rule", json!("same_supplier")),
            ("literal_threshold", json!(THRESHOLD)),
            ("sensitivity", json!(s)),
            ("baseline", json!("same_supplier")),
            ("similarity", json!(round4(max_sim))),
            ("min_similarity", json!(round4(min_sim))),
            ("text_specificity", json!(round4(specificity))),
            ("supplier", json!(primary.supplier.document)),
            ("supplier_name", json!(primary.supplier.name)),
            ("organ", json!(primary.organ.code)),
            ("group_size", json!(members.len())),
            ("max_value_difference", json!(round4(max_vdiff))),
            ("max_days_apart", json!(max_days)),
            ("value_tolerance", json!(VALUE_TOLERANCE)),
            ("max_days", json!(MAX_DAYS)),
        ],
    }
    .build()
    .at_most(MAX_SEVERITY)
}

#[cfg(test)]
#[path = "duplicates_tests.rs"]
pub(super) mod tests;
