//! `end_of_year`: an organ that crowds its spending into December far beyond its own past
//! Decembers and its peers' December of the same year.
//!
//! The federal budget cycle makes December large everywhere (the year's last empenhos), so
//! December's share of the year is judged against what is usual for December, never against
//! an even 1/12. For an organ-year (at least [`MIN_CONTRACTS`] contracts, every month of the
//! year inside the span the organ's history covers, [`crate::detect::coverage`]; none in a dataset of
//! one publication month) its December share of the contracted value is compared with two
//! baselines: its own usual December (the median share of its past covered Decembers, at
//! least [`MIN_PAST`]) and its peers' usual December (the median share of the other organs'
//! covered Decembers of the same year, at least [`MIN_PEERS`]). Without either baseline there
//! is no finding. The baseline is the larger of the two (and at least 1/12). A flag needs the
//! December value share above `f(s)` times the baseline (and above the literal 2/12), and a
//! December contract count significantly above the baseline count share (one-sided binomial
//! test by normal approximation, `-log10 p > q(s)`), so one large December contract alone
//! does not fire it.
//!
//! Sensitivity `s` moves `f(s)` through 3.0 (s = 0), 1.8 (s = 0.7) and 1.4 (s = 1), and `q(s)`
//! through 6 (p < 1e-6), 3 (p < 0.001) and 2 (p < 0.01). Confidence =
//! `margin_confidence(share / baseline - f(s), 0.75)` (see [`crate::detect::sensitivity`]). The money
//! at stake is the December value beyond the baseline share, `(D - b T) / (1 - b)` (what
//! December would have to lose for its share to be the baseline); the contracts named are the
//! largest December contracts that make up that excess. Complexity: linear in the contracts,
//! plus the covered organ-years squared for the baselines (a few hundred organ-years).
//!
//! Severity: high at most ([`crate::model::anomaly::Anomaly::at_most`]): the pattern asks for an
//! explanation; it proves no wrong by itself.

use chrono::Datelike;
use serde_json::json;

use crate::cancel::{AnalysisError, CancelFlag};
use crate::detect::Detector;
use crate::detect::common::{contract_ref, organ_name, organ_ref, round2, round4};
use crate::detect::finding::{Finding, largest_contracts, pattern, point};
use crate::detect::sensitivity::{Threshold, margin_confidence, tidy};
use crate::detect::shared::Shared;
use crate::detect::stats::{binomial_upper_p, median};
use crate::model::anomaly::{Anomaly, AnomalyType};
use crate::model::dataset::Dataset;
use crate::model::params::DetectionParams;
use crate::text::{format_brl, format_pct};

/// Detector name.
pub const NAME: &str = "end_of_year";
/// The share of one month in an even year: the floor of every baseline.
pub const EXPECTED_SHARE: f64 = 1.0 / 12.0;
/// December's value share must exceed this multiple of the even share at the least.
pub const SHARE_FACTOR: f64 = 2.0;
/// Fewest contracts in an organ-year to judge it (or to count it in a baseline).
pub const MIN_CONTRACTS: usize = 12;
/// Fewest past covered Decembers of the organ.
pub const MIN_PAST: usize = 1;
/// Fewest peer organs with a covered December in the same year.
pub const MIN_PEERS: usize = 3;
/// December's value share over the baseline share, as sensitivity moves it.
pub const FACTOR: Threshold = Threshold::new(3.0, 1.8, 1.4);
/// `-log10` of the count test's p-value, as sensitivity moves it.
pub const SIGNIFICANCE: Threshold = Threshold::new(6.0, 3.0, 2.0);
/// Most December contracts named by one anomaly (the largest first).
pub const MAX_RELATED: usize = 500;

/// The end-of-year rush detector.
#[derive(Debug, Clone, Copy, Default)]
pub struct EndOfYear;

/// Confidence of a flag at this ratio of December share to baseline share and sensitivity.
pub fn confidence_for(ratio: f64, sensitivity: f64) -> f64 {
    tidy(margin_confidence(ratio - FACTOR.at(sensitivity), 0.75))
}

/// One covered organ-year: its monthly values and counts and its December contracts.
struct Year<'a> {
    organ: &'a str,
    year: i32,
    values: [f64; 12],
    counts: [usize; 12],
    december: Vec<usize>,
}

impl Year<'_> {
    fn total(&self) -> f64 {
        self.values.iter().sum()
    }
    fn n(&self) -> usize {
        self.counts.iter().sum()
    }
    fn share(&self) -> f64 {
        self.values[11] / self.total().max(f64::MIN_POSITIVE)
    }
    fn count_share(&self) -> f64 {
        self.counts[11] as f64 / self.n().max(1) as f64
    }
}

/// The usual December: median value and count shares of some organ-years.
#[derive(Debug, Clone, Copy)]
struct Usual {
    share: f64,
    count_share: f64,
    n: usize,
}

