//! What a parsed legal basis ([`super::legal_basis`]) means for a purchase made without a
//! bidding: a dispensa by value (the only kind the value limits bind), a dispensa or
//! inexigibilidade on another ground, or a ground the record does not tell. When the basis is
//! missing, the usual non-value grounds are recognised from the object and the supplier
//! (building leases, public utilities, state companies and public bodies, emergencies,
//! exclusive suppliers), as an auditor reading the record would.
//!
//! Sources: Lei 8.666/1993 art. 24 (incisos I and II by value; III to XXXV on other grounds, e.g.
//! IV emergency, VIII public bodies, X leases, XVI Imprensa Nacional and state IT companies,
//! XXII energy), art. 25 (inexigibilidade); Lei 14.133/2021 art. 74 (inexigibilidade: I
//! exclusive supplier, III notória especialização, V leases), art. 75 (I and II by value; III
//! to XVI other grounds: VIII emergency, IX public bodies); Lei 13.303/2016 art. 29 (I and II
//! by value), art. 30 (inexigibilidade); special laws of calamity (Lei 14.981/2024, MP
//! 1.221/2024) and of Covid-19 (Lei 14.217/2021, Lei 13.979/2020).

use std::collections::HashMap;
use std::sync::OnceLock;

use memchr::memmem::Finder;

use super::common::FxBuild;
use super::legal::{self, Modality};
use super::legal_basis::{self, Citation, Law, LegalBasis};
use super::object_signature::fold_into;
use crate::model::cnpj::{DocumentKind, document_kind};
use crate::model::contract::Contract;
use crate::text::fold;

/// Why a purchase was made without a bidding, as its legal basis says.
#[derive(Debug, Clone, PartialEq)]
pub enum Ground {
    /// A dispensa by value (inciso I or II of its law's article): the value limits bind.
    ByValue {
        /// The law cited.
        law: Law,
        /// Inciso I (engineering works and services).
        engineering: bool,
        /// The citation as the evidence names it.
        citation: String,
    },
    /// Another legal ground (a non-value inciso, an inexigibilidade, a special law).
    Other(String),
    /// The basis names a law but not a ground (`"LEI 14.133/2021"`, the pregão law).
    Unknown,
    /// The basis is empty or a placeholder.
    Missing,
}

fn classify(c: &Citation) -> Option<Ground> {
    let value_article = match c.law {
        Law::L8666 => 24,
        Law::L14133 => 75,
        Law::L13303 => 29,
        // A special law (calamity, Covid-19) gives its own dispensa ground.
        Law::OtherLaw(_) => return Some(Ground::Other(c.label())),
        Law::L10520 | Law::Decree(_) => return None,
    };
    let article = c.article?;
    if article == value_article {
        return match c.inciso {
            Some(i @ (1 | 2)) => Some(Ground::ByValue { law: c.law.clone(), engineering: i == 1, citation: c.label() }),
            Some(_) => Some(Ground::Other(c.label())),
            None => None,
        };
    }
    // Inexigibilidade articles, the alienation articles (dispensada) and the state companies'
    // own exceptions are grounds without value limits.
    let other = match c.law {
        Law::L8666 => matches!(article, 17 | 25),
        Law::L14133 => matches!(article, 74 | 76 | 79),
        Law::L13303 => matches!(article, 28 | 30),
        _ => false,
    };
    other.then(|| Ground::Other(c.label()))
}

/// The ground a dispensa's legal basis cites. A non-value ground wins over a value inciso
/// cited with it (the purchase may rest on either, and the value limit binds only the latter).
pub fn ground(basis: &LegalBasis) -> Ground {
    if basis.missing {
        return Ground::Missing;
    }
    let grounds: Vec<Ground> = basis.citations.iter().filter_map(classify).collect();
    if let Some(g) = grounds.iter().find(|g| matches!(g, Ground::Other(_))) {
        return g.clone();
    }
    grounds.into_iter().next().unwrap_or(Ground::Unknown)
}

