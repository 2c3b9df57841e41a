//! The demo agreements (convênios) and their compliance plants (releases above the agreed
//! value, barred grantees), with the legitimate noise around them.
//!
//! Clean agreements: `max(n / 50, 2)` for `n` contracts, with municipalities of the organs'
//! cities, log-normal values around R$ 800 thousand, 0-100% of the value released and a 2%
//! counterpart; ids `800000 + k` (six digits, disjoint from the nine-digit contract and
//! bidding ids and from the sanction ids, which stay under 800000).
//!
//! Plants, as fractions of the contracts (at least one each from 200 contracts on), labelled
//! with the agreement's id as the record:
//! - `released_above_agreed` (0.06%): a clean agreement whose release is raised to 10-40%
//!   above its value;
//! - `sanctioned_grantee` (0.04%): a new agreement with a non-profit grantee that gets a barring
//!   CEIS sanction (impedimento, inidoneidade, suspensão) in force on the agreement's start:
//!   from 0-400 days before it to 0-500 days after it, or indefinite; a fifth of these
//!   agreements have no `dataInicioVigencia`, so their publication date is the start.
//!
//! Noise (not labelled, not flagged at the default sensitivity): clean agreements released
//! 0.1-3.5% above their value (within the 5% tolerance; flagged near sensitivity 1), and
//! non-profit grantees (0.06%) whose sanction ended 1-300 days before the start, starts 1-200
//! days after it, or is a fine (which does not bar). Planted grantees get CNPJ roots no
//! contract's supplier or sanction has, so their sanctions bind no contract; any other
//! agreement whose grantee happens to be barred on its start is labelled too.

use std::collections::{HashMap, HashSet};

use chrono::{Days, NaiveDate};
use rand::Rng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;

use super::clean::World;
use super::labels::{Planted, Scheme};
use crate::model::agreement::Agreement;
use crate::model::anomaly::AnomalyType;
use crate::model::cnpj::cnpj_from_parts;
use crate::model::contract::{Contract, Organ, Party};
use crate::model::sanction::Sanction;

/// First agreement id.
const FIRST_ID: usize = 800_000;

