//! Investigations: start, status, results, list, cancel and the resumable event stream.

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, NaiveDate, Utc};
use futures::Stream;
use uuid::Uuid;

use crate::domain::cursor::{self, Cursor, CursorPage, Direction};
use crate::domain::ports::InvestigationStore;
use crate::domain::user::unauthenticated;
use crate::domain::{
    Investigation, InvestigationEvent, InvestigationHead, InvestigationId, InvestigationRequest, Permission, Principal,
    Status,
};
use crate::error::{Error, ErrorCode, Result};
use crate::runtime::{RunKind, RuntimeHandle, ShutdownSignal};
use crate::storage::Store;
use crate::upstream::Provider;

/// What the start call answers.
#[derive(Debug, Clone)]
pub struct Started {
    /// The new investigation.
    pub investigation: Investigation,
    /// When it is expected to finish: its start plus the median duration of recent completed
    /// runs; `None` before any run was measured.
    pub estimated_completion: Option<DateTime<Utc>>,
}

/// What the cancel call answers.
#[derive(Debug, Clone)]
pub struct Cancelled {
    /// The investigation id.
    pub id: InvestigationId,
    /// Its status after the call.
    pub status: Status,
    /// Whether some agents had finished before the cancel.
    pub partial_results_available: bool,
}

/// List filters and paging (already parsed by the transport).
#[derive(Debug, Clone, Default)]
pub struct ListQuery {
    /// Only this status.
    pub status: Option<Status>,
    /// Only this data source.
    pub data_source: Option<String>,
    /// Created on or after.
    pub date_from: Option<NaiveDate>,
    /// Created on or before.
    pub date_to: Option<NaiveDate>,
    /// At least this many anomalies.
    pub min_anomalies: Option<usize>,
    /// Sort key (`created_at`, `completed_at`, `anomalies_found`, `risk_score`, `status`) and
    /// whether descending.
    pub sort: (String, bool),
    /// 1-based page.
    pub page: usize,
    /// Page size, 1 to 100.
    pub limit: usize,
}

/// One page of investigations (their heads: a list never decodes results).
#[derive(Debug, Clone)]
pub struct Page {
    /// The items.
    pub items: Vec<InvestigationHead>,
    /// Items matching the filters.
    pub total: usize,
}

/// The investigation facade.
pub struct InvestigationService {
    store: Store,
    runtime: RuntimeHandle,
    provider: Arc<Provider>,
    max_concurrent: usize,
    shutdown: ShutdownSignal,
}

impl InvestigationService {
    /// Builds the facade.
    pub fn new(
        store: Store,
        runtime: RuntimeHandle,
        provider: Arc<Provider>,
        max_concurrent: usize,
        shutdown: ShutdownSignal,
    ) -> Self {
        InvestigationService { store, runtime, provider, max_concurrent, shutdown }
    }

    /// Validates, persists durably, then starts the run. Once this returns the investigation
    /// survives a crash (it resumes at the next start). A signed-in caller needs
    /// `escrever:investigacoes` and owns it. With no owner the investigation is public (owner
    /// nil): that is for in-process callers only, the chat on behalf of an anonymous chat user
    /// and the CLI's one-shot runs; the HTTP route requires a signed-in caller.
    pub async fn start(&self, request: InvestigationRequest, owner: Option<&Principal>) -> Result<Started> {
        let inv = self.prepare(request, owner)?;
        self.store.save(&inv).map_err(Error::internal)?;
        self.store.flush().await.map_err(Error::internal)?;
        self.launch(inv, RunKind::Fresh).await
    }