/// Whether the basis cites an inexigibility article (Lei 8.666 art. 25, Lei 14.133 art. 74,
/// Lei 13.303 art. 30) or a credenciamento (Lei 14.133 art. 79).
pub fn cites_inexigibility(basis: &LegalBasis) -> bool {
    basis.citations.iter().any(|c| {
        matches!((&c.law, c.article), (Law::L8666, Some(25)) | (Law::L14133, Some(74 | 79)) | (Law::L13303, Some(30)))
    })
}

/// Whether the basis names only a law, with no article (`"LEI 14.133/2021"`): incomplete,
/// not contradictory.
pub fn names_only_a_law(basis: &LegalBasis) -> bool {
    !basis.citations.is_empty() && basis.citations.iter().all(|c| c.article.is_none())
}

/// Phrases of an object or supplier name that state a non-value ground, with the ground.
const OBJECT_GROUNDS: &[(&str, &str)] = &[
    ("locacao de imove", "locação de imóvel (Lei 14.133, art. 74, V; Lei 8.666, art. 24, X)"),
    ("locacao do imovel", "locação de imóvel (Lei 14.133, art. 74, V; Lei 8.666, art. 24, X)"),
    ("aluguel de imove", "locação de imóvel (Lei 14.133, art. 74, V; Lei 8.666, art. 24, X)"),
    ("locacao de sala", "locação de imóvel (Lei 14.133, art. 74, V; Lei 8.666, art. 24, X)"),
    ("locacao de espaco", "locação de imóvel (Lei 14.133, art. 74, V; Lei 8.666, art. 24, X)"),
    ("locacao de predio", "locação de imóvel (Lei 14.133, art. 74, V; Lei 8.666, art. 24, X)"),
    ("energia eletrica", "serviço público de energia elétrica (Lei 8.666, art. 24, XXII; concessionária exclusiva)"),
    ("fornecimento de agua", "serviço público de água e esgoto (concessionária exclusiva)"),
    ("abastecimento de agua", "serviço público de água e esgoto (concessionária exclusiva)"),
    ("esgotamento sanitario", "serviço público de água e esgoto (concessionária exclusiva)"),
    ("agua e esgoto", "serviço público de água e esgoto (concessionária exclusiva)"),
    ("gas canalizado", "serviço público de gás canalizado (concessionária exclusiva)"),
    ("servicos postais", "serviços postais (ECT, exclusividade legal: Lei 6.538/1978)"),
    ("servico postal", "serviços postais (ECT, exclusividade legal: Lei 6.538/1978)"),
    ("emergencia", "contratação emergencial (Lei 14.133, art. 75, VIII; Lei 8.666, art. 24, IV)"),
    ("emergencial", "contratação emergencial (Lei 14.133, art. 75, VIII; Lei 8.666, art. 24, IV)"),
    ("calamidade", "calamidade pública (Lei 14.133, art. 75, VIII; leis especiais)"),
    ("exclusiv", "fornecedor exclusivo (Lei 14.133, art. 74, I; Lei 8.666, art. 25, I)"),
    ("fornecedor unico", "fornecedor exclusivo (Lei 14.133, art. 74, I; Lei 8.666, art. 25, I)"),
    ("unico fabricante", "fornecedor exclusivo (Lei 14.133, art. 74, I; Lei 8.666, art. 25, I)"),
    ("notoria especializacao", "notória especialização (Lei 14.133, art. 74, III)"),
    ("inviabilidade de competicao", "inviabilidade de competição (Lei 14.133, art. 74)"),
    ("credenciamento", "credenciamento (Lei 14.133, art. 79)"),
    ("inscricao", "inscrição em curso ou evento aberto (Lei 14.133, art. 74, III, f)"),
    ("publicacao no diario oficial", "publicação oficial (Imprensa Nacional, art. 24, XVI)"),
    ("publicacoes no diario oficial", "publicação oficial (Imprensa Nacional, art. 24, XVI)"),
];

/// Phrases of an object that name the lease of a building.
const BUILDING_LEASE: &[&str] = &[
    "locacao de imove",
    "locacao do imovel",
    "aluguel de imove",
    "aluguel do imovel",
    "locacao de predio",
    "locacao de sala",
];

