//! Compliance plants of the demo data (labelled for `compliance_rules` and
//! `purchase_splitting`) and the legitimate noise around them.
//!
//! Noise (not labelled, must not be flagged): clean direct purchases just under their year's
//! limit (a clean value that falls above it is brought under it, as a real buyer would);
//! inexigibilidades that cite their reason (art. 74, I or III); reforma contracts amended by
//! 26-48% (legal up to 50%); tomadas de preços signed in January-March 2024 from biddings
//! opened under Lei 8.666 (legal in the transition).
//!
//! Plants, as fractions of the contracts (at least one each from 200 contracts on): dispensas
//! above their year's limit (0.2%), amendments beyond 25%/50% (0.15%), contracts signed while
//! the supplier was barred by a CEIS sanction (one supplier per 10,000 contracts, sanctioned for
//! 40-180 days around one of its contracts; every contract of it inside the window is labelled), invalid CNPJ check
//! digits (0.04%), convite/tomada de preços signed from October 2024 on (0.04%, when the
//! data has 2024-2025), inexigibilidades that state no reason (0.06%); and split purchases:
//! 3-5 commitments by dispensa from one unit to one supplier for one budget element within 25
//! days, each 55-97% of the limit (0.1%). Contracts planted by others are also labelled when
//! they break a rule (an overpriced contract bought by dispensa is above the limit).

use std::collections::{HashMap, HashSet};

use chrono::{Datelike, Days, NaiveDate};
use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::Planted;
use super::catalog::PROFILES;
use super::plant::Field;
use super::records::{NewExpense, element_of, expense};
use crate::detect::category::Category;
use crate::detect::common::FxBuild;
use crate::detect::compliance_rules::NAME as RULES;
use crate::detect::legal::{self, Modality};
use crate::detect::splitting::NAME as SPLITTING;
use crate::model::anomaly::AnomalyType;
use crate::model::cnpj::cnpj_is_valid;
use crate::model::contract::Contract;
use crate::model::expense::Expense;
use crate::model::intern::ArcStr;
use crate::model::registry_facts::SupplierProfile;
use crate::model::sanction::Sanction;

fn limit_of(c: &Contract) -> Option<f64> {
    let d = c.signed_on?;
    Some(legal::dispensa_limit(d, legal::is_engineering(&c.object), legal::cites_old_law(&c.legal_basis)).0)
}

fn set_value(f: &mut Field<'_>, i: usize, initial: f64, final_value: f64) {
    let c = &mut f.contracts[i];
    c.initial_value = (initial * 100.0).round() / 100.0;
    c.final_value = (final_value * 100.0).round() / 100.0;
    f.metas[i].value = c.value();
}

/// Brings clean dispensas under their year's limit, gives clean inexigibilidades their
/// reason, and adds the legal amendments and transitional modalities of the module doc.
pub fn legitimise(f: &mut Field<'_>, reserved: &HashSet<usize>, rng: &mut ChaCha8Rng) {
    let early_2024 = NaiveDate::from_ymd_opt(2024, 3, 31).unwrap_or(NaiveDate::MIN);
    for i in 0..f.contracts.len() {
        let c = &f.contracts[i];
        let m = legal::modality(&c.modality);
        if m == Modality::Inexigibilidade && legal::article_inciso(&c.legal_basis, "74").is_none() {
            let basis =
                if rng.gen_bool(0.5) { "Lei 14.133/2021, art. 74, I" } else { "Lei 14.133/2021, art. 74, III, c" };
            f.contracts[i].legal_basis = f.world.text(basis);
            continue;
        }
        if f.used.contains(&i) {
            continue;
        }
        if m == Modality::Dispensa
            && let Some(d) = c.signed_on
            && c.initial_value > legal::limits_for(d.year(), false).other * 0.999
            && legal::is_dispensa_by_value(&c.legal_basis)
            && let Some(limit) = limit_of(c)
            && c.initial_value > limit * 0.999
        {
            let target = limit * rng.gen_range(0.93..0.998);
            let ratio = c.final_value / c.initial_value.max(0.01);
            set_value(f, i, target, target * ratio.min(1.2));
            continue;
        }
        if reserved.contains(&i) {
            continue;
        }
        let c = &f.contracts[i];
        if rng.gen_bool(0.05) && legal::is_renovation(&c.object) {
            let initial = c.initial_value;
            set_value(f, i, initial, initial * rng.gen_range(1.26..1.48));
        } else if matches!(m, Modality::Pregao | Modality::Concorrencia)
            && c.signed_on.is_some_and(|d| d.year() == 2024 && d <= early_2024)
            && rng.gen_bool(0.02)
        {
            let c = &mut f.contracts[i];
            c.modality = arcstr::literal!("Tomada de Preços");
            c.legal_basis = arcstr::literal!("Lei 8.666/1993, art. 22, II");
        }
    }
}

