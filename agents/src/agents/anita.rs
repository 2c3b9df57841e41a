//! Anita Garibaldi, the pattern and trend analyst: supplier concentration, end-of-year rushes,
//! round-value and first-digit (Benford) deviations, learned outliers, continuing services
//! lasting days, spending spikes and regime changes, all through the engine, plus spending trends (monthly totals, the weight of
//! each organ's top suppliers).

use std::collections::HashMap;
use std::sync::Arc;

use chrono::Datelike;

use crate::agents::{Agent, insight};

use crate::cancel::AnalysisError;

use crate::agents::narrative::{by_detector, insights, recommendations};
use crate::agents::narrative_detectors as more;
use crate::agents::roster::AgentId;
use crate::detect::common::FxBuild;
use crate::detect::context::AnalysisContext;
use crate::detect::engine;
use crate::detect::shared::Shared;
use crate::detect::{
    pattern::benford, pattern::concentration, pattern::outliers, pattern::round_values, pattern::short_contract,
    temporal::end_of_year, temporal::regime, temporal::spikes,
};
use crate::model::anomaly::Anomaly;
use crate::model::dataset::Dataset;
use crate::model::report::{AgentOutput, Insight};
use crate::text::{format_brl, format_pct};

/// Top suppliers above this combined share of an organ's value earn a recommendation.
const TOP3_ALERT: f64 = 0.5;

/// The detectors Anita runs, in batches (one engine call and one progress step each).
pub const BATCHES: &[&[&str]] = &[
    &[concentration::NAME, round_values::NAME, benford::NAME, outliers::NAME, short_contract::NAME],
    &[end_of_year::NAME, spikes::NAME, regime::NAME],
];

/// The pattern and trend agent.
#[derive(Debug, Clone, Copy, Default)]
pub struct Anita;

impl Anita {
    /// A new trend analyst.
    pub fn new() -> Self {
        Anita
    }
}

impl Agent for Anita {
    fn id(&self) -> AgentId {
        AgentId::Anita
    }

    fn analyse(&self, ctx: &AnalysisContext<'_>) -> Result<AgentOutput, AnalysisError> {
        let anomalies = engine::detect_batches(ctx, BATCHES, 0.8)?;
        ctx.cancel.check()?;
        let mut found = insights(AgentId::Anita, &anomalies);
        found.extend(more::insights(AgentId::Anita, &anomalies));
        let mut recs = recommendations(&anomalies);
        recs.extend(more::recommendations(&anomalies));
        if let Some(i) = monthly_trend(ctx.dataset, &anomalies) {
            found.push(i);
        }
        // The coverage the temporal detectors read (from the findings cache of the run).
        if let Some(snap) = &Shared::with_cache(ctx.dataset, ctx.findings).coverage(ctx.cancel)?.snapshot {
            found.push(insight(AgentId::Anita, snap.reason(), 0.9, &[]));
        }
        ctx.cancel.check()?;
        let (top3, top3_recs) = top_suppliers(ctx.dataset, &anomalies);
        found.extend(top3);
        recs.extend(top3_recs);
        (ctx.progress)(1.0);
        Ok(AgentOutput { anomalies, insights: found, recommendations: recs, artifacts: Vec::new() })
    }
}

/// The month with the most value, against its year.
fn monthly_trend(ds: &Dataset, anomalies: &[Arc<Anomaly>]) -> Option<Insight> {
    // Hashed by month and year (the maximum below is keyed fully, so no order is needed).
    let mut months: HashMap<(i32, u32), f64, FxBuild> = HashMap::default();
    let mut years: HashMap<i32, f64, FxBuild> = HashMap::default();
    for c in &ds.contracts {
        let Some(d) = c.signed_on else { continue };
        *months.entry((d.year(), d.month())).or_default() += c.value();
        *years.entry(d.year()).or_default() += c.value();
    }
    let ((year, month), value) = months.iter().max_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(a.0)))?;
    let year_total = years.get(year).copied().unwrap_or(0.0).max(f64::MIN_POSITIVE);
    let share = value / year_total;
    let evidence: Vec<&Anomaly> = by_detector(anomalies, end_of_year::NAME);
    let text = format!(
        "O mês de maior gasto foi {} de {}, com {} ({} do ano, contra {} de um mês médio); {} meses com contratos \
         no período",
        crate::text::MONTHS_PT[(*month as usize).saturating_sub(1).min(11)],
        year,
        format_brl(*value),
        format_pct(share),
        format_pct(1.0 / 12.0),
        months.len()
    );
    let confidence = if share > 2.0 / 12.0 { 0.85 } else { 0.7 };
    Some(insight(AgentId::Anita, text, confidence, &evidence))
}

