//! `supplier_concentration`: one supplier holding far more of an organ's competitive spending
//! in a year than the largest supplier usually holds among its peers.
//!
//! A share is only meaningful against a competitive market, so the share is of the organ's
//! value in the year *bought in competition*: contracts outside it ([`crate::detect::market`]: secret
//! contracts and the "Sigiloso" placeholder, inexigibilidades, public utilities, building
//! leases, state companies and other public bodies) are left out of both the supplier's value
//! and the total, and the evidence says how much was left out and why. Only organ-years with
//! at least [`MIN_CONTRACTS`] competitive contracts and [`MIN_SUPPLIERS`] suppliers, and whose
//! twelve months the data covers ([`crate::detect::coverage`]: none in a download of one publication
//! month, whose "year" is whatever was published that month), are judged, and only suppliers
//! with at least [`MIN_SUPPLIER_CONTRACTS`] contracts in them. The peer comparison: the largest supplier's share in the other organs' judged
//! organ-years of the same year (at least [`MIN_PEERS`]), else in the same organ's other judged
//! years (at least [`MIN_OWN_YEARS`]); without either, no finding. A supplier is flagged when its share exceeds both
//! `t(s)` and `P(s)` times the peers' median largest share.
//!
//! Sensitivity `s` moves `t(s)` through 60% (s = 0), 30% (s = 0.7) and the spec's literal 25%
//! (s = 1), and `P(s)` through 2.5, 1.5 and 1.2. Confidence =
//! `margin_confidence(share - max(t(s), P(s) peer), 0.10)` (see [`crate::detect::sensitivity`]),
//! times 0.95 for organ-years of fewer than 15 competitive contracts. The money at stake is
//! the supplier's value beyond the peers' usual largest share of the total. The anomaly names
//! the supplier's largest contracts in the organ-year (at most 500; `supplier_contracts` gives
//! the count). Complexity: linear (one pass per organ-year to sum by supplier), plus the
//! judged organ-years squared for the peer baselines.

use serde_json::json;

use crate::cancel::{AnalysisError, CancelFlag};
use crate::detect::Detector;
use crate::detect::common::{iso, organ_name, round2, round4, supplier_ref};
use crate::detect::finding::{Finding, contracts_and_organ, largest_contracts, pattern, point};
use crate::detect::market::Outside;
use crate::detect::sensitivity::{Threshold, margin_confidence, tidy};
use crate::detect::shared::{NONE, Shared};
use crate::detect::stats::{hhi, median};
use crate::lang::Language;
use crate::model::anomaly::{Anomaly, AnomalyType, DataPoint};
use crate::model::dataset::Dataset;
use crate::model::params::DetectionParams;
use crate::text::{format_brl, format_pct};

/// Detector name.
pub const NAME: &str = "supplier_concentration";
/// The spec's literal threshold on a supplier's share of value.
pub const THRESHOLD: f64 = 0.25;
/// Fewest competitive contracts in an organ-year to judge it.
pub const MIN_CONTRACTS: usize = 10;
/// Fewest distinct suppliers among them.
pub const MIN_SUPPLIERS: usize = 3;
/// Fewest peer organ-years of the same year for the peer baseline.
pub const MIN_PEERS: usize = 3;
/// Fewest contracts of a flagged supplier: one large contract won in competition is a price
/// question, not a supplier that keeps winning.
pub const MIN_SUPPLIER_CONTRACTS: usize = 3;
/// Fewest other years of the same organ when it has no peers in the year.
pub const MIN_OWN_YEARS: usize = 1;
/// The share threshold as sensitivity moves it.
pub const SHARE: Threshold = Threshold::new(0.60, 0.30, THRESHOLD);
/// The share over the peers' usual largest share, as sensitivity moves it.
pub const PEER_FACTOR: Threshold = Threshold::new(2.5, 1.5, 1.2);
/// Most contracts named by one anomaly (the largest first).
pub const MAX_RELATED: usize = 500;

/// The supplier concentration detector.
#[derive(Debug, Clone, Copy, Default)]
pub struct SupplierConcentration;

