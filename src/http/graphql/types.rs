//! The schema's object types, each a view of a service value: `User` of the account record,
//! `Investigation` of an investigation's head (its results read only when a field needs them),
//! `Finding` of an agent's insight, `Anomaly` of an engine finding, `Contract` of a contract
//! record, `ChatMessage` of a chat turn's stored answer and `AgentStats` of an agent's state.

use std::sync::Arc;

use async_graphql::{Context, ID, Json, Object, SimpleObject};
use chrono::{DateTime, NaiveDate, Utc};
use tokio::sync::OnceCell;

use super::schema::{GqlResult, services, viewer};
use crate::domain::user::UserId;
use crate::domain::{Investigation as Record, InvestigationHead};
use crate::service::agents::AgentState;
use crate::service::chat_reply::ChatReply;

/// An account.
#[derive(SimpleObject)]
pub struct User {
    /// Id.
    pub id: ID,
    /// Display name: accounts carry none, so always null (the e-mail identifies the user).
    pub name: Option<String>,
    /// E-mail.
    pub email: String,
    /// `admin`, `analista`, `visualizador` or `servico`.
    pub role: String,
}

impl From<crate::domain::User> for User {
    fn from(u: crate::domain::User) -> Self {
        User {
            id: ID(u.id.0.to_string()),
            name: None,
            email: u.email.as_str().to_string(),
            role: u.role.as_str().into(),
        }
    }
}

/// An investigation: the fields of its head at once, its results on demand.
pub struct Investigation {
    head: InvestigationHead,
    full: OnceCell<Option<Arc<Record>>>,
}

impl From<InvestigationHead> for Investigation {
    fn from(head: InvestigationHead) -> Self {
        Investigation { head, full: OnceCell::new() }
    }
}

impl Investigation {
    /// The full record when results exist (read once, with the caller's access checked again).
    async fn results<'a>(&'a self, ctx: &Context<'_>) -> async_graphql::Result<Option<&'a Record>> {
        if !self.head.has_results {
            return Ok(None);
        }
        let id = self.head.id;
        let who = viewer(ctx)?;
        let full = self
            .full
            .get_or_try_init(|| async { services(ctx).investigations.get(id, who).gql().map(|r| Some(Arc::new(r))) })
            .await?;
        Ok(full.as_deref())
    }
}

#[Object]
impl Investigation {
    /// Id (UUID).
    async fn id(&self) -> ID {
        ID(self.head.id.to_string())
    }
    /// The question as accepted.
    async fn query(&self) -> &str {
        &self.head.query
    }
    /// `pending`, `processing`, `completed`, `completed_fallback`, `failed` or `cancelled`.
    async fn status(&self) -> &str {
        self.head.status.as_str()
    }
    /// Where the data comes from.
    async fn data_source(&self) -> &str {
        &self.head.data_source
    }
    /// Progress, 0-100.
    async fn progress(&self) -> f64 {
        self.head.progress.percentage
    }
    /// The phase running now.
    async fn current_phase(&self) -> Option<&'static str> {
        self.head.progress.current_phase.map(|p| p.as_str())
    }
    /// Anomalies found (so far, while running).
    async fn anomalies_found(&self) -> usize {
        self.head.anomalies_found
    }
    /// Risk score 0-100 once results exist.
    async fn risk_score(&self) -> Option<u8> {
        self.head.risk_score
    }
    /// Accepted at.
    async fn created_at(&self) -> DateTime<Utc> {
        self.head.created_at
    }
    /// Finished at.
    async fn completed_at(&self) -> Option<DateTime<Utc>> {
        self.head.completed_at
    }
    /// Why it failed (its error code and message), when it failed.
    async fn error(&self) -> Option<String> {
        self.head.error.as_ref().map(|e| format!("{}: {}", e.code, e.message))
    }
    /// Mean confidence of its anomalies (0 when none), once results exist.
    async fn confidence_score(&self, ctx: &Context<'_>) -> async_graphql::Result<Option<f64>> {
        Ok(self.results(ctx).await?.map(Record::confidence_score))
    }
    /// Wall time of the analysis, milliseconds, once results exist.
    async fn processing_time_ms(&self, ctx: &Context<'_>) -> async_graphql::Result<Option<u64>> {
        Ok(self.results(ctx).await?.and_then(|r| r.results.as_ref()).map(|r| r.execution_time_ms))
    }
    /// The agents' conclusions over the anomalies.
    async fn findings(&self, ctx: &Context<'_>) -> async_graphql::Result<Vec<Finding>> {
        let Some(r) = self.results(ctx).await?.and_then(|r| r.results.as_ref()) else { return Ok(Vec::new()) };
        Ok(r.insights.iter().enumerate().map(|(i, insight)| Finding::of(i, insight, &r.anomalies)).collect())
    }
    /// The anomalies, most severe first (at most `limit`, default all).
    async fn anomalies(&self, ctx: &Context<'_>, limit: Option<usize>) -> async_graphql::Result<Vec<Anomaly>> {
        let Some(r) = self.results(ctx).await?.and_then(|r| r.results.as_ref()) else { return Ok(Vec::new()) };
        Ok(r.anomalies.iter().take(limit.unwrap_or(usize::MAX)).map(|a| Anomaly::from(&**a)).collect())
    }
    /// The owner (null for a public investigation, and for anyone but the owner or an admin).
    async fn user(&self, ctx: &Context<'_>) -> async_graphql::Result<Option<User>> {
        let (Some(who), false) = (viewer(ctx)?, self.head.user_id.is_nil()) else { return Ok(None) };
        Ok(services(ctx).auth.user_visible_to(who, UserId(self.head.user_id)).gql()?.map(User::from))
    }
}

