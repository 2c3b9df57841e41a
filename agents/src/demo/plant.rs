//! The planted, labelled anomalies of the demo data: overpriced contracts, a supplier holding
//! most of an organ-year, an organ-year crowded into December, and near-copies of contracts.

use std::collections::{HashMap, HashSet};

use chrono::{Datelike, Days};
use rand::Rng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use super::Planted;
use super::balance::{Groups, reassign, scale, total};
use super::catalog::{PROFILES, mean_value};
use super::clean::{Meta, World, id_for};
use crate::detect::stats::median;
use crate::detect::{concentration as conc, duplicates as dup, price as pz, temporal};
use crate::model::anomaly::AnomalyType;
use crate::model::contract::Contract;

/// What will be planted, decided before the clean data is generated.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    /// Overpriced contracts.
    pub price: usize,
    /// Duplicated contracts.
    pub duplicates: usize,
    /// Concentration plants.
    pub concentration: Vec<GroupPlan>,
    /// End-of-year plants.
    pub end_of_year: Vec<GroupPlan>,
}

/// One organ-year plant.
#[derive(Debug, Clone, Copy)]
pub struct GroupPlan {
    /// Organ index in the world.
    pub organ: usize,
    /// Year.
    pub year: i32,
    /// Target share (of the supplier, or of December).
    pub share: f64,
    /// Category of the concentrated supplier (concentration only).
    pub cat: usize,
    /// Supplier index in the category pool (concentration only).
    pub supplier: usize,
}

impl Plan {
    /// Contracts the plan adds on top of the clean ones (the copies).
    pub fn extras(&self) -> usize {
        self.duplicates
    }
}

/// Decides the plants for a dataset of `n` contracts.
pub fn plan(world: &World, n: usize, rng: &mut ChaCha8Rng) -> Plan {
    let round = |x: f64| x.round() as usize;
    if n < 200 {
        return Plan { price: round(n as f64 * 0.005), duplicates: round(n as f64 * 0.003), ..Plan::default() };
    }
    let keys: Vec<(usize, i32)> =
        (0..world.organs.len()).flat_map(|o| world.years.iter().map(move |y| (o, *y))).collect();
    let groups = (round(n as f64 / 4000.0)).clamp(1, (keys.len() / 4).max(1));
    let weight = |o: usize| world.organ_cum[o] - if o == 0 { 0.0 } else { world.organ_cum[o - 1] };
    // Weighted order without replacement: larger organs first, by chance.
    let mut scored: Vec<(f64, (usize, i32))> =
        keys.into_iter().map(|k| (rng.r#gen::<f64>().powf(1.0 / weight(k.0).max(1e-9)), k)).collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let order: Vec<(usize, i32)> = scored.into_iter().map(|(_, k)| k).collect();
    let mut concentration = Vec::new();
    for &(organ, year) in order.iter().take(groups) {
        let cum = &world.cat_cum[organ];
        let mut cats: Vec<(f64, usize)> = (0..PROFILES.len())
            .map(|c| ((cum[c] - if c == 0 { 0.0 } else { cum[c - 1] }) * mean_value(&PROFILES[c]), c))
            .collect();
        cats.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let cat = cats[rng.gen_range(0..3.min(cats.len()))].1;
        let size = world.pools[cat].suppliers.len();
        let supplier = rng.gen_range(2.min(size - 1)..10.min(size));
        concentration.push(GroupPlan { organ, year, share: rng.gen_range(0.40..0.50), cat, supplier });
    }
    let skip = if order.len() > groups { groups } else { 0 };
    let end_of_year = order
        .iter()
        .skip(skip)
        .take(groups)
        .map(|&(organ, year)| GroupPlan { organ, year, share: rng.gen_range(0.35..0.42), cat: 0, supplier: 0 })
        .collect();
    Plan {
        price: round(n as f64 * 0.005).max(1),
        duplicates: round(n as f64 * 0.003).max(1),
        concentration,
        end_of_year,
    }
}

/// The data being planted into.
pub struct Field<'a> {
    /// Contracts so far.
    pub contracts: Vec<Contract>,
    /// Their metadata.
    pub metas: Vec<Meta>,
    /// The world they come from.
    pub world: &'a World,
    /// Positions already used by a plant.
    pub used: HashSet<usize>,
    /// Positions per organ-year, kept up to date as contracts are added.
    pub groups: Groups,
}

impl Field<'_> {
    /// The positions of an organ-year's contracts.
    fn group(&self, organ: usize, year: i32) -> &[usize] {
        self.groups.get(&(organ, year)).map_or(&[], Vec::as_slice)
    }
}

