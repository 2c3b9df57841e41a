//! Generation of clean (unplanted) demo contracts: organ, unit, category, supplier, value,
//! modality, dates and object text, in fixed-size chunks with their own seeded generator so
//! the output does not depend on the number of threads.

use chrono::{Days, NaiveDate};
use rand::Rng;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;

use super::catalog::{PROFILES, Profile};
use super::mix::{CEILING_Z, DURATIONS, MODALITIES, MONTH_WEIGHTS, modality};
use super::objects::{Fill, Seg, push_uint, render};
use super::suppliers::Pool;
use crate::detect::series::days_in_month;
use crate::model::contract::{Contract, Organ, Unit};
use crate::model::intern::{ArcStr, Interner};
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
    /// Compiled object templates, per profile.
    pub templates: Vec<Vec<Vec<Seg>>>,
    /// The fixed texts records repeat (organs, units, modalities, legal bases, budget
    /// elements), each one shared allocation.
    pub texts: Interner,
}

impl World {
    /// The shared copy of a fixed text (a new one if it was not registered).
    pub fn text(&self, text: &str) -> ArcStr {
        self.texts.lookup(text).unwrap_or_else(|| ArcStr::from(text))
    }
    /// An organ as records hold it.
    pub fn organ(&self, info: &OrganInfo) -> Organ {
        Organ { code: self.text(info.code), acronym: self.text(info.acronym), name: self.text(info.name) }
    }
    /// A managing unit as records hold it.
    pub fn unit(&self, unit: &UnitInfo) -> Unit {
        Unit { code: self.text(unit.code), name: self.text(unit.name) }
    }
}

/// Where a generated contract sits, for the post-processing passes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Meta {
    /// Index into `World::organs`.
    pub organ: usize,
    /// Index into [`PROFILES`].
    pub cat: usize,
    /// Which pool the supplier comes from (its own category's, unless a plant moved it).
    pub pool: usize,
    /// Index into that pool.
    pub supplier: usize,
    /// Signing year.
    pub year: i32,
    /// Signing month, 1-12.
    pub month: u32,
    /// The contract's value (kept in step with it).
    pub value: f64,
    /// Index into [`MODALITIES`].
    pub modality: usize,
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
pub fn id_for(idx: usize, rng: &mut ChaCha8Rng) -> String {
    let mut id = String::with_capacity(9);
    push_uint(&mut id, 100_000_000 + idx as u64 * 7 + rng.gen_range(0..7u64), 9);
    id
}

/// A value drawn from the profile's log-normal, below its reference price ceiling.
pub fn draw_value(p: &Profile, rng: &mut ChaCha8Rng) -> f64 {
    let mut z: f64 = rng.sample(StandardNormal);
    while z > CEILING_Z {
        z = rng.sample(StandardNormal);
    }
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
    let modality_index = modality(profile.category, value, rng.r#gen());
    let (modality, legal) = MODALITIES[modality_index];
    let day = rng.gen_range(1..=days_in_month(year, month));
    let signed = NaiveDate::from_ymd_opt(year, month, day).unwrap_or(NaiveDate::MIN);
    let months = DURATIONS[rng.gen_range(0..DURATIONS.len())];
    let published = signed + Days::new(rng.gen_range(1..=8));
    let valid_from = signed + Days::new(rng.gen_range(0..=10));
    let valid_until = valid_from + Days::new(u64::from(months) * 365 / 12);
    let final_value =
        if rng.gen_bool(0.25) { (value * rng.gen_range(1.0..1.25) * 100.0).round() / 100.0 } else { value };
    let y = u64::try_from(year).unwrap_or(0);
    let mut process_number = String::with_capacity(20);
    process_number.push_str(info.code);
    process_number.push('.');
    push_uint(&mut process_number, rng.gen_range(0..1_000_000), 6);
    process_number.push('/');
    push_uint(&mut process_number, y, 4);
    process_number.push('-');
    push_uint(&mut process_number, rng.gen_range(10..100), 2);
    let templates = &world.templates[cat];
    let segs = &templates[rng.gen_range(0..templates.len())];
    let fill = Fill { profile, unit, year, months, process: &process_number };
    let object = render(segs, &fill, rng);
    let mut number = String::with_capacity(10);
    push_uint(&mut number, rng.gen_range(1..100_000), 5);
    number.push('/');
    push_uint(&mut number, y, 4);
    let s = &pool.suppliers[supplier];
    let reference = NaiveDate::from_ymd_opt(2025, 6, 30).unwrap_or(NaiveDate::MIN);
    let contract = Contract {
        id: id_for(idx, rng).into(),
        number: number.into(),
        object: object.into(),
        process_number: process_number.into(),
        legal_basis: world.text(legal),
        situation: if valid_until >= reference { arcstr::literal!("Ativo") } else { arcstr::literal!("Encerrado") },
        modality: world.text(modality),
        supplier: s.party(),
        unit: world.unit(unit),
        organ: world.organ(info),
        initial_value: value,
        final_value,
        signed_on: Some(signed),
        published_on: Some(published),
        valid_from: Some(valid_from),
        valid_until: Some(valid_until),
        amendments: Vec::new(),
        items: Vec::new(),
    };
    (contract, Meta { organ, cat, pool: cat, supplier, year, month, value: final_value, modality: modality_index })
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

/// The contracts of one chunk and their metadata.
type Chunk = (Vec<Contract>, Vec<Meta>);

/// Contracts per chunk; each chunk has its own generator.
const CHUNK: usize = 8192;

/// Generates `n` clean contracts at positions `0..n`, in parallel: each thread takes a
/// contiguous run of chunks, each chunk with its own generator, so the output does not depend
/// on the number of threads. `capacity` reserves room for contracts added later.
pub fn generate(world: &World, seed: u64, n: usize, capacity: usize) -> (Vec<Contract>, Vec<Meta>) {
    let chunks = n.div_ceil(CHUNK);
    let threads = crate::detect::common::cores().clamp(1, chunks.max(1));
    let per_thread = chunks.div_ceil(threads.max(1)).max(1);
    let run = |first: usize, last: usize, reserve: usize| -> Chunk {
        let mut cs = Vec::with_capacity(reserve);
        let mut ms = Vec::with_capacity(reserve);
        for k in first..last {
            let mut rng = ChaCha8Rng::seed_from_u64(seed ^ (k as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
            for idx in k * CHUNK..((k + 1) * CHUNK).min(n) {
                let (c, m) = make(world, &mut rng, idx, Draw::default());
                cs.push(c);
                ms.push(m);
            }
        }
        (cs, ms)
    };
    let first_last = (1..chunks.div_ceil(per_thread)).map(|t| (t * per_thread, ((t + 1) * per_thread).min(chunks)));
    let (mut contracts, mut metas, rest) = std::thread::scope(|s| {
        let run = &run;
        let handles: Vec<_> =
            first_last.map(|(a, b)| s.spawn(move || run(a, b, (b * CHUNK).min(n) - a * CHUNK))).collect();
        let (cs, ms) = run(0, per_thread.min(chunks), capacity.max(n));
        let rest: Vec<Chunk> = handles
            .into_iter()
            .map(|h| match h.join() {
                Ok(v) => v,
                Err(e) => std::panic::resume_unwind(e),
            })
            .collect();
        (cs, ms, rest)
    });
    for (cs, ms) in rest {
        contracts.extend(cs);
        metas.extend(ms);
    }
    (contracts, metas)
}
