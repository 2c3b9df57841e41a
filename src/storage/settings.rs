//! Settings an admin changed at run time (e.g. the agent pool's), one JSON value per name, so
//! they outlive a restart.

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::{StorageError, Store, get, put};

impl Store {
    /// The stored value of setting `name`, if an admin ever set it.
    pub fn setting<T: DeserializeOwned>(&self, name: &str) -> Result<Option<T>, StorageError> {
        get(&self.settings, name)
    }

    /// Stores setting `name` (durable at the next flush).
    pub fn save_setting<T: Serialize>(&self, name: &str, value: &T) -> Result<(), StorageError> {
        put(&self.settings, name, value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_saved_setting_is_read_back_and_an_unknown_one_is_none() {
        let store = Store::temporary().unwrap();
        assert_eq!(store.setting::<u32>("agent_pool").unwrap(), None);
        store.save_setting("agent_pool", &7u32).unwrap();
        assert_eq!(store.setting::<u32>("agent_pool").unwrap(), Some(7));
    }
}
