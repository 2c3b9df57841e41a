//! `purchase_splitting`: direct purchases split to stay under the dispensa limit (Lei
//! 14.133/2021, art. 75, §1: the limit binds the sum spent in the fiscal year by the unit on
//! objects of the same nature).
//!
//! Judged on commitments (empenhos) bought by dispensa that pay no contract (their process
//! number is no contract's): small direct purchases take that form (art. 95 lets a nota de
//! empenho replace the contract), while a dispensa contract is judged alone by
//! `compliance_rules`. Purchases are grouped by unit (UG), payee, budget element (the nature of
//! the object) and fiscal year, with running sums in date order. A group is flagged when some
//! run of purchases within `W` days, each between `f` times the limit and the limit, sums above
//! the limit of the law in force on the group's first purchase ([`crate::detect::law_limits`]: Lei
//! 8.666 before 01/04/2021, with its 2018 update, Lei 14.133 after, with its yearly decrees);
//! the finding names every purchase of every such run of the group. A commitment whose
//! description or payee shows a non-value ground (a lease, a public utility, a state company
//! or public body, an emergency, an exclusive supplier: [`crate::detect::legal_grounds`]) is not a
//! dispensa by value and is left out.
//!
//! Sensitivity `s`: `W` grows from 15 days (s = 0) to 30 (s = 0.7) to the whole fiscal year
//! (365, s = 1.0) and `f` falls from 50% to 35% to 0, so at 1.0 the literal rule applies
//! (any running sum above the limit) and raising `s` only widens the runs considered. The
//! confidence `0.6 + 0.25 min(1, sum/limit - 1) + 0.1 min(1, (count - 2) / 2)` is the best over
//! the runs (it only grows as runs widen), then shifted with the sensitivity, so one pair of
//! purchases barely above the limit is reported only at high sensitivity.
//!
//! Complexity: one pass to group (hash map), a sort and a two-pointer sweep per group:
//! O(m log m) for m commitments.

use std::collections::{HashMap, HashSet};

use chrono::{Datelike, NaiveDate};
use serde_json::json;

use crate::cancel::{AnalysisError, CancelFlag};
use crate::detect::Detector;
use crate::detect::common::{FxBuild, adjust_confidence, ramp, round2};
use crate::detect::finding::{Finding, expense_ref, pattern, point, supplier};
use crate::detect::shared::Shared;
use crate::detect::{legal, legal_grounds};
use crate::model::anomaly::{Anomaly, AnomalyType, EntityRef};
use crate::model::cnpj::{DocumentKind, document_kind};
use crate::model::expense::Expense;
use crate::model::params::DetectionParams;
use crate::text::{format_brl, format_decimal};

/// Detector name.
pub const NAME: &str = "purchase_splitting";

/// The purchase splitting detector.
#[derive(Debug, Clone, Copy, Default)]
pub struct PurchaseSplitting;

/// The window in days at this sensitivity.
pub fn window_days(s: f64) -> i64 {
    let s = s.clamp(0.0, 1.0);
    (if s <= 0.7 { ramp(s, 0.0, 15.0, 0.7, 30.0) } else { ramp(s, 0.7, 30.0, 1.0, 365.0) }).round() as i64
}

/// The smallest purchase counted, as a fraction of the limit, at this sensitivity.
pub fn min_fraction(s: f64) -> f64 {
    let s = s.clamp(0.0, 1.0);
    if s <= 0.7 { ramp(s, 0.0, 0.5, 0.7, 0.35) } else { ramp(s, 0.7, 0.35, 1.0, 0.0) }
}

/// Confidence of a run before the sensitivity shift.
pub fn confidence_for(sum: f64, limit: f64, count: usize) -> f64 {
    0.6 + 0.25 * (sum / limit - 1.0).clamp(0.0, 1.0) + 0.1 * ((count as f64 - 2.0) / 2.0).clamp(0.0, 1.0)
}

fn window_sum(dated: &[(NaiveDate, f64, usize)], i: usize, j: usize) -> f64 {
    dated[i..=j].iter().map(|x| x.1).sum()
}

