//! The demo records of every kind besides contracts, consistent with the contracts: the
//! bidding that led to about half of the competitive contracts (same process number, organ,
//! unit, object; the contract's supplier wins at the contract's value, 2-6 other bidders of the
//! same trade lose at 1-45% above it), the commitments (empenhos) and payments of a third of the
//! contracts, small direct purchases paid by commitment alone (no contract, as art. 95 of Lei
//! 14.133 allows), the registry facts of every supplier, servants of every organ and a sanctions
//! list; then the relationship and compliance plants ([`super::plant_compliance`],
//! [`super::plant_relations`]); last the agreements (convênios) with their plants
//! ([`super::plant_agreements`]).
//!
//! Proportions for `n` contracts: about 0.3 n biddings, 0.5 n expense documents, 0.02 n
//! agreements, n / 40 servants, one profile per pool supplier, n / 500 sanctions.

use std::collections::HashSet;

use chrono::{Datelike, Days, NaiveDate};
use rand::Rng;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;

use super::catalog::Category;
use super::clean::{Meta, World};
use super::law;
use super::objects::push_uint;
use super::plant::{Field, Plan};
use super::{Planted, plant_agreements, plant_compliance, plant_relations, registry};
use crate::model::bidding::{Bid, Bidding};
use crate::model::contract::{Contract, Organ, Party, Unit};
use crate::model::dataset::Dataset;
use crate::model::expense::Expense;
use crate::model::intern::ArcStr;

/// The budget element (`elemento`) of a category: the nature of what is bought.
pub fn element_of(c: Category) -> &'static str {
    match c {
        Category::Obras => "51 - Obras e Instalações",
        Category::Limpeza | Category::Vigilancia => "37 - Locação de Mão-de-Obra",
        Category::Ti => "40 - Serviços de Tecnologia da Informação e Comunicação - PJ",
        Category::Consultoria => "35 - Serviços de Consultoria",
        Category::Veiculos | Category::EquipamentosHospitalares => "52 - Equipamentos e Material Permanente",
        _ => "30 - Material de Consumo",
    }
}

fn capital(element: &str) -> bool {
    element.starts_with("51") || element.starts_with("52")
}

/// A new expense document.
pub struct NewExpense<'a> {
    /// Sequence number (unique in the data).
    pub seq: usize,
    /// "Empenho" or "Pagamento".
    pub phase: &'static str,
    /// Date.
    pub date: NaiveDate,
    /// Payee.
    pub payee: &'a Party,
    /// Value.
    pub value: f64,
    /// Unit and organ.
    pub unit: &'a Unit,
    /// Organ.
    pub organ: &'a Organ,
    /// Budget element.
    pub element: &'static str,
    /// Purchase modality.
    pub modality: &'a str,
    /// Process number (empty for purchases without a contract).
    pub process: ArcStr,
    /// Observation.
    pub observation: String,
}

/// Builds an expense document (`{UG}{gestão}{year}{NE|OB}{seq}`).
pub fn expense(world: &World, e: NewExpense<'_>) -> Expense {
    let mut id = String::with_capacity(23);
    id.push_str(&e.unit.code);
    id.push_str("00001");
    push_uint(&mut id, u64::try_from(e.date.year()).unwrap_or(0), 4);
    id.push_str(if e.phase == "Empenho" { "NE" } else { "OB" });
    push_uint(&mut id, e.seq as u64, 6);
    Expense {
        id: id.into(),
        date: Some(e.date),
        phase: world.text(e.phase),
        kind: arcstr::literal!("Original"),
        payee: e.payee.clone(),
        value: (e.value * 100.0).round() / 100.0,
        unit: e.unit.clone(),
        organ: Organ { code: e.organ.code.clone(), acronym: arcstr::ArcStr::new(), name: e.organ.name.clone() },
        sub_organ: e.organ.code.clone(),
        element: world.text(e.element),
        category: if capital(e.element) {
            arcstr::literal!("Despesas de Capital")
        } else {
            arcstr::literal!("Despesas Correntes")
        },
        group: if capital(e.element) {
            arcstr::literal!("Investimentos")
        } else {
            arcstr::literal!("Outras Despesas Correntes")
        },
        modality: world.text(e.modality),
        process_number: e.process,
        observation: e.observation.into(),
    }
}