fn label(detector: &'static str, kind: AnomalyType, ids: Vec<String>, entity: &str) -> Planted {
    Planted { detector, kind, record_ids: ids, entity_id: Some(entity.to_string()) }
}

/// Picks an unused, unprotected contract that passes `ok`, by random probing
/// then by a scan from a random start; marks it used.
fn pick(
    f: &mut Field<'_>,
    reserved: &HashSet<usize>,
    rng: &mut ChaCha8Rng,
    ok: impl Fn(&Contract, usize) -> bool,
) -> Option<usize> {
    let n = f.contracts.len();
    if n == 0 {
        return None;
    }
    let free =
        |f: &Field<'_>, i: usize| !f.used.contains(&i) && !reserved.contains(&i) && f.contracts[i].signed_on.is_some();
    let mut found = (0..64).map(|_| rng.gen_range(0..n)).find(|&i| free(f, i) && ok(&f.contracts[i], i));
    if found.is_none() {
        let start = rng.gen_range(0..n);
        found = (0..n).map(|k| (start + k) % n).find(|&i| free(f, i) && ok(&f.contracts[i], i));
    }
    if let Some(i) = found {
        f.used.insert(i);
    }
    found
}

/// Plants the contract rules of the module doc; sanctions go to `sanctions`.
pub fn contracts(
    f: &mut Field<'_>,
    reserved: &HashSet<usize>,
    profiles: &[SupplierProfile],
    sanctions: &mut Vec<Sanction>,
    rng: &mut ChaCha8Rng,
) -> Vec<Planted> {
    let n = f.contracts.len();
    let count = |rate: f64| ((n as f64 * rate).round() as usize).max(usize::from(n >= 200));
    let kind = AnomalyType::ComplianceViolation;
    let mut out = Vec::new();
    let metas: Vec<bool> = f.metas.iter().map(|m| PROFILES[m.cat].category == Category::Expediente).collect();
    // Dispensas above the limit.
    for _ in 0..count(0.002) {
        let i = pick(f, reserved, rng, |c, i| legal::modality(&c.modality) == Modality::Dispensa && !metas[i])
            .or_else(|| pick(f, reserved, rng, |c, _| legal::modality(&c.modality) == Modality::Dispensa))
            .or_else(|| pick(f, reserved, rng, |_, _| true));
        let Some(i) = i else { break };
        let c = &mut f.contracts[i];
        c.modality = arcstr::literal!("Dispensa de Licitação");
        let eng = legal::is_engineering(&c.object);
        c.legal_basis = arcstr::format!("Lei 14.133/2021, art. 75, {}", if eng { "I" } else { "II" });
        let limit = limit_of(c).unwrap_or(60_000.0);
        let factor = if metas[i] { rng.gen_range(1.05..1.25) } else { rng.gen_range(1.08..1.5) };
        set_value(f, i, limit * factor, limit * factor);
        let c = &f.contracts[i];
        out.push(label(RULES, kind, vec![c.id.clone().to_string()], &c.supplier.document));
    }
    // Amendments beyond the cap.
    let medians: Vec<f64> = f.metas.iter().map(|m| PROFILES[m.cat].median).collect();
    for _ in 0..count(0.0015) {
        let Some(i) = pick(f, reserved, rng, |c, i| c.initial_value > 0.0 && c.initial_value <= medians[i]) else {
            break;
        };
        let c = &f.contracts[i];
        let factor = if legal::is_renovation(&c.object) { rng.gen_range(1.56..1.95) } else { rng.gen_range(1.32..1.8) };
        let initial = c.initial_value;
        set_value(f, i, initial, initial * factor);
        let c = &f.contracts[i];
        out.push(label(RULES, kind, vec![c.id.clone().to_string()], &c.supplier.document));
    }
    // Contracts with barred suppliers.
    let index: HashMap<&str, usize> = profiles.iter().enumerate().map(|(k, p)| (p.cnpj.as_str(), k)).collect();
    let tail = f.world.pools.first().map_or(0, |p| p.suppliers.len() / 3);
    let ranks: Vec<usize> = f.metas.iter().map(|m| m.supplier).collect();
    let mut sanctioned: HashSet<String> = sanctions.iter().map(|s| s.document.clone()).collect();
    for _ in 0..count(0.0001) {
        let Some(i) = pick(f, reserved, rng, |c, i| {
            ranks[i] >= tail
                && index.contains_key(c.supplier.document.as_str())
                && !sanctioned.contains(c.supplier.document.as_str())
        }) else {
            break;
        };
        let c = &f.contracts[i];
        let Some(signed) = c.signed_on else { continue };
        let start = signed - Days::new(rng.gen_range(10..60));
        let end = signed + Days::new(rng.gen_range(30..120));
        let kinds = ["Impedimento/proibição de contratar com prazo determinado", "Inidoneidade", "Suspensão"];
        let profile = &profiles[index[c.supplier.document.as_str()]];
        sanctions.push(super::registry::sanction(
            sanctions.len(),
            profile,
            kinds[rng.gen_range(0..kinds.len())],
            start,
            Some(end),
        ));
        sanctioned.insert(c.supplier.document.clone().to_string());
    }
    // Invalid check digits.
    for _ in 0..count(0.0004) {
        let Some(i) = pick(f, reserved, rng, |c, _| c.supplier.document.len() == 14) else { break };
        let c = &mut f.contracts[i];
        let mut digits: Vec<u8> = c.supplier.document.bytes().map(|b| b - b'0').collect();
        digits[13] = (digits[13] + rng.gen_range(1..10)) % 10;
        c.supplier.document = digits.iter().map(|d| char::from(b'0' + d)).collect::<String>().into();
        if cnpj_is_valid(&c.supplier.document) {
            digits[12] = (digits[12] + 1) % 10;
            c.supplier.document = digits.iter().map(|d| char::from(b'0' + d)).collect::<String>().into();
        }
        out.push(label(RULES, kind, vec![c.id.clone().to_string()], &c.supplier.document));
    }
    // Extinct modalities, from October 2024.
    let from = NaiveDate::from_ymd_opt(2024, 10, 1).unwrap_or(NaiveDate::MAX);
    for _ in 0..count(0.0004) {
        let Some(i) = pick(f, reserved, rng, |c, _| {
            c.signed_on.is_some_and(|d| d >= from) && legal::modality(&c.modality) != Modality::Dispensa
        }) else {
            break;
        };
        let c = &mut f.contracts[i];
        let convite = rng.gen_bool(0.4);
        c.modality = if convite { arcstr::literal!("Convite") } else { arcstr::literal!("Tomada de Preços") };
        c.legal_basis = arcstr::format!("Lei 8.666/1993, art. 22, {}", if convite { "III" } else { "II" });
        out.push(label(RULES, kind, vec![c.id.clone().to_string()], &c.supplier.document));
    }
    // Inexigibilidades without a reason.
    for _ in 0..count(0.0006) {
        let i =
            pick(f, reserved, rng, |c, _| legal::modality(&c.modality) == Modality::Inexigibilidade).or_else(|| {
                pick(f, reserved, rng, |c, _| {
                    matches!(crate::detect::category::categorise(&c.object), Category::Ti | Category::Consultoria)
                })
            });
        let Some(i) = i else { break };
        let c = &mut f.contracts[i];
        c.modality = arcstr::literal!("Inexigibilidade de Licitação");
        c.legal_basis = arcstr::literal!("Lei 14.133/2021, art. 74");
        out.push(label(RULES, kind, vec![c.id.clone().to_string()], &c.supplier.document));
    }
    out
}

