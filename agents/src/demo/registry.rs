//! Registry facts, servants and sanctions of the demo data, with their legitimate noise:
//! a profile (partners, address, phone, opening date) for every supplier of the pools, some of
//! them in large office buildings (same street number, other suites), some domiciled at an
//! accounting office shared by many clients, some sharing a partner with a company of another
//! trade (family groups that never meet in a bid), some with no partners on record (empresário
//! individual), some young; servants of every organ; and sanctions that do not bind any
//! contract of the data (expired before, started after, or fines that do not bar contracting).

use std::collections::HashMap;

use chrono::{Days, NaiveDate};
use rand::Rng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;

use super::clean::World;
use super::objects::push_uint;
use crate::model::contract::Contract;
use crate::model::registry_facts::{Address, Partner, SupplierProfile};
use crate::model::sanction::Sanction;
use crate::model::servant::Servant;

/// First names of people in the demo data.
pub static FIRST: &[&str] = &[
    "MARIA",
    "JOSE",
    "ANA",
    "JOAO",
    "ANTONIO",
    "FRANCISCA",
    "CARLOS",
    "PAULO",
    "PEDRO",
    "LUCAS",
    "LUIZ",
    "MARCOS",
    "GABRIEL",
    "RAFAEL",
    "DANIEL",
    "MARCELO",
    "BRUNO",
    "EDUARDO",
    "FELIPE",
    "JULIANA",
    "MARCIA",
    "FERNANDA",
    "PATRICIA",
    "ALINE",
    "SANDRA",
    "CAMILA",
    "AMANDA",
    "BRUNA",
    "JESSICA",
    "LETICIA",
    "JULIA",
    "LUCIANA",
    "VANESSA",
    "MARIANA",
    "GABRIELA",
    "VERA",
    "LARISSA",
    "CLAUDIA",
    "RICARDO",
    "RODRIGO",
];
/// Surnames of people in the demo data.
pub static SURNAMES: &[&str] = &[
    "SILVA",
    "SANTOS",
    "OLIVEIRA",
    "SOUZA",
    "RODRIGUES",
    "FERREIRA",
    "ALVES",
    "PEREIRA",
    "LIMA",
    "GOMES",
    "COSTA",
    "RIBEIRO",
    "MARTINS",
    "CARVALHO",
    "ALMEIDA",
    "LOPES",
    "SOARES",
    "FERNANDES",
    "VIEIRA",
    "BARBOSA",
    "ROCHA",
    "DIAS",
    "NASCIMENTO",
    "ANDRADE",
    "MOREIRA",
    "NUNES",
    "MARQUES",
    "MACHADO",
    "MENDES",
    "FREITAS",
    "CARDOSO",
    "RAMOS",
    "GONCALVES",
    "SANTANA",
    "TEIXEIRA",
];
static STREETS: &[&str] = &[
    "RUA DAS FLORES",
    "AVENIDA BRASIL",
    "RUA XV DE NOVEMBRO",
    "AVENIDA PAULISTA",
    "RUA DA CONSOLACAO",
    "AVENIDA RIO BRANCO",
    "RUA SETE DE SETEMBRO",
    "AVENIDA AFONSO PENA",
    "RUA DOS ANDRADAS",
    "SCS QUADRA 2",
    "AVENIDA SETE DE SETEMBRO",
    "RUA BARAO DE ITAPETININGA",
    "AVENIDA GETULIO VARGAS",
    "RUA SAO BENTO",
];
static DDD: &[(&str, &str)] = &[
    ("BRASILIA", "61"),
    ("RIO DE JANEIRO", "21"),
    ("SAO PAULO", "11"),
    ("BELO HORIZONTE", "31"),
    ("SALVADOR", "71"),
    ("MANAUS", "92"),
    ("SAO JOSE DOS CAMPOS", "12"),
    ("RECIFE", "81"),
    ("PORTO ALEGRE", "51"),
    ("CURITIBA", "41"),
];

/// A random full name (first name and two surnames).
pub fn person_name(rng: &mut ChaCha8Rng) -> String {
    let f = FIRST[rng.gen_range(0..FIRST.len())];
    let a = SURNAMES[rng.gen_range(0..SURNAMES.len())];
    let b = SURNAMES[rng.gen_range(0..SURNAMES.len())];
    format!("{f} {a} {b}")
}

/// Six random digits: the visible middle of a masked CPF.
pub fn cpf_middle(rng: &mut ChaCha8Rng) -> String {
    let mut s = String::with_capacity(6);
    push_uint(&mut s, rng.gen_range(0..1_000_000), 6);
    s
}