/// Whether the object is the lease of a building (the administration as tenant).
pub fn is_building_lease(object: &str) -> bool {
    with_folded(object, names_building_lease)
}

/// [`is_building_lease`] of an object already folded.
fn names_building_lease(folded: &str) -> bool {
    static LEASE: OnceLock<Vec<Finder<'static>>> = OnceLock::new();
    finders(&LEASE, BUILDING_LEASE).iter().any(|f| f.find(folded.as_bytes()).is_some())
}

/// Supplier names of public bodies and state companies contracted without bidding on their
/// own grounds (Lei 14.133, art. 75, IX; Lei 8.666, art. 24, VIII and XVI).
pub const STATE_SUPPLIERS: &[&str] = &[
    "serpro",
    "servico federal de processamento de dados",
    "dataprev",
    "empresa de tecnologia e informacoes da previdencia",
    "correios",
    "empresa brasileira de correios",
    "empresa brasil de comunicacao",
    "imprensa nacional",
    "casa da moeda",
    "telebras",
    "companhia de processamento de dados",
    "empresa de processamento de dados",
    "prodemge",
    "prodesp",
    "procergs",
    "celepar",
    "tecnologia da informacao e comunicacao do estado",
    "companhia de saneamento",
    "saneamento basico",
    "companhia energetica",
    "distribuidora de energia",
    "centrais eletricas",
    "companhia estadual de",
    "prefeitura municipal",
    "universidade federal",
    "fundacao de apoio",
    "fundacao universitaria",
];

/// The non-value ground an object or a supplier shows when the legal basis does not say
/// (`supplier_is_public_body`: the supplier's id is a UG code).
pub fn inferred_ground(object: &str, supplier_name: &str, supplier_is_public_body: bool) -> Option<&'static str> {
    if supplier_is_public_body {
        return Some("órgão ou entidade da administração (Lei 14.133, art. 75, IX; Lei 8.666, art. 24, VIII)");
    }
    static GROUNDS: OnceLock<Vec<Finder<'static>>> = OnceLock::new();
    let grounds = GROUNDS.get_or_init(|| OBJECT_GROUNDS.iter().map(|(w, _)| Finder::new(w.as_bytes())).collect());
    let found = with_folded(object, |o| {
        // "Regime de dedicação exclusiva de mão de obra" (outsourced staff) says nothing of an
        // exclusive supplier.
        let o = without_staff_regime(o);
        OBJECT_GROUNDS.iter().zip(grounds).find(|(_, f)| f.find(o.as_bytes()).is_some()).map(|((_, g), _)| *g)
    });
    found.or_else(|| {
        is_state_supplier(supplier_name).then_some(
            "empresa pública, sociedade de economia mista ou concessionária contratada em razão de quem é (Lei 14.133, art. 75, IX; Lei 8.666, art. 24, VIII e XVI)",
        )
    })
}

/// Whether a supplier's name is a state company's, a concessionária's or a public body's
/// ([`STATE_SUPPLIERS`]); a private company's legal form (LTDA, EIRELI, ME, EPP) rules it out.
pub fn is_state_supplier(supplier_name: &str) -> bool {
    static NAMES: OnceLock<Vec<Finder<'static>>> = OnceLock::new();
    let names = finders(&NAMES, STATE_SUPPLIERS);
    with_folded(supplier_name, |s| {
        let private = s.split(|c: char| !c.is_alphanumeric()).any(|w| matches!(w, "ltda" | "eireli" | "me" | "epp"));
        !private && names.iter().any(|f| f.find(s.as_bytes()).is_some())
    })
}

/// `f` over [`fold`] of `s`, folded into one scratch buffer per thread: these tests run on
/// every contract of several detectors and agents, and a fresh string per call cost more than
/// the searches.
fn with_folded<T>(s: &str, f: impl FnOnce(&str) -> T) -> T {
    thread_local! {
        static BUF: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
    }
    BUF.with(|b| match b.try_borrow_mut() {
        Ok(mut buf) => {
            fold_into(s, &mut buf);
            f(&buf)
        }
        // Called from inside `f` (not done today): a buffer of its own.
        Err(_) => f(&fold(s)),
    })
}

