//! Exact tails the pattern detectors test with: the log-gamma function, the chi-square
//! survival function (regularised upper incomplete gamma) and the binomial upper tail summed
//! in log space (accurate far into the tail, where the normal approximation is not).

/// `ln Γ(x)` for `x > 0` (Lanczos approximation, g = 7, n = 9; relative error below 1e-13).
pub fn ln_gamma(x: f64) -> f64 {
    const G: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection.
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = G[0];
    let t = x + 7.5;
    for (k, g) in G.iter().enumerate().skip(1) {
        a += g / (x + k as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// `ln Q(a, x)`, the log of the regularised upper incomplete gamma function (series below
/// `a + 1`, Lentz's continued fraction above), so tails far below 1e-300 stay finite.
pub fn ln_gamma_q(a: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    let front = a * x.ln() - x - ln_gamma(a);
    if x < a + 1.0 {
        let (mut sum, mut term, mut ap) = (1.0 / a, 1.0 / a, a);
        for _ in 0..1000 {
            ap += 1.0;
            term *= x / ap;
            sum += term;
            if term.abs() < sum.abs() * 1e-15 {
                break;
            }
        }
        let p = (front + sum.ln()).exp();
        (1.0 - p).max(f64::MIN_POSITIVE).ln()
    } else {
        let tiny = 1e-300;
        let mut b = x + 1.0 - a;
        let mut c = 1.0 / tiny;
        let mut d = 1.0 / b;
        let mut h = d;
        for i in 1..1000 {
            let an = -(i as f64) * (i as f64 - a);
            b += 2.0;
            d = an * d + b;
            if d.abs() < tiny {
                d = tiny;
            }
            c = b + an / c;
            if c.abs() < tiny {
                c = tiny;
            }
            d = 1.0 / d;
            let delta = d * c;
            h *= delta;
            if (delta - 1.0).abs() < 1e-15 {
                break;
            }
        }
        front + h.ln()
    }
}

/// `-log10 P(X > x)` for a chi-square variable with `df` degrees of freedom.
pub fn chi2_significance(x: f64, df: usize) -> f64 {
    if df == 0 || x <= 0.0 {
        return 0.0;
    }
    (-ln_gamma_q(df as f64 / 2.0, x / 2.0) / std::f64::consts::LN_10).max(0.0)
}

/// `-log10 P(X >= k)` for `X ~ Binomial(n, p)`, summed exactly in log space.
pub fn binomial_significance(k: usize, n: usize, p: f64) -> f64 {
    if k == 0 || n == 0 {
        return 0.0;
    }
    if k > n {
        return f64::INFINITY;
    }
    let p = p.clamp(1e-12, 1.0 - 1e-12);
    let ln_c = |j: usize| ln_gamma(n as f64 + 1.0) - ln_gamma(j as f64 + 1.0) - ln_gamma((n - j) as f64 + 1.0);
    let term = |j: usize| ln_c(j) + j as f64 * p.ln() + (n - j) as f64 * (1.0 - p).ln();
    let first = term(k);
    let mut sum = 1.0;
    let mut log_ratio_acc = 0.0;
    for j in k + 1..=n {
        // term(j) / term(j - 1) = (n - j + 1) / j * p / (1 - p)
        log_ratio_acc += ((n - j + 1) as f64 / j as f64).ln() + (p / (1.0 - p)).ln();
        let t = log_ratio_acc.exp();
        sum += t;
        if t < sum * 1e-17 {
            break;
        }
    }
    (-(first + sum.ln()) / std::f64::consts::LN_10).max(0.0)
}

/// `-log10 P(X >= k)` for `X ~ Poisson(lambda)`, summed in log space from the k-th term (exact
/// far into the tail). 0 for `k == 0`.
pub fn poisson_significance(k: usize, lambda: f64) -> f64 {
    if k == 0 {
        return 0.0;
    }
    let lambda = lambda.max(1e-12);
    let first = -lambda + k as f64 * lambda.ln() - ln_gamma(k as f64 + 1.0);
    let (mut sum, mut ratio) = (1.0, 1.0);
    for j in k + 1..k + 100_000 {
        // term(j) / term(j - 1) = lambda / j
        ratio *= lambda / j as f64;
        sum += ratio;
        if ratio < sum * 1e-17 {
            break;
        }
    }
    (-(first + sum.ln()) / std::f64::consts::LN_10).max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() < tol
    }

    #[test]
    fn log_gamma_matches_factorials() {
        assert!(close(ln_gamma(1.0), 0.0, 1e-12));
        assert!(close(ln_gamma(5.0), 24f64.ln(), 1e-12));
        assert!(close(ln_gamma(0.5), std::f64::consts::PI.sqrt().ln(), 1e-12));
        assert!(close(ln_gamma(101.0), 363.739_375_555_563_5, 1e-9));
    }

    #[test]
    fn chi_square_tails_match_tables() {
        // P(chi2_8 > 15.507) = 0.05, P(chi2_8 > 20.090) = 0.01, P(chi2_1 > 3.841) = 0.05.
        assert!(close(chi2_significance(15.507, 8), 0.05f64.log10().abs(), 1e-3));
        assert!(close(chi2_significance(20.090, 8), 2.0, 1e-3));
        assert!(close(chi2_significance(3.841, 1), 0.05f64.log10().abs(), 1e-3));
        assert!(close(chi2_significance(2.0, 4), -(0.735_758_9f64).log10(), 1e-6));
        assert!(chi2_significance(2000.0, 8) > 400.0 && chi2_significance(2000.0, 8).is_finite());
        assert_eq!(chi2_significance(0.0, 8), 0.0);
    }

    #[test]
    fn poisson_tails_are_exact() {
        // P(X >= 1) = 1 - e^-2 for Poisson(2); P(X >= 3) = 1 - 5 e^-2.
        assert!(close(poisson_significance(1, 2.0), -(1.0 - (-2f64).exp()).log10(), 1e-12));
        assert!(close(poisson_significance(3, 2.0), -(1.0 - 5.0 * (-2f64).exp()).log10(), 1e-12));
        // Far tail: P(X >= 40) for Poisson(1) ~ e^-1 / 40! (1 + 1/41 + ...).
        let expect = -((-1f64) - ln_gamma(41.0) + (1.0f64 + 1.0 / 41.0 + 1.0 / (41.0 * 42.0)).ln()) / 10f64.ln();
        assert!(close(poisson_significance(40, 1.0), expect, 1e-4));
        assert_eq!(poisson_significance(0, 3.0), 0.0);
        assert!(poisson_significance(800, 200.0).is_finite() && poisson_significance(800, 200.0) > 100.0);
    }

    #[test]
    fn binomial_tails_are_exact() {
        // P(X >= 3) for Binomial(5, 0.5) = 0.5; P(X >= 5) = 1/32.
        assert!(close(binomial_significance(3, 5, 0.5), 0.5f64.log10().abs(), 1e-9));
        assert!(close(binomial_significance(5, 5, 0.5), 32f64.log10(), 1e-9));
        assert!(close(binomial_significance(1, 10, 0.1), -(1.0 - 0.9f64.powi(10)).log10(), 1e-9));
        assert!(binomial_significance(60, 100, 0.02) > 50.0);
        assert_eq!(binomial_significance(0, 10, 0.1), 0.0);
    }
}
