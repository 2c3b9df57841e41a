//! Abaporu, the orchestrator's planner: which agents answer a routed message and in what
//! order. Agents with no dependency run in parallel; the writers (tiradentes, drummond) come
//! after the analyses they summarise. Plans name only agents of the roster.

use super::{Intent, Plan, PlanStep, Route};
use crate::agents::roster::AgentId;

fn step(agent: AgentId, purpose: &str, depends_on: Vec<usize>) -> PlanStep {
    PlanStep { agent, purpose: purpose.to_string(), depends_on }
}

/// The detection steps of an investigation: the anomaly investigator, the fraud hunter and the
/// legal analyst in parallel, plus the corruption-risk detector when a company is named.
fn investigation_steps(route: &Route) -> Vec<PlanStep> {
    let mut steps = vec![
        step(AgentId::Zumbi, "price, duplicate, end-of-year and concentration anomalies", vec![]),
        step(AgentId::Oxossi, "bid rigging, splitting and phantom suppliers", vec![]),
        step(AgentId::Bonifacio, "procurement-law compliance", vec![]),
    ];
    if route.entities.cnpj.is_some() || route.entities.supplier.is_some() {
        steps.push(step(AgentId::Obaluaie, "corruption risk around the named company", vec![]));
    }
    steps
}

/// The plan for a route. An explicitly named agent answers alone, with drummond phrasing its
/// output unless the agent is drummond.
pub fn plan(route: &Route) -> Plan {
    if route.explicit {
        let mut steps = vec![step(route.agent, "the agent the user asked for", vec![])];
        if route.agent != AgentId::Drummond {
            steps.push(step(AgentId::Drummond, "phrase the agent's results for the user", vec![0]));
        }
        return Plan { steps };
    }
    let mut steps = match route.intent {
        Intent::Investigation => investigation_steps(route),
        Intent::Analysis => match route.agent {
            AgentId::Lampiao => vec![step(AgentId::Lampiao, "regional spending per capita", vec![])],
            AgentId::Dandara => vec![
                step(AgentId::Lampiao, "regional spending per capita", vec![]),
                step(AgentId::Dandara, "equity of spending across regions", vec![]),
            ],
            AgentId::OscarNiemeyer => vec![step(AgentId::OscarNiemeyer, "chart- and graph-ready aggregations", vec![])],
            _ => vec![
                step(AgentId::Anita, "spending trends and supplier concentration", vec![]),
                step(AgentId::Ceuci, "monthly forecasts and deviations", vec![]),
            ],
        },
        Intent::Report => {
            let mut s = investigation_steps(route);
            let all: Vec<usize> = (0..s.len()).collect();
            s.push(step(AgentId::Tiradentes, "write the report of the findings", all));
            s
        }
        Intent::Status | Intent::MemoryRecall => {
            vec![step(AgentId::Nana, "recall the session's entities, investigations and last answer", vec![])]
        }
        Intent::Greeting | Intent::Help | Intent::About | Intent::OutOfScope => Vec::new(),
    };
    let before: Vec<usize> = (0..steps.len()).collect();
    steps.push(step(AgentId::Drummond, "phrase the answer from the structured results", before));
    Plan { steps }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversation::{Entities, Language};

    fn route(intent: Intent) -> Route {
        Route {
            intent,
            confidence: 0.9,
            language: Language::Pt,
            entities: Entities::default(),
            agent: crate::conversation::senna::agent_for(intent),
            reason: String::new(),
            follow_up: false,
            explicit: false,
            unsure: false,
            asks: None,
        }
    }

    #[test]
    fn an_investigation_runs_three_detection_agents_in_parallel_then_drummond() {
        let p = plan(&route(Intent::Investigation));
        let agents: Vec<AgentId> = p.steps.iter().map(|s| s.agent).collect();
        assert_eq!(agents, vec![AgentId::Zumbi, AgentId::Oxossi, AgentId::Bonifacio, AgentId::Drummond]);
        assert!(p.steps[..3].iter().all(|s| s.depends_on.is_empty()));
        assert_eq!(p.steps[3].depends_on, vec![0, 1, 2]);
    }

    #[test]
    fn a_report_is_written_by_tiradentes_after_the_detection_and_a_named_company_adds_obaluaie() {
        let mut r = route(Intent::Report);
        r.entities.supplier = Some("Alfa".into());
        let p = plan(&r);
        let agents: Vec<AgentId> = p.steps.iter().map(|s| s.agent).collect();
        assert_eq!(agents[3..], [AgentId::Obaluaie, AgentId::Tiradentes, AgentId::Drummond]);
        assert_eq!(p.steps[4].depends_on, vec![0, 1, 2, 3]);
    }

    #[test]
    fn an_explicit_agent_answers_alone_with_drummond_phrasing_and_greetings_need_only_drummond() {
        let mut r = route(Intent::Investigation);
        (r.explicit, r.agent) = (true, AgentId::Anita);
        let agents: Vec<AgentId> = plan(&r).steps.iter().map(|s| s.agent).collect();
        assert_eq!(agents, vec![AgentId::Anita, AgentId::Drummond]);
        let greeting = plan(&route(Intent::Greeting));
        assert_eq!(greeting.steps.len(), 1);
        assert_eq!(greeting.steps[0].agent, AgentId::Drummond);
    }

    #[test]
    fn every_dependency_points_to_an_earlier_step() {
        for intent in Intent::ALL {
            for s in plan(&route(intent)).steps.iter().enumerate() {
                assert!(s.1.depends_on.iter().all(|d| *d < s.0), "{intent:?}");
            }
        }
    }
}