    /// [`InvestigationService::start`] for an in-process caller that acknowledges nothing to
    /// its client before the run ends (the chat), with the stream of the run's events from its
    /// first: subscribed before the run starts, so every event arrives live and none is read
    /// back from the store (unless the stream falls behind).
    ///
    /// Durability is the caller's: the start is not even written (the run's first write saves
    /// its record: [`RunKind::Unrecorded`]; a run answered at once is written once, at its end),
    /// and while the caller is the run's only watcher its end is not flushed. The caller flushes
    /// before acknowledging what the run produced (the chat stores its answer and flushes once
    /// for both). A crash before that flush loses a run no client was told of, or, if another
    /// flush took its record, resumes it.
    pub async fn start_watched(
        &self,
        request: InvestigationRequest,
        owner: Option<&Principal>,
    ) -> Result<(Started, impl Stream<Item = InvestigationEvent> + Send + use<>)> {
        let inv = self.prepare(request, owner)?;
        let live = self.runtime.subscribe_as_starter(inv.id);
        let id = inv.id;
        let started = self.launch(inv, RunKind::Unrecorded).await?;
        Ok((started, self.events(id, 0, live, Vec::new())))
    }

    /// The results an investigation started by [`InvestigationService::start_watched`]
    /// completed with, handed over by its run while the starter's events were still held
    /// (once; `None` when it did not complete or someone else took them).
    pub fn take_handed(&self, id: InvestigationId) -> Option<Box<crate::domain::investigation::Results>> {
        self.runtime.take_handed(id)
    }

    /// Checks the caller, the request and the capacity, and makes the investigation (its record,
    /// once saved, reserves its first block of event numbers).
    fn prepare(&self, request: InvestigationRequest, owner: Option<&Principal>) -> Result<Investigation> {
        if let Some(p) = owner {
            p.require(Permission::WriteInvestigations)?;
        }
        let user_id = owner.map_or(Uuid::nil(), |p| p.user_id.0);
        request.validate()?;
        let source = request.source();
        if !self.provider.supports(source) {
            return Err(Error::new(
                ErrorCode::InvalidDataSource,
                format!("data source '{}' is not available in this deployment", source.as_str()),
            )
            .with("data_source", source.as_str())
            .with("available", serde_json::json!(["portal_transparencia"])));
        }
        let running = self.runtime.running_now();
        if running >= self.max_concurrent {
            return Err(Error::new(
                ErrorCode::RateLimitExceeded,
                "too many concurrent investigations; try again shortly",
            )
            .with("max_concurrent", self.max_concurrent)
            .with("retry_after", 5));
        }
        // The run's first block of event numbers is reserved by the record itself (a resumed
        // run numbers after it: `Emitter::new`), so its first events need no write or flush of
        // their own.
        Ok(Investigation::start(request, user_id))
    }

    /// Starts the run of a prepared investigation (saved, or left to its run to save).
    async fn launch(&self, inv: Investigation, kind: RunKind) -> Result<Started> {
        if !self.runtime.start_investigation(inv.clone(), kind).await.map_err(Error::internal)? {
            // Refused while stopping: it runs after the restart, so it must be stored.
            if kind == RunKind::Unrecorded {
                self.store.save(&inv).map_err(Error::internal)?;
            }
            return Err(Error::new(
                ErrorCode::ServiceUnavailable,
                "the service is shutting down; the investigation will run after restart",
            ));
        }
        let estimated_completion = self
            .runtime
            .typical_run_secs()
            .and_then(|secs| chrono::Duration::try_milliseconds((secs * 1000.0).round() as i64))
            .map(|d| inv.created_at + d);
        Ok(Started { investigation: inv, estimated_completion })
    }

    /// Resumes investigations a crash or an abandoning shutdown left running.
    pub async fn resume_interrupted(&self) -> Result<usize> {
        let mut resumed = 0;
        // Heads only: the full records of finished runs (with their results) stay on disk.
        let mut all = self.store.heads().map_err(Error::internal)?;
        // The measured durations of the latest completed runs seed the completion estimate.
        all.sort_by_key(|inv| inv.completed_at);
        for inv in all.iter().filter(|i| i.status.has_results()) {
            if let Some(done) = inv.completed_at {
                self.runtime.record_run_time((done - inv.created_at).num_milliseconds() as f64 / 1000.0);
            }
        }
        for head in all.into_iter().filter(|h| !h.status.is_terminal()) {
            let Some(inv) = self.store.get(head.id).map_err(Error::internal)? else { continue };
            // The run ended, and a crash came between its record's final write and its head's.
            if inv.status.is_terminal() {
                self.store.rewrite_head(&inv).map_err(Error::internal)?;
                continue;
            }
            tracing::info!(investigation = %inv.id, "resuming an interrupted investigation");
            if self.runtime.start_investigation(inv, RunKind::Resumed).await.map_err(Error::internal)? {
                resumed += 1;
            }
        }
        Ok(resumed)
    }

