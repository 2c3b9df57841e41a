//! Which contracts were bought in a competitive market, for the rules that read a supplier's
//! share of an organ's spending (`supplier_concentration`). Some suppliers dominate an organ
//! legitimately: public utilities (power, water, post) are natural monopolies, a building is
//! leased from its one owner, state companies (Serpro, Dataprev, Correios, Imprensa Nacional,
//! Casa da Moeda, EBC ...) and other public bodies are contracted directly by law, exclusive
//! suppliers are bought by inexigibilidade, and the secret-contract placeholder ("Sigiloso",
//! contracted code -11) is not a supplier at all. Their share says nothing of competition.

use std::collections::HashMap;
use std::sync::OnceLock;

use memchr::memmem::Finder;

use super::common::FxBuild;
use super::legal_grounds::STATE_SUPPLIERS;
use crate::detect::legal::{Modality, modality};
use crate::model::contract::Contract;
use crate::text::fold;

/// Why a contract is outside the competitive market, if it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outside {
    /// A secret contract, or one without a supplier document.
    NoSupplier,
    /// Bought by inexigibilidade (an exclusive supplier or a singular service).
    Exclusive,
    /// A public utility: power, water and sewage, post, piped gas.
    Utility,
    /// The lease of a building or land.
    Lease,
    /// A state company or another public body.
    PublicBody,
}

impl Outside {
    /// A Portuguese label for the evidence.
    pub fn label(self) -> &'static str {
        match self {
            Outside::NoSupplier => "sigilosos ou sem fornecedor identificado",
            Outside::Exclusive => "inexigibilidades (fornecedor exclusivo)",
            Outside::Utility => "serviços públicos (energia, água, correios)",
            Outside::Lease => "locações de imóveis",
            Outside::PublicBody => "empresas estatais e órgãos públicos",
        }
    }
}

/// Object phrases (folded) of a public utility.
const UTILITY_OBJECT: &[&str] = &[
    "energia eletrica",
    "fornecimento de energia",
    "distribuicao de energia",
    "agua potavel",
    "tratamento de esgoto",
    "consumo de energia",
    "agua e esgoto",
    "abastecimento de agua",
    "fornecimento de agua",
    "esgotamento sanitario",
    "saneamento",
    "servicos postais",
    "servico postal",
    "gas canalizado",
    "gas natural canalizado",
];

/// Object phrases (folded) of a lease of real estate.
const LEASE_OBJECT: &[&str] = &[
    "locacao de imovel",
    "locacao do imovel",
    "locacao de predio",
    "locacao de sala",
    "locacao de espaco",
    "locacao de terreno",
    "aluguel de imovel",
    "aluguel do imovel",
    "cessao de uso",
];

/// Supplier name fragments (folded) of public utilities.
const UTILITY_SUPPLIER: &[&str] = &[
    "saneamento",
    "agua e esgoto",
    "aguas e esgotos",
    "companhia energetica",
    "companhia de eletricidade",
    "distribuidora de energia",
    "centrais eletricas",
    "servico autonomo de agua",
];

/// Supplier name fragments (folded) of public bodies and banks beyond the state companies
/// that [`super::legal_grounds::STATE_SUPPLIERS`] names (both lists are read together).
const PUBLIC_SUPPLIER: &[&str] = &[
    "banco do brasil",
    "caixa economica federal",
    "prefeitura municipal",
    "municipio de",
    "governo do estado",
    "universidade federal",
    "fundacao oswaldo cruz",
];

/// What a supplier's name alone says about its market (the name folded once; the same name
/// always says the same, so [`outside_all`] reads each distinct name once).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct NameSays {
    /// The secret-contract placeholder ("Sigiloso").
    secret: bool,
    /// A public utility's name.
    utility: bool,
    /// A state company's or another public body's name.
    public: bool,
}

fn name_says(name: &str) -> NameSays {
    let name = fold(name);
    NameSays {
        secret: name.starts_with("sigiloso"),
        utility: UTILITY_SUPPLIER.iter().any(|p| name.contains(p)),
        public: STATE_SUPPLIERS.iter().chain(PUBLIC_SUPPLIER).any(|p| name.contains(p)),
    }
}

/// Words (folded) of which every phrase of [`UTILITY_OBJECT`] and [`LEASE_OBJECT`] contains
/// one: an object without any of them matches no phrase, so most objects are checked against
/// these few instead of every phrase (a test keeps the lists in step).
const OBJECT_ANCHORS: &[&str] =
    &["energia", "agua", "esgot", "saneamento", "posta", "gas", "locacao", "aluguel", "cessao"];

