//! The set of normalised records one analysis runs over.

use serde::{Deserialize, Serialize};

use super::contract::Contract;

/// Normalised records of every kind an analysis can use. Later record kinds (expenses,
/// agreements, biddings, servants) join as further fields.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Dataset {
    /// Contracts (`/contratos`).
    pub contracts: Vec<Contract>,
}

impl Dataset {
    /// A dataset of contracts.
    pub fn from_contracts(contracts: Vec<Contract>) -> Self {
        Self { contracts }
    }
    /// Total number of records of every kind.
    pub fn len(&self) -> usize {
        self.contracts.len()
    }
    /// Whether there are no records at all.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
