//! Reference lists read from the upstream on a schedule: the sanctions lists (CEIS and CNEP)
//! in the `sanctions` tree and the SIAFI and SIAPE organ lists in the `organ_codes` tree, each
//! with its fetch time in one JSON value under `list`, replaced by one insert so a reader never
//! sees a list from one refresh with the time of another. (Not a sled batch: `apply_batch`
//! takes sled 0.34's process-wide lock for writing, which deadlocks against a running flush;
//! see `investigations.rs`.)

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde::de::DeserializeOwned;
use vigia_agents::model::sanction::Sanction;

use super::Store;
use crate::domain::ports::{OrganCodes, OrganCodesStore, PortError, SanctionsStore, StoredSanctions};

const SANCTIONS: &str = "sanctions";
const ORGAN_CODES: &str = "organ_codes";
const LIST: &[u8] = b"list";

/// What is stored under [`LIST`], read back.
#[derive(serde::Deserialize)]
struct Stored<T> {
    list: T,
    at: DateTime<Utc>,
}

/// The same, written from a borrowed list (no copy of some 12,000 sanctions per refresh).
#[derive(serde::Serialize)]
struct ToStore<'a, T: ?Sized> {
    list: &'a T,
    at: DateTime<Utc>,
}

fn storage(e: impl std::fmt::Display) -> PortError {
    PortError::Storage(e.to_string())
}

impl Store {
    fn load_list<T: DeserializeOwned + Default>(&self, tree: &str) -> Result<(T, Option<DateTime<Utc>>), PortError> {
        let tree = self.db.open_tree(tree).map_err(storage)?;
        Ok(match tree.get(LIST).map_err(storage)? {
            Some(bytes) => {
                let stored: Stored<T> = serde_json::from_slice(&bytes).map_err(storage)?;
                (stored.list, Some(stored.at))
            }
            None => (T::default(), None),
        })
    }

    fn replace_list<T: Serialize + ?Sized>(&self, tree: &str, list: &T, at: DateTime<Utc>) -> Result<(), PortError> {
        let tree = self.db.open_tree(tree).map_err(storage)?;
        tree.insert(LIST, serde_json::to_vec(&ToStore { list, at }).map_err(storage)?).map_err(storage)?;
        self.stats.wrote();
        Ok(())
    }
}

impl SanctionsStore for Store {
    fn load_sanctions(&self) -> Result<StoredSanctions, PortError> {
        self.load_list(SANCTIONS)
    }

    fn replace_sanctions(&self, sanctions: &[Sanction], at: DateTime<Utc>) -> Result<(), PortError> {
        self.replace_list(SANCTIONS, sanctions, at)
    }
}

impl OrganCodesStore for Store {
    fn load_organ_codes(&self) -> Result<(OrganCodes, Option<DateTime<Utc>>), PortError> {
        self.load_list(ORGAN_CODES)
    }

    fn replace_organ_codes(&self, codes: &OrganCodes, at: DateTime<Utc>) -> Result<(), PortError> {
        self.replace_list(ORGAN_CODES, codes, at)
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

    #[test]
    fn the_organ_lists_survive_a_replace_and_read_back_with_their_time() {
        use crate::domain::ports::OrganCode;
        let store = Store::temporary().unwrap();
        assert_eq!(store.load_organ_codes().unwrap(), (OrganCodes::default(), None));
        let organ = |code: &str, name: &str| OrganCode { code: code.into(), name: name.into() };
        let codes = OrganCodes {
            siafi: vec![organ("36000", "Ministério da Saúde")],
            siape: vec![organ("36000", "MINISTERIO DA SAUDE")],
        };
        let at = Utc::now();
        store.replace_organ_codes(&codes, at).unwrap();
        assert_eq!(store.load_organ_codes().unwrap(), (codes, Some(at)));
    }
}
