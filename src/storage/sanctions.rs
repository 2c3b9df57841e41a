//! The sanctions lists (CEIS and CNEP) in the `sanctions` tree: every sanction and the fetch
//! time in one JSON value under `list`, replaced by one insert so a reader never sees a list
//! from one refresh with the time of another. (Not a sled batch: `apply_batch` takes sled
//! 0.34's process-wide lock for writing, which deadlocks against a running flush; see
//! `investigations.rs`.)

use chrono::{DateTime, Utc};
use vigia_agents::model::sanction::Sanction;

use super::Store;
use crate::domain::ports::{PortError, SanctionsStore, StoredSanctions};

const TREE: &str = "sanctions";
const LIST: &[u8] = b"list";

/// What is stored under [`LIST`], read back.
#[derive(serde::Deserialize)]
struct Stored {
    list: Vec<Sanction>,
    at: DateTime<Utc>,
}

/// The same, written from borrowed lists (no copy of some 12,000 sanctions per refresh).
#[derive(serde::Serialize)]
struct ToStore<'a> {
    list: &'a [Sanction],
    at: DateTime<Utc>,
}

fn storage(e: impl std::fmt::Display) -> PortError {
    PortError::Storage(e.to_string())
}

impl SanctionsStore for Store {
    fn load_sanctions(&self) -> Result<StoredSanctions, PortError> {
        let tree = self.db.open_tree(TREE).map_err(storage)?;
        Ok(match tree.get(LIST).map_err(storage)? {
            Some(bytes) => {
                let stored: Stored = serde_json::from_slice(&bytes).map_err(storage)?;
                (stored.list, Some(stored.at))
            }
            None => (Vec::new(), None),
        })
    }

    fn replace_sanctions(&self, sanctions: &[Sanction], at: DateTime<Utc>) -> Result<(), PortError> {
        let tree = self.db.open_tree(TREE).map_err(storage)?;
        let stored = ToStore { list: sanctions, at };
        tree.insert(LIST, serde_json::to_vec(&stored).map_err(storage)?).map_err(storage)?;
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
