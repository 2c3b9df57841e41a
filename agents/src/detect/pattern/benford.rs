//! `benford_first_digit`: a supplier or an organ whose contract values start with the wrong
//! digits, the mark of invented amounts.
//!
//! Newcomb-Benford's law (`P(d) = log10(1 + 1/d)`) holds for amounts spread over several orders
//! of magnitude, but one object category's contracts span less than one, so their first
//! digits follow the category's value distribution instead. The expected first-digit counts
//! of an entity are therefore the sum, over its contracts, of the empirical first-digit
//! distribution of each contract's object category in the whole dataset (which is Benford's
//! law when the data does follow it). Digits whose expected count is below 5 are pooled with
//! the next rarest, and the entity's counts are tested with Pearson's chi-square (one degree of
//! freedom fewer than cells; exact survival function); the effect size is Nigrini's mean absolute deviation of the
//! digit proportions (MAD). Each contract counts once per distinct value (a standard price
//! repeated is one amount), and an entity is judged only with enough amounts over enough time:
//! a supplier with at least [`MIN_RECORDS`] distinct values, an organ with at least
//! [`MIN_ORGAN_RECORDS`], both over at least [`MIN_MONTHS`] signing months (one month of one
//! source is too little; the evidence says what was counted). Flagged when `-log10 p > Q(s)`
//! and `MAD > M(s)`. The classic Benford chi-square is reported alongside.
//!
//! Sensitivity `s` moves `Q(s)` through 12 (s = 0), 6 (s = 0.7) and 2 (s = 1, p < 0.01), and
//! `M(s)` through 0.06, 0.03 and 0.015 (Nigrini's bound of non-conformity for first digits).
//! Confidence = `margin_confidence(-log10 p - Q(s), 4)`. Complexity: one pass to categorise and
//! group, O(n).

use serde_json::json;

use crate::cancel::{AnalysisError, CancelFlag};
use crate::detect::Detector;
use crate::detect::category::Category;
use crate::detect::common::{contract_ref, round2, round4};
use crate::detect::distributions::chi2_significance;
use crate::detect::finding::{Finding, pattern, point, side_subject};
use crate::detect::sensitivity::{Threshold, margin_confidence, tidy};
use crate::detect::shared::{Shared, Side};
use crate::model::anomaly::{Anomaly, AnomalyType};
use crate::model::dataset::Dataset;
use crate::model::params::DetectionParams;
use crate::text::format_brl;

/// Detector name.
pub const NAME: &str = "benford_first_digit";
/// `-log10` of the chi-square p-value, as sensitivity moves it.
pub const SIGNIFICANCE: Threshold = Threshold::new(12.0, 6.0, 2.0);
/// Mean absolute deviation of the digit proportions, as sensitivity moves it.
pub const MAD: Threshold = Threshold::new(0.06, 0.03, 0.015);
/// Fewest contracts (distinct values) for a supplier to be judged.
pub const MIN_RECORDS: usize = 30;
/// Fewest contracts (distinct values) for an organ to be judged: an organ's month of one
/// source is a few dozen purchases of a few kinds, too little to tell invented amounts from
/// the organ's mix of purchases (Nigrini asks for hundreds of amounts).
pub const MIN_ORGAN_RECORDS: usize = 300;
/// Fewest distinct signing months an entity's contracts must span.
pub const MIN_MONTHS: usize = 3;

/// The contracts of an entity the test counts: one per distinct value (a price list repeated
/// is one amount, not many invented ones), when there are enough of them over enough months
/// ([`MIN_RECORDS`] or [`MIN_ORGAN_RECORDS`], [`MIN_MONTHS`]).
///
/// `marks` holds, per contract, what this reads of it ([`mark`]): an entity's contracts are
/// scattered over the dataset, so two compact arrays are read instead of the contracts.
fn judged(marks: &[(i64, i32)], side: Side, members: &[u32]) -> Option<Vec<u32>> {
    let min = if side == Side::Organ { MIN_ORGAN_RECORDS } else { MIN_RECORDS };
    if members.len() < min {
        return None;
    }
    let mut months: Vec<i32> = members.iter().map(|&i| marks[i as usize].1).filter(|&m| m != NO_MONTH).collect();
    months.sort_unstable();
    months.dedup();
    if months.len() < MIN_MONTHS {
        return None;
    }
    let mut keyed: Vec<(i64, u32)> = members.iter().map(|&i| (marks[i as usize].0, i)).collect();
    keyed.sort_unstable();
    keyed.dedup_by_key(|k| k.0);
    if keyed.len() < min {
        return None;
    }
    let mut out: Vec<u32> = keyed.into_iter().map(|k| k.1).collect();
    out.sort_unstable();
    Some(out)
}

/// The month of a contract without a signing date, in [`mark`].
const NO_MONTH: i32 = i32::MIN;

/// What [`judged`] reads of a contract: its value in cents (distinct amounts are told apart
/// by it) and its signing month (`year * 12 + month0`, [`NO_MONTH`] without a date).
fn mark(c: &crate::model::contract::Contract) -> (i64, i32) {
    let month = c.signed_on.map_or(NO_MONTH, |d| chrono::Datelike::year(&d) * 12 + chrono::Datelike::month0(&d) as i32);
    ((c.value() * 100.0).round() as i64, month)
}

