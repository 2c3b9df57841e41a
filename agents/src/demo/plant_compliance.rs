//! Compliance plants of the demo data, each an act the law forbids, labelled with what was done
//! and the rule it breaks (written from the statutes in [`super::law`]):
//!
//! - a dispensa above the value limit of the value inciso it cites, under the law in force at
//!   signing (0.2% of the contracts), e.g. "Lei 14.133/2021, Art. 75, II" at 1.1-3 times the
//!   limit of Decreto 11.871/2023;
//! - acréscimos beyond 25% of the initial value (50% for a renovation), recorded as
//!   `AmendmentKind::Addition` amendments (0.15%);
//! - a contract signed while its supplier was barred by a CEIS sanction in force (one supplier
//!   per 10,000 contracts);
//! - a supplier CNPJ with wrong check digits (0.04%);
//! - a convite or tomada de preços signed from October 2024 on, after Lei 8.666's repeal
//!   (0.04%);
//! - an inexigibilidade claiming an exclusive supplier (art. 74, I) for a commodity many suppliers
//!   of the data sell (0.06%);
//! - a purchase split into 3-5 dispensas of one unit to one supplier for one budget element
//!   within 25 days, each 55-97% of the limit and together above it (0.1%).
//!
//! Contracts other plants pushed over a rule (an overpriced dispensa citing a value inciso, a
//! sanctioned supplier's other contracts) are labelled by [`incidental`].

use std::collections::{HashMap, HashSet};

use chrono::{Days, NaiveDate};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use rustc_hash::FxBuildHasher as FxBuild;

use super::catalog::Category;
use super::edit::scale;
use super::labels::{Planted, Scheme, label};
use super::law;
use super::plant::Field;
use super::records::{NewExpense, element_of, expense};
use crate::model::amendment::AmendmentKind;
use crate::model::anomaly::AnomalyType;
use crate::model::cnpj::cnpj_is_valid;
use crate::model::contract::Contract;
use crate::model::expense::Expense;
use crate::model::intern::ArcStr;
use crate::model::registry_facts::SupplierProfile;
use crate::model::sanction::Sanction;