/// A CPF masked the Receita Federal's way (`***456789**`).
pub fn receita_mask(middle: &str) -> String {
    format!("***{middle}**")
}

/// A CPF masked the Portal's way (`***.456.789-**`).
pub fn portal_mask(middle: &str) -> String {
    format!("***.{}.{}-**", &middle[..3], &middle[3..])
}

fn phone(city: &str, rng: &mut ChaCha8Rng) -> String {
    let ddd = DDD.iter().find(|(c, _)| *c == city).map_or("61", |(_, d)| d);
    let mut s = String::with_capacity(10);
    s.push_str(ddd);
    push_uint(&mut s, rng.gen_range(30_000_000..39_999_999), 8);
    s
}

fn zip(rng: &mut ChaCha8Rng) -> String {
    let mut s = String::with_capacity(8);
    push_uint(&mut s, rng.gen_range(1_000_000..99_999_999), 8);
    s
}

/// A fresh address in `city`.
pub fn address(city: &str, rng: &mut ChaCha8Rng) -> Address {
    Address {
        street: STREETS[rng.gen_range(0..STREETS.len())].to_string(),
        number: rng.gen_range(1..4000).to_string(),
        complement: if rng.gen_bool(0.4) { format!("SALA {}", rng.gen_range(101..2400)) } else { String::new() },
        district: "CENTRO".to_string(),
        zip: zip(rng),
        city: city.to_string(),
        uf: String::new(),
    }
}

/// A clean partner with a masked CPF.
pub fn partner(rng: &mut ChaCha8Rng) -> Partner {
    Partner { name: person_name(rng), document: receita_mask(&cpf_middle(rng)), role: "Sócio-Administrador".into() }
}

fn date_between(a: NaiveDate, b: NaiveDate, rng: &mut ChaCha8Rng) -> NaiveDate {
    let span = (b - a).num_days().max(1);
    a + Days::new(rng.gen_range(0..span) as u64)
}

/// Profiles of every pool supplier, with the legitimate noise of the module doc.
pub fn profiles(world: &World, rng: &mut ChaCha8Rng) -> Vec<SupplierProfile> {
    let cities: Vec<&str> = world.organs.iter().flat_map(|o| o.units.iter().map(|u| u.city)).collect();
    let buildings: Vec<Address> = (0..6).map(|k| address(cities[k % cities.len()], rng)).collect();
    let offices: Vec<Address> = (0..2)
        .map(|k| Address { complement: format!("SALA {}", 300 + k), ..address(cities[(k + 2) % cities.len()], rng) })
        .collect();
    let old_from = NaiveDate::from_ymd_opt(1995, 1, 1).unwrap_or(NaiveDate::MIN);
    let old_to = NaiveDate::from_ymd_opt(2021, 12, 31).unwrap_or(NaiveDate::MIN);
    let young_from = NaiveDate::from_ymd_opt(2023, 6, 1).unwrap_or(NaiveDate::MIN);
    let young_to = NaiveDate::from_ymd_opt(2025, 3, 1).unwrap_or(NaiveDate::MIN);
    let mut out = Vec::new();
    for pool in &world.pools {
        for s in &pool.suppliers {
            let city = cities[rng.gen_range(0..cities.len())];
            let u: f64 = rng.r#gen();
            let mut addr = address(city, rng);
            if u < 0.12 {
                // A large office building: same door number, another suite.
                let b = &buildings[rng.gen_range(0..buildings.len())];
                addr = Address { complement: format!("SALA {}", rng.gen_range(101..2400)), ..b.clone() };
            } else if u < 0.16 {
                // Domiciled at an accounting office with many clients.
                addr = offices[rng.gen_range(0..offices.len())].clone();
            }
            let partners =
                if rng.gen_bool(0.04) { Vec::new() } else { (0..rng.gen_range(1..=3)).map(|_| partner(rng)).collect() };
            let opened = if rng.gen_bool(0.03) {
                date_between(young_from, young_to, rng)
            } else {
                date_between(old_from, old_to, rng)
            };
            out.push(SupplierProfile {
                cnpj: s.cnpj.clone().to_string(),
                name: s.name.clone().to_string(),
                opened_on: Some(opened),
                status: "ATIVA".into(),
                cnae: format!("{:07}", rng.gen_range(1_000_000..9_999_999)),
                phone: phone(city, rng),
                address: addr,
                partners,
            });
        }
    }
    // Family groups: a partner shared with a company of another trade.
    let n = out.len();
    let per_pool = world.pools.first().map_or(0, |p| p.suppliers.len()).max(1);
    for _ in 0..(n / 40).max(1) {
        let a = rng.gen_range(0..n);
        let b = (a + per_pool * rng.gen_range(1..world.pools.len().max(2)) + rng.gen_range(0..per_pool)) % n;
        if a / per_pool == b / per_pool {
            continue;
        }
        if let Some(p) = out[a].partners.first().cloned() {
            out[b].partners.push(p);
        }
    }
    out
}