/// Smallest expected count of a chi-square cell.
const MIN_EXPECTED: f64 = 5.0;

/// The first-digit detector.
#[derive(Debug, Clone, Copy, Default)]
pub struct BenfordFirstDigit;

/// Benford's first-digit probabilities, digits 1 to 9.
pub fn benford() -> [f64; 9] {
    std::array::from_fn(|k| (1.0 + 1.0 / (k as f64 + 1.0)).log10())
}

/// The first significant digit (1-9) of a value of at least 1, else `None`.
pub fn first_digit(v: f64) -> Option<usize> {
    if !(v.is_finite() && v >= 1.0) {
        return None;
    }
    let m = v / 10f64.powi(v.log10().floor() as i32);
    // Guard against 9.999... rounding to 10.
    Some((m.floor() as usize).clamp(1, 9))
}

/// Pearson's chi-square of observed against expected counts after pooling cells with
/// expected counts below 5 (rarest first): `(statistic, degrees of freedom)`.
pub fn pooled_chi2(observed: &[f64; 9], expected: &[f64; 9]) -> (f64, usize) {
    let mut order: Vec<usize> = (0..9).collect();
    order.sort_by(|&a, &b| expected[a].total_cmp(&expected[b]).then(a.cmp(&b)));
    let mut cells: Vec<(f64, f64)> = Vec::new();
    let (mut o, mut e) = (0.0, 0.0);
    for d in order {
        o += observed[d];
        e += expected[d];
        if e >= MIN_EXPECTED {
            cells.push((o, e));
            o = 0.0;
            e = 0.0;
        }
    }
    if e > 0.0 || o > 0.0 {
        match cells.last_mut() {
            Some(last) => {
                last.0 += o;
                last.1 += e;
            }
            None => cells.push((o, e)),
        }
    }
    let chi2 = cells.iter().filter(|c| c.1 > 0.0).map(|(o, e)| (o - e) * (o - e) / e).sum();
    (chi2, cells.len().saturating_sub(1))
}

/// The test of one entity.
struct Test<'a> {
    side: Side,
    id: &'a str,
    members: &'a [u32],
    observed: [f64; 9],
    expected: [f64; 9],
    chi2: f64,
    df: usize,
    significance: f64,
    mad: f64,
    benford_significance: f64,
}

impl Detector for BenfordFirstDigit {
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
        let cats = sh.categories(cancel)?;
        let n_cat = Category::ALL.len();
        let mut digit = vec![0u8; cs.len()];
        let mut per_cat = vec![[0f64; 9]; n_cat];
        // One pass over the contracts: first digits, and what `judged` reads of each.
        let mut marks = Vec::with_capacity(cs.len());
        for (i, c) in cs.iter().enumerate() {
            marks.push(mark(c));
            if let Some(d) = first_digit(c.value()) {
                digit[i] = d as u8;
                per_cat[cats[i].index()][d - 1] += 1.0;
            }
        }
        let dist: Vec<[f64; 9]> = per_cat
            .iter()
            .map(|c| {
                let t: f64 = c.iter().sum();
                if t > 0.0 { c.map(|x| x / t) } else { benford() }
            })
            .collect();
        let (qt, mt) = (SIGNIFICANCE.at(p.sensitivity), MAD.at(p.sensitivity));
        let mut out = Vec::new();
        sh.for_each_entity(
            cancel,
            MIN_RECORDS,
            |i| digit[i] > 0,
            |side, id, all| {
                let Some(members) = judged(&marks, side, all) else { return };
                let members = &members[..];
                let n = members.len() as f64;
                let mut observed = [0f64; 9];
                let mut expected = [0f64; 9];
                for &i in members.iter() {
                    observed[usize::from(digit[i as usize]) - 1] += 1.0;
                    for (e, q) in expected.iter_mut().zip(dist[cats[i as usize].index()].iter()) {
                        *e += q;
                    }
                }
                let mad = observed.iter().zip(&expected).map(|(o, e)| (o - e).abs() / n).sum::<f64>() / 9.0;
                if mad <= mt {
                    return;
                }
                let (chi2, df) = pooled_chi2(&observed, &expected);
                let significance = chi2_significance(chi2, df);
                if significance <= qt {
                    return;
                }
                let confidence = tidy(margin_confidence(significance - qt, 4.0));
                if confidence >= p.confidence_threshold {
                    let b = benford().map(|q| q * n);
                    let (bchi2, bdf) = pooled_chi2(&observed, &b);
                    let t = Test {
                        side,
                        id,
                        members,
                        observed,
                        expected,
                        chi2,
                        df,
                        significance,
                        mad,
                        benford_significance: chi2_significance(bchi2, bdf),
                    };
                    out.push(anomaly(ds, &t, (qt, mt), confidence, p.sensitivity));
                }
            },
        )?;
        out.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(out)
    }
}

