//! What the verified pairs inside a group of near-duplicate contracts say (the group's
//! strongest pair at a sensitivity, how alike, how far apart in value and time) and the
//! evidence patterns that name them: shared by the same-supplier search
//! ([`super::duplicates`]) and the cross-supplier one ([`super::duplicates_cross`]).

use serde_json::json;

use crate::detect::common::{FxBuild, round4};
use crate::detect::finding::pattern;
use crate::detect::pattern::duplicates::pair_score;
use crate::detect::pattern::simjoin::Pair;
use crate::model::dataset::Dataset;

/// Most pairs listed in an anomaly's evidence.
pub(super) const MAX_PATTERNS: usize = 20;

/// What the pairs inside a group say.
pub(super) struct GroupPairs<'p> {
    /// The pairs whose two contracts are both in the group.
    pub inside: Vec<&'p Pair>,
    /// The best pair confidence at the sensitivity given.
    pub best: f64,
    /// Highest and lowest similarity.
    pub max_sim: f64,
    pub min_sim: f64,
    /// Largest value difference, as a fraction of the larger value.
    pub max_vdiff: f64,
    /// Most days apart.
    pub max_days: Option<i64>,
    /// The highest specificity of a pair's shared text.
    pub specificity: f64,
}

/// The pairs inside `group` and what they say, at sensitivity `s`.
pub(super) fn group_pairs<'p>(group: &[usize], pairs: &'p [Pair], s: f64) -> GroupPairs<'p> {
    let in_group: std::collections::HashSet<usize, FxBuild> = group.iter().copied().collect();
    let inside: Vec<&Pair> = pairs.iter().filter(|q| in_group.contains(&q.a) && in_group.contains(&q.b)).collect();
    GroupPairs {
        best: inside.iter().map(|q| pair_score(q, s)).fold(0.0, f64::max),
        specificity: inside.iter().map(|q| q.specificity).fold(0.0, f64::max),
        max_sim: inside.iter().map(|q| q.similarity).fold(0.0, f64::max),
        min_sim: inside.iter().map(|q| q.similarity).fold(1.0, f64::min),
        max_vdiff: inside.iter().map(|q| q.value_diff).fold(0.0, f64::max),
        max_days: inside.iter().filter_map(|q| q.days).max(),
        inside,
    }
}

/// The evidence patterns of a group's pairs (at most [`MAX_PATTERNS`]), each naming both
/// contracts and their suppliers.
pub(super) fn pair_patterns(ds: &Dataset, inside: &[&Pair], name: &str) -> Vec<serde_json::Value> {
    let cs = &ds.contracts;
    inside
        .iter()
        .take(MAX_PATTERNS)
        .map(|q| {
            pattern(
                name,
                format!("{} and {}", cs[q.a].id, cs[q.b].id),
                json!({
                    "contracts": [cs[q.a].id, cs[q.b].id],
                    "suppliers": [cs[q.a].supplier.document, cs[q.b].supplier.document],
                    "similarity": round4(q.similarity),
                    "value_difference": round4(q.value_diff),
                    "days_apart": q.days,
                    "text_specificity": round4(q.specificity),
                }),
            )
        })
        .collect()
}
