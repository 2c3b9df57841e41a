//! The analysis step of a run: every agent of the plan in parallel through the pool (or from
//! the analysis cache), their progress, findings and insights streamed as they finish, and
//! what they brought merged in plan order.

use std::sync::Arc;

use futures::stream::FuturesUnordered;
use futures::{FutureExt, StreamExt};
use rustc_hash::FxHashSet;
use tokio::sync::mpsc;
use vigia_agents::{AgentId, AgentOutput, Anomaly, DetectionParams, FindingsCache};

use super::analysis_cache::{Fingerprint, RunKey};
use super::dataset_facts::DatasetFacts;
use super::direct::run_job;
use super::driver::{DriverDeps, RunControl};
use super::emitter::Emitter;
use super::host::Job;
use crate::domain::{EventKind, Phase};
use vigia_agents::Dataset;

/// Anomalies, outputs in plan order (their anomalies taken into the first), failed agents
/// with why, agents answered from the cache.
pub(super) type Analysis = (Vec<Arc<Anomaly>>, Vec<(AgentId, AgentOutput)>, Vec<(String, String)>, Vec<String>);

/// Runs every agent in parallel, streaming progress, anomalies and insights as agents finish.
pub(super) async fn analyse(
    deps: &DriverDeps,
    em: &mut Emitter,
    control: &RunControl,
    (dataset, data, facts): (&Arc<Dataset>, Option<Fingerprint>, &DatasetFacts),
    params: &DetectionParams,
    agents: &[AgentId],
    question: &str,
) -> Analysis {
    let (progress_tx, mut progress_rx) = mpsc::unbounded_channel::<(usize, f32)>();
    let mut pending = FuturesUnordered::new();
    let mut cached = Vec::new();
    let mut failed: Vec<(String, String)> = Vec::new();
    // One run of each detector serves every agent that uses it.
    let findings = Arc::new(FindingsCache::new());
    let question: Arc<str> = Arc::from(question);
    let run_key = data.map(|d| Arc::new(RunKey::of(d, params)));
    for (idx, agent) in agents.iter().copied().enumerate() {
        if let Some(out) = run_key.as_ref().and_then(|k| deps.analyses.get(k, agent)) {
            cached.push(agent.as_str().to_string());
            pending.push(async move { (agent, Ok((*out).clone())) }.boxed());
            continue;
        }
        let tx = progress_tx.clone();
        let job = Job {
            dataset: dataset.clone(),
            params: params.clone(),
            cancel: control.new_job(),
            progress: Arc::new(move |f| {
                let _ = tx.send((idx, f));
            }),
            findings: findings.clone(),
            question: Some(question.clone()),
            record: None,
        };
        let (pool, calls, timeout) = (deps.pool.clone(), deps.calls.clone(), deps.analysis_timeout);
        // Each agent leases, analyses and returns its lease in its own future: under a cap
        // smaller than the plan, an agent waits for another's lease without holding one.
        let (analyses, run_key) = (deps.analyses.clone(), run_key.clone());
        pending.push(
            async move {
                let out = run_job(&pool, &calls, agent, job, timeout).await;
                if let (Ok(out), Some(k)) = (&out, run_key) {
                    analyses.put(&k, agent, out);
                }
                (agent, out)
            }
            .boxed(),
        );
    }
    drop(progress_tx);
    let mut fractions = vec![0f32; agents.len()];
    let mut last_pct = Phase::AgentAnalysis.start_percentage();
    // Ids hashed with Fx, as the agents hash the records they come from.
    let mut emitted: FxHashSet<ById> = FxHashSet::default();
    let mut anomalies = Vec::new();
    let mut outputs = Vec::new();
    while !pending.is_empty() {
        // An agent already finished is taken without waiting; queued progress goes out before
        // the run waits.
        let done = match pending.next().now_or_never() {
            Some(Some(done)) => done,
            _ => {
                em.emit_queued().await;
                tokio::select! {
                    Some((idx, f)) = progress_rx.recv() => {
                        fractions[idx] = f.clamp(0.0, 1.0);
                        let pct = agent_pct(&fractions);
                        if pct - last_pct >= 5.0 {
                            last_pct = pct;
                            em.progress(Phase::AgentAnalysis, pct, pending.len()).await;
                        }
                        continue;
                    }
                    Some(done) = pending.next() => done,
                }
            }
        };
        // What the agents that finished by now brought is persisted in one write:
        // their new anomalies, their insights and the progress each completes (agents
        // answered from the analysis cache all finish at once).
        let mut ready = vec![done];
        while let Some(Some(more)) = pending.next().now_or_never() {
            ready.push(more);
        }
        let mut events = Vec::new();
        let mut running = pending.len() + ready.len();
        for (agent, r) in ready {
            running -= 1;
            match r {
                Ok(mut out) => {
                    // The anomalies (shared, not copied) go into the results; the
                    // output keeps its insights and recommendations.
                    for a in std::mem::take(&mut out.anomalies) {
                        if emitted.insert(ById(a.clone())) {
                            events.extend(em.anomaly_event(&a.id, facts.found(dataset, &a)));
                            anomalies.push(a);
                        }
                    }
                    events.extend(out.insights.iter().map(|i| EventKind::Insight {
                        agent: i.agent.clone(),
                        message: i.insight.clone(),
                        confidence: i.confidence,
                    }));
                    outputs.push((agent, out));
                }
                Err(e) => failed.push((agent.as_str().into(), e.to_string())),
            }
            if let Some(i) = agents.iter().position(|a| *a == agent) {
                fractions[i] = 1.0;
            }
            let pct = agent_pct(&fractions);
            last_pct = pct;
            events.push(em.progress_event(Phase::AgentAnalysis, pct, running));
        }
        if pending.is_empty() {
            // The last agents' output: the run does not wait again before its end, so it goes
            // out with the terminal event, in the final write.
            em.queue(events);
        } else {
            em.emit_all(events).await;
        }
    }
    // Completion order is a race; plan order keeps results identical for identical input.
    outputs.sort_by_key(|(a, _)| agents.iter().position(|x| x == a));
    failed.sort();
    (anomalies, outputs, failed, cached)
}

/// A finding in a set of findings, known by its id (shared, not copied).
struct ById(Arc<Anomaly>);

impl PartialEq for ById {
    fn eq(&self, other: &Self) -> bool {
        self.0.id == other.0.id
    }
}

impl Eq for ById {}

impl std::hash::Hash for ById {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.id.hash(state);
    }
}

fn agent_pct(fractions: &[f32]) -> f64 {
    let mean = if fractions.is_empty() { 1.0 } else { fractions.iter().sum::<f32>() as f64 / fractions.len() as f64 };
    let (lo, hi) = (Phase::AgentAnalysis.start_percentage(), Phase::PatternDetection.start_percentage());
    lo + (hi - lo) * mean
}
