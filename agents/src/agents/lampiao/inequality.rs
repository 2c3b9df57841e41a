//! Inequality of a distribution of money over populations: the Lorenz curve, the Gini index read
//! from it, the Theil T index and the share held by the least-served part of the population.
//! Each unit (a state) is a population and the money it received; units are ranked by money
//! per person, so the measures describe how unequal spending per person is across people.

use serde::Serialize;

/// One unit of the distribution.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Unit {
    /// Its population (the weight).
    pub population: f64,
    /// The money it received.
    pub value: f64,
}

/// A point of the Lorenz curve: the poorest `population_share` of people (ranked by money per
/// person) received `value_share` of the money.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LorenzPoint {
    /// Cumulative share of the population, 0 to 1.
    pub population_share: f64,
    /// Cumulative share of the money, 0 to 1.
    pub value_share: f64,
}

/// The Lorenz curve from (0, 0) to (1, 1), one point per unit with people, units ranked by money
/// per person (ascending). Empty when there are no people or no money.
pub fn lorenz(units: &[Unit]) -> Vec<LorenzPoint> {
    let mut ranked: Vec<&Unit> = units.iter().filter(|u| u.population > 0.0 && u.value >= 0.0).collect();
    let people: f64 = ranked.iter().map(|u| u.population).sum();
    let money: f64 = ranked.iter().map(|u| u.value).sum();
    if people <= 0.0 || money <= 0.0 {
        return Vec::new();
    }
    ranked.sort_by(|a, b| (a.value / a.population).total_cmp(&(b.value / b.population)));
    let mut out = vec![LorenzPoint { population_share: 0.0, value_share: 0.0 }];
    let (mut p, mut v) = (0.0, 0.0);
    for u in ranked {
        p += u.population;
        v += u.value;
        out.push(LorenzPoint { population_share: p / people, value_share: v / money });
    }
    out
}

/// The Gini index, 0 (everyone gets the same per person) to 1 (one unit gets everything): one
/// minus twice the area under the Lorenz curve. `None` when there are no people or no money.
pub fn gini(units: &[Unit]) -> Option<f64> {
    let curve = lorenz(units);
    if curve.is_empty() {
        return None;
    }
    let area: f64 = curve
        .windows(2)
        .map(|w| (w[1].population_share - w[0].population_share) * (w[1].value_share + w[0].value_share))
        .sum();
    Some((1.0 - area).clamp(0.0, 1.0))
}

/// The Theil T index, `Σ sᵢ ln(sᵢ / pᵢ)` with `sᵢ` a unit's share of the money and `pᵢ` its share
/// of the people: 0 when money follows people exactly, `ln(N / n)` when a unit of n people out
/// of N gets everything. `None` when there are no people or no money.
pub fn theil(units: &[Unit]) -> Option<f64> {
    let kept: Vec<&Unit> = units.iter().filter(|u| u.population > 0.0 && u.value >= 0.0).collect();
    let people: f64 = kept.iter().map(|u| u.population).sum();
    let money: f64 = kept.iter().map(|u| u.value).sum();
    if people <= 0.0 || money <= 0.0 {
        return None;
    }
    let t = kept
        .iter()
        .filter(|u| u.value > 0.0)
        .map(|u| {
            let (s, p) = (u.value / money, u.population / people);
            s * (s / p).ln()
        })
        .sum::<f64>();
    Some(t.max(0.0))
}

/// The share of the money received by the least-served `population_share` of people (0 to 1),
/// read from the Lorenz curve by linear interpolation.
pub fn share_of_least_served(units: &[Unit], population_share: f64) -> Option<f64> {
    let curve = lorenz(units);
    let x = population_share.clamp(0.0, 1.0);
    let k = curve.iter().position(|p| p.population_share >= x)?;
    if k == 0 {
        return Some(0.0);
    }
    let (a, b) = (curve[k - 1], curve[k]);
    let span = b.population_share - a.population_share;
    let t = if span > 0.0 { (x - a.population_share) / span } else { 1.0 };
    Some(a.value_share + t * (b.value_share - a.value_share))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn equal_people(values: &[f64]) -> Vec<Unit> {
        values.iter().map(|&value| Unit { population: 1.0, value }).collect()
    }

    #[test]
    fn the_gini_of_one_two_three_four_is_a_quarter() {
        // Σ|xi - xj| over ordered pairs = 20, n = 4, mean 2.5: 20 / (2 * 16 * 2.5) = 0.25.
        let g = gini(&equal_people(&[4.0, 1.0, 3.0, 2.0])).unwrap();
        assert!((g - 0.25).abs() < 1e-12, "{g}");
        let curve = lorenz(&equal_people(&[4.0, 1.0, 3.0, 2.0]));
        let shares: Vec<f64> = curve.iter().map(|p| p.value_share).collect();
        assert_eq!(shares, vec![0.0, 0.1, 0.3, 0.6, 1.0]);
    }

    #[test]
    fn money_that_follows_people_is_perfectly_equal() {
        let units = [Unit { population: 10.0, value: 100.0 }, Unit { population: 30.0, value: 300.0 }];
        assert!(gini(&units).unwrap().abs() < 1e-12);
        assert!(theil(&units).unwrap().abs() < 1e-12);
        assert!((share_of_least_served(&units, 0.4).unwrap() - 0.4).abs() < 1e-12);
    }

    #[test]
    fn one_unit_with_everything_gives_the_extreme_indices() {
        // Four equal units, one gets everything: Gini (n - 1) / n = 0.75, Theil ln(4).
        let units = equal_people(&[0.0, 0.0, 0.0, 8.0]);
        assert!((gini(&units).unwrap() - 0.75).abs() < 1e-12);
        assert!((theil(&units).unwrap() - 4f64.ln()).abs() < 1e-12);
        assert_eq!(share_of_least_served(&units, 0.5), Some(0.0));
    }

    #[test]
    fn populations_weigh_the_ranking_by_money_per_person() {
        // 90 people with 10 and 10 people with 90: the poorer 90% hold 10% of the money.
        let units = [Unit { population: 90.0, value: 10.0 }, Unit { population: 10.0, value: 90.0 }];
        let least = share_of_least_served(&units, 0.9).unwrap();
        assert!((least - 0.1).abs() < 1e-12);
        // Area under the curve: 0.9 * 0.1 + 0.1 * 1.1 = 0.2, Gini = 1 - 0.2 = 0.8.
        assert!((gini(&units).unwrap() - 0.8).abs() < 1e-12);
        assert!(gini(&[]).is_none() && theil(&equal_people(&[0.0, 0.0])).is_none());
    }
}
