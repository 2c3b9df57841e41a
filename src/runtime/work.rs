//! The work pools, beside the runtime that serves requests. Chat turns, investigation drivers
//! and the orchestrator run on a second tokio runtime ([`spawn`]); accepting connections,
//! reading requests and writing the first event of a stream stay on the request runtime. Agent
//! analyses and other long computations run on blocking threads of their own ([`spawn_blocking`])
//! at a lower scheduling priority (nice +10): when the cores are saturated, the kernel hands
//! them to the request threads and the turns first, so a new stream gets its `start` event at
//! once instead of waiting behind other users' analyses, and the analyses still get every cycle
//! the rest leaves. With idle cores the priority changes nothing.
//!
//! The turns' threads keep the process's priority: their work is short steps between writes,
//! events and flushes, and lowered they were preempted at every wake of a request thread (chat
//! investigation answers ran at 1,065-1,303/s under `bench_chat -- --only investigation`
//! against 1,544-1,797/s at the process's priority, first event p50 0.3 against 0.5-1.0 ms).
//!
//! The pools are built on first use and live for the process (their threads end with it). If
//! one cannot be built, its work runs on the caller's runtime.

use std::future::Future;
use std::sync::OnceLock;

use thread_priority::{
    NormalThreadSchedulePolicy, ThreadPriority, ThreadPriorityValue, ThreadSchedulePolicy,
    set_thread_priority_and_policy, thread_native_id,
};
use tokio::runtime::{Builder, Handle, Runtime};
use tokio::task::JoinHandle;

/// How far below the process's own priority the work threads run: nice +10 is a scheduling
/// weight of about a tenth (110 against 1024), so work still progresses under any load while a
/// lock it holds is never starved for long.
const LOWER_BY: i32 = 10;

/// Blocking threads (analyses, demo generation) per core.
const BLOCKING_PER_CORE: usize = 4;

static POOL: OnceLock<Option<Runtime>> = OnceLock::new();
static BLOCKING: OnceLock<Option<Runtime>> = OnceLock::new();

/// The calling thread's nice value, from /proc (Linux; elsewhere taken as 0).
fn nice_of_this_thread() -> Option<i32> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    // After the command name (in parentheses, which may hold spaces), nice is the 17th field.
    stat.rsplit_once(')')?.1.split_whitespace().nth(16)?.parse().ok()
}

/// The value on thread-priority's 0-99 scale that gives at least `nice` (the crate maps it
/// linearly onto nice 19..-20 for normal threads).
fn scale_for(nice: i32) -> u8 {
    let niceness = |p: u8| (39.0 * (1.0 - f32::from(p) / 99.0)) as i32 - 20;
    (0..=99u8).rev().find(|p| niceness(*p) >= nice).unwrap_or(0)
}

/// Lowers the calling thread's priority by [`LOWER_BY`] from where the process runs; a failure
/// (no permission on some systems) leaves it as it was and is logged.
fn lower_priority() {
    let target = (nice_of_this_thread().unwrap_or(0) + LOWER_BY).min(19);
    let set = ThreadPriorityValue::try_from(scale_for(target)).map_err(|e| e.to_string()).and_then(|value| {
        set_thread_priority_and_policy(
            thread_native_id(),
            ThreadPriority::Crossplatform(value),
            ThreadSchedulePolicy::Normal(NormalThreadSchedulePolicy::Other),
        )
        .map_err(|e| format!("{e:?}"))
    });
    if let Err(e) = set {
        tracing::debug!(error = e, "work thread keeps its priority");
    }
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get())
}

/// The work runtime's handle, or the current runtime's when the pool could not be built.
fn handle() -> Handle {
    let pool = POOL.get_or_init(|| {
        Builder::new_multi_thread()
            .worker_threads(cores())
            .max_blocking_threads(cores() * BLOCKING_PER_CORE)
            .thread_name("vigia-work")
            .enable_all()
            .build()
            .map_err(|e| tracing::warn!(error = %e, "work pool not built; work shares the request threads"))
            .ok()
    });
    pool.as_ref().map_or_else(Handle::current, |rt| rt.handle().clone())
}

/// The handle whose blocking threads run [`spawn_blocking`]'s work, lowered: a runtime that is
/// never driven (it runs no async task), kept for its blocking pool.
fn blocking_handle() -> Handle {
    let pool = BLOCKING.get_or_init(|| {
        Builder::new_current_thread()
            // Analyses are CPU-bound and the engine runs one detector per core anyway: more
            // blocking threads than a few per core buy no time, and each thread that ever ran
            // an analysis keeps its own allocator heap (hundreds of threads held 3 GB of freed
            // memory in the soak with tokio's default of 512).
            .max_blocking_threads(cores() * BLOCKING_PER_CORE)
            .thread_name("vigia-analysis")
            .on_thread_start(lower_priority)
            .build()
            .map_err(|e| tracing::warn!(error = %e, "analysis threads not built; analyses share the caller's"))
            .ok()
    });
    pool.as_ref().map_or_else(Handle::current, |rt| rt.handle().clone())
}

/// Runs `task` on the work pool.
pub fn spawn<F>(task: F) -> JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    handle().spawn(task)
}

/// Runs blocking `f` on the analysis threads, below the request threads' priority.
pub fn spawn_blocking<F, R>(f: F) -> JoinHandle<R>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    blocking_handle().spawn_blocking(f)
}

#[cfg(test)]
mod tests {
    use super::nice_of_this_thread;

    #[test]
    fn the_scale_value_gives_at_least_the_nice_asked_for() {
        assert_eq!(super::scale_for(19), 0);
        for nice in -20..=19 {
            let p = super::scale_for(nice);
            let got = (39.0 * (1.0 - f32::from(p) / 99.0)) as i32 - 20;
            assert!(got >= nice && got <= nice + 1, "nice {nice}: scale {p} gives {got}");
        }
    }

    #[tokio::test]
    async fn analyses_run_below_the_request_threads_priority_and_turns_at_it() {
        let here = nice_of_this_thread().unwrap_or(0);
        let there = super::spawn_blocking(nice_of_this_thread).await.unwrap().unwrap_or(0);
        let task = super::spawn(async { nice_of_this_thread() }).await.unwrap().unwrap_or(0);
        assert!(there > here, "blocking work at nice {there}, caller at {here}");
        assert_eq!(task, here, "async work at the process's priority");
    }
}
