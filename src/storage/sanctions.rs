//! The sanctions lists (CEIS and CNEP) in the `sanctions` tree: one JSON value of every
//! sanction under `list` and the fetch time under `refreshed_at`, replaced together in one
//! batch so a reader never sees a list from one refresh with the time of another.

use chrono::{DateTime, Utc};
use vigia_agents::model::sanction::Sanction;

use super::Store;
use crate::domain::ports::{PortError, SanctionsStore, StoredSanctions};

const TREE: &str = "sanctions";
const LIST: &[u8] = b"list";
const AT: &[u8] = b"refreshed_at";

fn storage(e: impl std::fmt::Display) -> PortError {
    PortError::Storage(e.to_string())
}

impl SanctionsStore for Store {
    fn load_sanctions(&self) -> Result<StoredSanctions, PortError> {
        let tree = self.db.open_tree(TREE).map_err(storage)?;
        let list = match tree.get(LIST).map_err(storage)? {
            Some(bytes) => serde_json::from_slice(&bytes).map_err(storage)?,
            None => Vec::new(),
        };
        let at = match tree.get(AT).map_err(storage)? {
            Some(bytes) => Some(serde_json::from_slice(&bytes).map_err(storage)?),
            None => None,
        };
        Ok((list, at))
    }

    fn replace_sanctions(&self, sanctions: &[Sanction], at: DateTime<Utc>) -> Result<(), PortError> {
        let tree = self.db.open_tree(TREE).map_err(storage)?;
        let mut batch = sled::Batch::default();
        batch.insert(LIST, serde_json::to_vec(sanctions).map_err(storage)?);
        batch.insert(AT, serde_json::to_vec(&at).map_err(storage)?);
        tree.apply_batch(batch).map_err(storage)?;
        self.stats.wrote();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sanctions_lists_survive_a_replace_and_read_back_with_their_time() {
        let store = Store::temporary().unwrap();
        assert_eq!(store.load_sanctions().unwrap(), (Vec::new(), None));
        let s = Sanction {
            register: "CEIS".into(),
            document: "12345678000190".into(),
            name: "ACME".into(),
            kind: "Inidoneidade".into(),
            starts_on: None,
            ends_on: None,
            published_on: None,
            authority: String::new(),
            legal_basis: String::new(),
            process_number: String::new(),
            fine: None,
            id: "1".into(),
        };
        let at = Utc::now();
        store.replace_sanctions(std::slice::from_ref(&s), at).unwrap();
        assert_eq!(store.load_sanctions().unwrap(), (vec![s], Some(at)));
    }
}
