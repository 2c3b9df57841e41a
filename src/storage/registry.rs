//! Company register answers by CNPJ in the `registry` tree: one versioned JSON value per CNPJ (the
//! facts or "not in the register", with the time read), written by one plain insert. (Not a
//! transaction or batch: `apply_batch` takes sled 0.34's process-wide lock for writing, which
//! deadlocks against a running flush; see `investigations.rs`.)

use super::{StorageError, Store, encode, get};
use crate::domain::ports::{PortError, RegistryEntry, RegistryStore};

/// The tree's name.
pub(super) const TREE: &str = "registry";

impl RegistryStore for Store {
    fn load_registry_entry(&self, cnpj: &str) -> Result<Option<RegistryEntry>, PortError> {
        Ok(get(&self.registry, cnpj.as_bytes())?)
    }

    fn put_registry_entry(&self, cnpj: &str, entry: &RegistryEntry) -> Result<(), PortError> {
        self.registry.insert(cnpj.as_bytes(), encode(entry)?).map_err(StorageError::from)?;
        self.stats.wrote();
        Ok(())
    }

    fn registry_entries(&self) -> Result<usize, PortError> {
        Ok(self.registry.len())
    }
}

#[cfg(test)]
mod tests {
    use chrono::Utc;
    use vigia_agents::model::registry_facts::{Address, Partner, SupplierProfile};

    use super::*;

    #[test]
    fn register_answers_found_and_not_found_read_back_by_cnpj_with_their_time() {
        let store = Store::temporary().unwrap();
        assert_eq!(store.load_registry_entry("11222333000181").unwrap(), None);
        let profile = SupplierProfile {
            cnpj: "11222333000181".into(),
            name: "ACME LTDA".into(),
            opened_on: chrono::NaiveDate::from_ymd_opt(2015, 3, 2),
            status: "ATIVA".into(),
            cnae: "4930202".into(),
            address: Address { zip: "70040000".into(), number: "10".into(), ..Address::default() },
            phone: "6132324545".into(),
            partners: vec![Partner { name: "ANA".into(), document: "***123456**".into(), role: "Sócia".into() }],
        };
        let found = RegistryEntry { profile: Some(profile), at: Utc::now() };
        let absent = RegistryEntry { profile: None, at: Utc::now() };
        store.put_registry_entry("11222333000181", &found).unwrap();
        store.put_registry_entry("99888777000100", &absent).unwrap();
        assert_eq!(store.load_registry_entry("11222333000181").unwrap(), Some(found));
        assert_eq!(store.load_registry_entry("99888777000100").unwrap(), Some(absent));
    }
}
