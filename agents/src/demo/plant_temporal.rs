//! Temporal plants of the demo data, labelled with what was planted: an organ-month receiving
//! a third of its organ-year's value; an organ-day on which contracts of many processes of that
//! month are signed together; an organ whose spending moves to a higher level in its last year;
//! a supplier signing with one organ every 14 days. Each takes an organ-year no other group
//! plant uses.

use std::collections::{HashMap, HashSet};

use chrono::{Datelike, Days, NaiveDate};
use rand::Rng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use super::edit::reassign;
use super::labels::{Planted, Scheme, label};
use super::plant::{Field, Plan};
use super::plant_patterns::{free, is_dispensa};
use crate::model::anomaly::AnomalyType;

/// Plants the temporal anomalies, `count` of the monthly and daily spikes and cadences each
/// (at most 3, 3 and 4), one regime change.
pub fn plant(f: &mut Field<'_>, plan: &Plan, count: usize, rng: &mut ChaCha8Rng) -> Vec<Planted> {
    let mut busy: HashSet<(usize, i32)> =
        plan.concentration.iter().chain(plan.end_of_year.iter()).map(|g| (g.organ, g.year)).collect();
    let mut out = spikes_in(f, &mut busy, count.min(3), rng);
    out.extend(regime_shift(f, &mut busy, rng));
    out.extend(cadences(f, &mut busy, count.min(4), rng));
    out.extend(bursts(f, &mut busy, count.min(3), rng));
    out
}

/// Moves a contract to a new signing date, shifting its other dates and its number's year.
pub(super) fn move_to(f: &mut Field<'_>, i: usize, to: NaiveDate) {
    let c = &mut f.contracts[i];
    let Some(signed) = c.signed_on else { return };
    let delta = to.signed_duration_since(signed);
    c.published_on = c.published_on.map(|d| d + delta);
    c.valid_from = c.valid_from.map(|d| d + delta);
    c.valid_until = c.valid_until.map(|d| d + delta);
    c.signed_on = Some(to);
    if to.year() != signed.year()
        && let Some((head, _)) = c.number.rsplit_once('/')
    {
        c.number = arcstr::format!("{head}/{}", to.year());
    }
    let old = (f.metas[i].organ, f.metas[i].year);
    f.metas[i].month = to.month();
    f.metas[i].year = to.year();
    if old.1 != to.year() {
        if let Some(g) = f.groups.get_mut(&old) {
            g.retain(|&k| k != i);
        }
        f.groups.entry((old.0, to.year())).or_default().push(i);
    }
}

fn day_in(year: i32, month: u32, rng: &mut ChaCha8Rng) -> NaiveDate {
    NaiveDate::from_ymd_opt(year, month, rng.gen_range(1..=28)).unwrap_or(NaiveDate::MIN)
}

/// Organ-years free of other group plants with at least `min` contracts, in a random order.
fn free_organ_years(
    f: &Field<'_>,
    busy: &HashSet<(usize, i32)>,
    min: usize,
    rng: &mut ChaCha8Rng,
) -> Vec<(usize, i32)> {
    let mut keys: Vec<(usize, i32)> =
        f.groups.iter().filter(|(k, v)| !busy.contains(k) && v.len() >= min).map(|(k, _)| *k).collect();
    keys.shuffle(rng);
    keys
}

/// Organ-months (February to November) receiving contracts from every other month of their
/// organ-year until they hold a third of its value; only organ-years of 600 contracts or more
/// (50 a month), where a month's total is steady enough for a spike to be told from noise.
fn spikes_in(f: &mut Field<'_>, busy: &mut HashSet<(usize, i32)>, count: usize, rng: &mut ChaCha8Rng) -> Vec<Planted> {
    let mut out = Vec::new();
    for (organ, year) in free_organ_years(f, busy, 600, rng).into_iter().take(count) {
        busy.insert((organ, year));
        let month = rng.gen_range(2..=11u32);
        let mut idx: Vec<usize> = f.groups[&(organ, year)].clone();
        let total: f64 = idx.iter().map(|&i| f.metas[i].value).sum();
        let mut held: f64 = idx.iter().filter(|&&i| f.metas[i].month == month).map(|&i| f.metas[i].value).sum();
        idx.shuffle(rng);
        for &i in &idx {
            if held >= total / 3.0 {
                break;
            }
            if free(f, i) && f.metas[i].month != month {
                held += f.metas[i].value;
                move_to(f, i, day_in(year, month, rng));
                f.used.insert(i);
            }
        }
        let ids: Vec<String> = f.groups[&(organ, year)]
            .iter()
            .filter(|&&i| f.metas[i].month == month)
            .map(|&i| f.contracts[i].id.to_string())
            .collect();
        let code = f.world.organs[organ].code.to_string();
        let what = format!(
            "organ {code}: contracts of {year} moved into month {month} until it held a third of the year's value"
        );
        out.push(label(Scheme::MonthSpike, AnomalyType::TemporalAnomaly, ids, Some(code), what));
    }
    out
}

