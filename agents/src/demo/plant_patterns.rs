//! Pattern, temporal and text plants of the demo data, labelled with what was
//! planted, and the legitimate noise around them.
//!
//! Noise (not labelled, must not be flagged): 5% of the clean, never amended contracts priced
//! in round thousands (as real contracts often are), so only a supplier with a real excess of
//! round values stands out.
//!
//! Plants (at least one each from 200 contracts on, more with the size): suppliers with most
//! of their contract values rounded; suppliers whose values were nudged to
//! start with 7, 8 or 9; continuing services above the direct-purchase limit lasting a few
//! days; the temporal plants of [`plant_temporal`]; contracts
//! published before signing, retroactive or with their
//! validity inverted; generic objects without item lists above the direct-purchase limit;
//! brands demanded (exclusivity, refusal of other brands) in purchases of goods; the same
//! purchase process contracted twice, with another
//! supplier, at about the same value and time. Plants never raise a dispensa's value
//! (it stays under the legal limit) nor touch a contract another plant used.

use std::collections::HashMap;

use chrono::{Datelike, Days, NaiveDate};
use rand::Rng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use super::catalog::Category;
use super::labels::{Planted, Scheme, label};
use super::law;
use super::plant::{Field, Plan};
use super::plant_temporal;
use crate::model::anomaly::AnomalyType;

/// Plants every kind of this module (see the module doc) and returns their labels.
pub fn plant(f: &mut Field<'_>, plan: &Plan, rng: &mut ChaCha8Rng) -> Vec<Planted> {
    let n = f.contracts.len();
    if n == 0 {
        return Vec::new();
    }
    round_noise(f, rng);
    let per = |rate: f64, min: usize| ((n as f64 * rate).round() as usize).max(if n >= 200 { min } else { 0 });
    let mut out = Vec::new();
    out.extend(round_suppliers(f, per(1.0 / 25_000.0, 1), rng));
    out.extend(benford_suppliers(f, per(1.0 / 25_000.0, 1), rng));
    out.extend(short_contracts(f, per(0.0008, 1), rng));
    out.extend(date_errors(f, per(0.0012, 3), rng));
    out.extend(vague_objects(f, per(0.0008, 1), rng));
    out.extend(brands(f, per(0.0008, 1), rng));
    if n >= 200 {
        out.extend(plant_temporal::plant(f, plan, per(1.0 / 60_000.0, 1), rng));
    }
    out.extend(cross_duplicates(f, per(1.0 / 2_500.0, 1), rng));
    out
}

/// Whether a contract is free for a plant (unused, signed).
pub(super) fn free(f: &Field<'_>, i: usize) -> bool {
    !f.used.contains(&i) && f.contracts[i].signed_on.is_some()
}

pub(super) fn is_dispensa(f: &Field<'_>, i: usize) -> bool {
    f.contracts[i].modality.starts_with("Dispensa")
}

/// Whether a contract comes from a bidding that awards its object to one supplier: a pregão or
/// concorrência that is not a registro de preços.
fn single_award(f: &Field<'_>, i: usize) -> bool {
    let m = f.contracts[i].modality.as_str();
    super::law::is_competitive(m) && !m.contains("Registro")
}

/// Sets a contract's initial value, its items and amendments following in proportion.
fn set_values(f: &mut Field<'_>, i: usize, value: f64) {
    let factor = value / f.contracts[i].initial_value.max(0.01);
    super::edit::scale(&mut f.contracts[i], &mut f.metas[i], factor);
    let c = &mut f.contracts[i];
    c.initial_value = (value * 100.0).round() / 100.0;
    if c.amendments.is_empty() {
        c.final_value = c.initial_value;
    }
    f.metas[i].value = c.value();
}

/// Rounds a value down to R$ 1.000 (R$ 10.000 from R$ 100.000 on).
fn floor_round(v: f64) -> f64 {
    let unit = if v >= 100_000.0 { 10_000.0 } else { 1_000.0 };
    ((v / unit).floor() * unit).max(1_000.0)
}

/// Rounds 5% of the clean contracts that were never amended (final value equal to the
/// initial one), so no amendment ratio changes.
fn round_noise(f: &mut Field<'_>, rng: &mut ChaCha8Rng) {
    for i in 0..f.contracts.len() {
        let c = &f.contracts[i];
        let unamended = c.final_value == c.initial_value;
        if free(f, i) && unamended && c.initial_value >= 1_000.0 && rng.gen_bool(0.05) {
            let v = floor_round(c.initial_value);
            set_values(f, i, v);
        }
    }
}