/// Median value of the clean contracts of each (category, modality) peer group.
/// Groups of fewer than [`MIN_PEERS`] contracts are left out (the detector would fall back to
/// a coarser baseline for them).
fn peer_medians(f: &Field<'_>) -> HashMap<(usize, usize), f64> {
    let mut groups: HashMap<(usize, usize), Vec<f64>> = HashMap::new();
    for m in &f.metas {
        groups.entry((m.cat, m.modality)).or_default().push(m.value);
    }
    groups.into_iter().filter(|(_, v)| v.len() >= MIN_PEERS).map(|(k, v)| (k, median(&v))).collect()
}

/// Fewest contracts in a peer group for one of its members to be overpriced on purpose.
const MIN_PEERS: usize = 20;

/// Prices `count` contracts at 5-20 times the median of their peer group (same category and
/// modality), never above 8% of their organ-year so they do not also make a concentration.
pub fn price(f: &mut Field<'_>, count: usize, rng: &mut ChaCha8Rng) -> Vec<Planted> {
    let totals: HashMap<(usize, i32), f64> = f.groups.iter().map(|(k, idx)| (*k, total(&f.metas, idx))).collect();
    let medians = peer_medians(f);
    let mut out = Vec::new();
    let n = f.contracts.len();
    let mut attempts = 0;
    while out.len() < count && attempts < count * 100 + 100 && n > 0 {
        attempts += 1;
        let i = rng.gen_range(0..n);
        let p = &PROFILES[f.metas[i].cat];
        if f.used.contains(&i) || p.median > 450_000.0 {
            continue;
        }
        let Some(&peer) = medians.get(&(f.metas[i].cat, f.metas[i].modality)) else { continue };
        let key = (f.metas[i].organ, f.metas[i].year);
        let t = totals.get(&key).copied().unwrap_or(0.0);
        let max = (0.08 * t / peer).min(20.0);
        if max < 6.0 {
            continue;
        }
        let mult = rng.gen_range(5.0f64.ln()..max.ln()).exp();
        let c = &mut f.contracts[i];
        c.initial_value = (peer * mult * 100.0).round() / 100.0;
        c.final_value = c.initial_value;
        f.metas[i].value = c.final_value;
        f.used.insert(i);
        out.push(Planted {
            detector: pz::NAME,
            kind: AnomalyType::PriceAnomaly,
            record_ids: vec![c.id.clone().to_string()],
            entity_id: None,
        });
    }
    out
}

/// Copies `count` contracts: same supplier, one word or number of the object changed, value
/// within 5%, signed within 30 days.
pub fn duplicates(f: &mut Field<'_>, count: usize, rng: &mut ChaCha8Rng) -> Vec<Planted> {
    let mut out = Vec::new();
    let n = f.contracts.len();
    let mut attempts = 0;
    while out.len() < count && attempts < count * 100 + 100 && n > 0 {
        attempts += 1;
        let i = rng.gen_range(0..n);
        if f.used.contains(&i) {
            continue;
        }
        let mut copy = f.contracts[i].clone();
        let Some(signed) = copy.signed_on else { continue };
        let days = rng.gen_range(1..=30u64);
        let shifted = signed + Days::new(days);
        let new_signed = if shifted.year() == signed.year() { shifted } else { signed - Days::new(days) };
        let delta = new_signed.signed_duration_since(signed);
        let shift = |d: Option<chrono::NaiveDate>| d.map(|d| d + delta);
        copy.published_on = shift(copy.published_on);
        copy.valid_from = shift(copy.valid_from);
        copy.valid_until = shift(copy.valid_until);
        copy.signed_on = Some(new_signed);
        copy.object = edit_object(&copy.object, rng).into();
        let factor = rng.gen_range(0.95..1.05);
        let mut meta = f.metas[i];
        scale(&mut copy, &mut meta, factor);
        let idx = f.contracts.len();
        copy.id = id_for(idx, rng).into();
        copy.number = arcstr::format!("{:05}/{}", rng.gen_range(1..100_000u32), new_signed.year());
        meta.month = new_signed.month();
        f.used.insert(i);
        f.used.insert(idx);
        out.push(Planted {
            detector: dup::NAME,
            kind: AnomalyType::PatternAnomaly,
            record_ids: vec![f.contracts[i].id.clone().to_string(), copy.id.clone().to_string()],
            entity_id: Some(copy.supplier.document.clone().to_string()),
        });
        f.contracts.push(copy);
        f.metas.push(meta);
        f.groups.entry((meta.organ, meta.year)).or_default().push(idx);
    }
    out
}

