//! `unnatural_periodicity`: a supplier whose contracts with an organ arrive like clockwork
//! (every 3 weeks, every month on the dot), the mark of a purchase split into regular
//! instalments or of a pre-arranged rotation.
//!
//! For each (organ, supplier) pair with at least 20 contracts, the number of contracts signed
//! per week is laid on a regular zero-filled weekly grid (the whole dataset's span) and its
//! periodogram computed with a discrete Fourier transform. The strongest frequency among
//! periods of 2 to 13 weeks is tested with Fisher's g test (`g = max I_k / sum I_k` over every
//! Fourier frequency, `p ~= m (1 - g)^(m - 1)`); seasonal periods (a quarter and longer) are
//! natural and not considered. A pair is flagged when `-log10 p > Q(s)` and the cadence is
//! strong, its amplitude (`2 |X_k| / N`) at least `A(s)` times the mean weekly rate.
//!
//! Not judged: a dataset of one publication month (its weeks are whatever was published that
//! month, [`crate::detect::coverage`]), and pairs whose supplier is a public utility, a lessor or a
//! public body ([`crate::detect::market`]): a monthly bill or rent arrives like clockwork by nature.
//!
//! Sensitivity `s` moves `Q(s)` through 10 (s = 0), 6 (s = 0.7) and 3 (s = 1), and `A(s)`
//! through 1.5, 0.8 and 0.5 (calibrated on planted data: a planted 3-week cadence has
//! amplitude about 2, Poisson arrivals of clean pairs below 0.6 and `-log10 p` below 4 over
//! thousands of pairs). Confidence = `margin_confidence(-log10 p - Q(s), 3)`. Complexity:
//! linear in the contracts (one pass to group by pair), plus `O(W^2)` per judged pair for a
//! grid of `W` weeks (about 100 for two years).
//!
//! Severity: high at most ([`crate::model::anomaly::Anomaly::at_most`]): the pattern asks for an
//! explanation; it proves no wrong by itself.

use chrono::Datelike;
use serde_json::json;

use crate::cancel::{AnalysisError, CancelFlag};
use crate::detect::Detector;
use crate::detect::common::{iso, round2, round4, supplier_ref};
use crate::detect::finding::{Finding, contracts_and_organ, pattern, point};
use crate::detect::market::Outside;
use crate::detect::sensitivity::{Threshold, margin_confidence, tidy};
use crate::detect::shared::{NONE, Shared};
use crate::model::anomaly::{Anomaly, AnomalyType};
use crate::model::dataset::Dataset;
use crate::model::params::DetectionParams;
use crate::text::format_brl;

/// Detector name.
pub const NAME: &str = "unnatural_periodicity";
/// `-log10` of Fisher's p-value, as sensitivity moves it.
pub const SIGNIFICANCE: Threshold = Threshold::new(10.0, 6.0, 3.0);
/// Amplitude of the cadence over the mean weekly rate, as sensitivity moves it.
pub const AMPLITUDE: Threshold = Threshold::new(1.5, 0.8, 0.5);
/// Fewest contracts of a pair to judge it.
pub const MIN_EVENTS: usize = 20;
/// Shortest and longest period considered, in weeks.
pub const PERIODS: (f64, f64) = (2.0, 13.0);
/// Longest weekly grid (ten years).
const MAX_WEEKS: i64 = 520;

/// The periodicity detector.
#[derive(Debug, Clone, Copy, Default)]
pub struct UnnaturalPeriodicity;

/// The strongest cadence of a weekly series.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cadence {
    /// Period in weeks.
    pub period: f64,
    /// Fisher's g.
    pub g: f64,
    /// `-log10` of Fisher's p-value.
    pub significance: f64,
    /// Amplitude over the mean rate.
    pub amplitude: f64,
}

/// Fisher's g test on the periodogram of a weekly count series, restricted to peaks with
/// periods in [`PERIODS`]. `None` for a series too short or without variation.
///
/// The transform runs over the non-empty weeks only (the mean only moves frequency 0), with
/// a table of the `N` roots of unity: `O(N x non-empty weeks)`.
pub fn cadence(counts: &[f64]) -> Option<Cadence> {
    cadence_with(counts, &roots(counts.len()))
}

/// The `n` roots of unity as `(cos, sin)` of `2 pi j / n`.
pub fn roots(n: usize) -> Vec<(f64, f64)> {
    (0..n)
        .map(|j| {
            let a = std::f64::consts::TAU * j as f64 / n as f64;
            (a.cos(), a.sin())
        })
        .collect()
}