/// Free contracts per supplier document, suppliers in a random order.
fn by_supplier(f: &Field<'_>, rng: &mut ChaCha8Rng) -> Vec<(String, Vec<usize>, usize)> {
    let mut groups: HashMap<&str, (Vec<usize>, usize)> = HashMap::new();
    for (i, c) in f.contracts.iter().enumerate() {
        let e = groups.entry(c.supplier.document.as_str()).or_default();
        e.1 += 1;
        if free(f, i) {
            e.0.push(i);
        }
    }
    let mut out: Vec<(String, Vec<usize>, usize)> =
        groups.into_iter().map(|(k, (free, all))| (k.to_string(), free, all)).collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out.shuffle(rng);
    out
}

/// Suppliers with most of their values rounded down to round thousands.
fn round_suppliers(f: &mut Field<'_>, count: usize, rng: &mut ChaCha8Rng) -> Vec<Planted> {
    let mut out = Vec::new();
    for (doc, free_idx, all) in by_supplier(f, rng) {
        if out.len() >= count {
            break;
        }
        if all < 14 || free_idx.len() * 10 < all * 9 || all > 400 {
            continue;
        }
        let mut ids = Vec::new();
        for &i in &free_idx {
            if f.contracts[i].initial_value >= 1_000.0 && rng.gen_bool(0.8) {
                let v = floor_round(f.contracts[i].initial_value);
                // A rounded contract that was never amended: its value stays round.
                f.contracts[i].amendments.clear();
                set_values(f, i, v);
                f.used.insert(i);
                ids.push(f.contracts[i].id.to_string());
            }
        }
        let what =
            format!("supplier {doc}: {} of its {all} contract values rounded down to round thousands", ids.len());
        out.push(label(Scheme::RoundedValues, AnomalyType::PatternAnomaly, ids, Some(doc), what));
    }
    out
}

/// The closest value to `v` whose first digit is 7, 8 or 9, at most 15% above it (never above
/// for a dispensa), else the largest below it.
fn leading_seven_to_nine(v: f64, may_rise: bool, rng: &mut ChaCha8Rng) -> f64 {
    let e = 10f64.powi(v.log10().floor() as i32);
    let m = v / e;
    if m >= 7.0 {
        return v;
    }
    if may_rise && m * 1.15 >= 7.0 {
        return e * rng.gen_range(7.0..(m * 1.15).min(7.99));
    }
    e * rng.gen_range(0.90..0.99)
}

/// Suppliers whose values were nudged to start with 7, 8 or 9.
fn benford_suppliers(f: &mut Field<'_>, count: usize, rng: &mut ChaCha8Rng) -> Vec<Planted> {
    let mut out = Vec::new();
    for (doc, free_idx, all) in by_supplier(f, rng) {
        if out.len() >= count {
            break;
        }
        if all < 40 || free_idx.len() * 10 < all * 9 || all > 600 {
            continue;
        }
        let mut ids = Vec::new();
        for &i in &free_idx {
            let v = f.contracts[i].initial_value;
            if v < 10.0 {
                continue;
            }
            let rise = !is_dispensa(f, i);
            let target = (leading_seven_to_nine(v, rise, rng) * 100.0).round() / 100.0;
            set_values(f, i, target);
            f.used.insert(i);
            ids.push(f.contracts[i].id.to_string());
        }
        let what = format!("supplier {doc}: {} contract values nudged to start with 7, 8 or 9", ids.len());
        out.push(label(Scheme::FirstDigits, AnomalyType::PatternAnomaly, ids, Some(doc), what));
    }
    out
}

/// Picks up to `count` free contracts passing `ok`, at random, and marks them used.
fn pick(f: &mut Field<'_>, count: usize, rng: &mut ChaCha8Rng, ok: impl Fn(&Field<'_>, usize) -> bool) -> Vec<usize> {
    let n = f.contracts.len();
    let mut out = Vec::new();
    let mut attempts = 0;
    while out.len() < count && attempts < count * 200 + 200 {
        attempts += 1;
        let i = rng.gen_range(0..n);
        if free(f, i) && ok(f, i) {
            f.used.insert(i);
            out.push(i);
        }
    }
    out
}

/// Whether a contract's value at signing is more than the direct-purchase limit of its signing
/// date (the demo's own table of the law), so a one-line record of it is not the routine of a
/// small purchase.
fn above_direct_limit(f: &Field<'_>, i: usize) -> bool {
    let c = &f.contracts[i];
    let engineering = f.world.profiles[f.metas[i].cat].category.is_engineering();
    c.signed_on.and_then(|d| law::value_limit(d, engineering)).is_some_and(|l| c.initial_value > l.0)
}