/// Whether an object names a public utility and whether it names a lease; `buf` is scratch.
fn object_says(object: &str, buf: &mut String) -> (bool, bool) {
    super::object_signature::fold_into(object, buf);
    // Each phrase's searcher built once, not at every search.
    static FINDERS: OnceLock<[Vec<Finder<'static>>; 3]> = OnceLock::new();
    let finders = FINDERS.get_or_init(|| {
        let of = |list: &[&'static str]| list.iter().map(|p| Finder::new(p.as_bytes())).collect::<Vec<_>>();
        [of(OBJECT_ANCHORS), of(UTILITY_OBJECT), of(LEASE_OBJECT)]
    });
    let text = buf.as_bytes();
    let any = |k: usize| finders[k].iter().any(|f| f.find(text).is_some());
    if !any(0) {
        return (false, false);
    }
    (any(1), any(2))
}

/// The reason from what the document, the name and the object say, most specific first.
fn classify(c: &Contract, name: NameSays, object: (bool, bool)) -> Option<Outside> {
    let doc = c.supplier.document.as_str();
    if doc.is_empty() || doc.starts_with('-') || name.secret {
        return Some(Outside::NoSupplier);
    }
    // A CNPJ has 14 digits and a CPF 11 (masked ones included); a shorter code is a public
    // unit (a UG) contracted as such.
    let digits = doc.bytes().filter(u8::is_ascii_digit).count();
    if doc.bytes().all(|b| b.is_ascii_digit()) && digits < 11 {
        return Some(Outside::PublicBody);
    }
    // The most specific reason first: a utility bought by inexigibilidade is a utility.
    let (utility_object, lease_object) = object;
    if utility_object || name.utility {
        return Some(Outside::Utility);
    }
    if lease_object {
        return Some(Outside::Lease);
    }
    if name.public {
        return Some(Outside::PublicBody);
    }
    (modality(&c.modality) == Modality::Inexigibilidade).then_some(Outside::Exclusive)
}

/// Why `c` is outside the competitive market, or `None` when its supplier competed for it.
pub fn outside_competition(c: &Contract) -> Option<Outside> {
    classify(c, name_says(&c.supplier.name), object_says(&c.object, &mut String::new()))
}

/// [`outside_competition`] of every contract, in order: each distinct supplier name is read
/// once, the objects are read on `threads` threads.
pub fn outside_all(cs: &[Contract], threads: usize) -> Vec<Option<Outside>> {
    let mut ids: HashMap<&str, u32, FxBuild> = HashMap::default();
    let mut says: Vec<NameSays> = Vec::new();
    let name_of: Vec<u32> = cs
        .iter()
        .map(|c| {
            *ids.entry(c.supplier.name.as_str()).or_insert_with(|| {
                says.push(name_says(&c.supplier.name));
                (says.len() - 1) as u32
            })
        })
        .collect();
    drop(ids);
    let part = |from: usize, to: usize| {
        let mut buf = String::new();
        (from..to).map(|i| classify(&cs[i], says[name_of[i] as usize], object_says(&cs[i].object, &mut buf))).collect()
    };
    super::shared::par_ranges(cs.len(), threads, part)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::contract;

    #[test]
    fn utilities_leases_state_companies_exclusive_suppliers_and_secret_contracts_are_outside_competition() {
        let mut power = contract("1", "FORNECIMENTO DE ENERGIA ELÉTRICA", "33050196000188", "26000", 1e6, (2024, 1, 5));
        assert_eq!(outside_competition(&power), Some(Outside::Utility));
        power.object = "LOCAÇÃO DE IMÓVEL PARA A SEDE".into();
        assert_eq!(outside_competition(&power), Some(Outside::Lease));
        let mut serpro = contract("2", "SERVIÇOS DE TI", "33683111000107", "26000", 1e6, (2024, 1, 5));
        serpro.supplier.name = "SERPRO - SEDE - BRASILIA".into();
        assert_eq!(outside_competition(&serpro), Some(Outside::PublicBody));
        let ug = contract("3", "SERVIÇOS DE TI", "806030", "26000", 1e6, (2024, 1, 5));
        assert_eq!(outside_competition(&ug), Some(Outside::PublicBody));
        let mut secret = contract("4", "Informação protegida por sigilo", "-11", "30000", 1e4, (2024, 1, 5));
        secret.supplier.name = "Sigiloso".into();
        assert_eq!(outside_competition(&secret), Some(Outside::NoSupplier));
        let mut exclusive = contract("5", "SOFTWARE", "12345678000190", "26000", 1e5, (2024, 1, 5));
        exclusive.modality = "Inexigibilidade de Licitação".into();
        assert_eq!(outside_competition(&exclusive), Some(Outside::Exclusive));
    }

    #[test]
    fn every_object_phrase_holds_an_anchor_word() {
        for p in UTILITY_OBJECT.iter().chain(LEASE_OBJECT) {
            assert!(OBJECT_ANCHORS.iter().any(|a| p.contains(a)), "{p}");
        }
    }

    #[test]
    fn the_whole_dataset_is_classified_as_one_contract_at_a_time() {
        let mut cs = Vec::new();
        for (k, (object, name, doc)) in [
            ("FORNECIMENTO DE ÁGUA E ESGOTO", "CIA X", "12345678000190"),
            ("SERVIÇOS DE TI", "SERPRO - SEDE", "33683111000107"),
            ("LOCAÇÃO DE IMÓVEL", "JOÃO", "12345678000190"),
            ("LIMPEZA", "Sigiloso", "-11"),
            ("LIMPEZA", "CIA X", "12345678000190"),
            ("LIMPEZA", "COMPANHIA ENERGÉTICA DE MINAS", "12345678000190"),
        ]
        .iter()
        .enumerate()
        {
            let mut c = contract(&k.to_string(), object, doc, "26000", 1e5, (2024, 1, 5));
            c.supplier.name = (*name).into();
            cs.push(c);
        }
        let one: Vec<_> = cs.iter().map(outside_competition).collect();
        assert_eq!(outside_all(&cs, 2), one);
        assert_eq!(one[4], None);
    }

    #[test]
    fn a_cleaning_service_won_in_a_pregao_or_bought_from_an_individual_competed() {
        assert_eq!(
            outside_competition(&contract("1", "LIMPEZA PREDIAL", "12345678000190", "26000", 1e5, (2024, 1, 5))),
            None
        );
        let person = contract("2", "CONSULTORIA", "***.123.456-**", "26000", 1e4, (2024, 1, 5));
        assert_eq!(outside_competition(&person), None);
    }
}
