//! Ceuci, the predictive analyst: forecasts each organ's monthly spending from its own history
//! (linfa-linear regression of the log monthly value on a trend and an annual harmonic, see
//! [`crate::detect::temporal::forecast`]), flags the months that escaped the prediction interval
//! (`forecast_deviation`, through the engine), forecasts the next month of the largest organs
//! with its interval, and says how far off the model was out of sample.

use crate::agents::{Agent, insight};

use crate::cancel::AnalysisError;

use crate::agents::narrative_detectors as more;
use crate::agents::roster::AgentId;
use crate::detect::context::AnalysisContext;
use crate::detect::engine;
use crate::detect::series::month_label;
use crate::detect::shared::Shared;
use crate::detect::temporal::forecast::{self, MIN_HISTORY, forecast, judged_span};
use crate::model::report::{AgentOutput, Insight};
use crate::text::{format_brl, format_pct};

/// Organs (largest first) given a next-month forecast.
pub const TOP_ORGANS: usize = 5;
/// `z` of the interval given with forecasts (a two-sided 90% prediction interval).
const INTERVAL_Z: f64 = 1.645;

/// The predictive agent.
#[derive(Debug, Clone, Copy, Default)]
pub struct Ceuci;

impl Ceuci {
    /// A new predictive analyst.
    pub fn new() -> Self {
        Ceuci
    }
}

/// The next-month forecast of one organ and the model's out-of-sample error.
#[derive(Debug, Clone, PartialEq)]
pub struct OrganForecast {
    /// SIAFI code.
    pub organ: String,
    /// The month forecast (`YYYY-MM`).
    pub month: String,
    /// Forecast value in R$ and its 90% interval.
    pub value: f64,
    /// Lower bound.
    pub low: f64,
    /// Upper bound.
    pub high: f64,
    /// Mean absolute percentage error of the rolling forecasts of the known months.
    pub mape: f64,
    /// Months of history.
    pub months: usize,
}

/// Forecasts the month after the data for the largest organs with enough history.
pub fn forecasts(ctx: &AnalysisContext<'_>) -> Result<Vec<OrganForecast>, AnalysisError> {
    forecasts_over(ctx, &Shared::with_cache(ctx.dataset, ctx.findings))
}

/// [`forecasts`] over the organs' monthly series and coverage the detectors share (built once
/// per analysis, or read from the findings cache of the run).
fn forecasts_over(ctx: &AnalysisContext<'_>, sh: &Shared<'_>) -> Result<Vec<OrganForecast>, AnalysisError> {
    let (grid, series) = sh.organ_months(ctx.cancel)?;
    let (grid, coverage) = (*grid, sh.coverage(ctx.cancel)?);
    let mut ranked: Vec<_> = series.iter().filter_map(|s| judged_span(coverage, s).map(|sp| (s, sp))).collect();
    ranked.sort_by(|(a, _), (b, _)| {
        let (ta, tb) = (a.values.iter().sum::<f64>(), b.values.iter().sum::<f64>());
        tb.total_cmp(&ta).then(a.organ.cmp(&b.organ))
    });
    let mut out = Vec::new();
    for (s, sp) in ranked.into_iter().take(TOP_ORGANS) {
        ctx.cancel.check()?;
        let logs = &s.logs()[sp.start..sp.end];
        let values = &s.values[sp.start..sp.end];
        let first = grid.first + sp.start as i32;
        let Some(next) = forecast(logs, first, logs.len()) else { continue };
        let errors: Vec<f64> = (MIN_HISTORY..logs.len())
            .filter_map(|t| forecast(logs, first, t).map(|f| ((f.mean.exp() - values[t]) / values[t].max(1.0)).abs()))
            .collect();
        out.push(OrganForecast {
            organ: s.organ.to_string(),
            month: month_label(first + logs.len() as i32),
            value: next.mean.exp(),
            low: (next.mean - INTERVAL_Z * next.se).exp(),
            high: (next.mean + INTERVAL_Z * next.se).exp(),
            mape: errors.iter().sum::<f64>() / errors.len().max(1) as f64,
            months: logs.len(),
        });
    }
    Ok(out)
}