/// [`cadence`] with the roots of unity of the series' length already computed.
pub fn cadence_with(counts: &[f64], roots: &[(f64, f64)]) -> Option<Cadence> {
    let n = counts.len();
    if n < 8 || roots.len() != n {
        return None;
    }
    let mean = counts.iter().sum::<f64>() / n as f64;
    if mean <= 0.0 {
        return None;
    }
    let events: Vec<(usize, f64)> =
        counts.iter().enumerate().filter(|(_, c)| **c != 0.0).map(|(t, c)| (t, *c)).collect();
    let m = (n - 1) / 2;
    let mut power = Vec::with_capacity(m);
    for k in 1..=m {
        let (mut re, mut im) = (0.0, 0.0);
        for &(t, c) in &events {
            let (cos, sin) = roots[(k * t) % n];
            re += c * cos;
            im -= c * sin;
        }
        power.push(re * re + im * im);
    }
    let total: f64 = power.iter().sum();
    if total <= 0.0 {
        return None;
    }
    let (k, peak) = power
        .iter()
        .enumerate()
        .filter(|(k, _)| {
            let period = n as f64 / (k + 1) as f64;
            period >= PERIODS.0 && period <= PERIODS.1
        })
        .max_by(|a, b| a.1.total_cmp(b.1))?;
    let g = peak / total;
    let log_p = (m as f64).log10() + (m as f64 - 1.0) * (1.0 - g).max(1e-300).log10();
    Some(Cadence {
        period: n as f64 / (k + 1) as f64,
        g,
        significance: (-log_p).max(0.0),
        amplitude: 2.0 * peak.sqrt() / n as f64 / mean,
    })
}

impl Detector for UnnaturalPeriodicity {
    fn name(&self) -> &'static str {
        NAME
    }
    fn kind(&self) -> AnomalyType {
        AnomalyType::TemporalAnomaly
    }
    fn run_shared(
        &self,
        sh: &Shared<'_>,
        p: &DetectionParams,
        cancel: &CancelFlag,
    ) -> Result<Vec<Anomaly>, AnalysisError> {
        let ds = sh.dataset();
        let cs = &ds.contracts;
        if sh.coverage(cancel)?.snapshot.is_some() {
            return Ok(Vec::new());
        }
        let (organs, suppliers) = (sh.organs(), sh.suppliers());
        // Each contract's signing week, read in one pass over the contracts (a pair's contracts
        // are scattered over the dataset).
        let weeks: Vec<Option<i64>> =
            cs.iter().map(|c| c.signed_on.map(|d| i64::from(d.num_days_from_ce()).div_euclid(7))).collect();
        let week = |i: usize| weeks[i];
        // (organ, supplier) pair key per dated contract, sorted: each pair's contracts are a run.
        let n_sup = suppliers.names.len() as u64;
        let (mut lo, mut hi) = (i64::MAX, i64::MIN);
        let mut keyed: Vec<(u64, u32)> = (0..cs.len())
            .filter(|&i| organs.ids[i] != NONE && suppliers.ids[i] != NONE)
            .filter_map(|i| {
                let w = week(i)?;
                lo = lo.min(w);
                hi = hi.max(w);
                Some((u64::from(organs.ids[i]) * n_sup + u64::from(suppliers.ids[i]), i as u32))
            })
            .collect();
        cancel.check()?;
        keyed.sort_unstable();
        let mut pairs: Vec<((&str, &str), Vec<u32>)> = Vec::new();
        let outside = sh.outside();
        let by_nature = |i: u32| {
            matches!(
                outside[i as usize],
                Some(Outside::Utility | Outside::Lease | Outside::PublicBody | Outside::NoSupplier)
            )
        };
        for run in keyed.chunk_by(|a, b| a.0 == b.0).filter(|r| r.len() >= MIN_EVENTS && !by_nature(r[0].1)) {
            let key = run[0].0;
            let name =
                (organs.names[(key / n_sup) as usize].as_str(), suppliers.names[(key % n_sup) as usize].as_str());
            pairs.push((name, run.iter().map(|x| x.1).collect()));
        }
        if lo > hi {
            return Ok(Vec::new());
        }
        let lo = lo.max(hi - MAX_WEEKS + 1);
        let n = (hi - lo + 1) as usize;
        let (q, a) = (SIGNIFICANCE.at(p.sensitivity), AMPLITUDE.at(p.sensitivity));
        pairs.sort_by(|x, y| x.0.cmp(&y.0));
        let judged: Vec<(&(&str, &str), &Vec<u32>)> = pairs.iter().map(|(k, v)| (k, v)).collect();
        let mut out = Vec::new();
        let mut counts = vec![0.0; n];
        let table = roots(n);
        for (done, (key, members)) in judged.iter().enumerate() {
            if done % 256 == 0 {
                cancel.check()?;
            }
            counts.iter_mut().for_each(|c| *c = 0.0);
            for &i in members.iter() {
                if let Some(w) = week(i as usize).filter(|w| *w >= lo) {
                    counts[(w - lo) as usize] += 1.0;
                }
            }
            let Some(c) = cadence_with(&counts, &table) else { continue };
            if c.significance > q && c.amplitude > a {
                let confidence = tidy(margin_confidence(c.significance - q, 3.0));
                if confidence >= p.confidence_threshold {
                    out.push(anomaly(ds, key, members, &c, (q, a), confidence, p.sensitivity, n));
                }
            }
        }
        Ok(out)
    }
}

