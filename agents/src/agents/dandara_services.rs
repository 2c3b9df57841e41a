//! Equity of spending against the public services a state already has and what they achieve:
//! for each indicator the service handed in by state (in production the 2022 Census literacy
//! rate from IBGE; counts such as health establishments when a source gives them), the
//! indicator (a rate as it is, a count per 100,000 inhabitants) is ranked against the
//! agreements' money per inhabitant across the states where both are known, and the Spearman
//! rank correlation says whether the money goes where the indicator is low (negative:
//! compensating) or where it is already high (positive: reinforcing). Without indicators (demo
//! mode, a source that failed) there is nothing to compare and nothing is said.

use serde::Serialize;

use crate::agents::lampiao::spending::RegionalSpending;
use crate::model::regional::RegionalFacts;

/// Fewer states with both figures than this give no correlation.
pub const MIN_STATES: usize = 10;
/// A correlation at least this strong (either sign) is worth a sentence of its own.
pub const NOTABLE: f64 = 0.5;

/// One indicator set against the money.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ServiceAlignment {
    /// The indicator's key.
    pub key: String,
    /// What it counts.
    pub name: String,
    /// `health` or `education`.
    pub area: String,
    /// Where its figures came from.
    pub source: String,
    /// States with both the indicator and a population.
    pub states: usize,
    /// Spearman's rank correlation of money per inhabitant with the indicator (a rate as it is,
    /// a count per 100,000 inhabitants); `None` with fewer than [`MIN_STATES`] states or no
    /// variation.
    pub spearman: Option<f64>,
    /// The states with the lowest indicator (up to three), lowest first.
    pub lowest: Vec<&'static str>,
    /// Whether the indicator is a rate (compared as it is) rather than a count.
    pub rate: bool,
}

/// Each indicator of `facts` set against the money per inhabitant of `r`.
pub fn service_alignment(r: &RegionalSpending, facts: &RegionalFacts) -> Vec<ServiceAlignment> {
    facts
        .indicators
        .iter()
        .map(|ind| {
            let mut pairs: Vec<(&'static str, f64, f64)> = r
                .states
                .iter()
                .filter_map(|s| {
                    let pop = s.population.filter(|p| *p > 0)? as f64;
                    let v = *ind.by_state.get(s.uf)?;
                    Some((s.uf, s.value / pop, if ind.rate { v } else { v / pop * 100_000.0 }))
                })
                .collect();
            let spearman = (pairs.len() >= MIN_STATES)
                .then(|| {
                    let money: Vec<f64> = pairs.iter().map(|p| p.1).collect();
                    let service: Vec<f64> = pairs.iter().map(|p| p.2).collect();
                    pearson(&ranks(&money), &ranks(&service))
                })
                .flatten();
            pairs.sort_by(|a, b| a.2.total_cmp(&b.2));
            ServiceAlignment {
                key: ind.key.clone(),
                name: ind.name.clone(),
                area: ind.area.clone(),
                source: ind.source.clone(),
                states: pairs.len(),
                spearman,
                lowest: pairs.iter().take(3).map(|p| p.0).collect(),
                rate: ind.rate,
            }
        })
        .collect()
}

/// Average ranks (ties share the mean of their positions), 1-based.
fn ranks(xs: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..xs.len()).collect();
    order.sort_by(|&a, &b| xs[a].total_cmp(&xs[b]));
    let mut out = vec![0.0; xs.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && xs[order[j + 1]] == xs[order[i]] {
            j += 1;
        }
        let mean = (i + j) as f64 / 2.0 + 1.0;
        for &k in &order[i..=j] {
            out[k] = mean;
        }
        i = j + 1;
    }
    out
}

/// Pearson's correlation; `None` when either side does not vary.
fn pearson(a: &[f64], b: &[f64]) -> Option<f64> {
    let n = a.len() as f64;
    let (ma, mb) = (a.iter().sum::<f64>() / n, b.iter().sum::<f64>() / n);
    let (mut sab, mut saa, mut sbb) = (0.0, 0.0, 0.0);
    for (x, y) in a.iter().zip(b) {
        sab += (x - ma) * (y - mb);
        saa += (x - ma) * (x - ma);
        sbb += (y - mb) * (y - mb);
    }
    (saa > 0.0 && sbb > 0.0).then(|| sab / (saa * sbb).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tied_values_share_their_mean_rank_and_a_perfect_inverse_order_correlates_minus_one() {
        assert_eq!(ranks(&[3.0, 1.0, 3.0, 2.0]), vec![3.5, 1.0, 3.5, 2.0]);
        let r = pearson(&ranks(&[1.0, 2.0, 3.0, 4.0]), &ranks(&[40.0, 30.0, 20.0, 10.0]));
        assert!((r.unwrap() + 1.0).abs() < 1e-12);
        assert_eq!(pearson(&[1.0, 1.0], &[1.0, 2.0]), None);
    }
}
