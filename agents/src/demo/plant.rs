//! The planted, labelled anomalies of the demo data: overpriced contracts, a supplier holding
//! most of an organ-year, an organ-year crowded into December, and near-copies of contracts.

use std::collections::HashSet;

use chrono::{Datelike, Days};
use rand::Rng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use super::balance::{organ_years, scale, total};
use super::catalog::{PROFILES, mean_value};
use super::clean::{Draw, Meta, World, draw_value, make, pick, pick_month};
use super::Planted;
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
    /// Contracts added.
    pub extras: usize,
    /// Category of the concentrated supplier (concentration only).
    pub cat: usize,
    /// Supplier index in the category pool (concentration only).
    pub supplier: usize,
}

impl Plan {
    /// Contracts the plan adds on top of the clean ones.
    pub fn extras(&self) -> usize {
        self.duplicates + self.concentration.iter().chain(&self.end_of_year).map(|g| g.extras).sum::<usize>()
    }
}

/// Expected mean contract value in an organ.
fn organ_mean(world: &World, organ: usize) -> f64 {
    let cum = &world.cat_cum[organ];
    (0..PROFILES.len()).map(|c| (cum[c] - if c == 0 { 0.0 } else { cum[c - 1] }) * mean_value(&PROFILES[c])).sum()
}

