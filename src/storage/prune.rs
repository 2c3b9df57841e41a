//! Retention: removing finished investigations (with their events), audit records and
//! login-attempt records older than a cutoff. Each pass is a scan of its tree; writes are
//! batched per record and made durable by the next flush.

use chrono::{DateTime, Utc};

use super::{StorageError, Store, decode};
use crate::domain::{AuditEntry, InvestigationHead, LoginAttempts};

/// What one pruning pass removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Pruned {
    /// Investigations (each with its events).
    pub investigations: usize,
    /// Records of the events tree those investigations held (each one event or several
    /// consecutive ones written together, and the sequence reservation).
    pub events: usize,
    /// Audit records.
    pub audit: usize,
    /// Login-attempt records.
    pub login_attempts: usize,
}

impl Store {
    /// Removes the investigations that ended before `before`, with their events (a running
    /// one is never removed).
    pub fn prune_investigations(&self, before: DateTime<Utc>, pruned: &mut Pruned) -> Result<(), StorageError> {
        // Heads carry status and completion time: the full records are never decoded here.
        for kv in self.heads.iter() {
            let (key, value) = kv?;
            let inv: InvestigationHead = decode(&value)?;
            if !inv.status.is_terminal() || inv.completed_at.is_none_or(|t| t >= before) {
                continue;
            }
            // Events (and the sequence reservation at 0) share the investigation's 16-byte prefix.
            for ev in self.events.scan_prefix(&key[..]).keys() {
                self.events.remove(ev?)?;
                pruned.events += 1;
            }
            // The head goes first: a crash in between leaves a record without a head, which the
            // next open gives one back (and the next pruning removes), never a dangling head.
            self.heads.remove(&key)?;
            self.investigations.remove(&key)?;
            // After the record: a crash in between leaves a hold the next open sweeps.
            self.drop_body(inv.id)?;
            pruned.investigations += 1;
        }
        Ok(())
    }

    /// Removes the audit records written before `before` (keys are in time order).
    pub fn prune_audit(&self, before: DateTime<Utc>, pruned: &mut Pruned) -> Result<(), StorageError> {
        for kv in self.audit.iter() {
            let (key, value) = kv?;
            let entry: AuditEntry = decode(&value)?;
            if entry.timestamp >= before {
                break;
            }
            self.audit.remove(key)?;
            pruned.audit += 1;
        }
        if pruned.audit > 0 {
            self.add_audit_count(-(pruned.audit as i64))?;
        }
        Ok(())
    }

    /// Removes the login-attempt records whose last throttle (backoff or lock) ended before
    /// `before`: an account nobody has failed to enter for that long starts afresh.
    pub fn prune_login_attempts(&self, before: DateTime<Utc>, pruned: &mut Pruned) -> Result<(), StorageError> {
        for kv in self.login_attempts.iter() {
            let (key, value) = kv?;
            let a: LoginAttempts = decode(&value)?;
            let last = a.next_allowed_at.max(a.locked_until);
            if last.is_none_or(|t| t < before) {
                self.login_attempts.remove(key)?;
                pruned.login_attempts += 1;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn audit_at(t: DateTime<Utc>) -> AuditEntry {
        AuditEntry {
            id: uuid::Uuid::now_v7(),
            timestamp: t,
            action: "login".into(),
            outcome: crate::domain::audit::Outcome::Success,
            actor_id: None,
            actor_email: None,
            address: None,
            request_id: None,
            details: Default::default(),
        }
    }

    #[test]
    fn old_audit_records_go_and_the_kept_count_follows_without_a_scan() {
        let store = Store::temporary().unwrap();
        let now = Utc::now();
        for days in [400, 380, 10] {
            store.append_audit(&audit_at(now - chrono::Duration::days(days))).unwrap();
        }
        assert_eq!(store.audit_page(0, 10).unwrap().1, 3);
        let mut pruned = Pruned::default();
        store.prune_audit(now - chrono::Duration::days(365), &mut pruned).unwrap();
        assert_eq!(pruned.audit, 2);
        let (items, total) = store.audit_page(0, 10).unwrap();
        assert_eq!((items.len(), total), (1, 1));
    }
    use crate::domain::ports::InvestigationStore;
    use crate::domain::{EventKind, Investigation, InvestigationEvent, InvestigationRequest, Phase, Status};

    #[test]
    fn finished_investigations_older_than_the_cutoff_go_with_their_events_and_running_ones_stay() {
        let store = Store::temporary().unwrap();
        let now = Utc::now();
        let mut old = Investigation::start(InvestigationRequest::new("old"), uuid::Uuid::nil());
        old.status = Status::Completed;
        old.completed_at = Some(now - chrono::Duration::days(100));
        let running = Investigation::start(InvestigationRequest::new("running"), uuid::Uuid::nil());
        for inv in [&old, &running] {
            store.save(inv).unwrap();
            let kind = EventKind::Progress { percentage: 1.0, current_phase: Phase::Initialization, agents_active: 0 };
            store.append_event(inv.id, &InvestigationEvent { seq: 1, kind }).unwrap();
            store.reserve_seq(inv.id, 256).unwrap();
        }
        let mut pruned = Pruned::default();
        store.prune_investigations(now - chrono::Duration::days(90), &mut pruned).unwrap();
        assert_eq!((pruned.investigations, pruned.events), (1, 2));
        assert!(store.get(old.id).unwrap().is_none() && store.events_after(old.id, 0).unwrap().is_empty());
        assert!(store.head(old.id).unwrap().is_none());
        assert!(store.get(running.id).unwrap().is_some() && store.events_after(running.id, 0).unwrap().len() == 1);
    }
}
