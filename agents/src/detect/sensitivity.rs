//! How the requested sensitivity moves each detector's thresholds, and the confidence of a
//! finding measured from the threshold in force.
//!
//! Every detector compares a score (higher means more anomalous) with a [`Threshold`] that
//! sensitivity moves monotonically: strict at sensitivity 0, calibrated on planted data at the
//! default 0.7, the spec's literal value at 1.0. A finding's confidence is
//! [`margin_confidence`] of how far its score passes the threshold in force (0.80 right at the
//! threshold, approaching 0.99 far beyond it), times penalties for weak evidence (coarse
//! baselines, small groups). Raising sensitivity lowers every threshold and so raises every
//! margin and every confidence: it never removes a finding, whatever the confidence threshold.

/// The default sensitivity of [`crate::DetectionParams`].
pub const DEFAULT: f64 = 0.7;

/// Confidence of a finding exactly at the threshold in force (the default confidence threshold
/// of the spec, so that at default parameters every finding without penalties is reported).
pub const FLOOR: f64 = 0.80;

/// A threshold moved by sensitivity, piecewise linear through `(0, strict)`,
/// `(0.7, calibrated)` and `(1, literal)`.
///
/// For a score where higher is more anomalous, `strict >= calibrated >= literal`, so raising
/// the sensitivity never raises the threshold.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Threshold {
    /// At sensitivity 0.
    pub strict: f64,
    /// At the default sensitivity 0.7 (calibrated on planted data).
    pub calibrated: f64,
    /// At sensitivity 1.0 (the spec's literal rule).
    pub literal: f64,
}

impl Threshold {
    /// A threshold through the three points.
    pub const fn new(strict: f64, calibrated: f64, literal: f64) -> Self {
        Self { strict, calibrated, literal }
    }

    /// The threshold at sensitivity `s` (clamped to 0..1; NaN counts as the default).
    pub fn at(&self, s: f64) -> f64 {
        let s = if s.is_nan() { DEFAULT } else { s.clamp(0.0, 1.0) };
        if s <= DEFAULT {
            self.strict + (self.calibrated - self.strict) * (s / DEFAULT).min(1.0)
        } else {
            self.calibrated + (self.literal - self.calibrated) * ((s - DEFAULT) / (1.0 - DEFAULT)).min(1.0)
        }
    }
}

/// Confidence of a finding whose score passes the threshold in force by `margin`, in units of
/// `scale`: `0.80 + 0.19 * (1 - exp(-margin / scale))`. 0.80 at the threshold, 0.92 one
/// scale beyond it, 0.99 at most.
pub fn margin_confidence(margin: f64, scale: f64) -> f64 {
    let m = if margin.is_finite() {
        margin.max(0.0)
    } else if margin > 0.0 {
        f64::MAX
    } else {
        0.0
    };
    (FLOOR + 0.19 * (1.0 - (-m / scale.max(f64::MIN_POSITIVE)).exp())).min(0.99)
}

/// Rounds a confidence to four decimals (for stable output), never above 0.99.
pub fn tidy(confidence: f64) -> f64 {
    ((confidence * 10_000.0).floor() / 10_000.0).clamp(0.0, 0.99)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_threshold_passes_through_its_three_points_and_never_rises_with_sensitivity() {
        let t = Threshold::new(6.0, 3.0, 1.5);
        assert_eq!(t.at(0.0), 6.0);
        assert_eq!(t.at(0.7), 3.0);
        assert_eq!(t.at(1.0), 1.5);
        assert_eq!(t.at(2.0), 1.5);
        assert_eq!(t.at(f64::NAN), 3.0);
        let mut last = f64::INFINITY;
        for k in 0..=1000 {
            let v = t.at(k as f64 / 1000.0);
            assert!(v <= last);
            last = v;
        }
    }

    #[test]
    fn confidence_starts_at_the_floor_and_grows_with_the_margin() {
        assert_eq!(margin_confidence(0.0, 1.0), 0.80);
        assert_eq!(margin_confidence(-3.0, 1.0), 0.80);
        assert!((margin_confidence(1.0, 1.0) - 0.92).abs() < 0.01);
        assert!(margin_confidence(100.0, 1.0) <= 0.99);
        assert!(margin_confidence(f64::INFINITY, 1.0) <= 0.99);
        assert!(margin_confidence(0.2, 1.0) < margin_confidence(0.3, 1.0));
        assert_eq!(tidy(0.912_345_6), 0.9123);
    }
}

#[cfg(test)]
#[path = "monotonicity_tests.rs"]
mod monotonicity;
