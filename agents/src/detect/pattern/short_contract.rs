//! `short_contract` (pattern_anomaly): a continuing service of material value whose record
//! says it lasts a few days.
//!
//! A short vigência is routine for most purchases (a one-day event, a single delivery of
//! goods, an empenho for one invoice) and is not judged. It is not for a continuing service
//! (Lei 14.133/2021 art. 6, XV and art. 106: cleaning, security, outsourced staff, meals,
//! subscriptions, contracted for years): one lasting days for the value of a year means the
//! record is wrong (a transparency failure) or the money was paid for days of service; either
//! is worth a question. The object must say the service runs for months
//! ([`crate::detect::pattern::service_term`]: it names a continuing service, or states a term of two months or
//! more that is not a warranty, a deadline or a consumption estimate).
//!
//! Flagged when the vigência (start to the latest end its record or amendments give) lasts
//! from one to `D(s)` days (an end equal to the start is read as unknown) (2 at s = 0, 7 at s = 0.7, 15 at s = 1) and the value reaches the floor of
//! [`crate::detect::pattern::text_flags::value_floor`] (`V(s)`: R$ 1.000.000, R$ 50.000, R$ 10.000, raised to
//! the direct-purchase limit in force at signing below sensitivity 0.9). Where the contract's
//! learned peer group ([`crate::detect::peer_groups`]) has at least [`MIN_PEERS`] members lasting a
//! month or more, its value per day must also be at least `R(s)` times their median (30, 10,
//! 3): a short job priced like its peers' days is just a short job. A contract ended by a
//! rescisão (in its history or its situation) is not judged. Confidence =
//! `margin_confidence(ln((D(s) + 1) / (days + 1)) + ln(value / floor) + ln(ratio / R(s)), 1)`
//! (the last term only with peers). Severity is medium at most: the record cannot tell a
//! wrong end date from a payment for days. One pass over the contracts; peers are read only
//! when a contract qualifies.

use std::collections::HashMap;

use serde_json::json;

use crate::cancel::{AnalysisError, CancelFlag};
use crate::detect::Detector;
use crate::detect::common::{contract_ref, organ_ref, round2, round4, supplier_ref};
use crate::detect::finding::{Finding, pattern, point};
use crate::detect::pattern::service_term::{ServiceTerm, read_term};
use crate::detect::pattern::text_flags::value_floor;
use crate::detect::peer_groups::NO_GROUP;
use crate::detect::sensitivity::{Threshold, margin_confidence, tidy};
use crate::detect::shared::Shared;
use crate::detect::stats::median_in_place;
use crate::model::amendment::AmendmentKind;
use crate::model::anomaly::{Anomaly, AnomalyType, Severity};
use crate::model::contract::Contract;
use crate::model::params::DetectionParams;
use crate::text::format_brl;

/// Detector name.
pub const NAME: &str = "short_contract";
/// Longest vigência in days, as sensitivity moves it (flagged at or below).
pub const DAYS: Threshold = Threshold::new(2.0, 7.0, 15.0);
/// Smallest value worth reporting before the direct-purchase limit raises it.
pub const VALUE: Threshold = Threshold::new(1_000_000.0, 50_000.0, 10_000.0);
/// Value per day over the peers' median needed, as sensitivity moves it.
pub const RATIO: Threshold = Threshold::new(30.0, 10.0, 3.0);
/// Fewest peers lasting a month or more for the per-day comparison.
pub const MIN_PEERS: usize = 5;
/// A peer must last at least this many days to say what a day of the service costs.
pub const PEER_DAYS: i64 = 30;

/// The short continuing-service detector.
#[derive(Debug, Clone, Copy, Default)]
pub struct ShortContract;

/// The days a contract lasts: from its start to the latest end its record or its amendments
/// give (a prorrogação moves the end).
pub fn duration_days(c: &Contract) -> Option<i64> {
    let from = c.valid_from?;
    let end = c.amendments.iter().filter_map(|a| a.new_valid_until).chain(c.valid_until).max()?;
    Some((end - from).num_days())
}

/// Whether the contract was ended early (a rescisão in its history or its situation): a
/// short vigência is then what the rescisão made of it, not what was contracted.
pub fn rescinded(c: &Contract) -> bool {
    c.amendments.iter().any(|a| a.kinds.contains(&AmendmentKind::Termination))
        || crate::text::fold(&c.situation).starts_with("rescind")
}