fn anomaly(ds: &Dataset, t: &Test<'_>, (qt, mt): (f64, f64), confidence: f64, sensitivity: f64) -> Anomaly {
    let (primary, label) = side_subject(t.side, &ds.contracts[t.members[0] as usize]);
    let side = t.side.name();
    let n = t.members.len() as f64;
    // The digits most over-represented, and the contracts that carry them.
    let mut excess: Vec<usize> = (0..9).filter(|&d| t.observed[d] > t.expected[d] * 1.5 + 1.0).collect();
    excess.sort_by(|&a, &b| (t.observed[b] - t.expected[b]).total_cmp(&(t.observed[a] - t.expected[a])));
    let digits: Vec<String> = excess.iter().map(|d| (d + 1).to_string()).collect();
    let carriers: Vec<usize> = t
        .members
        .iter()
        .map(|&i| i as usize)
        .filter(|&i| first_digit(ds.contracts[i].value()).is_some_and(|d| excess.contains(&(d - 1))))
        .collect();
    let at_stake: f64 = carriers.iter().map(|&i| ds.contracts[i].value()).sum();
    // Every contract of the entity is named (at most 500), those with the excess digits first.
    let others = t.members.iter().map(|&i| i as usize).filter(|i| carriers.binary_search(i).is_err());
    let related = carriers.iter().copied().chain(others).take(500).map(|i| contract_ref(&ds.contracts[i])).collect();
    let shares: Vec<String> = (0..9).map(|d| format!("{}: {:.0}%", d + 1, 100.0 * t.observed[d] / n)).collect();
    Finding {
        detector: NAME,
        kind: AnomalyType::PatternAnomaly,
        key: format!("{side}-{}", t.id),
        confidence,
        at_stake,
        threshold: round4(qt),
        description: format!(
            "Os primeiros dígitos dos {} contratos {} fogem do esperado (excesso de {}); qui-quadrado com p = \
             1e-{:.0}",
            t.members.len(),
            label,
            if digits.is_empty() { "nenhum dígito isolado".to_string() } else { digits.join(", ") },
            t.significance
        ),
        human_pt: format!(
            "Valores reais de contratos começam com cada dígito numa proporção previsível (lei de Benford, ajustada \
             à faixa de valores de cada tipo de objeto). Nos {} contratos {}, a distribuição é outra ({}), o que \
             costuma indicar valores inventados ou ajustados. Os contratos com os dígitos em excesso somam {}.",
            t.members.len(),
            label,
            shares.join(", "),
            format_brl(at_stake)
        ),
        human_en: format!(
            "The first digits of this {side}'s {} contract values do not follow the expected distribution (MAD \
             {:.3}).",
            t.members.len(),
            t.mad
        ),
        technical: format!(
            "Pearson chi-square of first-digit counts against the category-conditional expectation: chi2 = {:.1}, \
             df = {}, -log10 p = {:.2} > {:.2}; Nigrini MAD = {:.4} > {:.4} (thresholds at sensitivity {}; p < 0.01 \
             and 0.015 at 1.0); against plain Benford -log10 p = {:.2}",
            t.chi2, t.df, t.significance, qt, t.mad, mt, sensitivity, t.benford_significance
        ),
        primary,
        related,
        data_points: (0..9)
            .map(|d| point(&format!("digit_{}_share", d + 1), t.observed[d] / n, None))
            .chain((0..9).map(|d| point(&format!("digit_{}_expected_share", d + 1), t.expected[d] / n, None)))
            .collect(),
        patterns: vec![pattern(
            "first_digit_deviation",
            format!("excess of leading digits {}", digits.join(", ")),
            json!({"observed": t.observed, "expected": t.expected.map(round2)}),
        )],
        method: "chi_square_first_digit_category_conditional",
        score: t.significance,
        contamination: 0.0,
        peer: Some(json!({
            "baseline": "category_first_digit_distribution",
            "benford": benford().map(round4),
            "benford_significance": round4(t.benford_significance),
        })),
        regulatory: None,
        factors: vec![
            ("chi_square".into(), 0.6, format!("chi2 = {:.1} on {} df", t.chi2, t.df)),
            ("mad".into(), 0.4, format!("mean absolute deviation {:.3}", t.mad)),
        ],
        details: vec![
            ("entity", json!(side)),
            ("entity_id", json!(t.id)),
            ("chi2", json!(round4(t.chi2))),
            ("df", json!(t.df)),
            ("significance", json!(round4(t.significance))),
            ("mad", json!(round4(t.mad))),
            ("mad_threshold", json!(round4(mt))),
            ("benford_significance", json!(round4(t.benford_significance))),
            ("sensitivity", json!(sensitivity)),
            ("baseline", json!("category_first_digit_distribution")),
            ("contracts", json!(t.members.len())),
            ("counted", json!("one contract per distinct value")),
            ("min_records", json!(if t.side == Side::Organ { MIN_ORGAN_RECORDS } else { MIN_RECORDS })),
            ("min_months", json!(MIN_MONTHS)),
        ],
    }
    .build()
}

#[cfg(test)]
#[path = "benford_tests.rs"]
mod tests;