#[allow(clippy::too_many_arguments)]
fn anomaly(
    ds: &Dataset,
    key: &(&str, &str),
    members: &[u32],
    c: &Cadence,
    (q, a): (f64, f64),
    confidence: f64,
    sensitivity: f64,
    weeks: usize,
) -> Anomaly {
    let mut idx: Vec<usize> = members.iter().map(|&i| i as usize).collect();
    idx.sort_by_key(|&i| (ds.contracts[i].signed_on, i));
    let first = &ds.contracts[idx[0]];
    let total: f64 = idx.iter().map(|&i| ds.contracts[i].value()).sum();
    let dates: Vec<String> = idx.iter().take(12).filter_map(|&i| iso(ds.contracts[i].signed_on)).collect();
    let supplier = supplier_ref(first);
    let a = Finding {
        detector: NAME,
        kind: AnomalyType::TemporalAnomaly,
        key: format!("{}-{}", key.0, key.1),
        confidence,
        at_stake: total,
        threshold: round4(q),
        description: format!(
            "{} assinou {} contratos com o órgão {} em ritmo regular de cerca de {:.1} semanas ({} no total)",
            supplier.name,
            idx.len(),
            key.0,
            c.period,
            format_brl(total)
        ),
        human_pt: format!(
            "Os {} contratos de {} com o órgão {} chegam em intervalos quase fixos, a cada {:.1} semanas \
             (primeiras datas: {}). Compras repetidas em ritmo de relógio podem indicar uma contratação maior \
             fatiada em parcelas ou um rodízio combinado.",
            idx.len(),
            supplier.name,
            key.0,
            c.period,
            dates.join(", ")
        ),
        human_en: format!(
            "The supplier's {} contracts with the organ arrive every {:.1} weeks like clockwork.",
            idx.len(),
            c.period
        ),
        technical: format!(
            "periodogram of weekly contract counts on a zero-filled grid of {weeks} weeks; strongest period {:.2} \
             weeks (allowed {}-{}): Fisher's g = {:.3}, -log10 p = {:.2} > {:.2}, amplitude / mean rate = {:.2} > \
             {:.2} (thresholds at sensitivity {}; 3 and 0.5 at 1.0)",
            c.period, PERIODS.0, PERIODS.1, c.g, c.significance, q, c.amplitude, a, sensitivity
        ),
        primary: supplier,
        related: contracts_and_organ(ds, &idx[..idx.len().min(500)], first),
        data_points: idx
            .iter()
            .take(60)
            .map(|&i| point("contract_value", ds.contracts[i].value(), iso(ds.contracts[i].signed_on)))
            .collect(),
        patterns: vec![pattern(
            "regular_cadence",
            format!("one contract about every {:.1} weeks", c.period),
            json!({"period_weeks": round2(c.period), "fisher_g": round4(c.g)}),
        )],
        method: "fisher_g_periodogram_weekly_counts",
        score: c.significance,
        contamination: 0.0,
        peer: Some(json!({"baseline": "white_noise_arrivals", "weeks": weeks, "contracts": idx.len()})),
        regulatory: None,
        factors: vec![
            ("fisher_g".into(), 0.6, format!("{:.0}% of the variance at one frequency", c.g * 100.0)),
            ("amplitude".into(), 0.4, format!("cadence amplitude {:.2} times the mean rate", c.amplitude)),
        ],
        details: vec![
            ("organ", json!(key.0)),
            ("supplier", json!(key.1)),
            ("period_weeks", json!(round4(c.period))),
            ("fisher_g", json!(round4(c.g))),
            ("significance", json!(round4(c.significance))),
            ("amplitude", json!(round4(c.amplitude))),
            ("amplitude_threshold", json!(round4(a))),
            ("sensitivity", json!(sensitivity)),
            ("baseline", json!("white_noise_arrivals")),
            ("first_date", json!(iso(first.signed_on))),
            ("first_year", json!(first.signed_on.map(|d| d.year()))),
        ],
    }
    .build();
    a.at_most(crate::model::anomaly::Severity::High)
}

#[cfg(test)]
#[path = "periodicity_tests.rs"]
mod tests;