    fn load(&self, id: InvestigationId) -> Result<Investigation> {
        self.store.get(id).map_err(Error::internal)?.ok_or_else(|| Error::investigation_not_found(id))
    }

    /// One investigation, if `viewer` may see it: anonymous (public) investigations are
    /// readable by anyone; an owned one by its owner or an admin (UNAUTHORIZED without
    /// credentials, PERMISSOES_INSUFICIENTES for anyone else).
    pub fn get(&self, id: InvestigationId, viewer: Option<&Principal>) -> Result<Investigation> {
        let inv = self.load(id)?;
        may_see(inv.user_id, viewer)?;
        Ok(inv)
    }

    /// The head of one investigation (status, progress, counts; no results), if `viewer` may
    /// see it (as [`InvestigationService::get`]).
    pub fn head(&self, id: InvestigationId, viewer: Option<&Principal>) -> Result<InvestigationHead> {
        let head = self.store.head(id).map_err(Error::internal)?.ok_or_else(|| Error::investigation_not_found(id))?;
        may_see(head.user_id, viewer)?;
        Ok(head)
    }

    /// Results; INVESTIGATION_IN_PROGRESS while running, the failure's code when it failed.
    pub fn results(&self, id: InvestigationId, viewer: Option<&Principal>) -> Result<Investigation> {
        let inv = self.get(id, viewer)?;
        match inv.status {
            Status::Pending | Status::Processing => Err(Error::new(
                ErrorCode::InvestigationInProgress,
                format!("investigation {id} is still running ({:.0}%)", inv.progress.percentage),
            )
            .with("id", id.to_string())
            .with("progress", inv.progress.percentage)),
            Status::Failed => {
                let e = inv.error.clone().unwrap_or_else(|| crate::domain::ErrorInfo {
                    code: "INTERNAL_ERROR".into(),
                    message: "failed".into(),
                    recoverable: true,
                    details: Default::default(),
                });
                let code =
                    if e.code == "INSUFFICIENT_DATA" { ErrorCode::InsufficientData } else { ErrorCode::Conflict };
                let mut err = Error::new(code, format!("investigation {id} failed: {}", e.message));
                err.details = e.details.clone();
                Err(err.with("id", id.to_string()).with("failure_code", e.code))
            }
            Status::Cancelled if inv.results.is_none() => Err(Error::new(
                ErrorCode::Conflict,
                format!("investigation {id} was cancelled before any agent finished"),
            )
            .with("id", id.to_string())),
            _ => Ok(inv),
        }
    }

    /// Filters, sorts and pages the investigations `viewer` lists: their own for a signed-in
    /// user, all of them for an admin, the public ones for an anonymous caller.
    pub fn list(&self, q: &ListQuery, viewer: Option<&Principal>) -> Result<Page> {
        let mut items = self.listed(q, viewer)?;
        let (key, desc) = (&q.sort.0, q.sort.1);
        items.sort_by(|a, b| {
            let ord = match key.as_str() {
                "completed_at" => a.completed_at.cmp(&b.completed_at),
                "anomalies_found" => a.anomalies_found.cmp(&b.anomalies_found),
                "risk_score" => a.risk_score.cmp(&b.risk_score),
                "status" => a.status.as_str().cmp(b.status.as_str()),
                _ => a.created_at.cmp(&b.created_at),
            }
            .then_with(|| a.id.cmp(&b.id));
            if desc { ord.reverse() } else { ord }
        });
        let total = items.len();
        let items = items.into_iter().skip((q.page.max(1) - 1) * q.limit).take(q.limit).collect();
        Ok(Page { items, total })
    }

