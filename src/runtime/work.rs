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

use tokio::runtime::{Builder, Handle, Runtime};
use tokio::task::JoinHandle;

/// Blocking threads (analyses, demo generation) per core.
const BLOCKING_PER_CORE: usize = 4;

static POOL: OnceLock<Option<Runtime>> = OnceLock::new();
static BLOCKING: OnceLock<Option<Runtime>> = OnceLock::new();

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
            .on_thread_start(crate::priority::lower_this_thread)
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
    use crate::priority::nice_of_this_thread;

    #[tokio::test]
    async fn analyses_run_below_the_request_threads_priority_and_turns_at_it() {
        let here = nice_of_this_thread().unwrap_or(0);
        let there = super::spawn_blocking(nice_of_this_thread).await.unwrap().unwrap_or(0);
        let task = super::spawn(async { nice_of_this_thread() }).await.unwrap().unwrap_or(0);
        assert!(there > here, "blocking work at nice {there}, caller at {here}");
        assert_eq!(task, here, "async work at the process's priority");
    }
}