/// The runs of a group over the limit: the best one's confidence and the positions (in
/// `dated`, ascending) of every purchase in some run of two or more within `window` days that
/// sums above the limit. The longest window ending at each purchase holds every shorter
/// qualifying one, so marking those is enough; widening the window or admitting smaller
/// purchases only adds positions, so a finding never loses a purchase as sensitivity rises.
fn runs_over(dated: &[(NaiveDate, f64, usize)], window: i64, limit: f64) -> Option<(f64, Vec<usize>)> {
    let mut best: Option<(f64, usize, usize)> = None;
    let mut cover = vec![0i32; dated.len() + 1];
    let (mut i, mut sum) = (0usize, 0.0f64);
    for j in 0..dated.len() {
        sum += dated[j].1;
        while (dated[j].0 - dated[i].0).num_days() > window {
            sum -= dated[i].1;
            i += 1;
        }
        let count = j + 1 - i;
        if count >= 2 && sum > limit + 0.005 {
            cover[i] += 1;
            cover[j + 1] -= 1;
            let c = confidence_for(sum, limit, count);
            // Highest confidence first; among equals, the run with more purchases and money.
            let better = best.is_none_or(|(bc, bi, bj)| {
                c > bc + 1e-12 || ((c - bc).abs() <= 1e-12 && (count, sum) > (bj + 1 - bi, window_sum(dated, bi, bj)))
            });
            if better {
                best = Some((c, i, j));
            }
        }
    }
    let (confidence, _, _) = best?;
    let mut depth = 0;
    let positions = (0..dated.len())
        .filter(|&k| {
            depth += cover[k];
            depth > 0
        })
        .collect();
    Some((confidence, positions))
}

impl Detector for PurchaseSplitting {
    fn name(&self) -> &'static str {
        NAME
    }
    fn kind(&self) -> AnomalyType {
        AnomalyType::ComplianceViolation
    }
    fn run_shared(
        &self,
        sh: &Shared<'_>,
        p: &DetectionParams,
        cancel: &CancelFlag,
    ) -> Result<Vec<Anomaly>, AnalysisError> {
        let ds = sh.dataset();
        let mut processes: HashSet<&str, FxBuild> =
            HashSet::with_capacity_and_hasher(ds.contracts.len(), FxBuild::default());
        processes.extend(ds.contracts.iter().map(|c| c.process_number.as_str()).filter(|s| !s.is_empty()));
        type Key<'a> = (&'a str, &'a str, &'a str, i32);
        let mut groups: HashMap<Key<'_>, Vec<usize>, FxBuild> = HashMap::default();
        for (k, e) in ds.expenses.iter().enumerate() {
            if k % 8192 == 0 {
                cancel.check()?;
            }
            let Some(d) = e.date else { continue };
            if !e.is_commitment() || !e.is_dispensa() || e.payee.document.is_empty() || e.value <= 0.0 {
                continue;
            }
            if !e.process_number.is_empty() && processes.contains(e.process_number.as_str()) {
                continue;
            }
            groups
                .entry((e.unit.code.as_str(), e.payee.document.as_str(), e.element.as_str(), d.year()))
                .or_default()
                .push(k);
        }
        let mut keys: Vec<Key<'_>> = groups.iter().filter(|(_, v)| v.len() >= 2).map(|(k, _)| *k).collect();
        keys.sort_unstable();
        let (window, fraction) = (window_days(p.sensitivity), min_fraction(p.sensitivity));
        let judged = keys.len().max(1);
        let mut found = Vec::new();
        for (g, key) in keys.iter().enumerate() {
            if g % 1024 == 0 {
                cancel.check()?;
            }
            let members = &groups[key];
            let engineering = key.2.starts_with("51");
            let Some(first) = ds.expenses[members[0]].date else { continue };
            let (limit, table) = legal::dispensa_limit(first, engineering, false);
            let mut dated: Vec<(NaiveDate, f64, usize)> = members
                .iter()
                .filter_map(|&k| {
                    let e = &ds.expenses[k];
                    let v = e.value;
                    (v >= fraction * limit && v <= limit && !non_value_ground(e))
                        .then(|| (e.date.unwrap_or(first), v, k))
                })
                .collect();
            if dated.len() < 2 {
                continue;
            }
            dated.sort_by(|a, b| a.0.cmp(&b.0).then(a.2.cmp(&b.2)));
            let Some((base, positions)) = runs_over(&dated, window, limit) else { continue };
            let confidence = adjust_confidence(base, p.sensitivity);
            if confidence >= p.confidence_threshold {
                let run: Vec<&Expense> = positions.iter().map(|&k| &ds.expenses[dated[k].2]).collect();
                found.push((key, run, limit, table.act, confidence));
            }
        }
        let contamination = found.len() as f64 / judged as f64;
        Ok(found
            .into_iter()
            .map(|(key, run, limit, act, confidence)| {
                anomaly(*key, &run, limit, act, confidence, window, fraction, contamination)
            })
            .collect())
    }
}

