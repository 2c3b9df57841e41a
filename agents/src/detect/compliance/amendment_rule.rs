//! `amendment_above_cap`: acréscimos beyond the legal cap. Lei 14.133/2021 art. 125 (and Lei
//! 8.666/1993 art. 65 §1 before it) lets quantitative additions reach 25% of the updated
//! initial value of the contract, 50% for the renovation (reforma) of a building or equipment.
//! Prorrogações of continuing services (Lei 8.666 art. 57 II; Lei 14.133 arts. 106-107),
//! reajustes and repactuações/reequilíbrios grow the value legally and are not additions.
//!
//! How a contract is judged, by what its source carries ([`Contract::amendments`]):
//! - Amendments with the global value after each (Contratos.gov.br histories): walked in
//!   order. A reajuste or reequilíbrio rescales the base (the initial value as updated); a
//!   prorrogação extends it by the new period; an acréscimo adds its increase, as a share of the
//!   base at that time, to the running total; a supressão is computed separately and never
//!   offsets an acréscimo (TCU, Acórdão 749/2010-Plenário). An amendment that mixes an
//!   acréscimo with a prorrogação or reajuste is split by value per month of vigência when both
//!   ends are known, and otherwise left out (nothing is known of its parts); so is one that
//!   also changes the party or only informs, and a step above 100% of the base (Contratos.gov.br
//!   switches the global value between a year's and the whole term's).
//! - Leases of buildings where the administration is the tenant have no cap (Lei 8.666 art. 62
//!   §3 leaves art. 65 out; private law governs their value).
//! - Amendments known only by kind (the Portal's TermoAditivo file, no values): the growth
//!   from initial to final value is attributed to acréscimos only when every amendment that can
//!   change the value is an acréscimo; any prorrogação, reajuste or unrecognised amendment can
//!   explain the growth, and nothing is reported.
//! - No amendment records (totals only): growth above the cap is reported only when the
//!   vigência, at most 12 months and a half from its start, leaves no room for a prorrogação,
//!   and then with low confidence (the kind of the change is unknown); longer vigências report
//!   nothing.
//!
//! Confidence: 0.90-0.98 with the excess over the cap from dated values, 0.88-0.96 from kinds
//! and totals, 0.75 from totals alone (below the default threshold), shifted 0.05 per unit of
//! sensitivity as every legal rule.

use chrono::NaiveDate;

use crate::detect::compliance::compliance_rules::Breach;
use crate::detect::finding::legal_confidence;
use crate::detect::{legal, legal_grounds};
use crate::model::amendment::{Amendment, AmendmentKind as K};
use crate::model::contract::Contract;
use crate::text::{format_brl, format_pct};

/// Growth a computed share may exceed the cap by before it counts (rounding of "25%" aditivos).
const TOLERANCE: f64 = 0.005;

/// The largest step, as a share of the base, read as an acréscimo (four times the 25% cap).
const MAX_STEP: f64 = 1.0;

fn months(from: NaiveDate, to: NaiveDate) -> f64 {
    (to - from).num_days() as f64 / 30.44
}

/// What the amendment records say of a contract's acréscimos.
#[derive(Debug, Clone, PartialEq)]
pub struct Additions {
    /// Sum of each acréscimo's share of the updated initial value at its time.
    pub share: f64,
    /// The updated initial value at the end (the base of the last share).
    pub base: f64,
    /// Money added by acréscimos.
    pub added: f64,
    /// Money removed by supressões (not offset against `added`).
    pub suppressed: f64,
    /// Acréscimos counted.
    pub count: usize,
    /// How the shares were obtained.
    pub method: &'static str,
    /// Value changes left out: terms mixing an acréscimo with a change of party or an
    /// informative change, and steps too large to be an acréscimo.
    pub skipped: usize,
}

fn has(a: &Amendment, k: K) -> bool {
    a.kinds.contains(&k)
}

/// Walks amendments that carry the global value after each (see the module doc).
pub fn walk_values(c: &Contract) -> Option<Additions> {
    if !c.amendments.iter().any(|a| a.new_global_value.is_some()) {
        return None;
    }
    let start = c.valid_from.or(c.signed_on);
    let mut out = Additions {
        share: 0.0,
        base: c.initial_value,
        added: 0.0,
        suppressed: 0.0,
        count: 0,
        method: "valores globais de cada termo",
        skipped: 0,
    };
    let (mut current, mut end) = (c.initial_value, None::<NaiveDate>);
    for a in &c.amendments {
        let new_end = a.new_valid_until.or(end);
        let Some(nv) = a.new_global_value else {
            end = new_end;
            continue;
        };
        let delta = nv - current;
        let quantitative = has(a, K::Addition) || has(a, K::Suppression);
        let extension = has(a, K::Extension);
        let rescale = has(a, K::Readjustment) || has(a, K::Rebalance);
        // A term that also changes the party, or informs, mixes things the value cannot split.
        let other = has(a, K::SupplierChange) || has(a, K::Other) || has(a, K::Termination);
        if quantitative && other {
            out.skipped += 1;
        } else if quantitative && !extension && !rescale {
            if delta > out.base * MAX_STEP {
                // Contratos.gov.br switches the global value between a year's and the whole
                // term's: a step this large is a change of unit, not an acréscimo.
                out.skipped += 1;
            } else if delta > 0.0 && out.base > 0.0 {
                out.share += delta / out.base;
                out.added += delta;
                out.count += 1;
            } else {
                out.suppressed += -delta.min(0.0);
            }
        } else if quantitative && extension && !rescale {
            // Split by value per month: the extension keeps the monthly value.
            if let (Some(s), Some(e0), Some(e1)) = (start, end, new_end)
                && months(s, e0) > 0.5
                && e1 > e0
            {
                let ratio = months(s, e1) / months(s, e0);
                let extra = nv - current * ratio;
                out.base *= ratio;
                if extra > 0.0 {
                    out.share += extra / out.base;
                    out.added += extra;
                    out.count += 1;
                }
            }
        } else if extension && !quantitative && !rescale {
            out.base += delta.max(0.0);
        } else if rescale && !quantitative && current > 0.0 {
            out.base *= nv / current;
        }
        current = nv;
        end = new_end;
    }
    Some(out)
}