/// A contract that qualifies before its peers are read.
struct Candidate {
    index: usize,
    days: i64,
    floor: f64,
    term: ServiceTerm,
}

impl Detector for ShortContract {
    fn name(&self) -> &'static str {
        NAME
    }
    fn kind(&self) -> AnomalyType {
        AnomalyType::PatternAnomaly
    }
    fn run_shared(
        &self,
        sh: &Shared<'_>,
        p: &DetectionParams,
        cancel: &CancelFlag,
    ) -> Result<Vec<Anomaly>, AnalysisError> {
        let s = p.sensitivity;
        let (max_days, v) = (DAYS.at(s), VALUE.at(s));
        let cs = &sh.dataset().contracts;
        let mut candidates = Vec::new();
        for (i, c) in cs.iter().enumerate() {
            if i % 16_384 == 0 {
                cancel.check()?;
            }
            // Negative durations are date_inconsistency's; an end equal to the start is how an
            // unknown end is often written, missing data rather than a term of no days.
            let Some(days) = duration_days(c).filter(|d| (1..=max_days as i64).contains(d)) else { continue };
            let floor = value_floor(v, c.signed_on, s);
            if !(c.value().is_finite() && c.value() >= floor) || rescinded(c) {
                continue;
            }
            let term = read_term(&c.object);
            if term.runs_for_months() {
                candidates.push(Candidate { index: i, days, floor, term });
            }
        }
        if candidates.is_empty() {
            return Ok(Vec::new());
        }
        let peers = peer_rates(sh, &candidates, cancel)?;
        let mut out = Vec::new();
        for k in candidates {
            let c = &cs[k.index];
            let rate = c.value() / k.days.max(1) as f64;
            let peer = peers.get(&k.index).copied();
            let ratio = peer.map(|(median, _)| rate / median.max(f64::MIN_POSITIVE));
            let r = RATIO.at(s);
            if ratio.is_some_and(|x| x < r) {
                continue;
            }
            let margin = ((max_days + 1.0) / (k.days as f64 + 1.0)).ln()
                + (c.value() / k.floor).ln()
                + ratio.map_or(0.0, |x| (x / r).ln());
            let confidence = tidy(margin_confidence(margin, 1.0));
            if confidence < p.confidence_threshold {
                continue;
            }
            let case = Case { c, days: k.days, floor: k.floor, term: &k.term, rate, peer, ratio };
            out.push(anomaly(&case, confidence, s));
        }
        Ok(out)
    }
}

/// Per candidate (by contract index) with enough peers: the median value per day of its
/// learned peer group's members lasting [`PEER_DAYS`] or more, and how many there were.
fn peer_rates(
    sh: &Shared<'_>,
    candidates: &[Candidate],
    cancel: &CancelFlag,
) -> Result<HashMap<usize, (f64, usize)>, AnalysisError> {
    let groups = sh.object_groups(cancel)?;
    let mut wanted: HashMap<u32, Vec<f64>> = HashMap::new();
    for k in candidates {
        let g = groups.group_of.get(k.index).copied().unwrap_or(NO_GROUP);
        if g != NO_GROUP {
            wanted.entry(g).or_default();
        }
    }
    for (i, c) in sh.dataset().contracts.iter().enumerate() {
        let Some(rates) = groups.group_of.get(i).and_then(|g| wanted.get_mut(g)) else { continue };
        if let Some(days) = duration_days(c).filter(|d| *d >= PEER_DAYS)
            && c.value() > 0.0
            && c.value().is_finite()
        {
            rates.push(c.value() / days as f64);
        }
    }
    let mut out = HashMap::new();
    for k in candidates {
        let g = groups.group_of.get(k.index).copied().unwrap_or(NO_GROUP);
        if let Some(rates) = wanted.get_mut(&g).filter(|r| r.len() >= MIN_PEERS) {
            let n = rates.len();
            out.insert(k.index, (median_in_place(rates), n));
        }
    }
    Ok(out)
}

/// One flagged contract and its evidence.
struct Case<'a> {
    c: &'a Contract,
    days: i64,
    floor: f64,
    term: &'a ServiceTerm,
    rate: f64,
    peer: Option<(f64, usize)>,
    ratio: Option<f64>,
}