/// Whether a commitment's description or payee shows a non-value ground (read only for the
/// commitments of groups that could be split, the costlier step last).
fn non_value_ground(e: &Expense) -> bool {
    let public = document_kind(&e.payee.document) == DocumentKind::UgCode;
    legal_grounds::inferred_ground(&e.observation, &e.payee.name, public).is_some()
}

#[allow(clippy::too_many_arguments)]
fn anomaly(
    key: (&str, &str, &str, i32),
    run: &[&Expense],
    limit: f64,
    act: &str,
    confidence: f64,
    window: i64,
    fraction: f64,
    contamination: f64,
) -> Anomaly {
    let (unit, payee, element, year) = key;
    let first = run[0];
    let sum: f64 = run.iter().map(|e| e.value).sum();
    let span = match (run.first().and_then(|e| e.date), run.last().and_then(|e| e.date)) {
        (Some(a), Some(b)) => (b - a).num_days(),
        _ => 0,
    };
    let mut data_points = Vec::new();
    let mut running = 0.0;
    for e in run {
        running += e.value;
        let when = e.date.map(|d| d.format("%Y-%m-%d").to_string());
        data_points.push(point("purchase_value", e.value, when.clone()));
        data_points.push(point("running_sum", running, when));
    }
    data_points.push(point("dispensa_limit", limit, Some(year.to_string())));
    let mut related: Vec<EntityRef> = run.iter().map(|e| expense_ref(e)).collect();
    related.push(EntityRef::new("organ", first.organ.code.to_string(), first.organ.name.to_string()));
    let name = &first.payee.name;
    let pt = format!(
        "A unidade {} ({}) comprou de {} por dispensa {} vezes em {} dias ({}), somando {}, acima do limite de {} de {} para {} ({}); cada compra ficou abaixo do limite.",
        first.unit.name,
        unit,
        name,
        run.len(),
        span,
        element,
        format_brl(sum),
        format_brl(limit),
        year,
        if element.starts_with("51") { "obras e serviços de engenharia" } else { "compras e serviços" },
        act
    );
    let en = format!(
        "Unit {} bought from {} by direct purchase {} times within {} days ({}), totalling {} against the {} limit of {} per unit and year: a purchase split to stay under the limit.",
        unit,
        name,
        run.len(),
        span,
        element,
        format_brl(sum),
        year,
        format_brl(limit)
    );
    Finding {
        detector: NAME,
        kind: AnomalyType::ComplianceViolation,
        key: format!("{unit}-{payee}-{}-{year}", element.split(' ').next().unwrap_or("")),
        confidence,
        at_stake: sum,
        threshold: limit,
        description: format!(
            "{} compras por dispensa de {} na UG {} em {} dias somam {} (limite {} em {})",
            run.len(), name, unit, span, format_brl(sum), format_brl(limit), year
        ),
        human_pt: pt,
        human_en: en,
        technical: format!(
            "running sum of dispensa commitments per (UG {unit}, payee {payee}, element '{element}', {year}) over a window of {window} days, purchases >= {:.2} x limit: sum {sum:.2} > limit {limit:.2} ({act}) over {} purchases",
            fraction, run.len()
        ),
        primary: supplier(payee, name),
        related,
        data_points,
        patterns: vec![pattern(
            "purchase_splitting",
            format!("{} purchases of {} each under the limit, {} times the limit together", run.len(), element, format_decimal(sum / limit, 2)),
            json!({"window_days": window, "span_days": span, "sum_to_limit": round2(sum / limit)}),
        )],
        method: "running_sum_fiscal_year",
        score: sum / limit,
        contamination,
        peer: Some(json!({"group": format!("UG {unit} / {payee} / {element} / {year}"), "baseline": "dispensa limit of the year", "limit": limit, "act": act})),
        regulatory: Some(json!({"rule": "Lei 14.133/2021, art. 75, §1 (fracionamento de despesa)", "limit": limit, "act": act})),
        factors: vec![
            ("sum_to_limit".into(), 0.6, format!("the run sums {:.2} times the limit", sum / limit)),
            ("purchases".into(), 0.25, format!("{} purchases, each under the limit", run.len())),
            ("span".into(), 0.15, format!("within {span} days")),
        ],
        details: vec![
            ("organ", json!(first.organ.code)),
            ("unit", json!(unit)),
            ("supplier", json!(payee)),
            ("supplier_name", json!(name)),
            ("element", json!(element)),
            ("year", json!(year)),
            ("sum", json!(round2(sum))),
            ("purchases", json!(run.len())),
            ("window_days", json!(window)),
            ("min_fraction", json!(round2(fraction))),
        ],
    }
    .build()
}

#[cfg(test)]
#[path = "splitting_tests.rs"]
mod tests;