/// Confidence of a flag at this share, bar and sensitivity.
pub fn confidence_for(share: f64, bar: f64, contracts: usize) -> f64 {
    let base = margin_confidence(share - bar, 0.10);
    tidy(if contracts < MIN_CONTRACTS + MIN_CONTRACTS / 2 { base * 0.95 } else { base })
}

/// One judged organ-year: its competitive contracts summed by supplier.
struct Market<'a> {
    organ: &'a str,
    year: i32,
    total: f64,
    contracts: usize,
    /// (supplier id, value), largest first.
    shares: Vec<(u32, f64)>,
    /// Competitive contracts, in dataset order.
    members: Vec<u32>,
    /// Value left out, per reason.
    outside: Vec<(Outside, f64, usize)>,
}

impl Market<'_> {
    fn top_share(&self) -> f64 {
        self.shares.first().map_or(0.0, |s| s.1) / self.total
    }
}

fn markets<'a>(sh: &'a Shared<'_>, cancel: &CancelFlag) -> Result<Vec<Market<'a>>, AnalysisError> {
    let ds = sh.dataset();
    let suppliers = sh.suppliers();
    let (grid, series) = sh.organ_months(cancel)?;
    let coverage = sh.coverage(cancel)?;
    let mut acc = vec![0.0f64; suppliers.names.len()];
    let mut touched: Vec<u32> = Vec::new();
    let mut out = Vec::new();
    let outside_all = sh.outside();
    for g in sh.organ_years() {
        cancel.check()?;
        let Ok(at) = series.binary_search_by(|s| s.organ.cmp(&g.organ)) else { continue };
        if !coverage.span(&series[at]).is_some_and(|sp| sp.covers_year(grid, g.year)) {
            continue;
        }
        let (mut total, mut members, mut outside) = (0.0, Vec::new(), Vec::<(Outside, f64, usize)>::new());
        for &i in &g.members {
            let c = &ds.contracts[i as usize];
            let s = suppliers.ids[i as usize];
            let why = if s == NONE { Some(Outside::NoSupplier) } else { outside_all[i as usize] };
            if let Some(why) = why {
                match outside.iter_mut().find(|o| o.0 == why) {
                    Some(o) => {
                        o.1 += c.value();
                        o.2 += 1;
                    }
                    None => outside.push((why, c.value(), 1)),
                }
                continue;
            }
            total += c.value();
            members.push(i);
            if acc[s as usize] == 0.0 {
                touched.push(s);
            }
            acc[s as usize] += c.value();
        }
        let mut shares: Vec<(u32, f64)> = touched.iter().map(|&s| (s, acc[s as usize])).collect();
        for &s in &touched {
            acc[s as usize] = 0.0;
        }
        touched.clear();
        if members.len() < MIN_CONTRACTS || shares.len() < MIN_SUPPLIERS || total <= 0.0 {
            continue;
        }
        shares.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let contracts = members.len();
        out.push(Market { organ: g.organ.as_str(), year: g.year, total, contracts, shares, members, outside });
    }
    Ok(out)
}

/// The peers' usual largest share: the median over the other organs' markets of the same
/// year, else over the organ's own other years; with the number of peers and their kind.
fn peer_baseline(all: &[Market<'_>], m: &Market<'_>) -> Option<(f64, usize, &'static str)> {
    let same_year: Vec<f64> =
        all.iter().filter(|o| o.year == m.year && o.organ != m.organ).map(Market::top_share).collect();
    if same_year.len() >= MIN_PEERS {
        return Some((median(&same_year), same_year.len(), "other_organs_same_year"));
    }
    let own: Vec<f64> = all.iter().filter(|o| o.organ == m.organ && o.year != m.year).map(Market::top_share).collect();
    (own.len() >= MIN_OWN_YEARS).then(|| (median(&own), own.len(), "same_organ_other_years"))
}

impl Detector for SupplierConcentration {
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
        let ds = sh.dataset();
        let suppliers = sh.suppliers();
        let all = markets(sh, cancel)?;
        let mut out = Vec::new();
        for m in &all {
            let Some((peer, peers, kind)) = peer_baseline(&all, m) else { continue };
            let bar = SHARE.at(p.sensitivity).max(PEER_FACTOR.at(p.sensitivity) * peer);
            let group_hhi = hhi(m.shares.iter().map(|(_, v)| v / m.total));
            let flagged = m.shares.iter().filter(|(_, v)| v / m.total > bar).count();
            let mut heavy: Vec<(&str, u32, f64)> = m
                .shares
                .iter()
                .filter(|(_, v)| v / m.total > bar)
                .map(|&(s, v)| (suppliers.names[s as usize].as_str(), s, v))
                .collect();
            heavy.sort_by(|a, b| a.0.cmp(b.0));
            for (doc, s, value) in heavy {
                let idx: Vec<usize> =
                    m.members.iter().map(|&i| i as usize).filter(|&i| suppliers.ids[i] == s).collect();
                let confidence = confidence_for(value / m.total, bar, m.contracts);
                if idx.len() >= MIN_SUPPLIER_CONTRACTS && confidence >= p.confidence_threshold {
                    let j = Judged { m, flagged, peer, peers, kind, bar, group_hhi, supplier_contracts: idx.len() };
                    out.push(anomaly(ds, &j, doc, value, &idx, confidence, p));
                }
            }
        }
        Ok(out)
    }
}

