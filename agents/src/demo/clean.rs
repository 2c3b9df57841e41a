//! Generation of clean (unplanted) demo contracts: organ, unit, category, supplier, value,
//! modality, dates and object text, in fixed-size chunks with their own seeded generator so
//! the output does not depend on the number of threads.

use chrono::{Days, NaiveDate};
use rand::Rng;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;

use super::catalog::{BOILERPLATE, DURATIONS, MONTH_WEIGHTS, PROFILES, Profile, modality};
use super::suppliers::Pool;
use crate::model::contract::{Contract, Organ, Party, Unit};
use crate::organs::{OrganInfo, UnitInfo};

/// Everything the generator draws from: organs in play and their weights, category weights
/// per organ, the years and the supplier pools.
pub struct World {
    /// Organs in play.
    pub organs: Vec<&'static OrganInfo>,
    /// Cumulative organ weights.
    pub organ_cum: Vec<f64>,
    /// Per organ, cumulative category weights over [`PROFILES`].
    pub cat_cum: Vec<Vec<f64>>,
    /// Years in play.
    pub years: Vec<i32>,
    /// One pool per profile.
    pub pools: Vec<Pool>,
}

/// Where a generated contract sits, for the post-processing passes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Meta {
    /// Index into `World::organs`.
    pub organ: usize,
    /// Index into [`PROFILES`].
    pub cat: usize,
    /// Index into the category's pool.
    pub supplier: usize,
    /// Signing year.
    pub year: i32,
    /// Signing month, 1-12.
    pub month: u32,
}

/// What to generate; `None` fields are drawn.
#[derive(Debug, Clone, Copy, Default)]
pub struct Draw {
    /// Organ index.
    pub organ: Option<usize>,
    /// Category index.
    pub cat: Option<usize>,
    /// Year.
    pub year: Option<i32>,
    /// Month 1-12.
    pub month: Option<u32>,
    /// Supplier index in the category's pool.
    pub supplier: Option<usize>,
    /// Value in R$.
    pub value: Option<f64>,
}

/// Index into cumulative weights for a uniform draw.
pub fn pick(cum: &[f64], u: f64) -> usize {
    cum.partition_point(|c| *c <= u).min(cum.len().saturating_sub(1))
}

/// Cumulative, normalised weights.
pub fn cumulative(weights: impl IntoIterator<Item = f64>) -> Vec<f64> {
    let w: Vec<f64> = weights.into_iter().collect();
    let total: f64 = w.iter().sum();
    let mut acc = 0.0;
    w.iter()
        .map(|x| {
            acc += x / total;
            acc
        })
        .collect()
}

/// The 9-digit id of the contract at position `idx`.
fn id_for(idx: usize, rng: &mut ChaCha8Rng) -> String {
    (100_000_000 + idx as u64 * 7 + rng.gen_range(0..7u64)).to_string()
}

fn days_in_month(year: i32, month: u32) -> u32 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// A value drawn from the profile's log-normal.
pub fn draw_value(p: &Profile, rng: &mut ChaCha8Rng) -> f64 {
    let z: f64 = rng.sample(StandardNormal);
    (p.median * (p.sigma * z).exp() * 100.0).round() / 100.0
}

