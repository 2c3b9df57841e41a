//! The audit trail: recording never fails the audited operation (a write failure is logged),
//! and reading it needs `ver:auditoria`.

use crate::domain::{AuditEntry, Permission, Principal};
use crate::error::{Error, Result};
use crate::storage::Store;

/// One page of audit records, newest first.
#[derive(Debug, Clone)]
pub struct AuditPage {
    /// The records.
    pub items: Vec<AuditEntry>,
    /// Records in the log.
    pub total: usize,
}

/// The audit facade.
pub struct AuditService {
    store: Store,
}

impl AuditService {
    /// Builds the facade.
    pub fn new(store: Store) -> Self {
        AuditService { store }
    }

    /// Appends a record. The operation being audited has already happened, so a failed write
    /// is logged rather than turned into an error for the client.
    pub fn record(&self, entry: AuditEntry) {
        if let Err(e) = self.store.append_audit(&entry) {
            tracing::error!(error = %e, action = %entry.action, "could not write an audit record");
        }
    }

    /// A page (1-based) of `limit` records, newest first; needs `ver:auditoria`.
    pub fn page(&self, viewer: &Principal, page: usize, limit: usize) -> Result<AuditPage> {
        viewer.require(Permission::ViewAudit)?;
        if !(1..=100).contains(&limit) {
            return Err(Error::validation("limit", "must be between 1 and 100"));
        }
        if page == 0 {
            return Err(Error::validation("page", "must be at least 1"));
        }
        let (items, total) = self.store.audit_page((page - 1) * limit, limit).map_err(Error::internal)?;
        Ok(AuditPage { items, total })
    }
}