/// The organ-year judged and its baselines.
struct Judged<'m, 'a> {
    m: &'m Market<'a>,
    flagged: usize,
    peer: f64,
    peers: usize,
    kind: &'static str,
    bar: f64,
    group_hhi: f64,
    supplier_contracts: usize,
}

fn anomaly(
    ds: &Dataset,
    j: &Judged<'_, '_>,
    doc: &str,
    value: f64,
    idx: &[usize],
    confidence: f64,
    p: &DetectionParams,
) -> Anomaly {
    let g = j.m;
    let first = &ds.contracts[idx[0]];
    let share = value / g.total;
    let at_stake = (value - j.peer * g.total).max(0.0);
    let idx = largest_contracts(ds, idx.to_vec(), MAX_RELATED);
    let organ = organ_name(first);
    let supplier = supplier_ref(first);
    let year = Some(format!("{}", g.year));
    let left_out: f64 = g.outside.iter().map(|o| o.1).sum();
    let reasons: Vec<String> =
        g.outside.iter().map(|(why, v, n)| format!("{} ({} contratos, {})", why.label(), n, format_brl(*v))).collect();
    let left_out_text = if reasons.is_empty() {
        "nenhum contrato ficou de fora".to_string()
    } else {
        format!("ficaram de fora {}: {}", format_brl(left_out), reasons.join("; "))
    };
    let peers_text = if j.kind == "other_organs_same_year" {
        format!("nos outros {} órgãos no mesmo ano, o maior fornecedor fica com {}", j.peers, format_pct(j.peer))
    } else {
        format!("nos outros {} anos do órgão, o maior fornecedor ficou com {}", j.peers, format_pct(j.peer))
    };
    let a = Finding {
        detector: NAME,
        kind: AnomalyType::PatternAnomaly,
        key: format!("{}-{}-{}", g.organ, g.year, doc),
        confidence,
        at_stake,
        threshold: round4(j.bar),
        description: format!(
            "{} recebeu {} ({}) do valor que {} contratou em competição em {}, em {} contratos; {}",
            supplier.name,
            format_brl(value),
            format_pct(share),
            organ,
            g.year,
            j.supplier_contracts,
            peers_text
        ),
        human_pt: format!(
            "Em {}, {} ({}) ficou com {} do que {} contratou em competição ({} de {}, em {} contratos de {} \
             fornecedores; {}). Como comparação, {}. Uma fatia tão acima do usual pede a verificação da \
             competitividade das licitações.",
            g.year,
            supplier.name,
            doc,
            format_pct(share),
            organ,
            format_brl(value),
            format_brl(g.total),
            j.supplier_contracts,
            g.shares.len(),
            left_out_text,
            peers_text
        ),
        human_en: format!(
            "In {}, {} ({}) held {:.1}% of what {} bought in competition ({} of {}, in {} contracts). For comparison, \
             {}. A share this far above the usual calls for checking how competitive the biddings were.",
            g.year,
            supplier.name,
            doc,
            share * 100.0,
            organ,
            Language::En.brl(value),
            Language::En.brl(g.total),
            j.supplier_contracts,
            if j.kind == "other_organs_same_year" {
                format!(
                    "in the other {} organs the same year the largest supplier holds {:.1}%",
                    j.peers,
                    j.peer * 100.0
                )
            } else {
                format!("in the organ's other {} years the largest supplier held {:.1}%", j.peers, j.peer * 100.0)
            }
        ),
        technical: format!(
            "share of supplier {} in organ {} year {} over the value bought in competition (secret contracts, \
             inexigibilidades, utilities, leases and public bodies left out: {}): {:.4} > {:.4} = max(t = {:.2} at \
             sensitivity {}, {:.2} x peers' median largest share {:.4} over {} {}) (n contracts = {}, n suppliers = \
             {}, HHI = {:.0})",
            doc,
            g.organ,
            g.year,
            round2(left_out),
            share,
            j.bar,
            SHARE.at(p.sensitivity),
            p.sensitivity,
            PEER_FACTOR.at(p.sensitivity),
            j.peer,
            j.peers,
            j.kind,
            g.contracts,
            g.shares.len(),
            j.group_hhi
        ),
        primary: supplier,
        related: contracts_and_organ(ds, &idx, first),
        data_points: idx
            .iter()
            .map(|&i| point("contract_value", ds.contracts[i].value(), iso(ds.contracts[i].signed_on)))
            .chain([
                DataPoint { metric: "supplier_share".into(), value: round4(share), timestamp: year.clone() },
                DataPoint { metric: "peer_largest_share".into(), value: round4(j.peer), timestamp: year.clone() },
                point("hhi", j.group_hhi, year),
            ])
            .collect(),
        patterns: vec![pattern(
            "supplier_concentration",
            format!("one supplier holds {} of the organ-year's competitive value", format_pct(share)),
            json!({"share": round4(share), "peer_largest_share": round4(j.peer), "hhi": round2(j.group_hhi)}),
        )],
        method: "share_of_competitive_value_against_peers",
        score: share,
        contamination: j.flagged as f64 / g.shares.len() as f64,
        peer: Some(json!({
            "group": format!("{} {}", g.organ, g.year),
            "organ": g.organ,
            "year": g.year,
            "share_of": "value contracted in competition",
            "total_value": round2(g.total),
            "left_out_value": round2(left_out),
            "contracts": g.contracts,
            "suppliers": g.shares.len(),
            "peers": j.peers,
            "peer_kind": j.kind,
            "peer_largest_share": round4(j.peer),
        })),
        regulatory: Some(json!({
            "rule": "Lei 14.133/2021, art. 5 (competitividade) e art. 11",
            "note": "concentração do valor contratado em competição muito acima da usual entre os pares",
        })),
        factors: vec![
            (
                "share".into(),
                0.6,
                format!("{} of the competitive value against a bar of {}", format_pct(share), format_pct(j.bar)),
            ),
            ("peers".into(), 0.25, format!("the peers' largest supplier holds {}", format_pct(j.peer))),
            (
                "contracts".into(),
                0.15,
                format!("{} of {} competitive contracts in the organ-year", j.supplier_contracts, g.contracts),
            ),
        ],
        details: vec![
            ("literal_threshold", json!(THRESHOLD)),
            ("sensitivity", json!(p.sensitivity)),
            ("baseline", json!("peers_largest_supplier_share")),
            ("share_of", json!("competitive_value")),
            ("organ", json!(g.organ)),
            ("year", json!(g.year)),
            ("supplier", json!(doc)),
            ("share", json!(round4(share))),
            ("bar", json!(round4(j.bar))),
            ("peer_largest_share", json!(round4(j.peer))),
            ("peers", json!(j.peers)),
            ("peer_kind", json!(j.kind)),
            ("supplier_value", json!(round2(value))),
            ("organ_year_total", json!(round2(g.total))),
            ("left_out_value", json!(round2(left_out))),
            ("supplier_contracts", json!(j.supplier_contracts)),
            ("n_contracts", json!(g.contracts)),
            ("n_suppliers", json!(g.shares.len())),
            ("hhi", json!(round2(j.group_hhi))),
        ],
    }
    .build();
    // A share of the market is circumstantial evidence of weak competition, never proof of a
    // wrong: high at most, whatever the money.
    a.at_most(crate::model::anomaly::Severity::High)
}

#[cfg(test)]
#[path = "concentration_tests.rs"]
mod tests;