/// Generates one contract at dataset position `idx`.
pub fn make(world: &World, rng: &mut ChaCha8Rng, idx: usize, d: Draw) -> (Contract, Meta) {
    let organ = d.organ.unwrap_or_else(|| pick(&world.organ_cum, rng.r#gen()));
    let cat = d.cat.unwrap_or_else(|| pick(&world.cat_cum[organ], rng.r#gen()));
    let year = d.year.unwrap_or_else(|| world.years[rng.gen_range(0..world.years.len())]);
    let month = d.month.unwrap_or_else(|| pick_month(rng.r#gen()));
    let pool = &world.pools[cat];
    let supplier = d.supplier.unwrap_or_else(|| pool.pick(rng.r#gen()));
    let profile = &PROFILES[cat];
    let info = world.organs[organ];
    let unit = &info.units[rng.gen_range(0..info.units.len())];
    let value = d.value.unwrap_or_else(|| draw_value(profile, rng));
    let (modality, legal) = modality(profile.category, value, rng.r#gen());
    let day = rng.gen_range(1..=days_in_month(year, month));
    let signed = NaiveDate::from_ymd_opt(year, month, day).unwrap_or(NaiveDate::MIN);
    let months = DURATIONS[rng.gen_range(0..DURATIONS.len())];
    let published = signed + Days::new(rng.gen_range(1..=8));
    let valid_from = signed + Days::new(rng.gen_range(0..=10));
    let valid_until = valid_from + Days::new(u64::from(months) * 365 / 12);
    let final_value = if rng.gen_bool(0.25) { (value * rng.gen_range(1.0..1.25) * 100.0).round() / 100.0 } else { value };
    let template = profile.templates[rng.gen_range(0..profile.templates.len())];
    let object = render(template, profile, rng, unit, year, months);
    let s = &pool.suppliers[supplier];
    let reference = NaiveDate::from_ymd_opt(2025, 6, 30).unwrap_or(NaiveDate::MIN);
    let contract = Contract {
        id: id_for(idx, rng),
        number: format!("{:05}/{}", rng.gen_range(1..100_000u32), year),
        object,
        process_number: format!("{}.{:06}/{}-{:02}", info.code, rng.gen_range(0..1_000_000u32), year, rng.gen_range(10..100u32)),
        legal_basis: legal.to_string(),
        situation: if valid_until >= reference { "Ativo" } else { "Encerrado" }.to_string(),
        modality: modality.to_string(),
        supplier: Party { name: s.name.clone(), document: s.cnpj.clone() },
        unit: Unit { code: unit.code.to_string(), name: unit.name.to_string() },
        organ: Organ { code: info.code.to_string(), acronym: info.acronym.to_string(), name: info.name.to_string() },
        initial_value: value,
        final_value,
        signed_on: Some(signed),
        published_on: Some(published),
        valid_from: Some(valid_from),
        valid_until: Some(valid_until),
    };
    (contract, Meta { organ, cat, supplier, year, month })
}

/// A month 1-12 by the seasonality weights.
pub fn pick_month(u: f64) -> u32 {
    let mut acc = 0.0;
    for (m, w) in MONTH_WEIGHTS.iter().enumerate() {
        acc += w;
        if u < acc {
            return m as u32 + 1;
        }
    }
    12
}

/// Fills a template's slots.
fn render(template: &str, p: &Profile, rng: &mut ChaCha8Rng, unit: &UnitInfo, year: i32, months: u32) -> String {
    use std::fmt::Write;
    let mut out = String::with_capacity(template.len() + 192);
    let mut rest = template;
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        let Some(len) = rest[start..].find('}') else { break };
        let slot = &rest[start + 1..start + len];
        match slot {
            "B" => out.push_str(BOILERPLATE),
            "ITENS" => push_items(&mut out, p.items, rng),
            "UG" => out.push_str(unit.name),
            "CIDADE" => out.push_str(unit.city),
            "QTD" => {
                let _ = write!(out, "{}", rng.gen_range(10..10_000u32));
            }
            "MESES" => {
                let _ = write!(out, "{months}");
            }
            "REF" => {
                let _ = write!(out, "{:05}/{}", rng.gen_range(1..100_000u32), year);
            }
            "LOTE" => {
                let _ = write!(out, "{}", rng.gen_range(1..=40u32));
            }
            other => out.push_str(other),
        }
        rest = &rest[start + len + 1..];
    }
    out.push_str(rest);
    out
}

/// Three distinct items, "A, B E C".
fn push_items(out: &mut String, items: &[&str], rng: &mut ChaCha8Rng) {
    let mut idx = [0usize; 16];
    let n = items.len().min(16);
    for (i, slot) in idx.iter_mut().enumerate().take(n) {
        *slot = i;
    }
    let k = 3.min(n);
    for i in 0..k {
        let j = rng.gen_range(i..n);
        idx.swap(i, j);
    }
    for (i, item) in idx[..k].iter().map(|&j| items[j]).enumerate() {
        if i > 0 {
            out.push_str(if i + 1 == k { " E " } else { ", " });
        }
        out.push_str(item);
    }
}

/// Contracts per chunk; each chunk has its own generator.
const CHUNK: usize = 8192;

/// Generates `n` clean contracts at positions `0..n`, in parallel chunks.
pub fn generate(world: &World, seed: u64, n: usize) -> (Vec<Contract>, Vec<Meta>) {
    let chunks = n.div_ceil(CHUNK);
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get()).clamp(1, chunks.max(1));
    let chunk = |k: usize| -> (Vec<Contract>, Vec<Meta>) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ (k as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        let range = k * CHUNK..((k + 1) * CHUNK).min(n);
        let mut cs = Vec::with_capacity(range.len());
        let mut ms = Vec::with_capacity(range.len());
        for idx in range {
            let (c, m) = make(world, &mut rng, idx, Draw::default());
            cs.push(c);
            ms.push(m);
        }
        (cs, ms)
    };
    let mut parts: Vec<(usize, (Vec<Contract>, Vec<Meta>))> = if threads <= 1 {
        (0..chunks).map(|k| (k, chunk(k))).collect()
    } else {
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads)
                .map(|t| {
                    let chunk = &chunk;
                    s.spawn(move || (t..chunks).step_by(threads).map(|k| (k, chunk(k))).collect::<Vec<_>>())
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| match h.join() {
                    Ok(v) => v,
                    Err(e) => std::panic::resume_unwind(e),
                })
                .collect()
        })
    };
    parts.sort_by_key(|(k, _)| *k);
    let mut contracts = Vec::with_capacity(n);
    let mut metas = Vec::with_capacity(n);
    for (_, (cs, ms)) in parts {
        contracts.extend(cs);
        metas.extend(ms);
    }
    (contracts, metas)
}
