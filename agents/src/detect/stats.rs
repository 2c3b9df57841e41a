//! Small statistics used by the detectors: medians, MAD, mean and standard deviation, the
//! normal distribution and a normal approximation of the binomial tail.

/// Median of the values (the mean of the two middle ones for an even count); `NaN` when
/// empty. Reorders the slice.
pub fn median_in_place(values: &mut [f64]) -> f64 {
    let n = values.len();
    if n == 0 {
        return f64::NAN;
    }
    let mid = n / 2;
    let (lower, m, _) = values.select_nth_unstable_by(mid, f64::total_cmp);
    let m = *m;
    if n % 2 == 1 {
        m
    } else {
        let below = lower.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        (below + m) / 2.0
    }
}

/// Median of a slice, without changing it.
pub fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    median_in_place(&mut v)
}

/// Median absolute deviation from the median (unscaled).
pub fn mad(values: &[f64]) -> f64 {
    let m = median(values);
    let mut dev: Vec<f64> = values.iter().map(|x| (x - m).abs()).collect();
    median_in_place(&mut dev)
}

/// Mean and sample standard deviation (n - 1); `(NaN, NaN)` when empty, std 0 for one value.
pub fn mean_std(values: &[f64]) -> (f64, f64) {
    let n = values.len();
    if n == 0 {
        return (f64::NAN, f64::NAN);
    }
    let mean = values.iter().sum::<f64>() / n as f64;
    if n == 1 {
        return (mean, 0.0);
    }
    let var = values.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1) as f64;
    (mean, var.sqrt())
}

/// The error function, with absolute error below 1.2e-7 (Numerical Recipes' `erfc` by
/// Chebyshev fitting).
pub fn erf(x: f64) -> f64 {
    1.0 - erfc(x)
}

/// The complementary error function, accurate in the far tail too.
pub fn erfc(x: f64) -> f64 {
    let z = x.abs();
    let t = 1.0 / (1.0 + 0.5 * z);
    let poly = -z * z - 1.265_512_23
        + t * (1.000_023_68
            + t * (0.374_091_96
                + t * (0.096_784_18
                    + t * (-0.186_288_06
                        + t * (0.278_868_07
                            + t * (-1.135_203_98 + t * (1.488_515_87 + t * (-0.822_152_23 + t * 0.170_872_77))))))));
    let r = t * poly.exp();
    if x >= 0.0 { r } else { 2.0 - r }
}

/// Standard normal cumulative distribution function.
pub fn normal_cdf(z: f64) -> f64 {
    0.5 * erfc(-z / std::f64::consts::SQRT_2)
}

/// Upper tail `P(Z > z)` of the standard normal.
pub fn normal_sf(z: f64) -> f64 {
    0.5 * erfc(z / std::f64::consts::SQRT_2)
}

/// One-sided p-value of seeing `k` or more successes in `n` trials of probability `p`, by the
/// normal approximation with continuity correction. 1.0 when `n` is 0.
pub fn binomial_upper_p(k: usize, n: usize, p: f64) -> f64 {
    if n == 0 {
        return 1.0;
    }
    let mean = n as f64 * p;
    let sd = (n as f64 * p * (1.0 - p)).sqrt();
    if sd == 0.0 {
        return if (k as f64) > mean { 0.0 } else { 1.0 };
    }
    normal_sf((k as f64 - 0.5 - mean) / sd)
}

/// Herfindahl-Hirschman index (0-10,000) of shares given as fractions.
pub fn hhi(shares: impl IntoIterator<Item = f64>) -> f64 {
    shares.into_iter().map(|s| (s * 100.0) * (s * 100.0)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() < tol
    }

    #[test]
    fn medians_of_odd_and_even_counts_and_the_mad() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), 2.5);
        assert!(median(&[]).is_nan());
        assert_eq!(mad(&[1.0, 2.0, 3.0, 4.0, 100.0]), 1.0);
    }

    #[test]
    fn mean_and_sample_standard_deviation() {
        let (m, s) = mean_std(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]);
        assert_eq!(m, 5.0);
        assert!(close(s, 2.138_089_9, 1e-6));
        assert_eq!(mean_std(&[3.0]), (3.0, 0.0));
    }

    #[test]
    fn the_normal_distribution_matches_known_quantiles() {
        assert!(close(normal_cdf(0.0), 0.5, 1e-7));
        assert!(close(normal_cdf(1.96), 0.975, 1e-4));
        assert!(close(normal_sf(2.326_3), 0.01, 1e-4));
        assert!(close(erf(1.0), 0.842_700_79, 1e-6));
        assert!(normal_sf(8.0) > 0.0 && normal_sf(8.0) < 1e-14);
    }

    #[test]
    fn the_binomial_tail_is_small_for_a_large_excess_and_near_half_at_the_mean() {
        assert!(binomial_upper_p(60, 120, 1.0 / 12.0) < 1e-10);
        assert!(binomial_upper_p(10, 120, 1.0 / 12.0) > 0.4);
        assert_eq!(binomial_upper_p(0, 0, 0.5), 1.0);
        assert_eq!(hhi([0.5, 0.5]), 5000.0);
    }
}