fn anomaly(k: &Case<'_>, confidence: f64, s: f64) -> Anomaly {
    let c = k.c;
    let number = if c.number.is_empty() { c.id.as_str() } else { c.number.as_str() };
    let says = match (&k.term.continuing, k.term.months) {
        (Some(w), _) => format!("o objeto descreve serviço contínuo (\"{w}\")"),
        (None, Some(m)) => format!("o objeto declara prazo de {m} meses"),
        (None, None) => String::new(),
    };
    let peers_pt = match (k.peer, k.ratio) {
        (Some((median, n)), Some(r)) => format!(
            " Custa {} por dia, {:.0} vezes a mediana de {} por dia de {} contratos semelhantes que duram um mês ou mais.",
            format_brl(k.rate),
            r,
            format_brl(median),
            n
        ),
        _ => String::new(),
    };
    Finding {
        detector: NAME,
        kind: AnomalyType::PatternAnomaly,
        key: c.id.to_string(),
        confidence,
        at_stake: c.value(),
        threshold: round4(DAYS.at(s)),
        description: format!(
            "Contrato {number} de {}, serviço contínuo, com vigência de {} dia(s)",
            format_brl(c.value()),
            k.days
        ),
        human_pt: format!(
            "O contrato {number} (\"{}\", {}) tem vigência de {} dia(s), mas {says}. Serviço contínuo é contratado \
             por períodos longos (Lei 14.133/2021, art. 6, XV e art. 106); uma vigência de dias para esse valor indica \
             data de término registrada errada ou pagamento de um período inteiro por poucos dias de serviço.{peers_pt} \
             Vale pedir ao órgão o termo do contrato e os pagamentos.",
            c.object.chars().take(160).collect::<String>(),
            format_brl(c.value()),
            k.days
        ),
        human_en: format!(
            "Contract {number} ({}) is a continuing service whose record says it lasts {} day(s).",
            format_brl(c.value()),
            k.days
        ),
        technical: format!(
            "vigência {} days <= {:.0} (at sensitivity {s}); value {:.2} >= floor {:.2} (R$ {:.2} or the direct-purchase \
             limit in force at signing); continuing service: {:?}, stated term {:?} months; value per day {:.2}, peer \
             median {:?} over {:?} peers lasting >= {PEER_DAYS} days, ratio {:?} (needed {:.0})",
            k.days,
            DAYS.at(s),
            c.value(),
            k.floor,
            VALUE.at(s),
            k.term.continuing,
            k.term.months,
            k.rate,
            k.peer.map(|p| round2(p.0)),
            k.peer.map(|p| p.1),
            k.ratio.map(round2),
            RATIO.at(s)
        ),
        primary: contract_ref(c),
        related: vec![supplier_ref(c), organ_ref(c)],
        data_points: vec![
            point("duration_days", k.days as f64, None),
            point("value", c.value(), None),
            point("value_per_day", k.rate, None),
        ]
        .into_iter()
        .chain(k.peer.map(|(median, _)| point("peer_median_value_per_day", median, None)))
        .collect(),
        patterns: vec![pattern(
            "continuing_service_lasting_days",
            format!("{} day(s) for {}", k.days, format_brl(c.value())),
            json!({"continuing": k.term.continuing, "stated_months": k.term.months}),
        )],
        method: "continuing_service_duration_rule",
        score: k.days as f64,
        contamination: 0.0,
        peer: k.peer.map(|(median, n)| json!({"baseline": "learned_peer_group", "median_value_per_day": round2(median), "peers": n})),
        regulatory: Some(json!({"rule": "Lei 14.133/2021, art. 6, XV e art. 106 (serviços contínuos)"})),
        factors: vec![
            ("duration".into(), 0.5, format!("{} day(s)", k.days)),
            ("value".into(), 0.3, format!("{} at stake", format_brl(c.value()))),
            ("value_per_day".into(), 0.2, k.ratio.map_or("no peers".into(), |r| format!("{r:.0}x the peers' day"))),
        ],
        details: vec![
            ("duration_days", json!(k.days)),
            ("value_floor", json!(round2(k.floor))),
            ("continuing", json!(k.term.continuing)),
            ("stated_months", json!(k.term.months)),
            ("value_per_day", json!(round2(k.rate))),
            ("peer_ratio", json!(k.ratio.map(round2))),
            ("sensitivity", json!(s)),
        ],
    }
    .build()
    .at_most(Severity::Medium)
}

#[cfg(test)]
#[path = "short_contract_tests.rs"]
mod tests;