/// An organ with both years free and at least 200 contracts in the first (smaller organs'
/// months are too noisy to tell a level from chance): 60% of its first year's contracts move
/// to the months of its last year from April-July on (December excluded), so its spending
/// changes level.
fn regime_shift(f: &mut Field<'_>, busy: &mut HashSet<(usize, i32)>, rng: &mut ChaCha8Rng) -> Vec<Planted> {
    let years = f.world.years.clone();
    let [first, last] = years[..] else { return Vec::new() };
    let mut organs: Vec<usize> = (0..f.world.organs.len())
        .filter(|o| [first, last].iter().all(|y| !busy.contains(&(*o, *y))))
        .filter(|o| f.groups.get(&(*o, first)).is_some_and(|g| g.len() >= 200))
        .collect();
    organs.shuffle(rng);
    let Some(&organ) = organs.first() else { return Vec::new() };
    busy.insert((organ, first));
    busy.insert((organ, last));
    let from = rng.gen_range(4..=7u32);
    let idx: Vec<usize> = f.groups[&(organ, first)].clone();
    let mut ids = Vec::new();
    for i in idx {
        if free(f, i) && rng.gen_bool(0.6) {
            move_to(f, i, day_in(last, rng.gen_range(from..=11), rng));
            f.used.insert(i);
            ids.push(f.contracts[i].id.to_string());
        }
    }
    let code = f.world.organs[organ].code.to_string();
    let what = format!("organ {code}: {} contracts of {first} moved into {last} from month {from} on", ids.len());
    vec![label(Scheme::LevelShift, AnomalyType::TemporalAnomaly, ids, Some(code), what)]
}

/// A supplier with few contracts with an organ given 26 of the organ's contracts of its own
/// category in one organ-year free of other group plants, signed every 14 days through that
/// year.
fn cadences(f: &mut Field<'_>, busy: &mut HashSet<(usize, i32)>, count: usize, rng: &mut ChaCha8Rng) -> Vec<Planted> {
    const EVENTS: usize = 26;
    let mut out = Vec::new();
    let mut pair_count: HashMap<(usize, usize, usize), usize> = HashMap::new();
    for m in f.metas.iter() {
        *pair_count.entry((m.organ, m.pool, m.supplier)).or_default() += 1;
    }
    for (organ, year) in free_organ_years(f, busy, 200, rng) {
        if out.len() >= count {
            break;
        }
        let Some(start) = NaiveDate::from_ymd_opt(year, 1, 8) else { continue };
        let members = f.groups[&(organ, year)].clone();
        for cat in 0..f.world.pools.len() {
            let pool = &f.world.pools[cat].suppliers;
            // The supplier of the category with the fewest contracts with the organ.
            let Some(supplier) =
                (0..pool.len()).min_by_key(|s| (pair_count.get(&(organ, cat, *s)).copied().unwrap_or(0), *s))
            else {
                continue;
            };
            if pair_count.get(&(organ, cat, supplier)).copied().unwrap_or(0) > 3 {
                continue;
            }
            let mut idx: Vec<usize> = members
                .iter()
                .copied()
                .filter(|&i| f.metas[i].cat == cat && free(f, i) && !is_dispensa(f, i))
                .collect();
            if idx.len() < EVENTS * 2 {
                continue;
            }
            idx.shuffle(rng);
            idx.truncate(EVENTS);
            let mut ids = Vec::new();
            for (k, &i) in idx.iter().enumerate() {
                move_to(f, i, start + Days::new(14 * k as u64));
                reassign(&mut f.contracts[i], &mut f.metas[i], f.world, cat, supplier);
                f.used.insert(i);
                ids.push(f.contracts[i].id.to_string());
            }
            *pair_count.entry((organ, cat, supplier)).or_default() += EVENTS;
            busy.insert((organ, year));
            let doc = f.world.pools[cat].suppliers[supplier].cnpj.clone();
            let what = format!(
                "supplier {doc} given {EVENTS} contracts of organ {} in {year}, one every 14 days",
                f.world.organs[organ].code
            );
            out.push(label(Scheme::Cadence, AnomalyType::TemporalAnomaly, ids, Some(doc.to_string()), what));
            break;
        }
    }
    out
}

/// How many of a month's `n` contracts one burst day holds: at least 15 and six times the
/// month's daily rate (a day's signatures crowding a week's worth of processes).
fn burst_size(n: usize) -> usize {
    ((6.0 * n as f64 / 30.0).ceil() as usize).max(15)
}

/// An organ-day (in February to November) on which contracts of that organ-month are signed
/// together until the day holds [`burst_size`] of them, each keeping its own process; the
/// month's total does not change, so only the daily grain sees it.
fn bursts(f: &mut Field<'_>, busy: &mut HashSet<(usize, i32)>, count: usize, rng: &mut ChaCha8Rng) -> Vec<Planted> {
    let mut out = Vec::new();
    for (organ, year) in free_organ_years(f, busy, 200, rng) {
        if out.len() >= count {
            break;
        }
        let month = rng.gen_range(2..=11u32);
        let mut idx: Vec<usize> =
            f.groups[&(organ, year)].iter().copied().filter(|&i| f.metas[i].month == month).collect();
        let want = burst_size(idx.len());
        idx.retain(|&i| free(f, i));
        if idx.len() < want + 3 {
            continue;
        }
        busy.insert((organ, year));
        let day = day_in(year, month, rng);
        idx.shuffle(rng);
        let already = idx.iter().filter(|&&i| f.contracts[i].signed_on == Some(day)).count();
        let moving: Vec<usize> = idx
            .iter()
            .copied()
            .filter(|&i| f.contracts[i].signed_on != Some(day))
            .take(want.saturating_sub(already))
            .collect();
        for i in moving {
            move_to(f, i, day);
            f.used.insert(i);
        }
        let ids: Vec<String> = f.groups[&(organ, year)]
            .iter()
            .filter(|&&i| f.contracts[i].signed_on == Some(day))
            .map(|&i| f.contracts[i].id.to_string())
            .collect();
        let code = f.world.organs[organ].code.to_string();
        let what = format!("organ {code}: {} contracts of separate processes signed on {day}", ids.len());
        out.push(label(Scheme::DayBurst, AnomalyType::TemporalAnomaly, ids, Some(code), what));
    }
    out
}
