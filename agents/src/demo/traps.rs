//! The traps of real records (../shared/real/README.md) put into the clean demo data, none of
//! them an anomaly: an empty fundamentoLegal in most rows; direct purchases above the value
//! limits made on non-value grounds (building leases, public utilities, state IT companies,
//! emergencies, medicines from a single maker), half of them with the legal basis missing;
//! amendment histories of prorrogações, reajustes and acréscimos within the cap ([`super::amend`]);
//! secret contracts; individuals with masked CPFs; generic boilerplate objects shared by
//! different suppliers on small purchases and on larger ones whose item lists say what is
//! bought; and atas de registro de preços used by several units (the same object,
//! process, supplier and unit prices in contracts of other units and organs, as caronas). Contracts a trap shapes are marked used so
//! no plant turns them into one.

use chrono::Days;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

use super::amend;
use super::catalog::Category;
use super::law;
use super::plant::Field;
use super::registry::{cpf_middle, person_name, portal_mask};
use crate::model::cnpj::cnpj_from_parts;
use crate::model::contract::Party;

/// The notice secret contracts carry instead of their object.
pub const SECRET_OBJECT: &str = "Informação protegida por sigilo nos termos da legislação vigente";

/// A non-value ground for a direct purchase: modality, legal basis, object, value range and
/// who supplies it.
struct Ground {
    modality: &'static str,
    basis: &'static str,
    object: &'static str,
    values: (f64, f64),
    supplier: Lessor,
}