/// The breach of a contract whose acréscimos exceed the cap, if any.
pub(super) fn amendment_breach(c: &Contract, s: f64) -> Option<Breach<'static>> {
    if c.initial_value <= 0.0 {
        return None;
    }
    let growth = c.final_value / c.initial_value - 1.0;
    let (adds, base_conf) = if let Some(adds) = walk_values(c) {
        (adds, 0.90)
    } else if !c.amendments.is_empty() {
        let explains = |a: &Amendment| {
            a.kinds.is_empty()
                || [K::Extension, K::Readjustment, K::Rebalance, K::SupplierChange].iter().any(|k| has(a, *k))
        };
        if c.amendments.iter().any(explains) || !c.amendments.iter().any(|a| has(a, K::Addition)) {
            return None;
        }
        let count = c.amendments.iter().filter(|a| has(a, K::Addition)).count();
        let adds = Additions {
            share: growth,
            base: c.initial_value,
            added: c.final_value - c.initial_value,
            suppressed: 0.0,
            count,
            method: "valor final menos o inicial; todos os termos que alteram valor são acréscimos",
            skipped: 0,
        };
        (adds, 0.88)
    } else {
        let from = c.valid_from.or(c.signed_on)?;
        if months(from, c.valid_until?) > 12.5 {
            return None;
        }
        let adds = Additions {
            share: growth,
            base: c.initial_value,
            added: c.final_value - c.initial_value,
            suppressed: 0.0,
            count: 0,
            method: "valor final menos o inicial, sem registro de termos, em vigência de até 12 meses",
            skipped: 0,
        };
        (adds, 0.75)
    };
    // The object is read only for a share above the general cap: a renovation has 50%, and
    // leases where the administration is the tenant follow private law for their value (Lei
    // 8.666 art. 62 §3 leaves art. 65 out): no acréscimo cap.
    if adds.share <= legal::AMENDMENT_CAP + TOLERANCE {
        return None;
    }
    let renovation = legal::is_renovation(&c.object);
    let cap = if renovation { legal::AMENDMENT_CAP_RENOVATION } else { legal::AMENDMENT_CAP };
    if adds.share <= cap + TOLERANCE || legal_grounds::is_building_lease(&c.object) {
        return None;
    }
    let confidence = if base_conf < 0.8 {
        legal_confidence(base_conf, s)
    } else {
        legal_confidence(base_conf + ((adds.share - cap) * 0.3).min(0.08), s)
    };
    let number = if c.number.is_empty() { c.id.as_str() } else { c.number.as_str() };
    let at_stake = (adds.share - cap) * adds.base;
    let what = if adds.count > 0 {
        format!("{} termo(s) de acréscimo", adds.count)
    } else {
        "alterações de valor de tipo desconhecido".into()
    };
    Some(Breach {
        rule: "amendment_above_cap",
        confidence,
        at_stake,
        threshold: cap,
        observed: adds.share,
        law: format!(
            "Lei 14.133/2021, art. 125 (Lei 8.666/1993, art. 65, §1){}; acréscimos e supressões computados separadamente (TCU, Acórdão 749/2010-Plenário)",
            if renovation { ", reforma: 50%" } else { "" }
        ),
        pt: format!(
            "O contrato {} recebeu acréscimos de {} do valor inicial atualizado ({}; {} acrescidos sobre base de {}), acima do limite legal de {}. Prorrogações e reajustes não entram nessa conta.",
            number,
            format_pct(adds.share),
            what,
            format_brl(adds.added),
            format_brl(adds.base),
            format_pct(cap)
        ),
        en: format!(
            "Contract {} received additions of {:.1}% of its updated initial value ({} added on a base of {}), beyond the {:.0}% cap; extensions and readjustments are not counted.",
            number,
            adds.share * 100.0,
            format_brl(adds.added),
            format_brl(adds.base),
            cap * 100.0
        ),
        technical: format!(
            "additions share {:.4} > cap {} (+{}); method: {}; added {:.2}, suppressed {:.2} (not offset), base {:.2}, growth initial->final {:.4}, value changes left out {}",
            adds.share, cap, TOLERANCE, adds.method, adds.added, adds.suppressed, adds.base, growth, adds.skipped
        ),
        sanction: None,
    })
}

#[cfg(test)]
#[path = "amendment_rule_tests.rs"]
mod tests;