/// A folded object with "dedicacao exclusiva" read as "dedicacao" (a staff regime, not an
/// exclusive supplier); borrowed unless the phrase is there.
fn without_staff_regime(o: &str) -> std::borrow::Cow<'_, str> {
    if o.contains("dedicacao exclusiva") { o.replace("dedicacao exclusiva", "dedicacao").into() } else { o.into() }
}

/// The searchers of a phrase list, built once (setting a searcher up at every search cost more
/// than the search).
fn finders(cell: &'static OnceLock<Vec<Finder<'static>>>, list: &'static [&'static str]) -> &'static [Finder<'static>] {
    cell.get_or_init(|| list.iter().map(|p| Finder::new(p.as_bytes())).collect())
}

/// Phrases of an object that name a public utility, supplied by the concessionária of the place.
const UTILITIES: &[&str] = &[
    "energia eletrica",
    "fornecimento de agua",
    "abastecimento de agua",
    "esgotamento sanitario",
    "agua e esgoto",
    "gas canalizado",
    "servicos postais",
    "servico postal",
];

/// Phrases of an object that name an exclusive supplier (Lei 14.133, art. 74, I) or a court
/// order the purchase complies with.
const EXCLUSIVE_OR_ORDERED: &[&str] =
    &["exclusiv", "fornecedor unico", "unico fabricante", "decisao judicial", "ordem judicial", "mandado judicial"];

/// Whether a contract is made with this supplier because of who it is or what it owns, or for
/// a court order: a public body (`supplier_is_public_body`), a state company or concessionária,
/// a public utility, the lessor of a building, an exclusive maker, a purchase a court ordered.
/// Each such contract is one consumer unit, service, property or order, which their standard
/// texts seldom name (an order's beneficiary never), so two of them alike in text are not the
/// same purchase.
pub fn tied_to_supplier(object: &str, supplier_name: &str, supplier_is_public_body: bool) -> bool {
    static TIES: OnceLock<Vec<Finder<'static>>> = OnceLock::new();
    let ties =
        TIES.get_or_init(|| UTILITIES.iter().chain(EXCLUSIVE_OR_ORDERED).map(|p| Finder::new(p.as_bytes())).collect());
    supplier_is_public_body
        || with_folded(object, |o| {
            names_building_lease(o) || {
                let o = without_staff_regime(o);
                ties.iter().any(|f| f.find(o.as_bytes()).is_some())
            }
        })
        || is_state_supplier(supplier_name)
}

/// How much of a dataset states its legal basis: missing data, reported once per dataset as
/// a data-quality note, never as a violation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BasisCoverage {
    /// Contracts judged.
    pub contracts: usize,
    /// Contracts whose legal basis is empty or a placeholder.
    pub missing: usize,
    /// Dispensas and inexigibilidades among them.
    pub direct_missing: usize,
    /// Of those, the ones whose object or supplier shows a non-value ground.
    pub direct_inferred: usize,
}

/// Counts the contracts without a legal basis (parsing each distinct basis once).
pub fn basis_coverage(contracts: &[Contract]) -> BasisCoverage {
    let mut missing: HashMap<&str, bool, FxBuild> = HashMap::default();
    let mut out = BasisCoverage { contracts: contracts.len(), ..BasisCoverage::default() };
    for c in contracts {
        let m = *missing.entry(c.legal_basis.as_str()).or_insert_with(|| legal_basis::parse(&c.legal_basis).missing);
        if !m {
            continue;
        }
        out.missing += 1;
        if matches!(legal::modality(&c.modality), Modality::Dispensa | Modality::Inexigibilidade) {
            out.direct_missing += 1;
            let public = document_kind(&c.supplier.document) == DocumentKind::UgCode;
            out.direct_inferred += usize::from(inferred_ground(&c.object, &c.supplier.name, public).is_some());
        }
    }
    out
}
