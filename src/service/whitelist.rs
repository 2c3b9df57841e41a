//! The admin IP whitelist: the gate admin routes pass when `security.ip_whitelist_enabled` is
//! on, and the admin surface that manages it (add, remove, list, check, update, cleanup,
//! initialize-defaults, stats), persisted in the store.

use std::net::IpAddr;

use chrono::{DateTime, Utc};

use crate::domain::whitelist::{DEFAULT_ADDRESSES, canonical_ip, normalise_address};
use crate::domain::{WhitelistEntry, user::forbidden};
use crate::error::{Error, ErrorCode, Result};
use crate::storage::Store;

/// A new entry.
#[derive(Debug, Clone)]
pub struct NewEntry {
    /// IP, CIDR block or `localhost`.
    pub ip_address: String,
    /// Why.
    pub description: String,
    /// Optional expiry.
    pub expires_at: Option<DateTime<Utc>>,
}

/// Changes to an entry; `None` leaves a field as it is (`expires_at: Some(None)` clears it).
#[derive(Debug, Clone, Default)]
pub struct EntryUpdate {
    /// New description.
    pub description: Option<String>,
    /// New expiry, or none.
    pub expires_at: Option<Option<DateTime<Utc>>>,
    /// Switch on or off.
    pub is_active: Option<bool>,
}

/// What `check` answers.
#[derive(Debug, Clone)]
pub struct CheckResult {
    /// The address asked about, normalised.
    pub ip_address: String,
    /// Whether an active, unexpired entry admits it.
    pub is_whitelisted: bool,
    /// The entry that admits it, else the entry listed under that exact address, if any.
    pub entry: Option<WhitelistEntry>,
}

/// Counts for `stats`.
#[derive(Debug, Clone)]
pub struct Stats {
    /// Entries.
    pub total_entries: usize,
    /// Active and not expired.
    pub active_entries: usize,
    /// Past their expiry.
    pub expired_entries: usize,
    /// The last one added.
    pub most_recent: Option<WhitelistEntry>,
}

/// The whitelist facade.
pub struct WhitelistService {
    store: Store,
    enabled: bool,
}

fn not_listed(address: &str) -> Error {
    Error::new(ErrorCode::ResourceNotFound, format!("{address} is not in the whitelist")).with("id", address)
}

impl WhitelistService {
    /// Builds the facade; `enabled` is `security.ip_whitelist_enabled`.
    pub fn new(store: Store, enabled: bool) -> Self {
        WhitelistService { store, enabled }
    }

    /// Builds the facade and, when the whitelist is on and has no entry at all, seeds the
    /// loopback defaults (as initialize-defaults would), so switching the gate on cannot lock
    /// the admin out of the machine it runs on. Answers the addresses it added.
    pub fn open(store: Store, enabled: bool) -> Result<(Self, Vec<String>)> {
        let service = WhitelistService::new(store, enabled);
        let empty = service.store.whitelist().map_err(Error::internal)?.is_empty();
        let seeded = if enabled && empty { service.initialize_defaults()? } else { Vec::new() };
        if !seeded.is_empty() {
            tracing::warn!(addresses = ?seeded, "admin IP whitelist enabled while empty: seeded the loopback defaults");
        }
        Ok((service, seeded))
    }

    /// The admin gate: when the whitelist is on, the caller's address must be admitted by an
    /// active, unexpired entry; PERMISSOES_INSUFICIENTES otherwise.
    pub fn authorize(&self, caller: Option<IpAddr>) -> Result<()> {
        if !self.enabled {
            return Ok(());
        }
        let now = Utc::now();
        let admitted = match caller {
            Some(ip) => self.store.whitelist().map_err(Error::internal)?.iter().any(|e| e.admits(ip, now)),
            None => false,
        };
        if admitted {
            Ok(())
        } else {
            Err(forbidden("the caller's address is not in the admin IP whitelist")
                .with("ip_address", caller.map(|ip| canonical_ip(ip).to_string())))
        }
    }