fn one(scheme: Scheme, c: &Contract, what: String) -> Planted {
    label(scheme, AnomalyType::ComplianceViolation, vec![c.id.to_string()], Some(c.supplier.document.to_string()), what)
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
    let mut out = Vec::new();
    let cats: Vec<Category> = f.metas.iter().map(|m| f.world.profiles[m.cat].category).collect();
    // Dispensas above the limit of the value inciso they cite.
    for _ in 0..count(0.002) {
        let Some(i) = pick(f, reserved, rng, |c, _| c.signed_on.is_some() && c.amendments.is_empty()) else { break };
        let Some(signed) = f.contracts[i].signed_on else { continue };
        let engineering = cats[i].is_engineering();
        let Some((limit, basis, act)) = law::value_limit(signed, engineering) else { continue };
        let target = limit * rng.gen_range(1.1..3.0);
        let factor = target / f.contracts[i].initial_value.max(0.01);
        let (c, m) = (&mut f.contracts[i], &mut f.metas[i]);
        scale(c, m, factor);
        c.modality = f.world.text(law::DISPENSA);
        c.legal_basis = f.world.text(&basis);
        let what = format!(
            "dispensa of R$ {:.2} under {basis} signed on {signed}, limit R$ {limit:.2} per {act}",
            c.initial_value
        );
        out.push(one(Scheme::DispensaOverLimit, c, what));
    }
    // Acréscimos beyond the cap.
    for _ in 0..count(0.0015) {
        let Some(i) = pick(f, reserved, rng, |c, _| c.initial_value > 0.0 && c.amendments.is_empty()) else { break };
        let renovation = cats[i] == Category::Obras && f.contracts[i].object.contains("REFORMA");
        let cap = if renovation { law::ADDITION_CAP_RENOVATION } else { law::ADDITION_CAP };
        let share = cap + rng.gen_range(0.07..0.45);
        let c = &mut f.contracts[i];
        let Some(from) = c.valid_from else { continue };
        let parts = rng.gen_range(1..=2u64);
        for k in 0..parts {
            let on = from + Days::new(60 + 90 * k + rng.gen_range(0..30));
            let added = c.initial_value * share / parts as f64;
            super::amend::push(
                c,
                vec![AmendmentKind::Addition],
                on,
                added,
                None,
                arcstr::literal!("ACRÉSCIMO QUANTITATIVO DO OBJETO"),
            );
        }
        f.metas[i].value = c.value();
        let what = format!(
            "acréscimos of {:.0}% of the initial value R$ {:.2} in {parts} termos aditivos, beyond the {:.0}% cap \
             (Lei 14.133/2021 art. 125)",
            share * 100.0,
            c.initial_value,
            cap * 100.0
        );
        out.push(one(Scheme::IllegalAddition, c, what));
    }
    // Contracts with barred suppliers (labelled by `incidental` once every contract is final).
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
        let profile = &profiles[index[c.supplier.document.as_str()]];
        let (kind, basis, by_organ) = BARRING[rng.gen_range(0..BARRING.len())];
        let mut sanction = super::registry::sanction(sanctions.len(), profile, kind, start, Some(end));
        sanction.legal_basis = basis.into();
        // A suspensão binds only the body that applied it: the contracting organ suspended the
        // firm and then contracted it. The others are applied by the CGU for the Union.
        if by_organ {
            sanction.authority = c.organ.name.to_string();
        }
        sanctions.push(sanction);
        sanctioned.insert(c.supplier.document.to_string());
    }
    // Invalid check digits.
    for _ in 0..count(0.0004) {
        let Some(i) = pick(f, reserved, rng, |c, _| c.supplier.document.len() == 14) else { break };
        let c = &mut f.contracts[i];
        let valid = c.supplier.document.clone();
        let mut digits: Vec<u8> = c.supplier.document.bytes().map(|b| b - b'0').collect();
        digits[13] = (digits[13] + rng.gen_range(1..10)) % 10;
        c.supplier.document = digits.iter().map(|d| char::from(b'0' + d)).collect::<String>().into();
        if cnpj_is_valid(&c.supplier.document) {
            digits[12] = (digits[12] + 1) % 10;
            c.supplier.document = digits.iter().map(|d| char::from(b'0' + d)).collect::<String>().into();
        }
        let what = format!("supplier CNPJ {valid} written {} (wrong check digits)", c.supplier.document);
        out.push(one(Scheme::InvalidCnpj, c, what));
    }
    // Extinct modalities, from October 2024.
    let from = NaiveDate::from_ymd_opt(2024, 10, 1).unwrap_or(NaiveDate::MAX);
    for _ in 0..count(0.0004) {
        let Some(i) =
            pick(f, reserved, rng, |c, _| c.signed_on.is_some_and(|d| d >= from) && !law::is_dispensa(&c.modality))
        else {
            break;
        };
        let c = &mut f.contracts[i];
        let convite = rng.gen_bool(0.4);
        c.modality = if convite { arcstr::literal!("Convite") } else { arcstr::literal!("Tomada de Preços") };
        c.legal_basis = arcstr::format!("Lei 8.666/1993, art. 22, {}", if convite { "III" } else { "II" });
        let what = format!(
            "{} signed on {} under Lei 8.666/1993, repealed on 30 December 2023",
            c.modality,
            c.signed_on.unwrap_or(from)
        );
        out.push(one(Scheme::ExtinctModality, c, what));
    }
    // Inexigibilidades claiming an exclusive supplier for a commodity many firms sell.
    let commodity = |c: Category| matches!(c, Category::Expediente | Category::Alimentacao | Category::Combustiveis);
    let pool_size = f.world.pools.first().map_or(0, |p| p.suppliers.len());
    for _ in 0..count(0.0006) {
        let Some(i) = pick(f, reserved, rng, |c, i| commodity(cats[i]) && c.amendments.is_empty()) else { break };
        let c = &mut f.contracts[i];
        c.modality = f.world.text(law::INEXIGIBILIDADE);
        c.legal_basis = arcstr::literal!("Lei 14.133/2021, Art. 74, I");
        let what = format!(
            "inexigibilidade claiming an exclusive supplier (art. 74, I) for {} sold by {pool_size} suppliers of the data",
            cats[i].label()
        );
        out.push(one(Scheme::UnjustifiedInexigibilidade, c, what));
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
            .filter_map(|c| f.world.profiles.iter().position(|p| p.category == *c))
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
        let Some((limit, _, act)) = law::value_limit(anchor, false) else { continue };
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
                    element: element_of(f.world.profiles[cat].category),
                    modality: "Dispensa de Licitação",
                    process: ArcStr::new(),
                    observation: format!(
                        "AQUISIÇÃO DE {} - PARCELA",
                        f.world.profiles[cat].category.label().to_uppercase()
                    ),
                },
            );
            *seq += 1;
            ids.push(e.id.to_string());
            expenses.push(e);
        }
        let what = format!(
            "one purchase split into {} dispensas of unit {} to supplier {} within 25 days, each under the R$ {limit:.2} \
             limit ({act}) and together above it",
            ids.len(),
            u.code,
            s.cnpj
        );
        out.push(label(Scheme::SplitPurchase, AnomalyType::ComplianceViolation, ids, Some(s.cnpj.to_string()), what));
    }
    out
}