fn forecast_insights(f: &[OrganForecast]) -> Vec<Insight> {
    f.iter()
        .map(|o| {
            insight(
                AgentId::Ceuci,
                format!(
                    "Previsão de gasto do órgão {} para {}: {} (intervalo de 90%: {} a {}), a partir de {} meses de \
                     histórico; erro médio das previsões fora da amostra: {}",
                    o.organ,
                    o.month,
                    format_brl(o.value),
                    format_brl(o.low),
                    format_brl(o.high),
                    o.months,
                    format_pct(o.mape)
                ),
                (0.9 - o.mape).clamp(0.5, 0.9),
                &[],
            )
        })
        .collect()
}

impl Agent for Ceuci {
    fn id(&self) -> AgentId {
        AgentId::Ceuci
    }

    fn analyse(&self, ctx: &AnalysisContext<'_>) -> Result<AgentOutput, AnalysisError> {
        (ctx.progress)(0.0);
        let mut anomalies = engine::detect_for(ctx, &[forecast::NAME])?;
        engine::sort(&mut anomalies);
        (ctx.progress)(0.5);
        // The monthly series and coverage once, for the forecasts and the snapshot test.
        let sh = Shared::with_cache(ctx.dataset, ctx.findings);
        let f = forecasts_over(ctx, &sh)?;
        let mut found = more::insights(AgentId::Ceuci, &anomalies);
        found.extend(forecast_insights(&f));
        if let Some(snap) = &sh.coverage(ctx.cancel)?.snapshot {
            found.push(insight(AgentId::Ceuci, snap.reason(), 0.9, &[]));
        }
        let mut recs = more::recommendations(&anomalies);
        for o in f.iter().filter(|o| o.mape > 0.5) {
            recs.push(format!(
                "Tratar com cautela as previsões do órgão {}: o erro médio fora da amostra foi de {}",
                o.organ,
                format_pct(o.mape)
            ));
        }
        (ctx.progress)(1.0);
        Ok(AgentOutput { anomalies, insights: found, recommendations: recs, artifacts: Vec::new() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cancel::CancelFlag;
    use crate::demo::{DemoSpec, generate};
    use crate::model::params::DetectionParams;
    use crate::testutil::analyse_cancelled;

    #[test]
    fn ceuci_forecasts_the_largest_organs_and_flags_months_above_their_forecast() {
        let data = generate(&DemoSpec { seed: 5, contracts: 20_000, ..DemoSpec::default() });
        let params = DetectionParams::default();
        let cancel = CancelFlag::new();
        let out = Ceuci::new().analyse(&AnalysisContext::new(&data.dataset, &params, &cancel)).unwrap();
        assert!(out.anomalies.iter().all(|a| a.detector() == forecast::NAME));
        // Every month it flags holds planted records (a spike, a rush or a level shift).
        for a in &out.anomalies {
            assert!(
                data.planted
                    .iter()
                    .any(|p| p.kind == a.kind && a.record_ids().any(|r| p.record_ids.contains(&r.to_string()))),
                "{} matches no plant",
                a.id
            );
        }
        let f: Vec<&Insight> = out.insights.iter().filter(|i| i.insight.starts_with("Previsão de gasto")).collect();
        assert_eq!(f.len(), TOP_ORGANS);
        assert!(f.iter().all(|i| i.insight.contains("2026-01")), "the month after the data");
        assert_eq!(Ceuci::new().id(), AgentId::Ceuci);
    }

    #[test]
    fn forecasts_bracket_their_value_and_need_history() {
        let data = generate(&DemoSpec { seed: 6, contracts: 8_000, ..DemoSpec::default() });
        let (params, cancel) = (DetectionParams::default(), CancelFlag::new());
        let f = forecasts(&AnalysisContext::new(&data.dataset, &params, &cancel)).unwrap();
        assert!(!f.is_empty());
        assert!(
            f.iter()
                .all(|o| o.low < o.value && o.value < o.high && (13..=24).contains(&o.months) && o.mape.is_finite()),
            "{f:?}"
        );
        let one_year = generate(&DemoSpec { seed: 6, contracts: 2_000, year: Some(2024), ..DemoSpec::default() });
        assert!(forecasts(&AnalysisContext::new(&one_year.dataset, &params, &cancel)).unwrap().is_empty());
    }

    #[test]
    fn a_cancelled_forecast_returns_cancelled() {
        assert_eq!(analyse_cancelled(&Ceuci::new(), 300), Err(AnalysisError::Cancelled));
    }
}
