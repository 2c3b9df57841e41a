//! Tests of the forecast deviation detector.

use super::*;
use crate::model::contract::Contract;
use crate::testutil::contract;

/// An organ signing 4 contracts a month for two years, with a mild seasonal pattern and a
/// December twice its usual month, and `factor` times the usual value in `month` (0-based on
/// the grid). The data runs to the end of 2025.
fn organ(month: usize, factor: f64) -> Vec<Contract> {
    let mut cs = Vec::new();
    for t in 0..24usize {
        let (y, m) = (2024 + (t / 12) as i32, 1 + (t % 12) as u32);
        let season = 1.0 + 0.1 * (std::f64::consts::TAU * t as f64 / 12.0).sin();
        let december = if m == 12 { 2.0 } else { 1.0 };
        for k in 0..4 {
            let wobble = 1.0 + 0.04 * ((t * 5 + k * 3) % 7) as f64;
            let v = 1000.0 * season * december * wobble * if t == month { factor } else { 1.0 };
            let day = [1, 10, 20, 28][k];
            cs.push(contract(&format!("{t}-{k}"), "LIMPEZA", &format!("S{k}"), "26000", v, (y, m, day)));
        }
    }
    cs
}

fn run(cs: Vec<Contract>) -> Vec<Anomaly> {
    ForecastDeviation.run(&Dataset::from_contracts(cs), &DetectionParams::default(), &CancelFlag::new()).unwrap()
}

#[test]
fn a_linear_log_series_is_forecast_exactly() {
    let logs: Vec<f64> = (0..20).map(|t| 5.0 + 0.1 * t as f64).collect();
    let f = forecast(&logs, 2024 * 12, 16).unwrap();
    assert!((f.mean - 6.6).abs() < 1e-6, "{f:?}");
    assert!(forecast(&logs, 2024 * 12, 5).is_none());
}

#[test]
fn a_month_five_times_its_forecast_is_flagged_and_ordinary_months_are_not() {
    assert!(run(organ(30, 1.0)).is_empty(), "a December twice the usual month is foreseen");
    let found = run(organ(18, 5.0));
    assert_eq!(found.len(), 1, "{found:?}");
    let a = &found[0];
    assert_eq!(a.id, "forecast_deviation-26000-2025-07");
    assert!(a.record_ids().any(|id| id == "18-0"));
    assert!(a.technical_details["z_score"].as_f64().unwrap() > Z.at(0.7));
    assert_eq!(a.technical_details["history_months"], 18);
    // Months without 12 months of the organ's history are never forecast.
    assert!(run(organ(6, 5.0)).is_empty());
}

#[test]
fn december_and_the_data_s_cut_last_month_are_not_forecast_deviations() {
    // December is end_of_year's to judge.
    assert!(run(organ(23, 5.0)).is_empty());
    // The data stops on 2025-11-05: November is cut, never judged.
    let cut: Vec<Contract> = organ(22, 5.0)
        .into_iter()
        .filter(|c| c.signed_on.is_some_and(|d| d < chrono::NaiveDate::from_ymd_opt(2025, 11, 6).unwrap()))
        .collect();
    assert!(run(cut).is_empty());
}
