//! The planted, labelled anomalies of the demo data: items bought at 2-5 times their market unit
//! price, a supplier holding most of an organ-year, an organ-year crowded into December well
//! beyond its own habit, and repeated contracts (the same purchase contracted twice).

use std::collections::HashSet;

use chrono::{Datelike, Days};
use rand::Rng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use super::catalog::{market_price, mean_value};
use super::clean::{Meta, World, id_for, unit_price};
use super::edit::{Groups, reassign, scale, total};
use super::labels::{Planted, Scheme, label};
use super::law;
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
        let mut cats: Vec<(f64, usize)> = (0..world.profiles.len())
            .map(|c| ((cum[c] - if c == 0 { 0.0 } else { cum[c - 1] }) * mean_value(&world.profiles[c]), c))
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
        .map(|&(organ, year)| {
            // Well beyond the organ's own December (every organ has a large one).
            let own = 1.0 - world.month_cum[organ].get(10).copied().unwrap_or(0.9);
            GroupPlan { organ, year, share: (own + rng.gen_range(0.2..0.3)).min(0.6), cat: 0, supplier: 0 }
        })
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

/// Marks up one item of each of `count` contracts (competitive purchases, so the plant is an
/// overprice and nothing else) to 2-5 times its market unit price, the price its peers pay:
/// the contract's value grows by what the markup adds.
pub fn price(f: &mut Field<'_>, count: usize, rng: &mut ChaCha8Rng) -> Vec<Planted> {
    let mut out = Vec::new();
    let n = f.contracts.len();
    let mut attempts = 0;
    while out.len() < count && attempts < count * 100 + 100 && n > 0 {
        attempts += 1;
        let i = rng.gen_range(0..n);
        let profile = &f.world.profiles[f.metas[i].cat];
        let c = &f.contracts[i];
        if f.used.contains(&i) || c.items.is_empty() || !law::is_competitive(&c.modality) {
            continue;
        }
        let j = rng.gen_range(0..c.items.len());
        let Some(k) = profile.items.iter().position(|d| *d == c.items[j].description.as_str()) else { continue };
        let market = market_price(profile, k);
        let markup = rng.gen_range(2.0..5.0);
        let c = &mut f.contracts[i];
        let before = c.initial_value;
        let paid_before = unit_price(&c.items[j]);
        let new_value = (c.items[j].quantity * market * markup * 100.0).round() / 100.0;
        let delta = new_value - c.items[j].value;
        c.items[j].value = new_value;
        let item = &c.items[j];
        c.initial_value = ((c.initial_value + delta) * 100.0).round() / 100.0;
        c.final_value = ((c.final_value + delta) * 100.0).round() / 100.0;
        f.metas[i].value = c.value();
        f.used.insert(i);
        let what = format!(
            "{} bought at R$ {:.2} a unit ({} units), {markup:.2} times its market price R$ {market:.2} \
             (was R$ {paid_before:.2}); contract value R$ {before:.2} -> R$ {:.2}",
            item.description,
            market * markup,
            item.quantity,
            c.initial_value
        );
        out.push(label(Scheme::Overprice, AnomalyType::PriceAnomaly, vec![c.id.to_string()], None, what));
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
        // Buying the same thing again is a new purchase, with a process of its own.
        copy.process_number = arcstr::format!("{}-{:02}", copy.process_number, rng.gen_range(10..100u32));
        meta.month = new_signed.month();
        f.used.insert(i);
        f.used.insert(idx);
        let what = format!(
            "contract {} contracted again as {} with the same supplier {}, object edited by one word, value x{factor:.3}, \
             signed {} days apart",
            f.contracts[i].id,
            copy.id,
            copy.supplier.document,
            delta.num_days().abs()
        );
        out.push(label(
            Scheme::RepeatedContract,
            AnomalyType::PatternAnomaly,
            vec![f.contracts[i].id.to_string(), copy.id.to_string()],
            Some(copy.supplier.document.to_string()),
            what,
        ));
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
    // The supplier's contracts of the organ-year now make the plant: no other plant may change them.
    let ours: Vec<usize> = f.group(g.organ, g.year).iter().copied().filter(|&i| is_ours(&f.metas[i])).collect();
    f.used.extend(ours);
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
        let cnpj = f.world.pools[g.cat].suppliers[g.supplier].cnpj.to_string();
        let all = f.group(g.organ, g.year);
        let own: f64 = all
            .iter()
            .filter(|&&i| f.metas[i].pool == g.cat && f.metas[i].supplier == g.supplier)
            .map(|&i| f.metas[i].value)
            .sum();
        let what = format!(
            "supplier {cnpj} given contracts of organ {} in {} until it held {:.0}% of the organ-year's value ({} contracts)",
            f.world.organs[g.organ].code,
            g.year,
            100.0 * own / total(&f.metas, all).max(0.01),
            ids.len()
        );
        out.push(label(Scheme::Concentration, AnomalyType::PatternAnomaly, ids, Some(cnpj), what));
    }
    for g in &plan.end_of_year {
        let ids: Vec<String> = f
            .group(g.organ, g.year)
            .iter()
            .filter(|&&i| f.metas[i].month == 12)
            .map(|&i| f.contracts[i].id.to_string())
            .collect();
        let own = 1.0 - f.world.month_cum[g.organ].get(10).copied().unwrap_or(0.9);
        let what = format!(
            "contracts of organ {} moved into December {} until December held {:.0}% of the year's value \
             (the organ's own habit: {:.0}% of its signatures)",
            f.world.organs[g.organ].code,
            g.year,
            g.share * 100.0,
            own * 100.0
        );
        out.push(label(
            Scheme::DecemberRush,
            AnomalyType::TemporalAnomaly,
            ids,
            Some(f.world.organs[g.organ].code.to_string()),
            what,
        ));
    }
    out
}
