//! The password hashers: Argon2 runs on as many dedicated threads as there are cores, never on
//! the blocking pool. Each hash takes about 19 MiB for a moment; on the blocking pool 64
//! concurrent failed logins ran on 64 threads, each with its own allocator arena keeping the
//! freed 19 MiB, and RSS reached 14.5 GB after 3,000 failed logins with 33 MB of live heap.
//! A fixed set of threads bounds both the peak (cores x 19 MiB) and the arenas that hold it;
//! the work is CPU-bound, so more threads never made it faster.

use std::panic::AssertUnwindSafe;
use std::sync::mpsc::{Sender, channel};
use std::sync::{Arc, Mutex, OnceLock};

use crate::error::{Error, Result};

type Job = Box<dyn FnOnce() + Send>;

/// The queue of the hasher threads, started on first use.
fn queue() -> &'static Sender<Job> {
    static QUEUE: OnceLock<Sender<Job>> = OnceLock::new();
    QUEUE.get_or_init(|| {
        let (tx, rx) = channel::<Job>();
        let rx = Arc::new(Mutex::new(rx));
        let threads = std::thread::available_parallelism().map_or(2, std::num::NonZero::get);
        for k in 0..threads {
            let rx = rx.clone();
            let spawned = std::thread::Builder::new().name(format!("argon2-{k}")).spawn(move || {
                loop {
                    let next = rx.lock().unwrap_or_else(|p| p.into_inner()).recv();
                    let Ok(job) = next else { return };
                    // A panicking job loses its answer (the caller sees an internal error), not
                    // the thread.
                    let _ = std::panic::catch_unwind(AssertUnwindSafe(job));
                }
            });
            if let Err(e) = spawned {
                tracing::error!(error = %e, "could not start a password hasher thread");
            }
        }
        tx
    })
}

/// Runs CPU-heavy password work (Argon2) on the hasher threads, so request threads stay free.
pub(super) async fn blocking<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Result<T> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let job: Job = Box::new(move || {
        let _ = tx.send(f());
    });
    queue().send(job).map_err(|_| Error::internal("the password hasher threads stopped"))?;
    rx.await.map_err(Error::internal)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn password_work_runs_on_a_fixed_set_of_threads_however_many_ask_at_once() {
        let names = futures::future::join_all((0..64).map(|_| {
            blocking(|| {
                std::thread::sleep(std::time::Duration::from_millis(2));
                std::thread::current().name().unwrap_or_default().to_string()
            })
        }))
        .await;
        let mut names: Vec<String> = names.into_iter().map(Result::unwrap).collect();
        names.sort();
        names.dedup();
        let cores = std::thread::available_parallelism().map_or(2, std::num::NonZero::get);
        assert!(names.len() <= cores && names.iter().all(|n| n.starts_with("argon2-")), "{names:?}");
    }
}
