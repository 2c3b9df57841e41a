//! Retention: a pass that prunes what `[retention]` no longer keeps (finished investigations
//! with their events, audit records, login-attempt records), run every `prune_interval_secs` until
//! shutdown.

use std::time::Duration;

use chrono::Utc;

use crate::config::RetentionConfig;
use crate::error::{Error, Result};
use crate::runtime::ShutdownSignal;
use crate::storage::{Pruned, Store};

/// Prunes the store by the retention settings.
pub struct Retention {
    store: Store,
    cfg: RetentionConfig,
}

fn cutoff(days: f64) -> Option<chrono::DateTime<Utc>> {
    (days > 0.0).then(|| Utc::now() - chrono::Duration::milliseconds((days * 86_400_000.0) as i64))
}

impl Retention {
    /// Over `store` with `cfg`.
    pub fn new(store: Store, cfg: RetentionConfig) -> Self {
        Retention { store, cfg }
    }

    /// One pass: what it removed (made durable before it answers).
    pub async fn prune_once(&self) -> Result<Pruned> {
        let mut pruned = Pruned::default();
        if let Some(before) = cutoff(self.cfg.investigations_days) {
            self.store.prune_investigations(before, &mut pruned).map_err(Error::internal)?;
        }
        if let Some(before) = cutoff(self.cfg.audit_days) {
            self.store.prune_audit(before, &mut pruned).map_err(Error::internal)?;
        }
        if let Some(before) = cutoff(self.cfg.login_attempts_days) {
            self.store.prune_login_attempts(before, &mut pruned).map_err(Error::internal)?;
        }
        self.store.flush().await.map_err(Error::internal)?;
        Ok(pruned)
    }

    /// Prunes every `prune_interval_secs` until `shutdown` (the first pass one interval after
    /// start, so start-up does not pay for a scan of the store).
    pub async fn run(self, shutdown: ShutdownSignal) {
        let period = Duration::from_secs_f64(self.cfg.prune_interval_secs.max(1.0));
        let mut every = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
        loop {
            tokio::select! {
                _ = every.tick() => {}
                _ = shutdown.clone().wait() => return,
            }
            match self.prune_once().await {
                Ok(p) if p != Pruned::default() => tracing::info!(?p, "pruned records past their retention"),
                Ok(_) => {}
                Err(e) => tracing::warn!(error = %e.message, "pruning failed; next pass retries"),
            }
        }
    }
}
