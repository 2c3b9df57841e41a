//! Example operations for `/graphql/examples`, each ready to send as listed: the operations
//! that take an investigation id get the caller's newest one (and `cancelInvestigation` the
//! newest still running), and are left out when the caller has none.

use serde::Serialize;
use serde_json::{Value, json};

use crate::domain::{InvestigationHead, Principal};
use crate::error::Result;
use crate::service::InvestigationService;
use crate::service::investigations::ListQuery;

/// One example operation.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Example {
    /// Short name.
    pub name: &'static str,
    /// `query`, `mutation` or `subscription`.
    pub kind: &'static str,
    /// What it shows.
    pub description: &'static str,
    /// Whether it needs credentials (mutations do).
    pub requires_auth: bool,
    /// The document.
    pub query: &'static str,
    /// Its variables.
    pub variables: Value,
}

const ME: &str = "query Me { me { id email role } }";
const AGENT_STATS: &str = "query AgentStats { agentStats { agentName displayName loaded totalTasks failedTasks avgResponseTimeMs lastActive } }";
const INVESTIGATIONS: &str = "query Recent($filters: [SearchFilter!], $pagination: PaginationInput) {
  investigations(filters: $filters, pagination: $pagination) { id query status progress anomaliesFound createdAt }
}";
const INVESTIGATION: &str = "query One($id: ID!) {
  investigation(id: $id) {
    id query status progress riskScore confidenceScore processingTimeMs createdAt completedAt
    findings { id type title severity confidence evidence }
    anomalies(limit: 5) { id type severity confidenceScore detectionMethod description }
    user { id email role }
  }
}";
const CONTRACTS: &str = "query Contracts($search: String, $minValue: Float) {
  contracts(search: $search, minValue: $minValue, pagination: {limit: 5, orderBy: \"value\"}) {
    id number object supplier orgao value signedOn
  }
}";
const CREATE: &str = "mutation Create($input: InvestigationInput!) {
  createInvestigation(input: $input) { id query status createdAt }
}";
const CHAT: &str = "mutation Chat($input: ChatInput!) {
  sendChatMessage(input: $input) { id sessionId agent content confidence }
}";
const CANCEL: &str = "mutation Cancel($id: ID!) { cancelInvestigation(id: $id) { id status } }";
const UPDATES: &str = "subscription Updates($id: ID!) {
  investigationUpdates(investigationId: $id) { id status progress anomaliesFound completedAt }
}";
const ACTIVITY: &str = "subscription Activity { agentActivity { kind reason ok durationMs agent { agentName loaded inFlight totalTasks } } }";

/// The examples for `viewer`.
pub fn list(investigations: &InvestigationService, viewer: Option<&Principal>) -> Result<Vec<Example>> {
    let newest = |running: bool| -> Result<Option<InvestigationHead>> {
        let q = ListQuery { sort: ("created_at".into(), true), page: 1, limit: 50, ..ListQuery::default() };
        let page = investigations.list(&q, viewer)?;
        Ok(page.items.into_iter().find(|h| !running || !h.status.is_terminal()))
    };
    let ex = |name, kind, description, requires_auth, query, variables| Example {
        name,
        kind,
        description,
        requires_auth,
        query,
        variables,
    };
    let mut out = vec![
        ex("me", "query", "The signed-in caller (null when anonymous).", false, ME, json!({})),
        ex("agentStats", "query", "Every agent's state and call statistics.", false, AGENT_STATS, json!({})),
        ex(
            "investigations",
            "query",
            "The caller's completed investigations, newest first.",
            false,
            INVESTIGATIONS,
            json!({"filters": [{"field": "status", "operator": "eq", "value": "completed"}],
                   "pagination": {"limit": 10, "orderBy": "createdAt", "orderDir": "desc"}}),
        ),
        ex(
            "contracts",
            "query",
            "The five largest contracts above R$ 10,000 whose text mentions 'servicos'.",
            false,
            CONTRACTS,
            json!({"search": "servicos", "minValue": 10000.0}),
        ),
        ex(
            "createInvestigation",
            "mutation",
            "Starts an investigation owned by the caller.",
            true,
            CREATE,
            json!({"input": {"query": "Contratos com preços acima da média", "priority": "normal",
                              "dataSources": ["portal_transparencia"]}}),
        ),
        ex(
            "sendChatMessage",
            "mutation",
            "One chat turn, answered when complete.",
            true,
            CHAT,
            json!({"input": {"message": "Olá, o que você pode fazer?"}}),
        ),
        ex("agentActivity", "subscription", "Agents as they load, run and unload.", false, ACTIVITY, json!({})),
    ];
    if let Some(h) = newest(false)? {
        let id = h.id.to_string();
        out.push(ex(
            "investigation",
            "query",
            "One investigation with its results.",
            false,
            INVESTIGATION,
            json!({"id": id}),
        ));
        out.push(ex(
            "investigationUpdates",
            "subscription",
            "An investigation as it progresses, until it ends.",
            false,
            UPDATES,
            json!({"id": id}),
        ));
    }
    if let Some(h) = newest(true)? {
        out.push(ex(
            "cancelInvestigation",
            "mutation",
            "Cancels the caller's newest running investigation.",
            true,
            CANCEL,
            json!({"id": h.id.to_string()}),
        ));
    }
    Ok(out)
}
