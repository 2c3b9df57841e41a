//! The emitter of one run: numbers events, updates the investigation's progress, persists the
//! event and the investigation, then publishes the event. Persist-then-publish is what lets a
//! stream resume from the store with `Last-Event-ID`.

use std::collections::HashMap;
use std::sync::Arc;

use chrono::Utc;
use vigia_agents::{Anomaly, Contract};

use super::driver::record_end;
use super::events::EventHub;
use crate::domain::investigation::Results;
use crate::domain::ports::InvestigationStore;
use crate::domain::{ErrorInfo, EventKind, Investigation, InvestigationEvent, Phase, Status};

pub(crate) struct Emitter {
    store: Arc<dyn InvestigationStore>,
    hub: EventHub,
    inv: Investigation,
    seq: u64,
}

impl Emitter {
    /// Continues the numbering after the events already stored (a resumed run).
    pub fn new(store: Arc<dyn InvestigationStore>, hub: EventHub, inv: Investigation) -> Self {
        let seq = match store.events_after(inv.id, 0) {
            Ok(events) => events.last().map_or(0, |e| e.seq),
            Err(e) => {
                tracing::error!(investigation = %inv.id, error = %e, "could not read stored events");
                0
            }
        };
        Emitter { store, hub, inv, seq }
    }

    pub fn inv(&self) -> &Investigation {
        &self.inv
    }

    pub fn inv_mut(&mut self) -> &mut Investigation {
        &mut self.inv
    }

    /// Persists the investigation and the event, then publishes the event.
    pub fn emit(&mut self, kind: EventKind) {
        let event = self.persist(kind);
        self.hub.publish(self.inv.id, event);
    }

    fn persist(&mut self, kind: EventKind) -> InvestigationEvent {
        self.seq += 1;
        let event = InvestigationEvent { seq: self.seq, kind };
        // The investigation's own record changes with progress and at the end; anomaly and
        // insight events only append, so a run with many findings writes each finding once.
        let save_inv = !matches!(event.kind, EventKind::Anomaly { .. } | EventKind::Insight { .. });
        let saved = if save_inv { self.store.save(&self.inv) } else { Ok(()) };
        if let Err(e) = saved.and_then(|_| self.store.append_event(self.inv.id, &event)) {
            tracing::error!(investigation = %self.inv.id, error = %e, "could not persist an event");
        }
        event
    }

    /// Enters a phase: marks the previous one completed and emits progress.
    pub fn phase(&mut self, phase: Phase, agents_active: usize) {
        let p = &mut self.inv.progress;
        if let Some(prev) = p.current_phase
            && prev != phase
            && !p.phases_completed.contains(&prev)
        {
            p.phases_completed.push(prev);
        }
        self.progress(phase, phase.start_percentage(), agents_active);
    }

    /// Emits progress within a phase.
    pub fn progress(&mut self, phase: Phase, percentage: f64, agents_active: usize) {
        let percentage = (percentage * 10.0).round() / 10.0;
        self.inv.progress.current_phase = Some(phase);
        self.inv.progress.percentage = percentage;
        self.emit(EventKind::Progress { percentage, current_phase: phase, agents_active });
    }

    /// Emits an anomaly, naming the contract behind it (primary, else first related), the
    /// supplier (or an agreement's grantee) it concerns, and the contract's value (else the
    /// money at stake).
    pub fn anomaly(&mut self, a: &Anomaly, contracts: &HashMap<&str, &Contract>) {
        self.inv.progress.anomalies_found += 1;
        let contract = std::iter::once(&a.affected_entities.primary)
            .chain(&a.affected_entities.related)
            .filter(|e| e.kind == "contract")
            .find_map(|e| contracts.get(e.id.as_str()).copied());
        let party = std::iter::once(&a.affected_entities.primary)
            .chain(&a.affected_entities.related)
            .find(|e| e.kind == "supplier" || e.kind == "grantee")
            .map(|e| e.name.clone());
        let supplier = match a.affected_entities.primary.kind.as_str() {
            "supplier" | "grantee" => party,
            _ => contract.map(|c| c.supplier.name.to_string()).or(party),
        };
        let at_stake = Some(a.value_at_stake()).filter(|v| *v > 0.0);
        self.emit(EventKind::Anomaly {
            id: a.id.clone(),
            anomaly_type: a.kind.as_str().into(),
            severity: a.severity.as_str().into(),
            confidence: a.confidence,
            description: a.description.clone(),
            contract_id: contract.map(|c| c.id.to_string()),
            supplier,
            value: contract.map(Contract::value).or(at_stake),
        });
    }

    /// Writes the final state, makes it durable, then emits the terminal event.
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
        self.inv.error = error.clone();
        let partial = results.as_ref().is_some_and(|r| !r.agents_used.is_empty());
        self.inv.results = results.map(|r| *r);
        let terminal = match (&self.inv.results, status) {
            (Some(r), Status::Completed | Status::CompletedFallback) => EventKind::Complete {
                total_anomalies: r.anomalies.len(),
                processing_time: r.execution_time_ms,
                agents_used: r.agents_used.clone(),
                status,
            },
            (_, Status::Cancelled) => EventKind::Cancelled { partial_results_available: partial },
            _ => {
                let e = error.unwrap_or_else(|| ErrorInfo {
                    code: "INTERNAL_ERROR".into(),
                    message: "the investigation ended without results".into(),
                    recoverable: true,
                    details: Default::default(),
                });
                EventKind::Error { code: e.code, message: e.message, recoverable: e.recoverable }
            }
        };
        let event = self.persist(terminal);
        if let Err(e) = self.store.flush().await {
            tracing::error!(investigation = %self.inv.id, error = %e, "could not flush the store");
        }
        self.hub.publish(self.inv.id, event);
        record_end(status);
    }
}