/// The bidding that led to a contract: the contract's supplier wins at its initial value;
/// `others` lose at 1-45% above it.
pub fn bidding_for(c: &Contract, id: usize, others: Vec<Party>, rng: &mut ChaCha8Rng) -> Bidding {
    let signed = c.signed_on.unwrap_or(NaiveDate::MIN);
    let opened = signed - Days::new(rng.gen_range(20..70));
    let mut participants = Vec::with_capacity(others.len() + 1);
    participants.push(Bid { bidder: c.supplier.clone(), value: Some(c.initial_value), winner: true });
    for p in others {
        let v = (c.initial_value * rng.gen_range(1.01..1.45) * 100.0).round() / 100.0;
        participants.push(Bid { bidder: p, value: Some(v), winner: false });
    }
    let k = rng.gen_range(0..participants.len());
    participants.swap(0, k);
    Bidding {
        id: (300_000_000 + id).to_string().into(),
        number: arcstr::format!("{:05}{}", rng.gen_range(1..99_999u32), signed.year()),
        object: c.object.clone(),
        process_number: c.process_number.clone(),
        modality: if c.modality.starts_with(law::PREGAO) && rng.gen_bool(0.3) {
            arcstr::literal!("Pregão - Registro de Preço")
        } else {
            c.modality.clone()
        },
        situation: arcstr::literal!("Publicado"),
        opened_on: Some(opened),
        result_on: Some(signed - Days::new(rng.gen_range(1..15))),
        published_on: Some(opened - Days::new(rng.gen_range(8..15))),
        value: 0.0,
        unit: c.unit.clone(),
        organ: c.organ.clone(),
        uf: arcstr::ArcStr::new(),
        municipality: arcstr::ArcStr::new(),
        reference_price: None,
        lances: Vec::new(),
        participants,
    }
}

