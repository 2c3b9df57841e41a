//! Executing a multi-agent plan (abaporu's): the data is fetched once, the steps run as direct
//! agent calls in dependency order (the steps of one level in parallel, sharing one findings
//! cache so each detector runs once), and each step's result is yielded as it finishes.
//! `/agents/{name}/orchestrate`, `/multi-agent/query` and chat's plan mode use it.

use std::sync::Arc;

use futures::Stream;
use futures::stream::{FuturesUnordered, StreamExt};
use serde::Serialize;
use vigia_agents::conversation::Plan;
use vigia_agents::{Dataset, DetectionParams, FindingsCache};

use super::AgentService;
use super::agents::AgentAnswer;
use crate::domain::investigation::Provenance;

/// The result of one step of a plan.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct StepResult {
    /// Its index in the plan.
    pub step: usize,
    /// The agent's id.
    pub agent: String,
    /// Why the plan has it.
    pub purpose: String,
    /// `completed`, `failed` or `skipped` (a step it depends on failed).
    pub status: &'static str,
    /// The agent's answer, when it completed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<AgentAnswer>,
    /// Why it failed or was skipped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Runs `plan` over `dataset`, yielding each step's result as it finishes.
pub fn execute(
    agents: AgentService,
    plan: Plan,
    dataset: Arc<Dataset>,
    params: DetectionParams,
    question: Option<String>,
    provenance: Provenance,
) -> impl Stream<Item = StepResult> + Send {
    async_stream::stream! {
        let findings = Arc::new(FindingsCache::new());
        let n = plan.steps.len();
        let mut state: Vec<Option<bool>> = vec![None; n];
        loop {
            // Steps whose dependencies all ended; a failed dependency skips the step.
            let ready: Vec<usize> = (0..n)
                .filter(|&i| state[i].is_none())
                .filter(|&i| plan.steps[i].depends_on.iter().all(|&d| d >= n || state[d].is_some()))
                .collect();
            if ready.is_empty() {
                break;
            }
            let mut running = FuturesUnordered::new();
            for i in ready {
                let step = &plan.steps[i];
                if let Some(&d) = step.depends_on.iter().find(|&&d| d < n && state[d] == Some(false)) {
                    state[i] = Some(false);
                    yield StepResult {
                        step: i,
                        agent: step.agent.as_str().into(),
                        purpose: step.purpose.clone(),
                        status: "skipped",
                        result: None,
                        error: Some(format!("step {d} ({}) failed", plan.steps[d].agent)),
                    };
                    continue;
                }
                let (agents, dataset, params, question, provenance, findings) =
                    (agents.clone(), dataset.clone(), params.clone(), question.clone(), provenance.clone(), findings.clone());
                let agent = step.agent;
                running.push(async move {
                    (i, agents.run(agent, dataset, params, question, &provenance, Some(findings)).await)
                });
            }
            while let Some((i, r)) = running.next().await {
                let step = &plan.steps[i];
                state[i] = Some(r.is_ok());
                let (status, result, error) = match r {
                    Ok(answer) => ("completed", Some(answer), None),
                    Err(e) => ("failed", None, Some(e.message)),
                };
                yield StepResult { step: i, agent: step.agent.as_str().into(), purpose: step.purpose.clone(), status, result, error };
            }
        }
    }
}

/// The answer of `/agents/{name}/orchestrate` and `/multi-agent/query`.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct Orchestrated {
    /// `completed` (every step completed) or `partial`.
    pub status: &'static str,
    /// The agent the plan was built around.
    pub lead: String,
    /// The question.
    pub query: String,
    /// How senna read it.
    pub route: vigia_agents::conversation::Route,
    /// abaporu's plan.
    pub plan: Plan,
    /// Each step's part, in the order they finished.
    pub steps: Vec<StepResult>,
    /// Distinct anomalies over every step.
    pub anomalies_found: usize,
    /// drummond's answer from the merged results.
    pub answer: String,
    /// Where the data came from.
    pub source: String,
    /// Synthetic data.
    pub demo_mode: bool,
    /// Wall time, milliseconds.
    pub execution_time_ms: u64,
}

impl AgentService {
    /// Plans around `lead` (abaporu: a plan of its own choosing) for the question of `req` and
    /// runs the plan over the data `req` names.
    pub async fn orchestrate(
        &self,
        lead_name: &str,
        req: &super::agent_request::AgentRequest,
    ) -> crate::error::Result<Orchestrated> {
        let lead = super::admin::resolve_agent(lead_name)?;
        let started = std::time::Instant::now();
        let query = req.query.clone().unwrap_or_else(|| req.describe());
        let mut route = self.senna.route(&query, None);
        if lead != vigia_agents::AgentId::Abaporu {
            route.agent = lead;
        }
        let plan = vigia_agents::conversation::abaporu::plan(&route);
        let (dataset, provenance, params) = self.data(req).await?;
        let steps: Vec<StepResult> =
            execute(self.clone(), plan.clone(), dataset.clone(), params, Some(query.clone()), provenance.clone())
                .collect()
                .await;
        let mut anomalies: Vec<Arc<vigia_agents::Anomaly>> =
            steps.iter().filter_map(|s| s.result.as_ref()).flat_map(|r| r.anomalies.iter().cloned()).collect();
        vigia_agents::engine::sort(&mut anomalies);
        anomalies.dedup_by(|a, b| a.id == b.id);
        let facts = vigia_agents::conversation::AnswerFacts::from_findings(
            route.intent,
            route.entities.clone(),
            provenance.demo_mode,
            None,
            &dataset,
            &anomalies,
        );
        let answer = vigia_agents::conversation::drummond::closing(&facts, route.language).join("\n\n");
        Ok(Orchestrated {
            status: if steps.iter().all(|s| s.status == "completed") { "completed" } else { "partial" },
            lead: lead.as_str().into(),
            query,
            route,
            plan,
            anomalies_found: anomalies.len(),
            steps,
            answer,
            source: provenance.source.clone(),
            demo_mode: provenance.demo_mode,
            execution_time_ms: started.elapsed().as_millis() as u64,
        })
    }
}
