//! The audit log (UUID v7 keys: time order, newest first by a reverse scan; its record count
//! kept in the settings tree, counted once when an older store opens, so a page never counts by
//! scanning) and the admin IP whitelist
//! (keyed by the normalised address).

use super::{StorageError, Store, decode, get, put, scan};
use crate::domain::{AuditEntry, WhitelistEntry};

/// Key of the audit record count in the settings tree.
const AUDIT_COUNT: &str = "audit_count";

impl Store {
    /// Appends an audit record.
    pub fn append_audit(&self, entry: &AuditEntry) -> Result<(), StorageError> {
        if self.audit.insert(entry.id.as_bytes(), super::encode(entry)?)?.is_none() {
            self.add_audit_count(1)?;
        }
        Ok(())
    }

    /// Audit records newest first, skipping `offset`, at most `limit`; with the total count.
    pub fn audit_page(&self, offset: usize, limit: usize) -> Result<(Vec<AuditEntry>, usize), StorageError> {
        let items: Result<Vec<AuditEntry>, StorageError> = self.stats.time(
            "audit_log.page",
            || self.audit.iter().rev().skip(offset).take(limit).map(|kv| decode(&kv?.1)).collect(),
            |_| (offset + limit) as u64,
        );
        Ok((items?, self.audit_count()?))
    }

    /// Audit records stored, from the kept count.
    pub fn audit_count(&self) -> Result<usize, StorageError> {
        Ok(get::<u64>(&self.settings, AUDIT_COUNT)?.unwrap_or(0) as usize)
    }

    /// Counts the audit records once, by a scan, for a store written before the count existed
    /// (called when the store opens).
    pub(super) fn init_audit_count(&self) -> Result<(), StorageError> {
        if get::<u64>(&self.settings, AUDIT_COUNT)?.is_none() {
            put(&self.settings, AUDIT_COUNT, &(self.audit.len() as u64))?;
        }
        Ok(())
    }

    /// Adds `delta` (negative when pruning) to the kept count.
    pub(super) fn add_audit_count(&self, delta: i64) -> Result<(), StorageError> {
        super::update::<u64>(&self.settings, AUDIT_COUNT.as_bytes(), |n| {
            Some((n.unwrap_or(0) as i64 + delta).max(0) as u64)
        })?;
        Ok(())
    }

    /// Every whitelist entry, by id.
    pub fn whitelist(&self) -> Result<Vec<WhitelistEntry>, StorageError> {
        let mut entries: Vec<WhitelistEntry> = self.stats.time(
            "ip_whitelist.scan",
            || scan(&self.whitelist, b""),
            |r| r.as_ref().map_or(0, |v| v.len() as u64),
        )?;
        entries.sort_by_key(|e| e.id);
        Ok(entries)
    }

    /// The entry for a normalised address.
    pub fn whitelist_entry(&self, address: &str) -> Result<Option<WhitelistEntry>, StorageError> {
        get(&self.whitelist, address)
    }

    /// Adds an entry; `false` (nothing written) when the address is already listed.
    pub fn whitelist_insert(&self, entry: &WhitelistEntry) -> Result<bool, StorageError> {
        let bytes = super::encode(entry)?;
        Ok(self.whitelist.compare_and_swap(entry.ip_address.as_str(), None as Option<&[u8]>, Some(bytes))?.is_ok())
    }

    /// Replaces an entry.
    pub fn whitelist_put(&self, entry: &WhitelistEntry) -> Result<(), StorageError> {
        put(&self.whitelist, entry.ip_address.as_str(), entry)
    }

    /// Removes an entry; the removed one, if any.
    pub fn whitelist_remove(&self, address: &str) -> Result<Option<WhitelistEntry>, StorageError> {
        self.whitelist.remove(address)?.map(|v| decode(&v)).transpose()
    }

    /// A new whitelist id (increasing, unique across restarts).
    pub fn next_whitelist_id(&self) -> Result<u64, StorageError> {
        Ok(self.db.generate_id()? + 1)
    }
}
