//! `forecast_deviation`: a month in which an organ spent far more than its own history
//! forecast (Ceuci's finding).
//!
//! For each organ (monthly series of [`crate::detect::series`] over the span its history allows,
//! [`crate::detect::coverage`]: from its first regular month, without the data's cut last month, none
//! in a dataset of one publication month; judged when it has at least 2 contracts a month on
//! average and at most 10% empty months), every month `t` with at least [`MIN_HISTORY`]
//! months of the organ's own history is forecast from the months before it (rolling origin,
//! no look-ahead) by an ordinary least-squares regression (linfa-linear) of `ln(value)` on a
//! linear trend, one annual harmonic (`sin`, `cos` of `2 pi t / 12`) and a December effect
//! (the federal budget cycle makes December large everywhere; a year of history holds one).
//! The prediction interval uses the residual standard deviation `sigma` with the average
//! leverage, `se = sigma sqrt(1 + p / n)` for `p` = 5 parameters and `n` training months. A
//! month is flagged when `ln(actual) - forecast > Z(s) se`. Only rises are reported, and never
//! for a December: `end_of_year` judges December against the organ's own past Decembers and
//! its peers'.
//!
//! Sensitivity `s` moves `Z(s)` through 8 (s = 0), 4.5 (s = 0.7, calibrated on planted data:
//! clean demo months stay under 3.7) and 2.33 (s = 1, the upper bound of a one-sided 99%
//! prediction interval). Confidence =
//! `margin_confidence(z - Z(s), 1.5)`. Complexity: linear in the contracts plus, per organ,
//! one small regression per month (`O(months^2)`).
//!
//! Severity: high at most ([`crate::model::anomaly::Anomaly::at_most`]): the pattern asks for an
//! explanation; it proves no wrong by itself.

use linfa::DatasetBase;
use linfa::traits::{Fit, Predict};
use linfa_linear::LinearRegression;
use ndarray::{Array1, Array2};
use serde_json::json;

use crate::cancel::{AnalysisError, CancelFlag};
use crate::detect::Detector;
use crate::detect::common::{round2, round4};
use crate::detect::coverage::{Coverage, Span, mean_count};
use crate::detect::finding::{Finding, organ_subject, pattern, point};
use crate::detect::sensitivity::{Threshold, margin_confidence, tidy};
use crate::detect::series::{OrganMonths, month_label};
use crate::detect::shared::Shared;
use crate::model::anomaly::{Anomaly, AnomalyType};
use crate::model::dataset::Dataset;
use crate::model::params::DetectionParams;
use crate::text::{format_brl, format_decimal};

/// Detector name.
pub const NAME: &str = "forecast_deviation";
/// Standard errors above the forecast, as sensitivity moves it.
pub const Z: Threshold = Threshold::new(8.0, 4.5, 2.33);
/// Months of history needed before a month is forecast.
pub const MIN_HISTORY: usize = 12;
/// Fewest contracts per month, on average, to judge an organ.
pub const MIN_MEAN_COUNT: f64 = 2.0;
/// Most empty months (as a share of the grid) to judge an organ.
pub const MAX_EMPTY: f64 = 0.10;
/// Most contracts named by one anomaly (the largest first).
pub const MAX_RELATED: usize = 500;
/// Parameters of the model (intercept, trend, two harmonics, December).
const PARAMS: usize = 5;
/// Regressors of the model besides the intercept.
const REGRESSORS: usize = PARAMS - 1;

/// The forecast deviation detector.
#[derive(Debug, Clone, Copy, Default)]
pub struct ForecastDeviation;

/// The forecast of one month.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Forecast {
    /// Forecast of `ln(value)`.
    pub mean: f64,
    /// Standard error of the prediction.
    pub se: f64,
}

/// The regressors of month `t` of a series whose month 0 has the key `first`.
fn row(first: i32, t: usize) -> [f64; REGRESSORS] {
    let w = std::f64::consts::TAU * t as f64 / 12.0;
    let december = f64::from(u8::from(crate::detect::temporal::spikes::is_december(first + t as i32)));
    [t as f64, w.sin(), w.cos(), december]
}

/// Forecasts month `t` of a log series whose month 0 has the month key `first` (see
/// [`crate::detect::series::month_key`]) from the months before it; `None` with too little history
/// or a failed fit.
pub fn forecast(logs: &[f64], first: i32, t: usize) -> Option<Forecast> {
    if t < MIN_HISTORY || t > logs.len() {
        return None;
    }
    let x: Vec<f64> = (0..t).flat_map(|k| row(first, k)).collect();
    let records = Array2::from_shape_vec((t, REGRESSORS), x).ok()?;
    let targets = Array1::from_vec(logs[..t].to_vec());
    let data = DatasetBase::new(records, targets);
    let model = LinearRegression::new().fit(&data).ok()?;
    let fitted: Array1<f64> = model.predict(data.records());
    let rss: f64 = fitted.iter().zip(&logs[..t]).map(|(f, y)| (y - f) * (y - f)).sum();
    let dof = t.saturating_sub(PARAMS).max(1) as f64;
    let sigma = (rss / dof).sqrt().max(0.05);
    let next = Array2::from_shape_vec((1, REGRESSORS), row(first, t).to_vec()).ok()?;
    let mean = model.predict(&next)[0];
    mean.is_finite().then_some(Forecast { mean, se: sigma * (1.0 + PARAMS as f64 / t as f64).sqrt() })
}