enum Lessor {
    /// A named company with this CNPJ root.
    Company(&'static str, u32),
    /// A company named after a word of the unit's city.
    Local(&'static str),
    /// An individual (masked CPF).
    Person,
}

static GROUNDS: &[Ground] = &[
    Ground {
        modality: law::INEXIGIBILIDADE,
        basis: "Lei 14.133/2021, Art. 74, V",
        object: "LOCAÇÃO DE IMÓVEL PARA ABRIGAR AS INSTALAÇÕES DA UNIDADE",
        values: (150_000.0, 2_400_000.0),
        supplier: Lessor::Person,
    },
    Ground {
        modality: law::INEXIGIBILIDADE,
        basis: "Lei 14.133/2021, Art. 74, V",
        object: "LOCAÇÃO DE IMÓVEL COMERCIAL DESTINADO AO FUNCIONAMENTO DA SEDE REGIONAL",
        values: (200_000.0, 3_000_000.0),
        supplier: Lessor::Local("EMPREENDIMENTOS IMOBILIÁRIOS LTDA"),
    },
    Ground {
        modality: law::INEXIGIBILIDADE,
        basis: "Lei 14.133/2021, Art. 74, I",
        object: "FORNECIMENTO DE ENERGIA ELÉTRICA EM ALTA TENSÃO PELA CONCESSIONÁRIA LOCAL",
        values: (200_000.0, 5_000_000.0),
        supplier: Lessor::Local("DISTRIBUIDORA DE ENERGIA S.A."),
    },
    Ground {
        modality: law::DISPENSA,
        basis: "Lei 14.133/2021, Art. 75, IX",
        object: "PRESTAÇÃO DE SERVIÇOS DE TECNOLOGIA DA INFORMAÇÃO: PROCESSAMENTO DE DADOS E HOSPEDAGEM DE SISTEMAS ESTRUTURANTES",
        values: (1_000_000.0, 30_000_000.0),
        supplier: Lessor::Company("SERVIÇO FEDERAL DE PROCESSAMENTO DE DADOS - SERPRO", 33_683_111),
    },
    Ground {
        modality: law::DISPENSA,
        basis: "Lei 14.133/2021, Art. 75, IX",
        object: "SERVIÇOS DE ACESSO A BASES DE DADOS E PROCESSAMENTO DA FOLHA PREVIDENCIÁRIA",
        values: (800_000.0, 20_000_000.0),
        supplier: Lessor::Company("EMPRESA DE TECNOLOGIA E INFORMAÇÕES DA PREVIDÊNCIA - DATAPREV", 42_422_253),
    },
    Ground {
        modality: law::DISPENSA,
        basis: "Lei 14.133/2021, Art. 75, VIII",
        object: "CONTRATAÇÃO EMERGENCIAL DE SERVIÇOS DE MANUTENÇÃO PREDIAL EM RAZÃO DE DESABAMENTO PARCIAL DA COBERTURA",
        values: (100_000.0, 3_000_000.0),
        supplier: Lessor::Local("ENGENHARIA E MANUTENÇÃO LTDA"),
    },
    Ground {
        modality: law::INEXIGIBILIDADE,
        basis: "Lei 14.133/2021, Art. 74, I",
        object: "AQUISIÇÃO DE MEDICAMENTO DE PRODUTOR EXCLUSIVO PARA CUMPRIMENTO DE DECISÃO JUDICIAL",
        values: (100_000.0, 2_000_000.0),
        supplier: Lessor::Local("LABORATÓRIO FARMACÊUTICO S.A."),
    },
];

/// Generic objects real records carry for purchases of every kind.
static BOILERPLATE_OBJECTS: &[&str] = &[
    "PRESTAÇÃO DE SERVIÇOS",
    "AQUISIÇÃO DE MATERIAL DE CONSUMO",
    "CONTRATAÇÃO DE SERVIÇOS",
    "AQUISIÇÃO DE MATERIAL PERMANENTE",
];

fn cents(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// Puts every trap of the module doc into the clean contracts of `f`.
pub fn apply(f: &mut Field<'_>, rng: &mut ChaCha8Rng) {
    let n = f.contracts.len();
    for i in 0..n {
        let cat = f.world.profiles[f.metas[i].cat].category;
        let renovation = cat == Category::Obras && f.contracts[i].object.contains("REFORMA");
        amend::history(&mut f.contracts[i], cat.is_continuing_service(), renovation, rng);
        f.metas[i].value = f.contracts[i].value();
        if rng.gen_bool(0.8) {
            f.contracts[i].legal_basis = arcstr::ArcStr::new();
        }
    }
    if n < 50 {
        return;
    }
    let take = |f: &mut Field<'_>, rng: &mut ChaCha8Rng| -> Option<usize> {
        (0..64).map(|_| rng.gen_range(0..n)).find(|i| !f.used.contains(i)).inspect(|&i| {
            f.used.insert(i);
        })
    };
    // Direct purchases on non-value grounds, above the value limits.
    for k in 0..(n / 125).max(GROUNDS.len()) {
        let Some(i) = take(f, rng) else { break };
        let g = &GROUNDS[k % GROUNDS.len()];
        let info = f.world.organs[f.metas[i].organ];
        let city =
            info.units.iter().find(|u| u.code == f.contracts[i].unit.code.as_str()).map_or("BRASILIA", |u| u.city);
        let c = &mut f.contracts[i];
        c.modality = f.world.text(g.modality);
        c.legal_basis = if rng.gen_bool(0.5) { arcstr::ArcStr::new() } else { f.world.text(g.basis) };
        c.object = arcstr::format!("{} - {city}", g.object);
        c.items.clear();
        c.amendments.clear();
        let value = cents(rng.gen_range(g.values.0.ln()..g.values.1.ln()).exp());
        c.initial_value = value;
        c.final_value = value;
        c.supplier = match g.supplier {
            Lessor::Company(name, root) => Party { name: name.into(), document: cnpj_from_parts(root, 1).into() },
            Lessor::Local(kind) => Party {
                name: arcstr::format!("{city} {kind}"),
                document: cnpj_from_parts(10_000_000 + (city.len() as u32 * 7_919 + k as u32 % 7) * 97, 1).into(),
            },
            Lessor::Person => Party { name: person_name(rng).into(), document: portal_mask(&cpf_middle(rng)).into() },
        };
        f.metas[i].value = c.value();
    }
    // Secret contracts.
    for _ in 0..(n / 200).max(1) {
        let Some(i) = take(f, rng) else { break };
        let c = &mut f.contracts[i];
        c.object = SECRET_OBJECT.into();
        c.supplier = Party { name: arcstr::literal!("Sigiloso"), document: arcstr::literal!("-11") };
        c.items.clear();
    }
    // Individuals (instructors, consultants, lessors) with masked CPFs.
    for _ in 0..n / 50 {
        let Some(i) = take(f, rng) else { break };
        f.contracts[i].supplier =
            Party { name: person_name(rng).into(), document: portal_mask(&cpf_middle(rng)).into() };
    }
    // Generic boilerplate objects shared by different suppliers: on small purchases (under the
    // direct purchase limit), where a one-line summary is the usual record, and on a quarter of
    // the larger ones that list their items, which say what is bought whatever the summary.
    for _ in 0..n / 15 {
        let Some(i) = take(f, rng) else { break };
        let c = &mut f.contracts[i];
        let small = c.signed_on.and_then(|d| law::value_limit(d, false)).is_some_and(|l| c.value() < l.0);
        if small {
            c.items.clear();
            c.object = BOILERPLATE_OBJECTS[rng.gen_range(0..BOILERPLATE_OBJECTS.len())].into();
        } else if !c.items.is_empty() && rng.gen_bool(0.25) {
            c.object = BOILERPLATE_OBJECTS[rng.gen_range(0..BOILERPLATE_OBJECTS.len())].into();
        }
    }
    // Atas de registro de preços used by several units: the same object, process, supplier and
    // unit prices, other quantities, signed within two months.
    for _ in 0..n / 400 {
        let Some(src) = take(f, rng) else { break };
        if !law::is_competitive(&f.contracts[src].modality) {
            continue;
        }
        for _ in 0..rng.gen_range(2..=3) {
            let Some(j) = take(f, rng) else { break };
            let Some(signed) = f.contracts[src].signed_on else { break };
            // Within the same year, so the contract stays in its organ-year.
            let later = signed + Days::new(rng.gen_range(5..60));
            let to = if chrono::Datelike::year(&later) == chrono::Datelike::year(&signed) { later } else { signed };
            super::plant_temporal::move_to(f, j, to);
            let factor = rng.gen_range(0.4..1.6);
            let from = f.contracts[src].clone();
            let c = &mut f.contracts[j];
            c.object = from.object.clone();
            c.process_number = from.process_number.clone();
            c.supplier = from.supplier.clone();
            c.modality = arcstr::literal!("Pregão - Registro de Preço");
            c.items = from.items.clone();
            c.amendments.clear();
            for (item, own) in c.items.iter_mut().zip(&from.items) {
                item.quantity = (item.quantity * factor).round().max(1.0);
                item.value = cents(item.quantity * super::clean::unit_price(own));
            }
            let total: f64 = c.items.iter().map(|it| it.value).sum();
            let total = if c.items.is_empty() { cents(from.initial_value * factor) } else { cents(total) };
            c.initial_value = total;
            c.final_value = total;
            f.metas[j].value = total;
            f.metas[j].cat = f.metas[src].cat;
        }
    }
}