/// Continuing services (cleaning, security, IT, meals: contracted for years) of more than the
/// direct-purchase limit made to last one to four days. A short vigência is routine for an
/// event or a single delivery of goods, so only continuing services are planted; their
/// renewals are dropped (a prorrogação would say the contract runs on).
fn short_contracts(f: &mut Field<'_>, count: usize, rng: &mut ChaCha8Rng) -> Vec<Planted> {
    pick(f, count, rng, |f, i| {
        f.contracts[i].valid_from.is_some()
            && f.world.profiles[f.metas[i].cat].category.is_continuing_service()
            && above_direct_limit(f, i)
    })
    .into_iter()
    .map(|i| {
        let c = &mut f.contracts[i];
        let days = rng.gen_range(1..=4);
        c.amendments.clear();
        c.final_value = c.initial_value;
        c.valid_until = c.valid_from.map(|d| d + Days::new(days));
        f.metas[i].value = c.value();
        let what = format!("continuing service of R$ {:.2} made to last {days} days", c.value());
        label(Scheme::ShortContract, AnomalyType::PatternAnomaly, vec![c.id.to_string()], None, what)
    })
    .collect()
}

/// Contracts published before signing, retroactive, or with their validity inverted.
fn date_errors(f: &mut Field<'_>, count: usize, rng: &mut ChaCha8Rng) -> Vec<Planted> {
    pick(f, count, rng, |f, i| f.contracts[i].valid_from.is_some() && f.contracts[i].valid_until.is_some())
        .into_iter()
        .enumerate()
        .map(|(k, i)| {
            let c = &mut f.contracts[i];
            let signed = c.signed_on.unwrap_or(NaiveDate::MIN);
            let what = match k % 3 {
                0 => {
                    c.published_on = Some(signed - Days::new(rng.gen_range(6..45)));
                    "published before it was signed"
                }
                1 => {
                    c.valid_from = Some(signed - Days::new(rng.gen_range(90..300)));
                    "in force 90-300 days before it was signed"
                }
                _ => {
                    let from = c.valid_from.unwrap_or(signed);
                    c.valid_until = Some(from - Days::new(rng.gen_range(30..200)));
                    "ending before it starts"
                }
            };
            label(Scheme::DateError, AnomalyType::TemporalAnomaly, vec![c.id.to_string()], None, what.to_string())
        })
        .collect()
}

const GENERIC_OBJECTS: &[&str] = &[
    "AQUISIÇÃO DE MATERIAL",
    "PRESTAÇÃO DE SERVIÇOS DIVERSOS",
    "MATERIAL DE CONSUMO",
    "FORNECIMENTO DE MATERIAIS DIVERSOS",
    "CONTRATAÇÃO DE EMPRESA ESPECIALIZADA",
    "SERVIÇOS GERAIS",
    "AQUISIÇÃO DE BENS E MATERIAIS",
];

/// Objects of contracts above the direct-purchase limit replaced by a generic phrase, their
/// item lists dropped: nothing in the record says what was bought. (A contract whose items are
/// listed is specified by them, and under the limit a one-line summary is the usual record.)
fn vague_objects(f: &mut Field<'_>, count: usize, rng: &mut ChaCha8Rng) -> Vec<Planted> {
    pick(f, count, rng, |f, i| above_direct_limit(f, i) && !f.contracts[i].modality.starts_with("Inexig"))
        .into_iter()
        .map(|i| {
            let c = &mut f.contracts[i];
            c.object = GENERIC_OBJECTS[rng.gen_range(0..GENERIC_OBJECTS.len())].into();
            c.items.clear();
            let what = format!("object of a R$ {:.2} contract replaced by \"{}\", items dropped", c.value(), c.object);
            label(Scheme::VagueObject, AnomalyType::PatternAnomaly, vec![c.id.to_string()], None, what)
        })
        .collect()
}

