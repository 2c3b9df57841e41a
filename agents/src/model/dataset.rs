//! The set of normalised records one analysis runs over.

use serde::{Deserialize, Serialize};

use super::agreement::Agreement;
use super::bidding::Bidding;
use super::contract::Contract;
use super::expense::Expense;
use super::registry_facts::SupplierProfile;
use super::sanction::Sanction;
use super::servant::Servant;

/// Normalised records of every kind an analysis can use. Every kind but contracts may be
/// empty (and defaults to empty when deserialised).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Dataset {
    /// Contracts (`/contratos`).
    pub contracts: Vec<Contract>,
    /// Bidding processes with their participants (`/licitacoes`, `/licitacoes/participantes`).
    #[serde(default)]
    pub biddings: Vec<Bidding>,
    /// Expense documents (`/despesas/documentos`).
    #[serde(default)]
    pub expenses: Vec<Expense>,
    /// Agreements (`/convenios`).
    #[serde(default)]
    pub agreements: Vec<Agreement>,
    /// Public servants (`/servidores`).
    #[serde(default)]
    pub servants: Vec<Servant>,
    /// Registry facts of suppliers (Receita Federal, not the Portal).
    #[serde(default)]
    pub suppliers: Vec<SupplierProfile>,
    /// Sanctions (`/ceis`, `/cnep`).
    #[serde(default)]
    pub sanctions: Vec<Sanction>,
}

impl Dataset {
    /// A dataset of contracts.
    pub fn from_contracts(contracts: Vec<Contract>) -> Self {
        Self { contracts, ..Self::default() }
    }
    /// Total number of records of every kind.
    pub fn len(&self) -> usize {
        self.contracts.len()
            + self.biddings.len()
            + self.expenses.len()
            + self.agreements.len()
            + self.servants.len()
            + self.suppliers.len()
            + self.sanctions.len()
    }
    /// Whether there are no records at all.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