    /// Adds an entry; CONFLICT when the address is listed already.
    pub fn add(&self, new: NewEntry) -> Result<WhitelistEntry> {
        let ip_address = normalise_address(&new.ip_address)?;
        let entry = WhitelistEntry {
            id: self.store.next_whitelist_id().map_err(Error::internal)?,
            ip_address,
            description: new.description.trim().to_string(),
            added_at: Utc::now(),
            expires_at: new.expires_at,
            is_active: true,
        };
        if !self.store.whitelist_insert(&entry).map_err(Error::internal)? {
            return Err(Error::new(ErrorCode::Conflict, format!("{} is already in the whitelist", entry.ip_address))
                .with("ip_address", entry.ip_address));
        }
        Ok(entry)
    }

    /// Removes an entry; RESOURCE_NOT_FOUND when it is not listed.
    pub fn remove(&self, address: &str) -> Result<WhitelistEntry> {
        let key = normalise_address(address)?;
        self.store.whitelist_remove(&key).map_err(Error::internal)?.ok_or_else(|| not_listed(&key))
    }

    /// Every entry, by id.
    pub fn list(&self) -> Result<Vec<WhitelistEntry>> {
        self.store.whitelist().map_err(Error::internal)
    }

    /// Whether an address is admitted now, and by which entry.
    pub fn check(&self, address: &str) -> Result<CheckResult> {
        let ip_address = normalise_address(address)?;
        let entries = self.list()?;
        let now = Utc::now();
        let admitting = ip_address.parse::<IpAddr>().ok().and_then(|ip| entries.iter().find(|e| e.admits(ip, now)));
        let entry = admitting.or_else(|| entries.iter().find(|e| e.ip_address == ip_address)).cloned();
        Ok(CheckResult { is_whitelisted: admitting.is_some(), ip_address, entry })
    }

    /// Changes an entry and returns it; RESOURCE_NOT_FOUND when it is not listed.
    pub fn update(&self, address: &str, change: EntryUpdate) -> Result<WhitelistEntry> {
        let key = normalise_address(address)?;
        let mut entry = self.store.whitelist_entry(&key).map_err(Error::internal)?.ok_or_else(|| not_listed(&key))?;
        if let Some(d) = change.description {
            entry.description = d.trim().to_string();
        }
        if let Some(e) = change.expires_at {
            entry.expires_at = e;
        }
        if let Some(a) = change.is_active {
            entry.is_active = a;
        }
        self.store.whitelist_put(&entry).map_err(Error::internal)?;
        Ok(entry)
    }

    /// Removes the entries whose expiry has passed; the removed addresses.
    pub fn cleanup(&self) -> Result<Vec<String>> {
        let now = Utc::now();
        let mut removed = Vec::new();
        for e in self.list()?.into_iter().filter(|e| e.is_expired(now)) {
            if self.store.whitelist_remove(&e.ip_address).map_err(Error::internal)?.is_some() {
                removed.push(e.ip_address);
            }
        }
        Ok(removed)
    }

    /// Adds the default addresses that are not listed yet; the ones added.
    pub fn initialize_defaults(&self) -> Result<Vec<String>> {
        let mut added = Vec::new();
        for address in DEFAULT_ADDRESSES {
            let new = NewEntry {
                ip_address: address.to_string(),
                description: "default entry (initialize-defaults)".into(),
                expires_at: None,
            };
            match self.add(new) {
                Ok(e) => added.push(e.ip_address),
                Err(e) if e.code == ErrorCode::Conflict => {}
                Err(e) => return Err(e),
            }
        }
        Ok(added)
    }

    /// Entry counts and the most recent one.
    pub fn stats(&self) -> Result<Stats> {
        let entries = self.list()?;
        let now = Utc::now();
        Ok(Stats {
            total_entries: entries.len(),
            active_entries: entries.iter().filter(|e| e.is_active && !e.is_expired(now)).count(),
            expired_entries: entries.iter().filter(|e| e.is_expired(now)).count(),
            most_recent: entries.iter().max_by_key(|e| (e.added_at, e.id)).cloned(),
        })
    }
}