fn usual<'y>(years: impl Iterator<Item = &'y Year<'y>>) -> Option<Usual> {
    let (shares, counts): (Vec<f64>, Vec<f64>) = years.map(|y| (y.share(), y.count_share())).unzip();
    (!shares.is_empty()).then(|| Usual { share: median(&shares), count_share: median(&counts), n: shares.len() })
}

/// The organ-years whose twelve months all lie in the span the organ's history covers.
fn covered_years<'a>(sh: &'a Shared<'_>, cancel: &CancelFlag) -> Result<Vec<Year<'a>>, AnalysisError> {
    let ds = sh.dataset();
    let (grid, series) = sh.organ_months(cancel)?;
    let coverage = sh.coverage(cancel)?;
    let mut out = Vec::new();
    for g in sh.organ_years().iter().filter(|g| g.members.len() >= MIN_CONTRACTS) {
        cancel.check()?;
        let Ok(at) = series.binary_search_by(|s| s.organ.cmp(&g.organ)) else { continue };
        if !coverage.span(&series[at]).is_some_and(|sp| sp.covers_year(grid, g.year)) {
            continue;
        }
        let mut y =
            Year { organ: g.organ.as_str(), year: g.year, values: [0.0; 12], counts: [0; 12], december: Vec::new() };
        for &i in &g.members {
            let c = &ds.contracts[i as usize];
            let Some(d) = c.signed_on else { continue };
            let m = d.month0() as usize;
            y.values[m] += c.value();
            y.counts[m] += 1;
            if m == 11 {
                y.december.push(i as usize);
            }
        }
        if y.total() > 0.0 {
            out.push(y);
        }
    }
    Ok(out)
}

impl Detector for EndOfYear {
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
        let years = covered_years(sh, cancel)?;
        let (factor, q) = (FACTOR.at(p.sensitivity), SIGNIFICANCE.at(p.sensitivity));
        let mut out = Vec::new();
        for y in years.iter().filter(|y| !y.december.is_empty()) {
            let own = usual(years.iter().filter(|o| o.organ == y.organ && o.year < y.year));
            let peers = usual(years.iter().filter(|o| o.organ != y.organ && o.year == y.year));
            let (Some(own), Some(peers)) = (own, peers) else { continue };
            if own.n < MIN_PAST || peers.n < MIN_PEERS {
                continue;
            }
            let baseline = own.share.max(peers.share).max(EXPECTED_SHARE);
            let count_baseline = own.count_share.max(peers.count_share).max(EXPECTED_SHARE);
            let share = y.share();
            let p_value = binomial_upper_p(y.counts[11], y.n(), count_baseline);
            let significance = -p_value.max(1e-300).log10();
            if share > factor * baseline && share > SHARE_FACTOR * EXPECTED_SHARE && significance > q {
                let confidence = confidence_for(share / baseline, p.sensitivity);
                if confidence >= p.confidence_threshold {
                    let b = Baselines { own, peers, baseline, count_baseline, p_value };
                    out.push(anomaly(ds, y, &b, confidence, p));
                }
            }
        }
        Ok(out)
    }
}

/// What a December was judged against.
struct Baselines {
    own: Usual,
    peers: Usual,
    baseline: f64,
    count_baseline: f64,
    p_value: f64,
}