/// Plants split purchases among the expenses (see the module doc).
pub fn splitting(
    f: &Field<'_>,
    _reserved: &HashSet<usize>,
    expenses: &mut Vec<Expense>,
    seq: &mut usize,
    rng: &mut ChaCha8Rng,
) -> Vec<Planted> {
    let n = f.contracts.len();
    let count = ((n as f64 * 0.001).round() as usize).max(usize::from(n >= 200));
    let cats: Vec<usize> =
        [Category::Expediente, Category::Alimentacao, Category::Combustiveis, Category::Medicamentos]
            .iter()
            .filter_map(|c| PROFILES.iter().position(|p| p.category == *c))
            .collect();
    let mut out = Vec::new();
    for _ in 0..count {
        let info = f.world.organs[super::clean::pick(&f.world.organ_cum, rng.r#gen())];
        let u = &info.units[rng.gen_range(0..info.units.len())];
        let cat = cats[rng.gen_range(0..cats.len())];
        let pool = &f.world.pools[cat];
        let s = &pool.suppliers[rng.gen_range(3.min(pool.suppliers.len() - 1)..pool.suppliers.len())];
        let year = f.world.years[rng.gen_range(0..f.world.years.len())];
        let anchor = NaiveDate::from_ymd_opt(year, 1, 10).unwrap_or(NaiveDate::MIN) + Days::new(rng.gen_range(0..320));
        let (limit, _) = legal::dispensa_limit(anchor, false, false);
        let party = s.party();
        let unit = f.world.unit(u);
        let organ = f.world.organ(info);
        let mut ids = Vec::new();
        let mut days: Vec<u64> = (0..rng.gen_range(3..=5)).map(|_| rng.gen_range(0..25)).collect();
        days.sort_unstable();
        for d in days {
            let e = expense(
                f.world,
                NewExpense {
                    seq: *seq,
                    phase: "Empenho",
                    date: anchor + Days::new(d),
                    payee: &party,
                    value: limit * rng.gen_range(0.55..0.97),
                    unit: &unit,
                    organ: &organ,
                    element: element_of(PROFILES[cat].category),
                    modality: "Dispensa de Licitação",
                    process: ArcStr::new(),
                    observation: format!("AQUISIÇÃO DE {} - PARCELA", PROFILES[cat].category.label().to_uppercase()),
                },
            );
            *seq += 1;
            ids.push(e.id.to_string());
            expenses.push(e);
        }
        out.push(label(SPLITTING, AnomalyType::ComplianceViolation, ids, &s.cnpj));
    }
    out
}

/// Labels, once every plant is in place, the contracts signed while their supplier was barred
/// by a sanction, and those that break a rule because of another plant (an overpriced
/// dispensa, a duplicated one pushed over the limit) and are not labelled yet.
pub fn incidental(contracts: &[Contract], sanctions: &[Sanction], planted: &[Planted]) -> Vec<Planted> {
    let done: HashSet<&str> =
        planted.iter().filter(|p| p.detector == RULES).flat_map(|p| p.record_ids.iter().map(String::as_str)).collect();
    let mut barring: HashMap<&str, Vec<&Sanction>, FxBuild> = HashMap::default();
    for s in sanctions.iter().filter(|s| s.bars_contracting()) {
        barring.entry(s.root().unwrap_or(s.document.as_str())).or_default().push(s);
    }
    let mut out = Vec::new();
    for c in contracts {
        if done.contains(c.id.as_str()) {
            continue;
        }
        let root = c.supplier.cnpj_root().unwrap_or(c.supplier.document.as_str());
        let barred = barring.get(root).is_some_and(|l| c.signed_on.is_some_and(|d| l.iter().any(|s| s.active_on(d))));
        if barred {
            out.push(label(
                RULES,
                AnomalyType::ComplianceViolation,
                vec![c.id.clone().to_string()],
                &c.supplier.document,
            ));
            continue;
        }
        let over_limit = legal::modality(&c.modality) == Modality::Dispensa
            && legal::is_dispensa_by_value(&c.legal_basis)
            && c.signed_on
                .is_some_and(|d| legal::limit_if_exceeded(d, c.initial_value, &c.object, &c.legal_basis).is_some());
        let amended = c.initial_value > 0.0
            && c.final_value > c.initial_value * (1.0 + legal::AMENDMENT_CAP) + 0.01
            && (c.final_value > c.initial_value * (1.0 + legal::AMENDMENT_CAP_RENOVATION) + 0.01
                || !legal::is_renovation(&c.object));
        if over_limit || amended {
            out.push(label(
                RULES,
                AnomalyType::ComplianceViolation,
                vec![c.id.clone().to_string()],
                &c.supplier.document,
            ));
        }
    }
    out
}