impl Detector for ForecastDeviation {
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
        let (grid, series) = sh.organ_months(cancel)?;
        let coverage = sh.coverage(cancel)?;
        let grid = *grid;
        let zt = Z.at(p.sensitivity);
        let mut out = Vec::new();
        for s in series.iter() {
            cancel.check()?;
            let Some(sp) = judged_span(coverage, s) else { continue };
            let logs = &s.logs()[sp.start..sp.end];
            let first = grid.first + sp.start as i32;
            for t in MIN_HISTORY..logs.len() {
                if crate::detect::temporal::spikes::is_december(first + t as i32) {
                    continue;
                }
                let Some(f) = forecast(logs, first, t) else { continue };
                let z = (logs[t] - f.mean) / f.se;
                if z > zt {
                    let confidence = tidy(margin_confidence(z - zt, 1.5));
                    if confidence >= p.confidence_threshold {
                        let m = sp.start + t;
                        out.push(anomaly(ds, s, (first + t as i32, m, t), &f, (z, zt), confidence, p.sensitivity));
                    }
                }
            }
        }
        Ok(out)
    }
}

/// The span of an organ's series the forecast judges ([`Coverage::span`]), when it has the
/// history and the regular activity a forecast needs: more than [`MIN_HISTORY`] months, at
/// least [`MIN_MEAN_COUNT`] contracts a month and at most [`MAX_EMPTY`] empty months.
pub fn judged_span(coverage: &Coverage, s: &OrganMonths) -> Option<Span> {
    let sp = coverage.span(s)?;
    let empty = s.counts[sp.start..sp.end].iter().filter(|c| **c == 0).count() as f64 / sp.len().max(1) as f64;
    (sp.len() > MIN_HISTORY && mean_count(s, sp) >= MIN_MEAN_COUNT && empty <= MAX_EMPTY).then_some(sp)
}

/// `(key, m, t)`: the month's key, its index on the grid and its index in the organ's span.
type At = (i32, usize, usize);

fn anomaly(
    ds: &Dataset,
    s: &OrganMonths,
    (key, m, t): At,
    f: &Forecast,
    (z, zt): (f64, f64),
    confidence: f64,
    sensitivity: f64,
) -> Anomaly {
    let subject = organ_subject(ds, s, m..m + 1, MAX_RELATED);
    let organ = &subject.name;
    let label = month_label(key);
    let actual = s.values[m];
    let expected = f.mean.exp();
    let upper = (f.mean + zt * f.se).exp();
    let a = Finding {
        detector: NAME,
        kind: AnomalyType::TemporalAnomaly,
        key: format!("{}-{}", s.organ, label),
        confidence,
        at_stake: (actual - expected).max(0.0),
        threshold: round4(zt),
        description: format!(
            "{} gastou {} em {}, {} vezes a previsão de {} feita com o histórico do órgão",
            organ,
            format_brl(actual),
            label,
            format_decimal(actual / expected.max(1.0), 1),
            format_brl(expected)
        ),
        human_pt: format!(
            "Com base nos meses anteriores (tendência e sazonalidade), o esperado para {} em {} era cerca de {} \
             (até {} no intervalo de previsão). O órgão contratou {}, fora do intervalo: vale entender o que mudou.",
            organ,
            label,
            format_brl(expected),
            format_brl(upper),
            format_brl(actual)
        ),
        human_en: format!(
            "In {label} the organ spent {}, {:.1} times the forecast from its own history ({}).",
            format_brl(actual),
            actual / expected.max(1.0),
            format_brl(expected)
        ),
        technical: format!(
            "OLS (linfa-linear) of ln(monthly value) on trend + annual harmonic + December over the organ's {t} \
             previous months; forecast ln = {:.3}, se = {:.3}; actual ln = {:.3}: z = {:.2} > {:.2} (threshold at \
             sensitivity {}; 2.33, a one-sided 99% prediction interval, at 1.0)",
            f.mean,
            f.se,
            actual.max(1.0).ln(),
            z,
            zt,
            sensitivity
        ),
        primary: subject.primary,
        related: subject.related,
        data_points: vec![
            point("actual", actual, Some(label.clone())),
            point("forecast", expected, Some(label.clone())),
            point("upper_bound", upper, Some(label.clone())),
        ],
        patterns: vec![pattern(
            "above_forecast",
            format!("{:.1}x the forecast", actual / expected.max(1.0)),
            json!({"month": label, "z": round4(z)}),
        )],
        method: "ols_trend_seasonal_rolling_forecast",
        score: z,
        contamination: 0.0,
        peer: None,
        regulatory: None,
        factors: vec![
            ("forecast_error".into(), 0.8, format!("{z:.2} standard errors above the forecast")),
            ("history".into(), 0.2, format!("{t} months of history")),
        ],
        details: vec![
            ("organ", json!(s.organ)),
            ("month", json!(label)),
            ("z_score", json!(round4(z))),
            ("forecast_value", json!(round2(expected))),
            ("upper_bound", json!(round2(upper))),
            ("actual_value", json!(round2(actual))),
            ("history_months", json!(t)),
            ("sensitivity", json!(sensitivity)),
            ("baseline", json!("organ_history_forecast")),
        ],
    }
    .build();
    a.at_most(crate::model::anomaly::Severity::High)
}

#[cfg(test)]
#[path = "forecast_tests.rs"]
mod tests;