fn anomaly(ds: &Dataset, y: &Year<'_>, b: &Baselines, confidence: f64, p: &DetectionParams) -> Anomaly {
    let (total, share, n) = (y.total(), y.share(), y.n());
    let excess = ((y.values[11] - b.baseline * total) / (1.0 - b.baseline)).max(0.0);
    let factor = FACTOR.at(p.sensitivity);
    let alpha = 10f64.powf(-SIGNIFICANCE.at(p.sensitivity));
    let first = &ds.contracts[y.december[0]];
    let organ = organ_name(first);
    // The largest December contracts that together make up the excess.
    let mut named = Vec::new();
    let mut sum = 0.0;
    for i in largest_contracts(ds, y.december.clone(), MAX_RELATED) {
        if sum >= excess && !named.is_empty() {
            break;
        }
        sum += ds.contracts[i].value();
        named.push(i);
    }
    let ratio = share / b.baseline;
    let mut a = Finding {
        detector: NAME,
        kind: AnomalyType::TemporalAnomaly,
        key: format!("{}-{}", y.organ, y.year),
        confidence,
        at_stake: excess,
        threshold: round4(factor * b.baseline),
        description: format!(
            "{} assinou em dezembro de {} {} do valor contratado no ano ({} de {}), em {} de {} contratos; \
             o dezembro usual do órgão é {} e o dos outros órgãos no mesmo ano, {}",
            organ,
            y.year,
            format_pct(share),
            format_brl(y.values[11]),
            format_brl(total),
            y.counts[11],
            n,
            format_pct(b.own.share),
            format_pct(b.peers.share)
        ),
        human_pt: format!(
            "Em dezembro de {}, {} fechou {} contratos que somam {} ({} do ano). Dezembro é grande em todo o governo \
             federal, mas nos anos anteriores o dezembro deste órgão ficou em {} do ano, e o dos outros {} órgãos em \
             {} no mesmo ano. O excesso, cerca de {}, está nos {} maiores contratos do mês e pede explicação.",
            y.year,
            organ,
            y.counts[11],
            format_brl(y.values[11]),
            format_pct(share),
            format_pct(b.own.share),
            b.peers.n,
            format_pct(b.peers.share),
            format_brl(excess),
            named.len()
        ),
        human_en: format!(
            "December {} holds {:.1}% of the organ's year against {:.1}% in its past Decembers and {:.1}% for its \
             peers that year.",
            y.year,
            share * 100.0,
            b.own.share * 100.0,
            b.peers.share * 100.0
        ),
        technical: format!(
            "December value share {:.4} > {:.2} x baseline {:.4} (the larger of the organ's median share over {} past \
             covered Decembers, {:.4}, and the median of {} peer organs in {}, {:.4}; floor 1/12; factor at \
             sensitivity {}) and December count {} of {} above the baseline count share {:.4}: one-sided binomial p = \
             {:.3e} < {:.0e} (normal approximation, continuity correction)",
            share,
            factor,
            b.baseline,
            b.own.n,
            b.own.share,
            b.peers.n,
            y.year,
            b.peers.share,
            p.sensitivity,
            y.counts[11],
            n,
            b.count_baseline,
            b.p_value,
            alpha
        ),
        primary: organ_ref(first),
        related: named.iter().map(|&i| contract_ref(&ds.contracts[i])).collect(),
        data_points: (0..12)
            .map(|m| point("monthly_value", y.values[m], Some(format!("{}-{:02}", y.year, m + 1))))
            .collect(),
        patterns: vec![pattern(
            "end_of_year_rush",
            format!("December holds {} of the year's value, {:.1}x its usual December", format_pct(share), ratio),
            json!({"monthly_counts": y.counts}),
        )],
        method: "december_share_against_own_and_peer_baselines",
        score: ratio,
        contamination: y.count_share(),
        peer: Some(json!({
            "baseline": "max(own_past_decembers, peers_same_year)",
            "peers": b.peers.n,
            "peer_december_share": round4(b.peers.share),
            "own_past_decembers": b.own.n,
            "own_december_share": round4(b.own.share),
        })),
        regulatory: Some(json!({
            "rule": "Lei 4.320/1964, art. 35 (regime de competência do exercício financeiro)",
            "note": "empenhos concentrados no fim do exercício, além do usual do órgão e dos pares",
        })),
        factors: vec![
            (
                "december_share".into(),
                0.7,
                format!("{} of the value against a usual {}", format_pct(share), format_pct(b.baseline)),
            ),
            ("december_count".into(), 0.3, format!("{} December contracts, p = {:.2e}", y.counts[11], b.p_value)),
        ],
        details: vec![
            ("literal_threshold", json!(round4(SHARE_FACTOR * EXPECTED_SHARE))),
            ("sensitivity", json!(p.sensitivity)),
            ("baseline", json!("own_and_peer_decembers")),
            ("organ", json!(y.organ)),
            ("year", json!(y.year)),
            ("december_share", json!(round4(share))),
            ("baseline_share", json!(round4(b.baseline))),
            ("own_usual_share", json!(round4(b.own.share))),
            ("own_past_decembers", json!(b.own.n)),
            ("peer_usual_share", json!(round4(b.peers.share))),
            ("peers", json!(b.peers.n)),
            ("december_value", json!(round2(y.values[11]))),
            ("year_total", json!(round2(total))),
            ("excess_value", json!(round2(excess))),
            ("december_contracts", json!(y.counts[11])),
            ("year_contracts", json!(n)),
            ("december_count_share", json!(round4(y.count_share()))),
            ("baseline_count_share", json!(round4(b.count_baseline))),
            ("p_value", json!(b.p_value)),
            ("alpha", json!(alpha)),
            ("test", json!("binomial_upper_tail_normal_approximation")),
        ],
    }
    .build();
    let others = total - y.values[11];
    a.context.historical_comparison = Some(json!({
        "other_months_mean_value": round2(others / 11.0),
        "december_value": round2(y.values[11]),
        "own_usual_december_share": round4(b.own.share),
        "peer_usual_december_share": round4(b.peers.share),
    }));
    a.at_most(crate::model::anomaly::Severity::High)
}

#[cfg(test)]
#[path = "end_of_year_tests.rs"]
mod tests;