    /// The investigations `viewer` lists (see [`InvestigationService::list`]) that pass the
    /// filters of `q`, unordered.
    fn listed(&self, q: &ListQuery, viewer: Option<&Principal>) -> Result<Vec<InvestigationHead>> {
        // Signed in: one's own investigations (an admin's view is every one); anonymous: the
        // public ones.
        let visible = |i: &InvestigationHead| match viewer {
            Some(p) => p.is_admin() || p.user_id.0 == i.user_id,
            None => i.user_id.is_nil(),
        };
        let all = self.store.heads().map_err(Error::internal)?;
        let scanned = all.len() as u64;
        let kept: Vec<InvestigationHead> = all
            .into_iter()
            .filter(|i| visible(i))
            .filter(|i| q.status.is_none_or(|s| i.status == s))
            .filter(|i| q.data_source.as_deref().is_none_or(|d| i.data_source == d))
            .filter(|i| q.date_from.is_none_or(|d| i.created_at.date_naive() >= d))
            .filter(|i| q.date_to.is_none_or(|d| i.created_at.date_naive() <= d))
            .filter(|i| q.min_anomalies.is_none_or(|m| i.anomalies_found >= m))
            .collect();
        // Which columns filtered the scan: what an index would serve (admin database routes).
        let columns = [
            ("user_id", !viewer.is_some_and(Principal::is_admin)),
            ("status", q.status.is_some()),
            ("data_source", q.data_source.is_some()),
            ("created_at", q.date_from.is_some() || q.date_to.is_some()),
            ("anomalies_found", q.min_anomalies.is_some()),
        ];
        let used = columns.iter().filter(|c| c.1).map(|c| c.0).collect();
        self.store.op_stats().filtered("investigations", used, scanned, kept.len() as u64);
        Ok(kept)
    }

    /// The cursor form of the list: the filters of `q` (its sort and page are not used), items
    /// by creation time then id, newest last, `limit` at a time from `cursor` (see
    /// [`crate::domain::cursor`]).
    pub fn paginated(
        &self,
        q: &ListQuery,
        cursor: Option<&Cursor>,
        direction: Direction,
        viewer: Option<&Principal>,
    ) -> Result<CursorPage<InvestigationHead>> {
        let key = |i: &InvestigationHead| (i.created_at, i.id.to_string());
        let mut items = self.listed(q, viewer)?;
        items.sort_by_cached_key(key);
        Ok(cursor::page(&items, key, cursor, direction, q.limit))
    }

    /// Cancels a running investigation; a finished one is a CONFLICT. Needs
    /// `deletar:investigacoes` and ownership, or an admin.
    pub async fn cancel(&self, id: InvestigationId, who: &Principal) -> Result<Cancelled> {
        who.require(Permission::DeleteInvestigations)?;
        let inv = self.store.head(id).map_err(Error::internal)?.ok_or_else(|| Error::investigation_not_found(id))?;
        who.require_owner_or_admin(inv.user_id)?;
        if inv.status.is_terminal() {
            return Err(already_ended(id, inv.status));
        }
        let was_running =
            self.runtime.cancel_investigation(id, Duration::from_secs(5)).await.map_err(Error::internal)?;
        let mut inv = self.load(id)?;
        if !was_running && !inv.status.is_terminal() {
            inv = self.runtime.cancel_idle(inv).await;
        }
        if inv.status.is_terminal() && inv.status != Status::Cancelled {
            // The run ended on its own before the cancellation reached it: the same answer as
            // a cancel that arrives after the end.
            return Err(already_ended(id, inv.status));
        }
        Ok(Cancelled {
            id,
            status: inv.status,
            partial_results_available: inv.results.as_ref().is_some_and(|r| !r.agents_used.is_empty()),
        })
    }
}

/// Anonymous (nil-owner) investigations are public; an owned one is for its owner or an admin.
fn may_see(owner: Uuid, viewer: Option<&Principal>) -> Result<()> {
    if !owner.is_nil() {
        viewer.ok_or_else(unauthenticated)?.require_owner_or_admin(owner)?;
    }
    Ok(())
}

/// A cancellation of an investigation that already ended as `status`.
fn already_ended(id: InvestigationId, status: Status) -> Error {
    Error::new(ErrorCode::Conflict, format!("investigation {id} already ended as {}", status.as_str()))
        .with("id", id.to_string())
        .with("status", status.as_str())
}

#[path = "investigation_stream.rs"]
mod stream;
