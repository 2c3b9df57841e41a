//! Maria Quitéria, the security auditor: a review of the service's own audit trail
//! (`Dataset::security_events`, handed in by the host).
//!
//! Method ([`rules`]). Events are put in time order. Failed logins, and separately refused
//! requests (401/403), are grouped per actor and per address into clusters whose consecutive
//! failures are at most [`rules::WINDOW_MINUTES`] apart; a cluster is a burst when its densest
//! window holds at least [`rules::MIN_BURST`] failures and [`rules::BASE_FACTOR`] times the
//! log's base rate (failures per key per window over the log's span); high when a success for
//! the same key follows within the window. Privilege changes (`admin_action` and any action
//! naming roles, grants, permissions or keys) are listed, high when the actor or address failed
//! in the [`rules::PRIOR_MINUTES`] before. A successful login from an address the actor never
//! used in [`rules::MIN_LOGINS_FOR_ADDRESS`] or more earlier logins, activity at Brasília hours
//! around which the actor did under [`rules::UNUSUAL_HOUR_SHARE`] of their activity, lockouts
//! and reuse of a rotated refresh token are the other findings. They are not spending
//! anomalies: they go out as insights and the `security_review` artifact, never as anomalies.

pub mod rules;

use serde_json::json;

use crate::agents::Agent;
use crate::agents::roster::AgentId;
use crate::cancel::AnalysisError;
use crate::detect::context::AnalysisContext;
use crate::lang::Language;
use crate::model::anomaly::Severity;
use crate::model::report::{AgentOutput, Artifact, Insight};
use crate::model::security_log::SecurityEvent;
use rules::SecurityFinding;

/// Most findings written as insights.
const MAX_INSIGHTS: usize = 30;
/// Most findings in the artifact (the most severe; `findings_total` counts them all).
pub const MAX_FINDINGS: usize = 500;

/// The security auditor.
#[derive(Debug, Clone, Copy, Default)]
pub struct MariaQuiteria;

impl MariaQuiteria {
    /// A new security auditor.
    pub fn new() -> Self {
        MariaQuiteria
    }
}

/// Every finding over `events` (any order), most severe first (within a severity, in the
/// rules' order, each rule's findings in time order).
pub fn review(events: &[SecurityEvent]) -> Vec<SecurityFinding> {
    let mut sorted: Vec<&SecurityEvent> = events.iter().collect();
    sorted.sort_by_key(|e| e.timestamp);
    let mut found = rules::bursts(&sorted, "failed_login_burst", rules::is_login);
    found.extend(rules::bursts(&sorted, "refused_request_burst", rules::is_refused_request));
    found.extend(rules::privilege_changes(&sorted));
    found.extend(rules::new_addresses(&sorted));
    found.extend(rules::unusual_hours(&sorted));
    found.extend(rules::token_and_lockout(&sorted));
    // Stable: within a severity the rules' own order (each in time order) stays.
    found.sort_by_key(|f| std::cmp::Reverse(f.severity));
    found
}

impl Agent for MariaQuiteria {
    fn id(&self) -> AgentId {
        AgentId::MariaQuiteria
    }

    fn analyse(&self, ctx: &AnalysisContext<'_>) -> Result<AgentOutput, AnalysisError> {
        (ctx.progress)(0.0);
        ctx.cancel.check()?;
        let events = &ctx.dataset.security_events;
        let found = review(events);
        ctx.cancel.check()?;
        let say = |text: &dyn Fn(Language) -> String, confidence: f64| {
            crate::agents::insight_in_both(AgentId::MariaQuiteria, text, confidence)
        };
        let failed_logins = events.iter().filter(|e| rules::is_login(e) && e.failed()).count();
        let count = |s: Severity| found.iter().filter(|f| f.severity == s).count();
        let (high, medium, low) =
            (count(Severity::High) + count(Severity::Critical), count(Severity::Medium), count(Severity::Low));
        let span = events.iter().map(|e| e.timestamp).min().zip(events.iter().map(|e| e.timestamp).max());
        let summary = |l: Language| match span {
            Some((from, to)) => {
                let at =
                    |t: chrono::DateTime<chrono::Utc>| t.format(l.pick("%d/%m/%Y %H:%M UTC", "%Y-%m-%d %H:%M UTC"));
                format!(
                    "{} {} {} {} {} {}: {}; {} ({}, {}, {})",
                    l.pick("Revisão de", "Review of"),
                    l.count(
                        events.len(),
                        ("evento de auditoria", "eventos de auditoria"),
                        ("audit event", "audit events")
                    ),
                    l.pick("de", "from"),
                    at(from),
                    l.pick("a", "to"),
                    at(to),
                    l.count(failed_logins, ("login falho", "logins falhos"), ("failed login", "failed logins")),
                    l.count(found.len(), ("achado", "achados"), ("finding", "findings")),
                    l.count(high, ("alto", "altos"), ("high", "high")),
                    l.count(medium, ("médio", "médios"), ("medium", "medium")),
                    l.count(low, ("baixo", "baixos"), ("low", "low")),
                )
            }
            None => l
                .pick(
                    "Nenhum evento de auditoria recebido: não há o que revisar",
                    "No audit events received: there is nothing to review",
                )
                .to_string(),
        };
        let mut insights: Vec<Insight> = vec![say(&summary, 0.95)];
        insights.extend(found.iter().take(MAX_INSIGHTS).map(|f| {
            let confidence = match f.severity {
                Severity::Critical | Severity::High => 0.9,
                Severity::Medium => 0.8,
                Severity::Low => 0.7,
            };
            say(&|l| if l.is_en() { f.description_en.clone() } else { f.description.clone() }, confidence)
        }));
        let recommendations = found
            .iter()
            .filter(|f| f.severity >= Severity::High)
            .take(10)
            .map(|f| match f.kind {
                "failed_login_burst" => format!(
                    "Confirmar com {} se o acesso após a rajada de falhas foi legítimo e trocar a senha se não foi",
                    f.actor.as_deref().or(f.ip.as_deref()).unwrap_or("o usuário")
                ),
                "privilege_change" => format!(
                    "Revisar a mudança de privilégio feita por {} logo após falhas de acesso",
                    f.actor.as_deref().unwrap_or("ator desconhecido")
                ),
                _ => format!("Investigar: {}", f.description),
            })
            .collect();
        let content = json!({
            "events": events.len(),
            "from": span.map(|s| s.0.to_rfc3339()),
            "to": span.map(|s| s.1.to_rfc3339()),
            "failed_logins": failed_logins,
            "findings_total": found.len(),
            "findings": &found[..found.len().min(MAX_FINDINGS)],
            "thresholds": {
                "window_minutes": rules::WINDOW_MINUTES, "min_burst": rules::MIN_BURST, "base_factor": rules::BASE_FACTOR,
                "prior_minutes": rules::PRIOR_MINUTES, "min_logins_for_address": rules::MIN_LOGINS_FOR_ADDRESS,
                "min_events_for_hours": rules::MIN_EVENTS_FOR_HOURS, "unusual_hour_share": rules::UNUSUAL_HOUR_SHARE,
            },
        });
        (ctx.progress)(1.0);
        Ok(AgentOutput {
            anomalies: Vec::new(),
            insights,
            recommendations,
            artifacts: vec![Artifact {
                kind: "security_review".into(), title: "Revisão de segurança".into(), content
            }],
        })
    }
}

#[cfg(test)]
mod tests;