/// The barring sanctions the demo applies: kind, legal basis, and whether the body that applied
/// it is the contracting organ (a suspensão binds that body only) rather than the CGU.
const BARRING: [(&str, &str, bool); 3] = [
    ("Impedimento/proibição de contratar com prazo determinado", "Lei 14.133/2021, art. 156, III", false),
    ("Inidoneidade", "Lei 14.133/2021, art. 156, IV", false),
    ("Suspensão", "Lei 8.666/1993, art. 87, III", true),
];

/// Whether a barring sanction the demo applied binds a contract, by its scope (Lei 8.666 art.
/// 87 III and IV; Lei 10.520 art. 7; Lei 14.133 art. 156 §4 and §5): an inidoneidade binds the
/// whole administration; an impedimento the sphere of the entity that applied it (every demo
/// organ and the CGU are federal); a suspensão only the body that applied it.
fn binds(s: &Sanction, c: &Contract) -> bool {
    if s.kind.starts_with("Suspens") { s.authority == c.organ.name.as_str() } else { true }
}

/// Labels, once every plant is in place, the contracts that break a rule and are not labelled
/// yet: those signed while their supplier was barred by a sanction in force whose scope reaches
/// the contracting organ ([`binds`]), dispensas citing a
/// value inciso above its limit (an overpriced or copied contract), and acréscimos beyond the cap.
pub fn incidental(contracts: &[Contract], sanctions: &[Sanction], planted: &[Planted]) -> Vec<Planted> {
    let done: HashSet<&str> = planted
        .iter()
        .filter(|p| p.kind == AnomalyType::ComplianceViolation)
        .flat_map(|p| p.record_ids.iter().map(String::as_str))
        .collect();
    let mut barring: HashMap<&str, Vec<&Sanction>, FxBuild> = HashMap::default();
    for s in sanctions.iter().filter(|s| s.bars_contracting()) {
        barring.entry(s.root().unwrap_or(s.document.as_str())).or_default().push(s);
    }
    let mut out = Vec::new();
    for c in contracts {
        if done.contains(c.id.as_str()) {
            continue;
        }
        let Some(signed) = c.signed_on else { continue };
        let root = c.supplier.cnpj_root().unwrap_or(c.supplier.document.as_str());
        let barred = barring.get(root).and_then(|l| l.iter().find(|s| s.active_on(signed) && binds(s, c)));
        if let Some(s) = barred {
            let what = format!(
                "contract signed on {signed} while supplier {} was under \"{}\" ({} to {})",
                c.supplier.document,
                s.kind,
                s.starts_on.map_or_else(|| "?".into(), |d| d.to_string()),
                s.ends_on.map_or_else(|| "indefinite".into(), |d| d.to_string())
            );
            out.push(one(Scheme::SanctionedSigning, c, what));
            continue;
        }
        if law::is_dispensa(&c.modality) {
            for engineering in [false, true] {
                if let Some((limit, basis, act)) = law::value_limit(signed, engineering)
                    && c.legal_basis.as_str() == basis
                    && c.initial_value > limit
                {
                    let what = format!(
                        "dispensa of R$ {:.2} under {basis} signed on {signed}, limit R$ {limit:.2} per {act}",
                        c.initial_value
                    );
                    out.push(one(Scheme::DispensaOverLimit, c, what));
                }
            }
        }
    }
    out
}