/// An agent's conclusion, with the anomalies behind it.
#[derive(SimpleObject)]
pub struct Finding {
    /// `<agent>-<n>` (its place among the investigation's insights).
    pub id: ID,
    /// `insight`.
    #[graphql(name = "type")]
    pub kind: String,
    /// The agent's display name.
    pub title: String,
    /// The conclusion (Portuguese).
    pub description: String,
    /// The highest severity among the anomalies behind it (`low` without any).
    pub severity: String,
    /// 0-1.
    pub confidence: f64,
    /// Ids of the anomalies behind it.
    pub evidence: Vec<String>,
}

impl Finding {
    fn of(
        i: usize,
        insight: &vigia_agents::model::report::Insight,
        anomalies: &[Arc<vigia_agents::Anomaly>],
    ) -> Finding {
        let severity = anomalies
            .iter()
            .filter(|a| insight.supporting_evidence.contains(&a.id))
            .map(|a| a.severity)
            .max()
            .map_or("low", |s| s.as_str());
        let title = vigia_agents::AgentId::parse(&insight.agent)
            .map_or_else(|| insight.agent.to_string(), |a| a.display_name().to_string());
        Finding {
            id: ID(format!("{}-{}", insight.agent, i + 1)),
            kind: "insight".into(),
            title,
            description: insight.insight.to_string(),
            severity: severity.into(),
            confidence: insight.confidence,
            evidence: insight.supporting_evidence.to_vec(),
        }
    }
}

/// An engine finding.
#[derive(SimpleObject)]
pub struct Anomaly {
    /// `<detector>-<key>`.
    pub id: ID,
    /// `price_anomaly`, `vendor_concentration`, ...
    #[graphql(name = "type")]
    pub kind: String,
    /// One sentence a journalist can check (Portuguese).
    pub description: String,
    /// `low`, `medium`, `high` or `critical`.
    pub severity: String,
    /// 0-1.
    pub confidence_score: f64,
    /// `{primary, related}`, each `{type, id, name}`.
    pub affected_entities: Json<serde_json::Value>,
    /// The detector that found it.
    pub detection_method: String,
    /// Measurements and the test behind it.
    pub evidence: Json<serde_json::Value>,
}

impl From<&vigia_agents::Anomaly> for Anomaly {
    fn from(a: &vigia_agents::Anomaly) -> Self {
        Anomaly {
            id: ID(a.id.clone()),
            kind: a.kind.as_str().into(),
            description: a.description.clone(),
            severity: a.severity.as_str().into(),
            confidence_score: a.confidence,
            affected_entities: Json(serde_json::to_value(&a.affected_entities).unwrap_or_default()),
            detection_method: a.detector().into(),
            evidence: Json(serde_json::to_value(&a.evidence).unwrap_or_default()),
        }
    }
}