/// Servants: about one per 40 contracts (20 to 25,000), spread over the organs in play,
/// lotação coded in the organ's family (`36000`, `36201`, ...).
pub fn servants(world: &World, contracts: usize, rng: &mut ChaCha8Rng) -> Vec<Servant> {
    let n = (contracts / 40).clamp(20, 25_000);
    (0..n)
        .map(|k| {
            let organ = world.organs[k % world.organs.len()];
            let code = if rng.gen_bool(0.5) {
                organ.code.to_string()
            } else {
                format!("{}2{:02}", &organ.code[..2], rng.gen_range(1..60))
            };
            let middle = cpf_middle(rng);
            Servant {
                id: (1_000_000 + k * 13 + rng.gen_range(0..13)).to_string(),
                cpf: portal_mask(&middle),
                name: person_name(rng),
                organ: crate::model::contract::Organ {
                    code: code.into(),
                    acronym: organ.acronym.into(),
                    name: organ.name.into(),
                },
                exercise_organ: organ.code.into(),
                situation: "ATIVO PERMANENTE".into(),
                kind: "Civil".into(),
                role: ["ANALISTA", "TECNICO", "AGENTE ADMINISTRATIVO", "PREGOEIRO", "FISCAL DE CONTRATO"][k % 5].into(),
            }
        })
        .collect()
}

/// First and last signing date of the contracts of each company (CNPJ root, as sanctions bind
/// every branch).
pub fn contract_spans(contracts: &[Contract]) -> HashMap<&str, (NaiveDate, NaiveDate)> {
    let mut m: HashMap<&str, (NaiveDate, NaiveDate)> = HashMap::new();
    for c in contracts {
        let Some(d) = c.signed_on else { continue };
        let key = c.supplier.cnpj_root().unwrap_or(c.supplier.document.as_str());
        let e = m.entry(key).or_insert((d, d));
        e.0 = e.0.min(d);
        e.1 = e.1.max(d);
    }
    m
}

/// A sanction record.
pub fn sanction(
    id: usize,
    profile: &SupplierProfile,
    kind: &str,
    start: NaiveDate,
    end: Option<NaiveDate>,
) -> Sanction {
    let cnep = kind == "Multa";
    Sanction {
        id: (500_000 + id).to_string(),
        register: if cnep { "CNEP" } else { "CEIS" }.into(),
        document: profile.cnpj.clone(),
        name: profile.name.clone(),
        kind: kind.into(),
        starts_on: Some(start),
        ends_on: end,
        published_on: Some(start),
        authority: "CONTROLADORIA-GERAL DA UNIAO".into(),
        legal_basis: if cnep { "Lei 12.846/2013, art. 6, I" } else { "Lei 14.133/2021, art. 156, III" }.into(),
        process_number: String::new(),
        fine: cnep.then_some(250_000.0),
    }
}

/// Sanctions that bind no contract of the data: barring sanctions that ended before the
/// supplier's first contract or start after its last, and fines (which do not bar contracting).
pub fn noise_sanctions(
    profiles: &[SupplierProfile],
    contracts: &[Contract],
    count: usize,
    rng: &mut ChaCha8Rng,
) -> Vec<Sanction> {
    let spans = contract_spans(contracts);
    let mut order: Vec<usize> = (0..profiles.len()).collect();
    order.shuffle(rng);
    let mut out = Vec::new();
    for i in order.into_iter().take(count) {
        let p = &profiles[i];
        let k = out.len();
        let s = match (spans.get(p.root()), k % 3) {
            (Some(&(first, _)), 0) => {
                let end = first - Days::new(rng.gen_range(5..400));
                sanction(
                    k,
                    p,
                    "Impedimento/proibição de contratar com prazo determinado",
                    end - Days::new(365),
                    Some(end),
                )
            }
            (Some(&(_, last)), 1) => {
                let start = last + Days::new(rng.gen_range(1..200));
                sanction(k, p, "Suspensão", start, Some(start + Days::new(720)))
            }
            (Some(&(first, _)), _) => sanction(k, p, "Multa", first - Days::new(rng.gen_range(0..300)), None),
            (None, _) => {
                let start =
                    NaiveDate::from_ymd_opt(2024, 1, 1).unwrap_or(NaiveDate::MIN) + Days::new(rng.gen_range(0..500));
                sanction(k, p, "Inidoneidade", start, None)
            }
        };
        out.push(s);
    }
    out
}