fn cents(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// One clean agreement with a municipality; `k` numbers it.
fn municipal(world: &World, k: usize, rng: &mut ChaCha8Rng) -> Agreement {
    let info = world.organs[super::clean::pick(&world.organ_cum, rng.r#gen())];
    let unit = &info.units[rng.gen_range(0..info.units.len())];
    let year = world.years[rng.gen_range(0..world.years.len())];
    let from = NaiveDate::from_ymd_opt(year, 1, 1).unwrap_or(NaiveDate::MIN) + Days::new(rng.gen_range(0..330));
    let value = cents(800_000.0 * (0.9 * rng.sample::<f64, _>(StandardNormal)).exp());
    Agreement {
        id: (FIRST_ID + k).to_string(),
        number: format!("{}", 900_000 + k),
        object: format!("APOIO A PROJETO MUNICIPAL EM {} - {}", unit.city, info.acronym),
        situation: "EM EXECUÇÃO".into(),
        grantee: Party {
            name: arcstr::format!("MUNICIPIO DE {}", unit.city),
            document: cnpj_from_parts(10_000_000 + rng.gen_range(0..80_000_000), 1).into(),
        },
        organ: Organ { code: info.code.into(), acronym: info.acronym.into(), name: info.name.into() },
        value,
        released: cents(value * rng.gen_range(0.0..1.0)),
        counterpart: cents(value * 0.02),
        valid_from: Some(from),
        valid_until: Some(from + Days::new(rng.gen_range(365..1100))),
        published_on: Some(from + Days::new(rng.gen_range(1..10))),
        last_release_on: None,
        uf: String::new(),
        municipality: unit.city.to_string(),
        municipality_code: String::new(),
    }
}

/// The clean agreements with municipalities of the organs' cities.
pub fn agreements(world: &World, n: usize, rng: &mut ChaCha8Rng) -> Vec<Agreement> {
    (0..(n / 50).max(2)).map(|k| municipal(world, k, rng)).collect()
}

/// When an agreement starts: its vigência, else its publication.
fn start_of(a: &Agreement) -> Option<NaiveDate> {
    a.valid_from.or(a.published_on)
}

fn label(a: &Agreement, scheme: Scheme) -> Planted {
    let what = match scheme {
        Scheme::ReleaseAboveAgreed => {
            format!("agreement {} released R$ {:.2} against R$ {:.2} agreed", a.id, a.released, a.value)
        }
        _ => format!("agreement {} signed with grantee {} while it was barred (CEIS)", a.id, a.grantee.document),
    };
    super::labels::label(
        scheme,
        AnomalyType::ComplianceViolation,
        vec![a.id.clone()],
        Some(a.grantee.document.to_string()),
        what,
    )
}

const NONPROFITS: [&str; 5] = [
    "ASSOCIACAO BENEFICENTE DE {}",
    "INSTITUTO DE DESENVOLVIMENTO SOCIAL DE {}",
    "FUNDACAO DE APOIO COMUNITARIO DE {}",
    "SANTA CASA DE MISERICORDIA DE {}",
    "ASSOCIACAO DE PAIS E AMIGOS DOS EXCEPCIONAIS DE {}",
];

const BARRING: [&str; 3] = ["Impedimento/proibição de contratar com prazo determinado", "Inidoneidade", "Suspensão"];

fn sanction(id: usize, a: &Agreement, kind: &str, start: NaiveDate, end: Option<NaiveDate>) -> Sanction {
    let fine = kind == "Multa";
    Sanction {
        id: (500_000 + id).to_string(),
        register: if fine { "CNEP" } else { "CEIS" }.into(),
        document: a.grantee.document.to_string(),
        name: a.grantee.name.to_string(),
        kind: kind.into(),
        starts_on: Some(start),
        ends_on: end,
        published_on: Some(start),
        authority: a.organ.name.to_string(),
        legal_basis: if fine { "Lei 12.846/2013, art. 6, I" } else { "Lei 14.133/2021, art. 156, IV" }.into(),
        process_number: String::new(),
        fine: fine.then(|| cents((a.value * 0.02).max(6_000.0))),
    }
}

/// A CNPJ root no record in `taken` has; inserts it.
fn fresh_root(taken: &mut HashSet<String>, rng: &mut ChaCha8Rng) -> String {
    loop {
        let doc = cnpj_from_parts(rng.gen_range(10_000_000..99_999_999), 1);
        if taken.insert(doc[..8].to_string()) {
            return doc;
        }
    }
}

/// Plants the agreement rules and their noise (see the module doc) among `agreements`, adding
/// the sanctions to `sanctions` with ids after theirs. Returns the labels.
pub fn plant(
    world: &World,
    contracts: &[Contract],
    agreements: &mut Vec<Agreement>,
    sanctions: &mut Vec<Sanction>,
    n: usize,
    rng: &mut ChaCha8Rng,
) -> Vec<Planted> {
    let count = |rate: f64| ((n as f64 * rate).round() as usize).max(usize::from(n >= 200));
    let mut out = Vec::new();
    // Releases beyond the agreed value (labelled), then within the tolerance (noise).
    let mut order: Vec<usize> = (0..agreements.len()).collect();
    order.shuffle(rng);
    let (above, within) = (count(0.0006), count(0.0006));
    for (k, &i) in order.iter().take(above + within).enumerate() {
        let a = &mut agreements[i];
        let factor = if k < above { rng.gen_range(1.10..1.40) } else { rng.gen_range(1.001..1.035) };
        a.released = cents(a.value * factor);
        a.last_release_on = a.valid_from.map(|d| d + Days::new(rng.gen_range(60..300)));
        if k < above {
            out.push(label(a, Scheme::ReleaseAboveAgreed));
        }
    }
    // Non-profit grantees: barred on the start (labelled), else barred before or after it or
    // fined (noise).
    let mut taken: HashSet<String> =
        contracts.iter().filter_map(|c| c.supplier.cnpj_root().map(str::to_string)).collect();
    taken.extend(sanctions.iter().map(|s| s.root().unwrap_or(&s.document).to_string()));
    taken.extend(agreements.iter().filter_map(|a| a.grantee.cnpj_root().map(str::to_string)));
    let (barred, noise) = (count(0.0004), count(0.0006));
    for k in 0..barred + noise {
        let mut a = municipal(world, agreements.len(), rng);
        let city = a.municipality.clone();
        let name = NONPROFITS[rng.gen_range(0..NONPROFITS.len())].replace("{}", &city);
        a.grantee = Party { name: name.into(), document: fresh_root(&mut taken, rng).into() };
        a.object = format!("APOIO A PROJETO SOCIAL EM {city}");
        if rng.gen_bool(0.2) {
            a.valid_from = None;
        }
        let Some(start) = start_of(&a) else { continue };
        let days = |lo: u64, hi: u64, rng: &mut ChaCha8Rng| Days::new(rng.gen_range(lo..hi));
        let id = sanctions.len();
        let s = if k < barred {
            let from = start - days(0, 400, rng);
            let end = (!rng.gen_bool(0.25)).then(|| start + days(0, 500, rng));
            sanction(id, &a, BARRING[rng.gen_range(0..BARRING.len())], from, end)
        } else {
            match k % 3 {
                0 => {
                    let end = start - days(1, 300, rng);
                    sanction(id, &a, BARRING[rng.gen_range(0..BARRING.len())], end - days(180, 900, rng), Some(end))
                }
                1 => {
                    let from = start + days(1, 200, rng);
                    sanction(id, &a, BARRING[rng.gen_range(0..BARRING.len())], from, Some(from + Days::new(720)))
                }
                _ => sanction(id, &a, "Multa", start - days(0, 300, rng), None),
            }
        };
        sanctions.push(s);
        if k < barred {
            out.push(label(&a, Scheme::SanctionedGrantee));
        }
        agreements.push(a);
    }
    out.extend(incidental(agreements, sanctions, &out));
    out
}

/// Labels the agreements not labelled yet whose grantee was barred on their start (a clean
/// municipality whose random CNPJ root is a sanctioned supplier's).
fn incidental(agreements: &[Agreement], sanctions: &[Sanction], planted: &[Planted]) -> Vec<Planted> {
    let done: HashSet<&str> = planted.iter().flat_map(|p| p.record_ids.iter().map(String::as_str)).collect();
    let mut barring: HashMap<&str, Vec<&Sanction>> = HashMap::new();
    for s in sanctions.iter().filter(|s| s.bars_contracting()) {
        barring.entry(s.root().unwrap_or(&s.document)).or_default().push(s);
    }
    agreements
        .iter()
        .filter(|a| !done.contains(a.id.as_str()))
        .filter(|a| {
            let key = a.grantee.cnpj_root().unwrap_or(&a.grantee.document);
            barring.get(key).is_some_and(|l| start_of(a).is_some_and(|d| l.iter().any(|s| s.active_on(d))))
        })
        .map(|a| label(a, Scheme::SanctionedGrantee))
        .collect()
}