/// Up to `k` distinct losing bidders for a contract from its category's pool (by popularity).
pub fn losers(world: &World, m: &Meta, winner: &str, k: usize, rng: &mut ChaCha8Rng) -> Vec<Party> {
    let pool = &world.pools[m.cat];
    let mut picked: Vec<usize> = Vec::with_capacity(k);
    for _ in 0..k * 4 {
        if picked.len() == k {
            break;
        }
        let s = pool.pick(rng.r#gen());
        if !picked.contains(&s) && pool.suppliers[s].cnpj != winner {
            picked.push(s);
        }
    }
    picked.into_iter().map(|s| pool.suppliers[s].party()).collect()
}

/// Contracts per chunk of the parallel passes; each chunk has its own generator, so the output
/// does not depend on the number of threads.
const CHUNK: usize = 32_768;

/// Runs `make` over contract positions `0..n` in chunks on a few threads and concatenates the
/// results in chunk order.
fn par_chunks<T: Send>(
    n: usize,
    seed: u64,
    make: impl Fn(usize, std::ops::Range<usize>, &mut ChaCha8Rng) -> Vec<T> + Sync,
) -> Vec<T> {
    let chunks = n.div_ceil(CHUNK);
    let threads = super::clean::cores().clamp(1, chunks.max(1));
    let run = |k: usize| {
        let mut rng = ChaCha8Rng::seed_from_u64(seed ^ (k as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
        make(k, k * CHUNK..((k + 1) * CHUNK).min(n), &mut rng)
    };
    let mut parts: Vec<(usize, Vec<T>)> = std::thread::scope(|s| {
        let run = &run;
        let handles: Vec<_> = (0..threads)
            .map(|t| s.spawn(move || (t..chunks).step_by(threads).map(|k| (k, run(k))).collect::<Vec<_>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| match h.join() {
                Ok(v) => v,
                Err(e) => std::panic::resume_unwind(e),
            })
            .collect()
    });
    parts.sort_by_key(|p| p.0);
    parts.into_iter().flat_map(|p| p.1).collect()
}

/// Biddings for about half of the competitive contracts not in `skip`, numbered from 0, with
/// the catalog category of each.
fn biddings(f: &Field<'_>, skip: &HashSet<usize>, seed: u64) -> (Vec<Bidding>, Vec<usize>) {
    let made = par_chunks(f.contracts.len(), seed ^ 0xB1D0, |_, range, rng| {
        let mut out = Vec::with_capacity(range.len() * 3 / 10);
        for i in range {
            let c = &f.contracts[i];
            // Secret contracts and individuals (masked CPFs) have no public bidding record.
            let company = c.supplier.document.len() == 14;
            if skip.contains(&i) || !company || !law::is_competitive(&c.modality) || c.signed_on.is_none() {
                continue;
            }
            if !rng.gen_bool(0.45) {
                continue;
            }
            let k = rng.gen_range(2..=6);
            let others = losers(f.world, &f.metas[i], &c.supplier.document, k, rng);
            out.push((bidding_for(c, 0, others, rng), f.metas[i].cat));
        }
        out
    });
    let mut cats = Vec::with_capacity(made.len());
    let biddings = made
        .into_iter()
        .enumerate()
        .map(|(k, (mut b, cat))| {
            b.id = (300_000_000 + k).to_string().into();
            cats.push(cat);
            b
        })
        .collect();
    (biddings, cats)
}

/// Commitments (and some payments) of a third of the contracts, and small direct purchases by
/// commitment alone, kept under half the year's dispensa limit.
fn expenses(f: &Field<'_>, n: usize, seq: &mut usize, rng: &mut ChaCha8Rng) -> Vec<Expense> {
    let mut out = par_chunks(f.contracts.len(), rng.r#gen(), |k, range, rng| {
        let mut out = Vec::with_capacity(range.len() * 2 / 5);
        let mut seq = 1 + k * CHUNK * 2;
        for i in range {
            let c = &f.contracts[i];
            let Some(signed) = c.signed_on else { continue };
            let u: f64 = rng.r#gen();
            if u >= 0.32 {
                continue;
            }
            let element = element_of(f.world.profiles[f.metas[i].cat].category);
            let date = signed + Days::new(rng.gen_range(0..20));
            let value = c.initial_value * rng.gen_range(0.3..1.0);
            out.push(expense(
                f.world,
                NewExpense {
                    seq,
                    phase: "Empenho",
                    date,
                    payee: &c.supplier,
                    value,
                    unit: &c.unit,
                    organ: &c.organ,
                    element,
                    modality: &c.modality,
                    process: c.process_number.clone(),
                    observation: format!("EMPENHO REF. CONTRATO {}", c.number),
                },
            ));
            seq += 1;
            if u < 0.1 {
                let paid = date + Days::new(rng.gen_range(20..60));
                out.push(expense(
                    f.world,
                    NewExpense {
                        seq,
                        phase: "Pagamento",
                        date: paid,
                        payee: &c.supplier,
                        value: value * rng.gen_range(0.5..1.0),
                        unit: &c.unit,
                        organ: &c.organ,
                        element,
                        modality: &c.modality,
                        process: c.process_number.clone(),
                        observation: format!("PAGAMENTO REF. CONTRATO {}", c.number),
                    },
                ));
                seq += 1;
            }
        }
        out
    });
    *seq = 1 + f.contracts.len().div_ceil(CHUNK) * CHUNK * 2;
    let small = n / 10;
    const SMALL_CATS: [Category; 5] =
        [Category::Expediente, Category::Alimentacao, Category::Combustiveis, Category::Medicamentos, Category::Ti];
    let cats: Vec<usize> =
        SMALL_CATS.iter().filter_map(|c| f.world.profiles.iter().position(|p| p.category == *c)).collect();
    for _ in 0..small {
        let organ_i = super::clean::pick(&f.world.organ_cum, rng.r#gen());
        let info = f.world.organs[organ_i];
        let u = &info.units[rng.gen_range(0..info.units.len())];
        let cat = cats[rng.gen_range(0..cats.len())];
        let pool = &f.world.pools[cat];
        let s = &pool.suppliers[pool.pick(rng.r#gen())];
        let year = f.world.years[rng.gen_range(0..f.world.years.len())];
        let date = NaiveDate::from_ymd_opt(year, 1, 2).unwrap_or(NaiveDate::MIN) + Days::new(rng.gen_range(0..360));
        let limit = law::value_limit(date, false).map_or(50_000.0, |l| l.0);
        let mut z: f64 = rng.sample(StandardNormal);
        let mut value = 5_000.0 * (0.8 * z).exp();
        while value > 0.5 * limit {
            z = rng.sample(StandardNormal);
            value = 5_000.0 * (0.8 * z).exp();
        }
        let party = s.party();
        let unit = f.world.unit(u);
        let organ = f.world.organ(info);
        out.push(expense(
            f.world,
            NewExpense {
                seq: *seq,
                phase: "Empenho",
                date,
                payee: &party,
                value: value.max(50.0),
                unit: &unit,
                organ: &organ,
                element: element_of(f.world.profiles[cat].category),
                modality: "Dispensa de Licitação",
                process: ArcStr::new(),
                observation: format!(
                    "AQUISIÇÃO DE {} POR DISPENSA DE PEQUENO VALOR",
                    f.world.profiles[cat].category.label().to_uppercase()
                ),
            },
        ));
        *seq += 1;
    }
    out
}

/// Contracts other plants rely on, which these plants leave alone: those of each planted
/// concentrated supplier in its organ-year (moving one away would change that label).
pub fn reserved(f: &Field<'_>, plan: &Plan) -> HashSet<usize> {
    let mut out = HashSet::new();
    for g in &plan.concentration {
        for &i in f.groups.get(&(g.organ, g.year)).map_or(&[][..], Vec::as_slice) {
            if f.metas[i].pool == g.cat && f.metas[i].supplier == g.supplier {
                out.insert(i);
            }
        }
    }
    out
}

/// Completes the dataset: legitimate noise and plants in the contracts, then every other kind
/// with its plants. Appends the labels to `planted`.
pub fn complete(mut f: Field<'_>, plan: &Plan, seed: u64, planted: &mut Vec<Planted>) -> Dataset {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0xA3A3_0000_5EED_0003);
    let n = f.contracts.len();
    let reserved = reserved(&f, plan);
    let mut profiles = registry::profiles(f.world, &mut rng);
    let mut sanctions = Vec::new();
    planted.extend(plant_compliance::contracts(&mut f, &reserved, &profiles, &mut sanctions, &mut rng));
    let mut rel = plant_relations::Plants::default();
    planted.extend(plant_relations::contracts(&mut f, &reserved, &mut profiles, &mut rel, &mut rng));
    let (mut biddings, cats) = biddings(&f, &rel.own_biddings, seed);
    let mut next_bidding = biddings.len();
    planted.extend(plant_relations::biddings(
        &f,
        &mut profiles,
        &mut biddings,
        &cats,
        &rel,
        &mut next_bidding,
        &mut rng,
    ));
    let mut seq = 1usize;
    let mut expenses = expenses(&f, n, &mut seq, &mut rng);
    planted.extend(plant_compliance::splitting(&f, &reserved, &mut expenses, &mut seq, &mut rng));
    let mut servants = registry::servants(f.world, n, &mut rng);
    planted.extend(plant_relations::servants(&f, &reserved, &mut profiles, &mut servants, &mut rng));
    sanctions.extend(registry::noise_sanctions(&profiles, &f.contracts, (n / 500).max(4), &mut rng));
    for (k, s) in sanctions.iter_mut().enumerate() {
        s.id = (500_000 + k).to_string();
    }
    let extra = plant_compliance::incidental(&f.contracts, &sanctions, planted);
    planted.extend(extra);
    let mut agreements = plant_agreements::agreements(f.world, n, &mut rng);
    planted.extend(plant_agreements::plant(f.world, &f.contracts, &mut agreements, &mut sanctions, n, &mut rng));
    Dataset {
        contracts: f.contracts,
        biddings,
        expenses,
        agreements,
        servants,
        suppliers: profiles,
        sanctions,
        security_events: Vec::new(),
        regional: None,
    }
}
