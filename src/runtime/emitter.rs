//! The emitter of one run: numbers events, updates the investigation's progress, persists the
//! event and the investigation, then publishes the event. Persist-then-publish is what lets a
//! stream resume from the store with `Last-Event-ID`.
//!
//! A crash can lose events that were published but not yet flushed. So that a sequence number
//! is never reused, numbers are reserved durably in blocks of [`SEQ_BLOCK`] before any of them
//! is published, and a resumed run numbers its events after the last reservation: a client
//! sees a gap in the numbers (the restart marker), never the same number twice. A resumed run
//! does not emit again an anomaly whose event is stored, and its anomaly count is recounted
//! from the stored events. A fresh run has no events: it numbers from 1, within the first
//! block, which the investigation's record reserves by existing (no run is resumed without
//! it, and a resumed run numbers after the first block whatever was written).
//!
//! A run started unrecorded ([`RunKind::Unrecorded`]: the chat's, whose starter tells no one
//! of it before it ends) has its record written by its first write, before its first events.
//! Every run writes before it first waits (its queued progress goes out then), so a run that
//! never waits is written once, at its end, and one that waits is recorded before it does.
//!
//! Progress of a step that takes no time of its own can be queued: it is written and
//! published with the next emission, in the same write.

use std::collections::HashSet;
use std::sync::Arc;

use chrono::Utc;

use super::driver::record_end;
use super::events::EventHub;
use crate::domain::investigation::Results;
use crate::domain::ports::InvestigationStore;
use crate::domain::{AnomalyFound, ErrorInfo, EventKind, Investigation, InvestigationEvent, Phase, Status};

/// Sequence numbers reserved at a time (one durable write and flush per block).
pub const SEQ_BLOCK: u64 = 256;

pub(crate) struct Emitter {
    store: Arc<dyn InvestigationStore>,
    hub: EventHub,
    inv: Investigation,
    seq: u64,
    /// Highest sequence number durably reserved.
    reserved: u64,
    /// Anomalies an earlier run of the same investigation stored.
    seen: HashSet<String>,
    /// Events queued for the next emission.
    pending: Vec<EventKind>,
    /// Whether the investigation's record is stored (an unrecorded run's first write stores it).
    recorded: bool,
}

/// Whether a run is the first of its investigation or continues one a crash or a shutdown
/// interrupted (or ends one that may have run before).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunKind {
    /// Just started: no event of it exists, and its first [`SEQ_BLOCK`] numbers are reserved
    /// by its record (durable whenever the investigation is).
    Fresh,
    /// Just started, like [`RunKind::Fresh`], but not yet saved: its first write saves its
    /// record (which reserves its first block), before its first events.
    Unrecorded,
    /// May have stored and published events before.
    Resumed,
}

