//! `Orchestrator`: owns the running investigations. `Start` spawns a driver task (see
//! `driver.rs`) and keeps its cancel control; `Cancel` stops it; `Drain` hands the running
//! tasks to the shutdown sequence. The mailbox never waits on analysis work.

use std::collections::HashMap;
use std::sync::Arc;

use ractor::{Actor, ActorProcessingErr, ActorRef, RpcReplyPort};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::driver::{self, DriverDeps, RunControl};
use super::emitter::RunKind;
use crate::domain::{Investigation, InvestigationId};

pub(crate) enum OrchMsg {
    Start(Box<Investigation>, RunKind, RpcReplyPort<bool>),
    /// Cancels; replies with a receiver that turns true when the run has stopped, or `None`
    /// when the investigation is not running here.
    Cancel(InvestigationId, RpcReplyPort<Option<watch::Receiver<bool>>>),
    Finished(InvestigationId),
    Running(RpcReplyPort<usize>),
    Drain(RpcReplyPort<Vec<Draining>>),
}

struct Run {
    control: Arc<RunControl>,
    task: JoinHandle<()>,
    done: watch::Receiver<bool>,
}

/// A run handed to the shutdown sequence.
pub(crate) struct Draining {
    pub id: InvestigationId,
    pub control: Arc<RunControl>,
    pub task: JoinHandle<()>,
}

pub(crate) struct OrchState {
    deps: DriverDeps,
    runs: HashMap<InvestigationId, Run>,
    draining: bool,
}

impl OrchState {
    /// Publishes how many runs are under way: the gauge and the count the handle reads.
    fn count_runs(&self) {
        metrics::gauge!("vigia_investigations_running").set(self.runs.len() as f64);
        self.deps.running.store(self.runs.len(), std::sync::atomic::Ordering::Relaxed);
    }
}

pub(crate) struct Orchestrator;

impl Actor for Orchestrator {
    type Msg = OrchMsg;
    type State = OrchState;
    type Arguments = DriverDeps;

    async fn pre_start(&self, _me: ActorRef<OrchMsg>, deps: DriverDeps) -> Result<OrchState, ActorProcessingErr> {
        Ok(OrchState { deps, runs: HashMap::new(), draining: false })
    }

    async fn handle(&self, me: ActorRef<OrchMsg>, msg: OrchMsg, st: &mut OrchState) -> Result<(), ActorProcessingErr> {
        match msg {
            OrchMsg::Start(inv, kind, reply) => {
                if st.draining || st.runs.contains_key(&inv.id) {
                    let _ = reply.send(false);
                    return Ok(());
                }
                let id = inv.id;
                let control = Arc::new(RunControl::default());
                let (done_tx, done) = watch::channel(false);
                let deps = st.deps.clone();
                let c = control.clone();
                // On the work runtime, beside the chat turns; its long computations go to the
                // lowered analysis threads (`work::spawn_blocking`).
                let task = super::work::spawn(async move {
                    driver::run(deps, *inv, kind, c).await;
                    let _ = done_tx.send(true);
                    let _ = me.cast(OrchMsg::Finished(id));
                });
                st.runs.insert(id, Run { control, task, done });
                st.count_runs();
                let _ = reply.send(true);
            }
            OrchMsg::Cancel(id, reply) => {
                let r = st.runs.get(&id).map(|run| {
                    run.control.cancel();
                    run.done.clone()
                });
                let _ = reply.send(r);
            }
            OrchMsg::Finished(id) => {
                st.runs.remove(&id);
                st.count_runs();
            }
            OrchMsg::Running(reply) => {
                let _ = reply.send(st.runs.len());
            }
            OrchMsg::Drain(reply) => {
                st.draining = true;
                let tasks =
                    st.runs.drain().map(|(id, run)| Draining { id, control: run.control, task: run.task }).collect();
                st.count_runs();
                let _ = reply.send(tasks);
            }
        }
        Ok(())
    }
}
