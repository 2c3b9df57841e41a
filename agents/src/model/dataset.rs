//! The set of normalised records one analysis runs over.

use serde::{Deserialize, Serialize};

use super::agreement::Agreement;
use super::bidding::Bidding;
use super::contract::Contract;
use super::expense::Expense;
use super::intern::Interner;
use super::registry_facts::SupplierProfile;
use super::sanction::Sanction;
use super::security_log::SecurityEvent;
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
    /// The service's own audit trail, for the security review (not spending records: not
    /// counted by [`Dataset::len`]).
    #[serde(default)]
    pub security_events: Vec<SecurityEvent>,
    /// Population and service indicators by place, fetched by the service in production
    /// (reference data, not records: not counted by [`Dataset::len`]); `None` lets the regional
    /// analysts use the offline IBGE table.
    #[serde(skip)]
    pub regional: Option<std::sync::Arc<super::regional::RegionalFacts>>,
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
    /// Makes the texts that repeat across records (organs, units, suppliers, modalities, ...)
    /// one shared allocation each, and drops spare vector capacity: what a dataset assembled
    /// from parsed records does before it is analysed or kept.
    pub fn share_text(&mut self) {
        let mut interner = Interner::new();
        for c in &mut self.contracts {
            c.share_text(&mut interner);
        }
        for b in &mut self.biddings {
            b.share_text(&mut interner);
        }
        for e in &mut self.expenses {
            e.share_text(&mut interner);
        }
        for a in &mut self.agreements {
            a.grantee.share_text(&mut interner);
            a.organ.share_text(&mut interner);
        }
        self.shrink_to_fit();
    }
    /// Drops spare capacity of every record vector.
    pub fn shrink_to_fit(&mut self) {
        self.contracts.shrink_to_fit();
        self.biddings.shrink_to_fit();
        self.expenses.shrink_to_fit();
        self.agreements.shrink_to_fit();
        self.servants.shrink_to_fit();
        self.suppliers.shrink_to_fit();
        self.sanctions.shrink_to_fit();
        self.security_events.shrink_to_fit();
    }
    /// Number of spending records (contracts, biddings, expenses, agreements), without the
    /// reference data (servants, registry facts, sanctions) they are checked against.
    pub fn spending_len(&self) -> usize {
        self.contracts.len() + self.biddings.len() + self.expenses.len() + self.agreements.len()
    }
    /// Whether there are no records at all.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
