//! sled lives here and nowhere else. One tree per entity, keys that sort (UUID v7 bytes,
//! big-endian sequence numbers), values as a version byte followed by JSON (deflated when large, [`codec`]).
//!
//! Trees: investigations, their heads (the small records status and list views read) and
//! their events; results bodies stored once per content ([`bodies`]), with the large batch of
//! events the investigations holding one share ([`shared_batches`]); users with an e-mail index; sessions keyed by user
//! then session; revoked token ids; failed-login records; API key digests; the audit log
//! (UUID v7 keys, so newest-first is a reverse scan); the admin IP whitelist; settings changed
//! at run time (one JSON value per setting name); chat sessions, their messages and an owner
//! index.

mod audit;
mod bodies;
mod chat;
mod codec;
mod event_batches;
mod flusher;
mod investigations;
mod prune;
mod registry;
mod sanctions;
mod sessions;
mod shared_batches;
pub use chat::SessionIs;
pub use flusher::Writer;
pub use prune::Pruned;
mod settings;
pub mod stats;
mod users;

use std::path::Path;
use std::sync::Arc;

use serde::Serialize;
use serde::de::DeserializeOwned;

use codec::{decode, encode};

/// Storage failures.
#[derive(Debug, thiserror::Error)]
pub enum StorageError {
    /// sled failed (I/O, corruption, lock held by another process).
    #[error("sled: {0}")]
    Sled(#[from] sled::Error),
    /// A value could not be encoded or decoded.
    #[error("codec: {0}")]
    Codec(#[from] serde_json::Error),
    /// A stored value could not be deflated or inflated (a corrupt compressed value).
    #[error("compression: {0}")]
    Compression(std::io::Error),
    /// A value was written by a newer version of Vigia.
    #[error("unsupported value version {0}")]
    Version(u8),
    /// Writes could not be made durable (the flush failed).
    #[error("durability: {0}")]
    Durability(String),
    /// An investigation's record points to a results body the store does not hold.
    #[error("the results body {0} is missing")]
    MissingBody(String),
    /// The store is closing; nothing more is acknowledged.
    #[error("the store is closed")]
    Closed,
}

/// The embedded store: one sled database, one tree per entity.
#[derive(Clone)]
pub struct Store {
    db: sled::Db,
    investigations: sled::Tree,
    heads: sled::Tree,
    /// Ids whose record and head are being written (see [`investigations`]).
    heads_pending: sled::Tree,
    events: sled::Tree,
    /// The latest batches of events encoded (see [`event_batches`]).
    batches: Arc<event_batches::RecentBatches>,
    /// Results bodies, once per content, who holds each and which each record left out
    /// (see [`bodies`]), and the lock their saves and releases take.
    bodies: sled::Tree,
    body_refs: sled::Tree,
    body_of: sled::Tree,
    /// A large batch of events per body, shared by the investigations holding it (see
    /// [`shared_batches`]).
    body_events: sled::Tree,
    bodies_lock: Arc<std::sync::Mutex<()>>,
    decoded: Arc<bodies::DecodedBodies>,
    users: sled::Tree,
    users_by_email: sled::Tree,
    sessions: sled::Tree,
    revoked_tokens: sled::Tree,
    login_attempts: sled::Tree,
    api_keys: sled::Tree,
    audit: sled::Tree,
    whitelist: sled::Tree,
    settings: sled::Tree,
    chat_sessions: sled::Tree,
    chat_messages: sled::Tree,
    chat_by_owner: sled::Tree,
    /// Company register answers by CNPJ (see [`registry`]).
    registry: sled::Tree,
    flusher: Arc<flusher::Flusher>,
    stats: Arc<stats::OpStats>,
    cache_capacity: u64,
    full_reads: Arc<std::sync::atomic::AtomicU64>,
}

impl Store {
    /// Opens (or creates) the database under `dir/db`. sled recovers its log after a crash.
    pub fn open(dir: &Path, cache_capacity_mb: u64) -> Result<Store, StorageError> {
        std::fs::create_dir_all(dir).map_err(|e| StorageError::Sled(sled::Error::Io(e)))?;
        let db = sled::Config::new()
            .path(dir.join("db"))
            .cache_capacity(cache_capacity_mb.max(1) * 1024 * 1024)
            .mode(sled::Mode::HighThroughput)
            .open()?;
        Store::with_db(db, cache_capacity_mb.max(1) * 1024 * 1024)
    }

    /// A store that lives in memory and is deleted when dropped (the CLI's one-shot runs).
    pub fn temporary() -> Result<Store, StorageError> {
        Store::with_db(sled::Config::new().temporary(true).cache_capacity(16 * 1024 * 1024).open()?, 16 * 1024 * 1024)
    }

    fn with_db(db: sled::Db, cache_capacity: u64) -> Result<Store, StorageError> {
        let store = Store {
            investigations: db.open_tree("investigations")?,
            heads: db.open_tree("investigation_heads")?,
            heads_pending: db.open_tree("investigation_heads_pending")?,
            events: db.open_tree("investigation_events")?,
            batches: Arc::default(),
            bodies: db.open_tree("result_bodies")?,
            body_refs: db.open_tree("result_body_refs")?,
            body_of: db.open_tree("result_body_of")?,
            body_events: db.open_tree("result_body_events")?,
            bodies_lock: Arc::default(),
            decoded: Arc::new(bodies::decoded_bodies()),
            users: db.open_tree("users")?,
            users_by_email: db.open_tree("users_by_email")?,
            sessions: db.open_tree("sessions")?,
            revoked_tokens: db.open_tree("revoked_tokens")?,
            login_attempts: db.open_tree("login_attempts")?,
            api_keys: db.open_tree("api_keys")?,
            audit: db.open_tree("audit_log")?,
            whitelist: db.open_tree("ip_whitelist")?,
            registry: db.open_tree(registry::TREE)?,
            settings: db.open_tree("settings")?,
            chat_sessions: db.open_tree("chat_sessions")?,
            chat_messages: db.open_tree("chat_messages")?,
            chat_by_owner: db.open_tree("chat_sessions_by_owner")?,
            flusher: Arc::new(flusher::Flusher::start(db.clone())?),
            stats: Arc::default(),
            cache_capacity,
            full_reads: Arc::default(),
            db,
        };
        store.init_audit_count()?;
        store.repair_pending_heads()?;
        store.backfill_heads()?;
        store.sweep_bodies()?;
        store.sweep_batches()?;
        Ok(store)
    }

    /// Makes every write made before the call durable. Concurrent callers share one flush of
    /// the single flusher thread (see [`flusher`]); sled's `flush_async` is never used.
    pub async fn flush(&self) -> Result<(), StorageError> {
        self.flusher.flush().await
    }

    /// Counts a unit of work that will end with a flush (a chat turn) until the guard is
    /// dropped: while enough of them run, the flusher gathers their flushes into fewer ones
    /// (group commit, see [`flusher`]).
    pub fn writer(&self) -> Writer {
        self.flusher.writer()
    }

    /// [`Store::flush`] for synchronous callers that are not on an async worker thread.
    pub fn flush_blocking(&self) -> Result<(), StorageError> {
        self.flusher.flush_blocking()
    }

    /// Flushes run since the store opened (each covers every acknowledgement waiting on it).
    pub fn flushes(&self) -> u64 {
        self.flusher.flushes()
    }

    /// Whether the store answers reads (for health checks).
    pub fn ping(&self) -> Result<(), StorageError> {
        self.db.get(b"__ping")?;
        Ok(())
    }

    /// Bytes the database occupies on disk.
    pub fn size_on_disk(&self) -> u64 {
        self.db.size_on_disk().unwrap_or(0)
    }
}

/// Reads and decodes one value.
fn get<T: DeserializeOwned>(tree: &sled::Tree, key: impl AsRef<[u8]>) -> Result<Option<T>, StorageError> {
    tree.get(key)?.map(|v| decode(&v)).transpose()
}

/// Encodes and writes one value.
fn put<T: Serialize>(tree: &sled::Tree, key: impl AsRef<[u8]>, value: &T) -> Result<(), StorageError> {
    tree.insert(key.as_ref(), encode(value)?)?;
    Ok(())
}

/// Every value of a tree (or of a key prefix), in key order.
fn scan<T: DeserializeOwned>(tree: &sled::Tree, prefix: &[u8]) -> Result<Vec<T>, StorageError> {
    tree.scan_prefix(prefix).values().map(|v| decode(&v?)).collect()
}

/// Atomically replaces the value under `key` with `f(current)` (`None` deletes it), retrying
/// when another writer got there first, so read-check-write sequences (refresh rotation,
/// failed-login counting) cannot interleave. Returns what was written.
fn update<T: Serialize + DeserializeOwned>(
    tree: &sled::Tree,
    key: &[u8],
    mut f: impl FnMut(Option<T>) -> Option<T>,
) -> Result<Option<T>, StorageError> {
    loop {
        let old = tree.get(key)?;
        let next = f(old.as_deref().map(decode).transpose()?);
        let bytes = next.as_ref().map(encode).transpose()?;
        if tree.compare_and_swap(key, old, bytes)?.is_ok() {
            return Ok(next);
        }
    }
}