/// A contract record.
#[derive(SimpleObject)]
pub struct Contract {
    /// Upstream id.
    pub id: ID,
    /// Contract number.
    pub number: String,
    /// What was bought.
    pub object: String,
    /// Supplier name.
    pub supplier: String,
    /// Supplier CNPJ/CPF as given.
    pub supplier_document: String,
    /// Organ SIAFI code.
    pub orgao: String,
    /// Organ name.
    pub orgao_name: String,
    /// Managing unit code.
    pub unit_code: String,
    /// Managing unit name.
    pub unit_name: String,
    /// Purchase modality.
    pub modality: String,
    /// Contract situation.
    pub situation: String,
    /// Final value in R$ (the initial one when no final value is given).
    pub value: f64,
    /// Initial value in R$.
    pub initial_value: f64,
    /// Signing date.
    pub signed_on: Option<NaiveDate>,
}

impl From<&vigia_agents::Contract> for Contract {
    fn from(c: &vigia_agents::Contract) -> Self {
        Contract {
            id: ID(c.id.to_string()),
            number: c.number.to_string(),
            object: c.object.to_string(),
            supplier: c.supplier.name.to_string(),
            supplier_document: c.supplier.document.to_string(),
            orgao: c.organ.code.to_string(),
            orgao_name: c.organ.name.to_string(),
            unit_code: c.unit.code.to_string(),
            unit_name: c.unit.name.to_string(),
            modality: c.modality.to_string(),
            situation: c.situation.to_string(),
            value: c.value(),
            initial_value: c.initial_value,
            signed_on: c.signed_on,
        }
    }
}

/// The assistant's stored answer to a chat message.
#[derive(SimpleObject)]
pub struct ChatMessage {
    /// The stored assistant message's id.
    pub id: ID,
    /// The conversation (send it back to continue it).
    pub session_id: String,
    /// `assistant`.
    pub role: String,
    /// The answer (Markdown).
    pub content: String,
    /// The agent that answered.
    pub agent: String,
    /// `completed`.
    pub status: String,
    /// Anomalies behind the answer.
    pub anomalies: usize,
    /// 0-1.
    pub confidence: f64,
    /// The investigation the message started, if any.
    pub investigation_id: Option<ID>,
    /// The intent the router recognised (null when the agent was named).
    pub intent: Option<String>,
    /// The stored user message's id.
    pub user_message_id: String,
}

impl From<ChatReply> for ChatMessage {
    fn from(r: ChatReply) -> Self {
        ChatMessage {
            id: ID(r.message_id),
            session_id: r.session_id,
            role: "assistant".into(),
            content: r.content,
            agent: r.agent,
            status: r.status,
            anomalies: r.anomalies,
            confidence: r.confidence,
            investigation_id: r.investigation_id.map(ID),
            intent: r.routing.map(|r| r.intent),
            user_message_id: r.user_message_id,
        }
    }
}

/// An agent's state and statistics since the process started.
#[derive(SimpleObject)]
pub struct AgentStats {
    /// The agent's id (`zumbi`, `anita`, ...).
    pub agent_name: String,
    /// Display name.
    pub display_name: String,
    /// What it does.
    pub role: String,
    /// Whether its analysis exists.
    pub implemented: bool,
    /// Whether its actor is running now.
    pub loaded: bool,
    /// Analyses running on it now.
    pub in_flight: usize,
    /// Its measured memory, MiB (when loaded).
    pub memory_mb: Option<f64>,
    /// Analyses asked of it.
    pub total_tasks: u64,
    /// Analyses that did not fail (cancelled ones included).
    pub successful_tasks: u64,
    /// Analyses that failed.
    pub failed_tasks: u64,
    /// Mean wall time of its finished analyses, milliseconds.
    pub avg_response_time_ms: f64,
    /// When it last finished an analysis.
    pub last_active: Option<DateTime<Utc>>,
}

impl From<AgentState> for AgentStats {
    fn from(s: AgentState) -> Self {
        AgentStats {
            agent_name: s.agent,
            display_name: s.name,
            role: s.role,
            implemented: s.implemented,
            loaded: s.loaded,
            in_flight: s.in_flight,
            memory_mb: s.memory_mb,
            total_tasks: s.stats.calls,
            successful_tasks: s.stats.calls.saturating_sub(s.stats.failures),
            failed_tasks: s.stats.failures,
            avg_response_time_ms: s.stats.average_latency_ms,
            last_active: s.stats.last_active,
        }
    }
}