/// Brands demanded in purchases and rentals of goods, where any maker's product would serve:
/// an exclusivity clause or a refusal of other brands appended to the object. Naming the brand
/// bought (", MARCA X") records the award, not a restriction, so it is not planted; nor are
/// software, services or works, where the maker may identify what is bought, nor
/// inexigibilidades.
fn brands(f: &mut Field<'_>, count: usize, rng: &mut ChaCha8Rng) -> Vec<Planted> {
    const CLAUSES: &[&str] = &[
        ", EXCLUSIVAMENTE DA MARCA {B}",
        ", MARCA {B}, SEM ACEITAÇÃO DE SIMILARES",
        ", MARCA {B}. NÃO SERÃO ACEITOS PRODUTOS DE OUTRAS MARCAS",
    ];
    let brands_of = |cat: Category| -> &'static [&'static str] {
        match cat {
            Category::Expediente => &["CHAMEX", "HP", "EPSON", "CANON"],
            Category::EquipamentosHospitalares => &["PHILIPS", "SIEMENS", "MINDRAY"],
            Category::Veiculos => &["TOYOTA", "FIAT", "VOLKSWAGEN"],
            _ => &[],
        }
    };
    // An inexigibilidade names its exclusive maker as its ground: no competition to restrict.
    pick(f, count, rng, |f, i| {
        !brands_of(f.world.profiles[f.metas[i].cat].category).is_empty()
            && !law::is_inexigibilidade(&f.contracts[i].modality)
    })
    .into_iter()
    .map(|i| {
        let names = brands_of(f.world.profiles[f.metas[i].cat].category);
        let clause = CLAUSES[rng.gen_range(0..CLAUSES.len())].replace("{B}", names[rng.gen_range(0..names.len())]);
        let c = &mut f.contracts[i];
        c.object = arcstr::format!("{}{clause}", c.object);
        let what = format!("brand demanded without accepting an equivalent (Lei 14.133 art. 41, I): \"{clause}\"");
        label(Scheme::BrandRequirement, AnomalyType::ComplianceViolation, vec![c.id.to_string()], None, what)
    })
    .collect()
}

/// Pairs of one organ's contracts of the same category and year with different suppliers,
/// the second made a near-copy of the first: the same purchase process (its number, modality
/// and legal basis) and the same purchase items in like quantities, its object with one word or
/// number changed, a value within 5%, and a signing date 1-30 days later in the same year. The
/// first is a bidding meant to award one supplier (a pregão or concorrência, not an ata de
/// registro de preços, which may register several; direct purchases stay under the limit), so
/// a second contract of the same items from another supplier is the purchase made twice.
fn cross_duplicates(f: &mut Field<'_>, count: usize, rng: &mut ChaCha8Rng) -> Vec<Planted> {
    let mut out = Vec::new();
    let n = f.contracts.len();
    let mut attempts = 0;
    while out.len() < count && attempts < count * 200 + 200 && n > 1 {
        attempts += 1;
        let i = rng.gen_range(0..n);
        let Some(signed) = f.contracts[i].signed_on else { continue };
        if !free(f, i) || !single_award(f, i) {
            continue;
        }
        let (organ, year, cat) = (f.metas[i].organ, f.metas[i].year, f.metas[i].cat);
        let doc = f.contracts[i].supplier.document.clone();
        let Some(&j) = f.groups.get(&(organ, year)).and_then(|g| {
            g.iter().find(|&&j| {
                j != i
                    && free(f, j)
                    && !is_dispensa(f, j)
                    && f.metas[j].cat == cat
                    && f.contracts[j].supplier.document != doc
            })
        }) else {
            continue;
        };
        let days = rng.gen_range(1..=30u64);
        let Some(to) = signed.checked_add_days(Days::new(days)).filter(|d| d.year() == year) else { continue };
        super::plant_temporal::move_to(f, j, to);
        f.contracts[j].object = super::plant::edit_object(&f.contracts[i].object, rng).into();
        // The same purchase process contracted twice: its items in like quantities (scaled to
        // j's value here, then with it below).
        let (from, share) =
            (f.contracts[i].clone(), f.contracts[j].initial_value / f.contracts[i].initial_value.max(0.01));
        let c = &mut f.contracts[j];
        c.process_number = from.process_number;
        c.modality = from.modality;
        c.legal_basis = from.legal_basis;
        c.items = from.items;
        for item in &mut c.items {
            item.quantity *= share;
            item.value = (item.value * share * 100.0).round() / 100.0;
        }
        // set_values keeps j's amendment ratio (final over initial): aim its final value.
        let c = &f.contracts[j];
        let ratio = if c.initial_value > 0.0 { c.final_value / c.initial_value } else { 1.0 };
        set_values(f, j, f.contracts[i].value() * rng.gen_range(0.95..1.05) / ratio);
        f.used.insert(i);
        f.used.insert(j);
        let ids = vec![f.contracts[i].id.to_string(), f.contracts[j].id.to_string()];
        let what = format!(
            "process {} contracted twice by organ {}: {} with {doc} and {} with {}, value within 5%, {days} days apart",
            f.contracts[i].process_number, f.world.organs[organ].code, ids[0], ids[1], f.contracts[j].supplier.document
        );
        out.push(label(
            Scheme::CopiedContract,
            AnomalyType::PatternAnomaly,
            ids,
            Some(f.world.organs[organ].code.to_string()),
            what,
        ));
    }
    out
}