/// Decides the plants for a dataset of `n` contracts.
pub fn plan(world: &World, n: usize, rng: &mut ChaCha8Rng) -> Plan {
    let round = |x: f64| x.round() as usize;
    if n < 200 {
        return Plan { price: round(n as f64 * 0.005), duplicates: round(n as f64 * 0.003), ..Plan::default() };
    }
    let mut keys: Vec<(usize, i32)> =
        (0..world.organs.len()).flat_map(|o| world.years.iter().map(move |y| (o, *y))).collect();
    let groups = (round(n as f64 / 4000.0)).clamp(1, (keys.len() / 4).max(1));
    let weight = |o: usize| world.organ_cum[o] - if o == 0 { 0.0 } else { world.organ_cum[o - 1] };
    // Weighted order without replacement: larger organs first, by chance.
    let mut scored: Vec<(f64, (usize, i32))> =
        keys.drain(..).map(|k| (rng.r#gen::<f64>().powf(1.0 / weight(k.0).max(1e-9)), k)).collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
    let order: Vec<(usize, i32)> = scored.into_iter().map(|(_, k)| k).collect();
    let shared = order.len() < 2;
    let expected = |o: usize| n as f64 * weight(o) / world.years.len() as f64;
    let mut concentration = Vec::new();
    for &(organ, year) in order.iter().take(groups) {
        let share = if shared { rng.gen_range(0.55..0.60) } else { rng.gen_range(0.40..0.60) };
        let cum = &world.cat_cum[organ];
        let mut cats: Vec<(f64, usize)> = (0..PROFILES.len())
            .map(|c| ((cum[c] - if c == 0 { 0.0 } else { cum[c - 1] }) * mean_value(&PROFILES[c]), c))
            .collect();
        cats.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let cat = cats[rng.gen_range(0..3.min(cats.len()))].1;
        let size = world.pools[cat].suppliers.len();
        let supplier = rng.gen_range(2.min(size - 1)..10.min(size));
        let m = expected(organ) * share / (1.0 - share) * organ_mean(world, organ) / mean_value(&PROFILES[cat]);
        concentration.push(GroupPlan { organ, year, share, extras: (m.ceil() as usize).max(4), cat, supplier });
    }
    let eoy_keys: Vec<(usize, i32)> = if shared { order.clone() } else { order.iter().skip(groups).copied().collect() };
    let end_of_year = eoy_keys
        .iter()
        .take(groups)
        .map(|&(organ, year)| {
            let share = if shared { rng.gen_range(0.35..0.40) } else { rng.gen_range(0.35..0.50) };
            let m = expected(organ) * (share - 0.1) / (1.0 - share);
            GroupPlan { organ, year, share, extras: (m.ceil() as usize).max(6), cat: 0, supplier: 0 }
        })
        .collect();
    let mut p = Plan {
        price: round(n as f64 * 0.005).max(1),
        duplicates: round(n as f64 * 0.003).max(1),
        concentration,
        end_of_year,
    };
    let budget = n / 2;
    if p.extras() > budget {
        let f = budget as f64 / p.extras() as f64;
        for g in p.concentration.iter_mut().chain(p.end_of_year.iter_mut()) {
            g.extras = ((g.extras as f64 * f) as usize).max(3);
        }
    }
    p
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
}

impl Field<'_> {
    fn push(&mut self, rng: &mut ChaCha8Rng, d: Draw) -> usize {
        let idx = self.contracts.len();
        let (c, m) = make(self.world, rng, idx, d);
        self.contracts.push(c);
        self.metas.push(m);
        idx
    }
}

/// Prices `count` contracts at 5-20 times their category median (never above 8% of their
/// organ-year, so they do not also make a concentration).
pub fn price(f: &mut Field<'_>, count: usize, rng: &mut ChaCha8Rng) -> Vec<Planted> {
    let groups = organ_years(&f.metas);
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
        let key = (f.metas[i].organ, f.metas[i].year);
        let t = groups.get(&key).map_or(0.0, |idx| total(&f.contracts, idx));
        let max = (0.08 * t / p.median).min(20.0);
        if max < 6.0 {
            continue;
        }
        let mult = rng.gen_range(5.0f64.ln()..max.ln()).exp();
        let target = p.median * mult;
        let c = &mut f.contracts[i];
        c.initial_value = (target * 100.0).round() / 100.0;
        c.final_value = c.initial_value;
        f.used.insert(i);
        out.push(Planted {
            detector: pz::NAME,
            kind: AnomalyType::PriceAnomaly,
            record_ids: vec![c.id.clone()],
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
        copy.object = edit_object(&copy.object, rng);
        let factor = rng.gen_range(0.95..1.05);
        scale(&mut copy, factor);
        let idx = f.contracts.len();
        copy.id = (100_000_000 + idx as u64 * 7 + rng.gen_range(0..7u64)).to_string();
        copy.number = format!("{:05}/{}", rng.gen_range(1..100_000u32), new_signed.year());
        let mut meta = f.metas[i];
        meta.month = new_signed.month();
        f.used.insert(i);
        f.used.insert(idx);
        out.push(Planted {
            detector: dup::NAME,
            kind: AnomalyType::PatternAnomaly,
            record_ids: vec![f.contracts[i].id.clone(), copy.id.clone()],
            entity_id: Some(copy.supplier.document.clone()),
        });
        f.contracts.push(copy);
        f.metas.push(meta);
    }
    out
}

/// Changes one number or one word of an object text.
fn edit_object(object: &str, rng: &mut ChaCha8Rng) -> String {
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
        if let Some(&k) = synonyms.choose(rng) {
            if let Some((_, b)) = SYNONYMS.iter().find(|(a, _)| *a == words[k]) {
                words[k] = (*b).to_string();
            }
        }
    } else if let Some(&k) = numbers.choose(rng) {
        let v: u32 = words[k].parse().unwrap_or(0);
        words[k] = (v + rng.gen_range(1..10)).to_string();
    } else {
        words.push("COMPLEMENTAR".to_string());
    }
    words.join(" ")
}

/// Adds contracts of one supplier to an organ-year until it holds the planned share of value.
pub fn concentration(f: &mut Field<'_>, g: &GroupPlan, rng: &mut ChaCha8Rng) {
    let idx: Vec<usize> =
        (0..f.contracts.len()).filter(|&i| f.metas[i].organ == g.organ && f.metas[i].year == g.year).collect();
    let t = total(&f.contracts, &idx);
    let own: f64 = idx
        .iter()
        .filter(|&&i| f.metas[i].cat == g.cat && f.metas[i].supplier == g.supplier)
        .map(|&i| f.contracts[i].value())
        .sum();
    let add = (g.share * t - own) / (1.0 - g.share);
    if add <= 0.0 || g.extras == 0 {
        return;
    }
    let raw: Vec<f64> = (0..g.extras).map(|_| draw_value(&PROFILES[g.cat], rng)).collect();
    let factor = add / raw.iter().sum::<f64>();
    for r in raw {
        let month = pick_month(rng.gen_range(0.0..0.9));
        let value = (r * factor * 100.0).round() / 100.0;
        let d = Draw {
            organ: Some(g.organ),
            cat: Some(g.cat),
            year: Some(g.year),
            month: Some(month),
            supplier: Some(g.supplier),
            value: Some(value),
        };
        let i = f.push(rng, d);
        f.contracts[i].final_value = value;
    }
}

/// Adds December contracts to an organ-year until December holds the planned share of value.
pub fn end_of_year(f: &mut Field<'_>, g: &GroupPlan, rng: &mut ChaCha8Rng) {
    let idx: Vec<usize> =
        (0..f.contracts.len()).filter(|&i| f.metas[i].organ == g.organ && f.metas[i].year == g.year).collect();
    let t = total(&f.contracts, &idx);
    let dec: f64 = idx.iter().filter(|&&i| f.metas[i].month == 12).map(|&i| f.contracts[i].value()).sum();
    let add = (g.share * t - dec) / (1.0 - g.share);
    if add <= 0.0 || g.extras == 0 {
        return;
    }
    let cats: Vec<usize> = (0..g.extras).map(|_| pick(&f.world.cat_cum[g.organ], rng.r#gen())).collect();
    let raw: Vec<f64> = cats.iter().map(|&c| draw_value(&PROFILES[c], rng)).collect();
    let factor = add / raw.iter().sum::<f64>();
    for (cat, r) in cats.into_iter().zip(raw) {
        let value = (r * factor * 100.0).round() / 100.0;
        let d = Draw { organ: Some(g.organ), cat: Some(cat), year: Some(g.year), month: Some(12), supplier: None, value: Some(value) };
        let i = f.push(rng, d);
        f.contracts[i].final_value = value;
    }
}

/// The labels of the organ-year plants, read from the final data.
pub fn group_labels(f: &Field<'_>, plan: &Plan) -> Vec<Planted> {
    let mut out = Vec::new();
    for g in &plan.concentration {
        let ids: Vec<String> = (0..f.contracts.len())
            .filter(|&i| {
                let m = &f.metas[i];
                m.organ == g.organ && m.year == g.year && m.cat == g.cat && m.supplier == g.supplier
            })
            .map(|i| f.contracts[i].id.clone())
            .collect();
        if ids.is_empty() {
            continue;
        }
        out.push(Planted {
            detector: conc::NAME,
            kind: AnomalyType::PatternAnomaly,
            record_ids: ids,
            entity_id: Some(f.world.pools[g.cat].suppliers[g.supplier].cnpj.clone()),
        });
    }
    for g in &plan.end_of_year {
        let ids: Vec<String> = (0..f.contracts.len())
            .filter(|&i| f.metas[i].organ == g.organ && f.metas[i].year == g.year && f.metas[i].month == 12)
            .map(|i| f.contracts[i].id.clone())
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