/// Changes one number or one word of an object text.
pub(super) fn edit_object(object: &str, rng: &mut ChaCha8Rng) -> String {
    const SYNONYMS: &[(&str, &str)] = &[
        ("AQUISIÇÃO", "COMPRA"),
        ("FORNECIMENTO", "ENTREGA"),
        ("CONFORME", "SEGUNDO"),
        ("ESTIMADA", "PREVISTA"),
        ("ESTIMATIVA", "PREVISÃO"),
        ("CONTRATAÇÃO", "CONTRATO"),
        ("UNIDADES", "PEÇAS"),
    ];
    let mut words: Vec<String> = object.split(' ').map(str::to_string).collect();
    let numbers: Vec<usize> = (0..words.len())
        .filter(|&k| !words[k].is_empty() && words[k].len() <= 4 && words[k].bytes().all(|b| b.is_ascii_digit()))
        .collect();
    let synonyms: Vec<usize> = (0..words.len()).filter(|&k| SYNONYMS.iter().any(|(a, _)| *a == words[k])).collect();
    if !synonyms.is_empty() && (numbers.is_empty() || rng.gen_bool(0.5)) {
        if let Some(&k) = synonyms.choose(rng)
            && let Some((_, b)) = SYNONYMS.iter().find(|(a, _)| *a == words[k])
        {
            words[k] = (*b).to_string();
        }
    } else if let Some(&k) = numbers.choose(rng) {
        let v: u32 = words[k].parse().unwrap_or(0);
        words[k] = (v + rng.gen_range(1..10)).to_string();
    } else {
        words.push("COMPLEMENTAR".to_string());
    }
    words.join(" ")
}

/// Positions of an organ-year's contracts not used by another plant, shuffled.
fn shuffled_free(f: &Field<'_>, organ: usize, year: i32, rng: &mut ChaCha8Rng) -> Vec<usize> {
    let mut idx: Vec<usize> = f.group(organ, year).iter().copied().filter(|i| !f.used.contains(i)).collect();
    idx.shuffle(rng);
    idx
}

/// Gives one supplier contracts of an organ-year (a bid-rigging winner across the organ's
/// purchases) until it holds the planned share of the organ-year's value.
pub fn concentration(f: &mut Field<'_>, g: &GroupPlan, rng: &mut ChaCha8Rng) {
    let all = f.group(g.organ, g.year);
    let t = total(&f.metas, all);
    let is_ours = |m: &Meta| m.pool == g.cat && m.supplier == g.supplier;
    let mut own: f64 = all.iter().filter(|&&i| is_ours(&f.metas[i])).map(|&i| f.metas[i].value).sum();
    for i in shuffled_free(f, g.organ, g.year, rng) {
        if own >= g.share * t {
            break;
        }
        if is_ours(&f.metas[i]) {
            continue;
        }
        own += f.metas[i].value;
        reassign(&mut f.contracts[i], &mut f.metas[i], f.world, g.cat, g.supplier);
    }
}

/// Moves contracts of an organ-year into December until December holds the planned share of
/// its value (a rush to spend the budget before the year closes).
pub fn end_of_year(f: &mut Field<'_>, g: &GroupPlan, rng: &mut ChaCha8Rng) {
    let all = f.group(g.organ, g.year);
    let t = total(&f.metas, all);
    let mut december: f64 = all.iter().filter(|&&i| f.metas[i].month == 12).map(|&i| f.metas[i].value).sum();
    for i in shuffled_free(f, g.organ, g.year, rng) {
        if december >= g.share * t {
            break;
        }
        if f.metas[i].month == 12 {
            continue;
        }
        let c = &mut f.contracts[i];
        let Some(signed) = c.signed_on else { continue };
        let Some(new_signed) = chrono::NaiveDate::from_ymd_opt(g.year, 12, rng.gen_range(1..=31)) else { continue };
        let delta = new_signed.signed_duration_since(signed);
        c.published_on = c.published_on.map(|d| d + delta);
        c.valid_from = c.valid_from.map(|d| d + delta);
        c.valid_until = c.valid_until.map(|d| d + delta);
        c.signed_on = Some(new_signed);
        f.metas[i].month = 12;
        december += c.value();
    }
}

/// The labels of the organ-year plants, read from the final data.
pub fn group_labels(f: &Field<'_>, plan: &Plan) -> Vec<Planted> {
    let mut out = Vec::new();
    for g in &plan.concentration {
        let ids: Vec<String> = f
            .group(g.organ, g.year)
            .iter()
            .filter(|&&i| f.metas[i].pool == g.cat && f.metas[i].supplier == g.supplier)
            .map(|&i| f.contracts[i].id.to_string())
            .collect();
        if ids.is_empty() {
            continue;
        }
        out.push(Planted {
            detector: conc::NAME,
            kind: AnomalyType::PatternAnomaly,
            record_ids: ids,
            entity_id: Some(f.world.pools[g.cat].suppliers[g.supplier].cnpj.clone().to_string()),
        });
    }
    for g in &plan.end_of_year {
        let ids: Vec<String> = f
            .group(g.organ, g.year)
            .iter()
            .filter(|&&i| f.metas[i].month == 12)
            .map(|&i| f.contracts[i].id.to_string())
            .collect();
        out.push(Planted {
            detector: temporal::NAME,
            kind: AnomalyType::TemporalAnomaly,
            record_ids: ids,
            entity_id: Some(f.world.organs[g.organ].code.to_string()),
        });
    }
    out
}