impl Emitter {
    /// A fresh run numbers from 1 within what its starter reserved; a resumed run continues the
    /// numbering after every number an earlier run may have published, and remembers the
    /// anomalies it stored.
    pub fn new(store: Arc<dyn InvestigationStore>, hub: EventHub, mut inv: Investigation, kind: RunKind) -> Self {
        if kind != RunKind::Resumed {
            let (seen, pending, recorded) = (HashSet::new(), Vec::new(), kind == RunKind::Fresh);
            return Emitter { store, hub, inv, seq: 0, reserved: SEQ_BLOCK, seen, pending, recorded };
        }
        // Every run's first block is reserved by its record: a fresh run may have published
        // numbers up to it without writing a reservation.
        let reserved = store
            .reserved_seq(inv.id)
            .unwrap_or_else(|e| {
                tracing::error!(investigation = %inv.id, error = %e, "could not read the reserved sequence");
                0
            })
            .max(SEQ_BLOCK);
        let stored = store.events_after(inv.id, 0).unwrap_or_else(|e| {
            tracing::error!(investigation = %inv.id, error = %e, "could not read stored events");
            Vec::new()
        });
        let seq = stored.last().map_or(0, |e| e.seq).max(reserved);
        let seen: HashSet<String> = stored
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Anomaly(found) => Some(found.id.clone()),
                _ => None,
            })
            .collect();
        if seq > 0 {
            inv.progress.anomalies_found = seen.len();
        }
        Emitter { store, hub, inv, seq, reserved: seq, seen, pending: Vec::new(), recorded: true }
    }

    pub fn inv(&self) -> &Investigation {
        &self.inv
    }

    pub fn inv_mut(&mut self) -> &mut Investigation {
        &mut self.inv
    }

    /// Persists the investigation and the event, then publishes the event.
    pub async fn emit(&mut self, kind: EventKind) {
        self.emit_all(vec![kind]).await;
    }

    /// Persists the investigation and the events (after any queued) in one write, then
    /// publishes them in order: what one step of a run produced at once (an agent's findings,
    /// insights and progress) costs one insert, not one per event.
    pub async fn emit_all(&mut self, kinds: Vec<EventKind>) {
        let kinds = self.after_queued(kinds);
        if kinds.is_empty() {
            return;
        }
        self.reserve(kinds.len() as u64).await;
        let events = self.persist(kinds);
        self.hub.publish(self.inv.id, events);
    }

    /// Makes sure the next `n` sequence numbers are durably reserved before any can be published.
    async fn reserve(&mut self, n: u64) {
        if self.seq + n <= self.reserved {
            return;
        }
        let upto = self.seq + n + SEQ_BLOCK;
        let reserved = self.store.reserve_seq(self.inv.id, upto);
        let durable = match reserved {
            Ok(()) => self.store.flush().await,
            Err(e) => Err(e),
        };
        match durable {
            Ok(()) => self.reserved = upto,
            // Publishing goes on (a stream must not stall); a crash now could reuse numbers.
            Err(e) => tracing::error!(investigation = %self.inv.id, error = %e, "could not reserve event numbers"),
        }
    }

    fn persist(&mut self, kinds: Vec<EventKind>) -> Vec<InvestigationEvent> {
        let events: Vec<InvestigationEvent> = kinds
            .into_iter()
            .map(|kind| {
                self.seq += 1;
                InvestigationEvent { seq: self.seq, kind }
            })
            .collect();
        // Progress moves only the investigation's head (status views read it); the full
        // record is written at the end. Anomaly and insight events only append, so a run with
        // many findings writes each finding once. An unrecorded run's first write is a full one.
        let full = !self.recorded
            || events.iter().any(|e| {
                !matches!(e.kind, EventKind::Anomaly { .. } | EventKind::Insight { .. } | EventKind::Progress { .. })
            });
        let progress = events.iter().any(|e| matches!(e.kind, EventKind::Progress { .. }));
        let saved = if full {
            let saved = self.store.save(&self.inv);
            self.recorded |= saved.is_ok();
            saved
        } else if progress {
            self.store.save_progress(&self.inv)
        } else {
            Ok(())
        };
        if let Err(e) = saved.and_then(|_| self.store.append_events(self.inv.id, &events)) {
            tracing::error!(investigation = %self.inv.id, error = %e, "could not persist events");
        }
        events
    }

    /// Enters a phase: marks the previous one completed and emits progress.
    pub async fn phase(&mut self, phase: Phase, agents_active: usize) {
        let event = self.phase_event(phase, agents_active);
        self.emit(event).await;
    }

    /// Enters each phase in turn (steps that take no time of their own), their events queued
    /// for the next emission: written and published with it, in the same write.
    pub fn queue_phases(&mut self, phases: &[Phase]) {
        for p in phases {
            self.queue_phase(*p, 0);
        }
    }

    /// Enters `phase` with its event queued for the next emission (see
    /// [`Emitter::emit_queued`] for a step that turns out to take time).
    pub fn queue_phase(&mut self, phase: Phase, agents_active: usize) {
        let event = self.phase_event(phase, agents_active);
        self.pending.push(event);
    }

    /// Queues events for the next emission (a step whose run does not wait before the next).
    pub fn queue(&mut self, kinds: Vec<EventKind>) {
        self.pending.extend(kinds);
    }

    /// Emits what is queued, if anything: called before a run waits, so that progress queued
    /// for a step that takes time goes out when the step starts.
    pub async fn emit_queued(&mut self) {
        self.emit_all(Vec::new()).await;
    }

    /// The queued events, then `kinds` (the queue emptied).
    fn after_queued(&mut self, kinds: Vec<EventKind>) -> Vec<EventKind> {
        let mut all = std::mem::take(&mut self.pending);
        all.extend(kinds);
        all
    }

    /// Moves to `phase` (the previous one completed) and returns its progress event.
    fn phase_event(&mut self, phase: Phase, agents_active: usize) -> EventKind {
        let p = &mut self.inv.progress;
        if let Some(prev) = p.current_phase
            && prev != phase
            && !p.phases_completed.contains(&prev)
        {
            p.phases_completed.push(prev);
        }
        self.progress_event(phase, phase.start_percentage(), agents_active)
    }

    /// Emits progress within a phase.
    pub async fn progress(&mut self, phase: Phase, percentage: f64, agents_active: usize) {
        let event = self.progress_event(phase, percentage, agents_active);
        self.emit(event).await;
    }

    /// Moves the progress within a phase and returns its event.
    pub fn progress_event(&mut self, phase: Phase, percentage: f64, agents_active: usize) -> EventKind {
        let percentage = (percentage * 10.0).round() / 10.0;
        self.inv.progress.current_phase = Some(phase);
        self.inv.progress.percentage = percentage;
        EventKind::Progress { percentage, current_phase: phase, agents_active }
    }

    /// The event of a finding (`found`, of the anomaly `id`) not emitted before; counts it.
    /// A fresh run's driver emits each finding once; a resumed run's may emit again what an
    /// earlier run stored.
    pub fn anomaly_event(&mut self, id: &str, found: Arc<AnomalyFound>) -> Option<EventKind> {
        if self.seen.contains(id) {
            return None;
        }
        self.inv.progress.anomalies_found += 1;
        Some(EventKind::Anomaly(found))
    }

    /// Writes the final state, makes it durable (or leaves that to the starter watching alone),
    /// then emits the terminal event.
    pub async fn finish(&mut self, (status, results, error): (Status, Option<Box<Results>>, Option<ErrorInfo>)) {
        let p = &mut self.inv.progress;
        if let Some(prev) = p.current_phase
            && !p.phases_completed.contains(&prev)
            && status.has_results()
        {
            p.phases_completed.push(prev);
        }
        if status.has_results() {
            p.percentage = 100.0;
        }
        self.inv.status = status;
        self.inv.completed_at = Some(Utc::now());
        self.inv.error = error;
        self.inv.results = results.map(|r| *r);
        let terminal = EventKind::terminal_of(&self.inv);
        let kinds = self.after_queued(vec![terminal]);
        self.reserve(kinds.len() as u64).await;
        let events = self.persist(kinds);
        // Durable before anyone hears of it, unless the only one to hear is the run's starter,
        // which makes it durable with its own answer before acknowledging anything.
        if !self.hub.only_starter_watches(self.inv.id)
            && let Err(e) = self.store.flush().await
        {
            tracing::error!(investigation = %self.inv.id, error = %e, "could not flush the store");
        }
        // The run is over: a starter watching it gets the results rather than reading back
        // what was just written.
        if status == Status::Completed
            && let Some(results) = self.inv.results.take()
        {
            self.inv.results = self.hub.hand_to_starter(self.inv.id, Box::new(results)).map(|r| *r);
        }
        self.hub.publish(self.inv.id, events);
        record_end(status);
    }
}
