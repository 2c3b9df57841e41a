//! Generation of clean (unplanted) demo contracts: organ, unit, category, supplier, value,
//! modality, dates and object text, in fixed-size chunks with their own seeded generator so
//! the output does not depend on the number of threads.

use chrono::{Days, NaiveDate};
use rand::Rng;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;

use super::catalog::{Profile, market_price};
use super::law;
use super::mix::{CEILING_Z, DURATIONS, MODALITIES, modality};
use super::objects::{Fill, Seg, push_uint, render};
use super::suppliers::Pool;
use crate::model::amendment::ContractItem;
use crate::model::contract::{Contract, Organ, Unit};
use crate::model::intern::{ArcStr, Interner};
use crate::organs::{OrganInfo, UnitInfo};

/// Threads the generator runs on.
pub fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
}

/// Days in a month (28-31).
pub fn days_in_month(year: i32, month: u32) -> u32 {
    let next =
        if month == 12 { NaiveDate::from_ymd_opt(year + 1, 1, 1) } else { NaiveDate::from_ymd_opt(year, month + 1, 1) };
    next.and_then(|d| d.pred_opt()).map_or(28, |d| chrono::Datelike::day(&d))
}

/// Everything the generator draws from: organs in play and their weights, category weights
/// per organ, the years and the supplier pools.
pub struct World {
    /// Organs in play.
    pub organs: Vec<&'static OrganInfo>,
    /// Cumulative organ weights.
    pub organ_cum: Vec<f64>,
    /// What is bought: the normal or the shifted catalogue.
    pub profiles: &'static [Profile],
    /// Per organ, cumulative category weights over `profiles`.
    pub cat_cum: Vec<Vec<f64>>,
    /// Per organ, cumulative month weights (each organ has its own large December).
    pub month_cum: Vec<Vec<f64>>,
    /// Years in play.
    pub years: Vec<i32>,
    /// One pool per profile.
    pub pools: Vec<Pool>,
    /// Compiled object templates, per profile.
    pub templates: Vec<Vec<Vec<Seg>>>,
    /// Per profile, the shared description of each of its items (no lookup per contract).
    pub item_texts: Vec<Vec<ArcStr>>,
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
    /// Index into `World::profiles`.
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

/// The items of a purchase of about `budget`: one to three items of the profile, each at its
/// market unit price with a clean spread of about 12% (what different buyers obtain), the
/// quantities the budget buys. Returns the items and their total, the contract's value.
pub fn items_for(world: &World, cat: usize, budget: f64, rng: &mut ChaCha8Rng) -> (Vec<ContractItem>, f64) {
    let profile = &world.profiles[cat];
    let n = rng.gen_range(1..=3usize).min(profile.items.len());
    let mut items = Vec::with_capacity(n);
    let mut total = 0.0;
    let first = rng.gen_range(0..profile.items.len());
    let weights: [f64; 3] = [rng.gen_range(0.5..1.5), rng.gen_range(0.5..1.5), rng.gen_range(0.5..1.5)];
    let sum: f64 = weights[..n].iter().sum();
    for (j, w) in weights[..n].iter().enumerate() {
        let k = (first + j * 5) % profile.items.len();
        let z: f64 = rng.sample(StandardNormal);
        let price = (market_price(profile, k) * (0.12 * z.clamp(-2.5, 2.5)).exp() * 100.0).round() / 100.0;
        let quantity = (budget * w / sum / price).round().max(1.0);
        let value = (quantity * price * 100.0).round() / 100.0;
        total += value;
        items.push(ContractItem {
            code: item_code(k),
            description: world.item_texts[cat][k].clone(),
            complement: ArcStr::new(),
            quantity,
            value,
        });
    }
    (items, (total * 100.0).round() / 100.0)
}

/// The catalogue code (CATMAT/CATSER-like) of the item at position `k` of its profile.
fn item_code(k: usize) -> ArcStr {
    // Static literals: cloning them allocates nothing.
    const CODES: [ArcStr; 12] = [
        arcstr::literal!("401001"),
        arcstr::literal!("401002"),
        arcstr::literal!("401003"),
        arcstr::literal!("401004"),
        arcstr::literal!("401005"),
        arcstr::literal!("401006"),
        arcstr::literal!("401007"),
        arcstr::literal!("401008"),
        arcstr::literal!("401009"),
        arcstr::literal!("401010"),
        arcstr::literal!("401011"),
        arcstr::literal!("401012"),
    ];
    CODES[k % CODES.len()].clone()
}

/// Unit price of an item (its value over its quantity).
pub fn unit_price(item: &ContractItem) -> f64 {
    if item.quantity > 0.0 { item.value / item.quantity } else { item.value }
}

/// Generates one contract at dataset position `idx`.
pub fn make(world: &World, rng: &mut ChaCha8Rng, idx: usize) -> (Contract, Meta) {
    let organ = pick(&world.organ_cum, rng.r#gen());
    let cat = pick(&world.cat_cum[organ], rng.r#gen());
    let year = world.years[rng.gen_range(0..world.years.len())];
    let month = pick(&world.month_cum[organ], rng.r#gen()) as u32 + 1;
    let pool = &world.pools[cat];
    let supplier = pool.pick(rng.r#gen());
    let profile = &world.profiles[cat];
    let info = world.organs[organ];
    let unit = &info.units[rng.gen_range(0..info.units.len())];
    let (items, value) = items_for(world, cat, draw_value(profile, rng), rng);
    let day = rng.gen_range(1..=days_in_month(year, month));
    let signed = NaiveDate::from_ymd_opt(year, month, day).unwrap_or(NaiveDate::MIN);
    let engineering = profile.category.is_engineering();
    let (limit, value_basis, _) = law::value_limit(signed, engineering).unwrap_or((0.0, String::new(), ""));
    let modality_index = modality(profile.category, value, limit, rng.r#gen());
    let (modality, legal) = MODALITIES[modality_index];
    let legal = if law::is_dispensa(modality) { world.text(&value_basis) } else { world.text(legal) };
    let months = DURATIONS[rng.gen_range(0..DURATIONS.len())];
    let published = signed + Days::new(rng.gen_range(1..=8));
    let valid_from = signed + Days::new(rng.gen_range(0..=10));
    let valid_until = valid_from + Days::new(u64::from(months) * 365 / 12);
    let final_value = value;
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
        legal_basis: legal,
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
        items,
    };
    (contract, Meta { organ, cat, pool: cat, supplier, year, month, value: final_value, modality: modality_index })
}

/// The contracts of one chunk and their metadata.
type Chunk = (Vec<Contract>, Vec<Meta>);

/// Contracts per chunk; each chunk has its own generator.
const CHUNK: usize = 8192;

/// Generates `n` clean contracts at positions `0..n`, in parallel: each thread takes a
/// contiguous run of chunks, each chunk with its own generator, so the output does not depend
/// on the number of threads. `capacity` reserves room for contracts added later. Stops early
/// (with fewer contracts) when `stop` answers true, asked before every chunk.
pub fn generate(
    world: &World,
    seed: u64,
    n: usize,
    capacity: usize,
    stop: &(dyn Fn() -> bool + Sync),
) -> (Vec<Contract>, Vec<Meta>) {
    let chunks = n.div_ceil(CHUNK);
    let threads = cores().clamp(1, chunks.max(1));
    let per_thread = chunks.div_ceil(threads.max(1)).max(1);
    let run = |first: usize, last: usize, reserve: usize| -> Chunk {
        let mut cs = Vec::with_capacity(reserve);
        let mut ms = Vec::with_capacity(reserve);
        for k in first..last {
            if stop() {
                break;
            }
            let mut rng = ChaCha8Rng::seed_from_u64(seed ^ (k as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
            for idx in k * CHUNK..((k + 1) * CHUNK).min(n) {
                let (c, m) = make(world, &mut rng, idx);
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