/// For each organ (largest first, at most five), the share of its three largest suppliers.
fn top_suppliers(ds: &Dataset, anomalies: &[Arc<Anomaly>]) -> (Vec<Insight>, Vec<String>) {
    // Hashed per organ and per (organ, supplier): the rankings below are keyed fully (value,
    // then code or document), so no map order is needed; each sum runs in dataset order.
    let mut organs: HashMap<&str, (&str, f64), FxBuild> = HashMap::default();
    let mut pairs: HashMap<(&str, &str), (f64, &str), FxBuild> = HashMap::default();
    for c in &ds.contracts {
        if c.organ.code.is_empty() {
            continue;
        }
        let code = c.organ.code.as_str();
        organs.entry(code).or_insert((c.organ.name.as_str(), 0.0)).1 += c.value();
        if !c.supplier.document.is_empty() {
            pairs.entry((code, c.supplier.document.as_str())).or_insert((0.0, c.supplier.name.as_str())).0 += c.value();
        }
    }
    let mut ranked: Vec<(&str, &str, f64)> =
        organs.iter().map(|(code, (name, total))| (*code, *name, *total)).collect();
    ranked.sort_by(|a, b| b.2.total_cmp(&a.2).then(a.0.cmp(b.0)));
    ranked.truncate(5);
    let mut suppliers: HashMap<&str, Vec<(&str, f64, &str)>, FxBuild> = HashMap::default();
    for ((code, doc), (value, name)) in &pairs {
        if ranked.iter().any(|r| r.0 == *code) {
            suppliers.entry(code).or_default().push((doc, *value, name));
        }
    }
    let mut insights = Vec::new();
    let mut recs = Vec::new();
    for (code, name, total) in ranked {
        if total <= 0.0 {
            continue;
        }
        let mut top: Vec<(&str, f64, &str)> = suppliers.remove(code).unwrap_or_default();
        top.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
        top.truncate(3);
        let share = top.iter().map(|t| t.1).sum::<f64>() / total;
        let names: Vec<&str> = top.iter().map(|t| t.2).collect();
        let evidence: Vec<&Anomaly> = anomalies
            .iter()
            .filter(|a| a.detector() == concentration::NAME)
            .filter(|a| a.technical_details.get("organ").and_then(|v| v.as_str()) == Some(code))
            .map(|a| &**a)
            .collect();
        let label = if name.is_empty() { code.to_string() } else { format!("{name} ({code})") };
        insights.push(insight(
            AgentId::Anita,
            format!(
                "Os 3 maiores fornecedores de {} ({}) concentram {} dos {} contratados",
                label,
                names.join("; "),
                format_pct(share),
                format_brl(total)
            ),
            if evidence.is_empty() { 0.7 } else { 0.85 },
            &evidence,
        ));
        if share > TOP3_ALERT {
            recs.push(format!(
                "Acompanhar a diversificação de fornecedores do órgão {}: três empresas ({}) detêm {} do valor \
                 contratado",
                code,
                names.join("; "),
                format_pct(share)
            ));
        }
    }
    (insights, recs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cancel::CancelFlag;
    use crate::demo::{DemoSpec, generate};
    use crate::model::params::DetectionParams;
    use crate::testutil::analyse_cancelled;

    #[test]
    fn anita_finds_the_planted_concentration_and_december_rush_and_describes_trends() {
        let data = generate(&DemoSpec { seed: 5, contracts: 3000, ..DemoSpec::default() });
        let params = DetectionParams::default();
        let cancel = CancelFlag::new();
        let out = Anita::new().analyse(&AnalysisContext::new(&data.dataset, &params, &cancel)).unwrap();
        // A December rush is judged against the organ's past Decembers: only the plants of a
        // year after the data's first can be found.
        let first_year = data.dataset.contracts.iter().filter_map(|c| c.signed_on.map(|d| d.year())).min();
        let year_of = |p: &crate::demo::Planted| {
            let id = p.record_ids.first();
            data.dataset
                .contracts
                .iter()
                .find(|c| Some(&c.id.to_string()) == id)
                .and_then(|c| c.signed_on.map(|d| d.year()))
        };
        let judgeable = |p: &&crate::demo::Planted| {
            let d = crate::testutil::detector_of(p.scheme);
            d == concentration::NAME || d == end_of_year::NAME && year_of(p) > first_year
        };
        for planted in data.planted.iter().filter(judgeable) {
            assert!(
                out.anomalies.iter().any(|a| a.affected_entities.primary.id == *planted.entity_id.as_ref().unwrap()),
                "missed {planted:?}"
            );
        }
        let mine: Vec<&str> = BATCHES.iter().flat_map(|b| b.iter().copied()).collect();
        assert!(out.anomalies.iter().all(|a| mine.contains(&a.detector())));
        assert!(out.insights.iter().any(|i| i.insight.starts_with("O mês de maior gasto")));
        assert!(out.insights.iter().any(|i| i.insight.starts_with("Os 3 maiores fornecedores")));
        if out.anomalies.iter().any(|a| a.detector() == end_of_year::NAME) {
            assert!(out.recommendations.iter().any(|r| r.contains("dezembro")));
        }
        assert_eq!(Anita::new().id(), AgentId::Anita);
    }

    #[test]
    fn a_download_of_one_publication_month_says_it_has_no_series_to_judge() {
        use crate::model::dataset::Dataset;
        use crate::testutil::contract;
        let mut cs: Vec<_> = (0..300usize)
            .map(|k| {
                let (y, m) = if k % 3 == 0 { (2023, 12) } else { (2024, 1) };
                contract(
                    &format!("p{k}"),
                    "LIMPEZA",
                    &format!("S{}", k % 7),
                    "26000",
                    1000.0,
                    (y, m, 1 + (k % 28) as u32),
                )
            })
            .collect();
        cs.extend((0..20).map(|k| contract(&format!("o{k}"), "LIMPEZA", "S1", "26000", 900.0, (2016 + k / 4, 3, 5))));
        let ds = Dataset::from_contracts(cs);
        let (params, cancel) = (DetectionParams::default(), CancelFlag::new());
        let out = Anita::new().analyse(&AnalysisContext::new(&ds, &params, &cancel)).unwrap();
        assert!(out.anomalies.iter().all(|a| ![end_of_year::NAME, spikes::NAME, regime::NAME].contains(&a.detector())));
        assert!(out.insights.iter().any(|i| i.insight.contains("único mês de publicação")), "{:?}", out.insights);
    }

    #[test]
    fn a_cancelled_trend_analysis_returns_cancelled() {
        assert_eq!(analyse_cancelled(&Anita::new(), 300), Err(AnalysisError::Cancelled));
    }
}
