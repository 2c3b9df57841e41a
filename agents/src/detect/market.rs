//! Which contracts were bought in a competitive market, for the rules that read a supplier's
//! share of an organ's spending (`supplier_concentration`). Some suppliers dominate an organ
//! legitimately: public utilities (power, water, post) are natural monopolies, a building is
//! leased from its one owner, state companies (Serpro, Dataprev, Correios, Imprensa Nacional,
//! Casa da Moeda, EBC ...) and other public bodies are contracted directly by law, exclusive
//! suppliers are bought by inexigibilidade, and the secret-contract placeholder ("Sigiloso",
//! contracted code -11) is not a supplier at all. Their share says nothing of competition.

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

/// Why `c` is outside the competitive market, or `None` when its supplier competed for it.
pub fn outside_competition(c: &Contract) -> Option<Outside> {
    let doc = c.supplier.document.as_str();
    let name = fold(&c.supplier.name);
    if doc.is_empty() || doc.starts_with('-') || name.starts_with("sigiloso") {
        return Some(Outside::NoSupplier);
    }
    // A CNPJ has 14 digits and a CPF 11 (masked ones included); a shorter code is a public
    // unit (a UG) contracted as such.
    let digits = doc.bytes().filter(u8::is_ascii_digit).count();
    if doc.bytes().all(|b| b.is_ascii_digit()) && digits < 11 {
        return Some(Outside::PublicBody);
    }
    // The most specific reason first: a utility bought by inexigibilidade is a utility.
    let object = fold(&c.object);
    if UTILITY_OBJECT.iter().any(|p| object.contains(p)) || UTILITY_SUPPLIER.iter().any(|p| name.contains(p)) {
        return Some(Outside::Utility);
    }
    if LEASE_OBJECT.iter().any(|p| object.contains(p)) {
        return Some(Outside::Lease);
    }
    if STATE_SUPPLIERS.iter().chain(PUBLIC_SUPPLIER).any(|p| name.contains(p)) {
        return Some(Outside::PublicBody);
    }
    (modality(&c.modality) == Modality::Inexigibilidade).then_some(Outside::Exclusive)
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
    fn a_cleaning_service_won_in_a_pregao_or_bought_from_an_individual_competed() {
        assert_eq!(
            outside_competition(&contract("1", "LIMPEZA PREDIAL", "12345678000190", "26000", 1e5, (2024, 1, 5))),
            None
        );
        let person = contract("2", "CONSULTORIA", "***.123.456-**", "26000", 1e4, (2024, 1, 5));
        assert_eq!(outside_competition(&person), None);
    }
}
