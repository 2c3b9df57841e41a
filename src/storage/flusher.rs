//! The one writer that owns durability: a dedicated thread that calls sled's blocking `flush`
//! and wakes every waiter whose writes that flush covered (group commit).
//!
//! sled 0.34's `flush_async` deadlocks when several calls run at once (spacejam/sled#1308,
//! fixed only on an unreleased branch): under eight or more concurrent acknowledgements every
//! sled I/O thread ended up parked inside it and the service stopped answering starts. So
//! `flush_async` is never called. A caller writes, takes a ticket (a number that only grows) and
//! waits until a flush that *started after* its ticket was taken has finished. Acknowledgements
//! that arrive while a flush runs all share the next one, so N concurrent writers cost two
//! fsyncs, not N, and the async threads never block on disk.

use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;

use tokio::sync::watch;

use super::StorageError;

/// What the flusher thread has finished.
#[derive(Debug, Clone, Default)]
struct Done {
    /// Every ticket up to this one is covered by a finished flush.
    covered: u64,
    /// The error of the latest flush, if it failed.
    error: Option<Arc<str>>,
    /// Flushes run so far (each may cover many tickets).
    flushes: u64,
}

/// Tickets handed out and the stop request, guarded by one mutex the thread waits on.
#[derive(Debug, Default)]
struct Requests {
    issued: u64,
    stopping: bool,
}

#[derive(Debug, Default)]
struct Shared {
    requests: Mutex<Requests>,
    wake: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Requests> {
        // The guarded data is two plain fields; a panic elsewhere cannot leave them torn.
        self.requests.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Handle to the flusher thread; dropping the last handle flushes once more and joins it.
#[derive(Debug)]
pub(super) struct Flusher {
    shared: Arc<Shared>,
    done: watch::Receiver<Done>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl Flusher {
    /// Starts the thread for `db`.
    pub(super) fn start(db: sled::Db) -> Result<Flusher, StorageError> {
        let shared = Arc::new(Shared::default());
        let (tx, done) = watch::channel(Done::default());
        let thread = std::thread::Builder::new()
            .name("vigia-flusher".into())
            .spawn({
                let shared = shared.clone();
                move || run(&db, &shared, &tx)
            })
            .map_err(|e| StorageError::Sled(sled::Error::Io(e)))?;
        Ok(Flusher { shared, done, thread: Mutex::new(Some(thread)) })
    }

    /// Waits until every write made before this call is on disk.
    pub(super) async fn flush(&self) -> Result<(), StorageError> {
        let ticket = {
            let mut r = self.shared.lock();
            if r.stopping {
                return Err(StorageError::Closed);
            }
            r.issued += 1;
            r.issued
        };
        self.shared.wake.notify_one();
        let mut done = self.done.clone();
        let state = done.wait_for(|d| d.covered >= ticket).await.map_err(|_| StorageError::Closed)?;
        match &state.error {
            None => Ok(()),
            Some(e) => Err(StorageError::Durability(e.to_string())),
        }
    }

    /// The same wait for synchronous callers outside the async runtime (start-up, CLI).
    pub(super) fn flush_blocking(&self) -> Result<(), StorageError> {
        futures::executor::block_on(self.flush())
    }

    /// How many flushes have run (each covering every acknowledgement waiting on it).
    pub(super) fn flushes(&self) -> u64 {
        self.done.borrow().flushes
    }
}

impl Drop for Flusher {
    fn drop(&mut self) {
        self.shared.lock().stopping = true;
        self.shared.wake.notify_one();
        let thread = self.thread.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some(t) = thread {
            let _ = t.join();
        }
    }
}

/// The thread: wait for tickets, flush once for all of them, publish, repeat; a last flush at
/// stop so nothing written before the store closed is left in memory.
fn run(db: &sled::Db, shared: &Shared, tx: &watch::Sender<Done>) {
    let mut covered = 0;
    let mut flushes = 0;
    loop {
        let (target, stopping) = {
            let mut r = shared.lock();
            while r.issued == covered && !r.stopping {
                r = shared.wake.wait(r).unwrap_or_else(PoisonError::into_inner);
            }
            (r.issued, r.stopping)
        };
        let result = db.flush();
        flushes += 1;
        covered = target;
        if let Err(e) = &result {
            tracing::error!(error = %e, "flushing the store failed");
        }
        tx.send_replace(Done { covered, error: result.err().map(|e| e.to_string().into()), flushes });
        if stopping && shared.lock().issued == covered {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn db() -> sled::Db {
        sled::Config::new().temporary(true).open().unwrap()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn hundreds_of_concurrent_flushes_all_return_and_share_fsyncs() {
        let db = db();
        let flusher = Arc::new(Flusher::start(db.clone()).unwrap());
        let tasks: Vec<_> = (0..500u32)
            .map(|i| {
                let (db, f) = (db.clone(), flusher.clone());
                tokio::spawn(async move {
                    db.insert(i.to_be_bytes(), vec![1; 64]).unwrap();
                    f.flush().await
                })
            })
            .collect();
        for t in tasks {
            tokio::time::timeout(std::time::Duration::from_secs(30), t).await.unwrap().unwrap().unwrap();
        }
        assert!(flusher.flushes() < 500, "concurrent acknowledgements share flushes");
    }

    #[test]
    fn a_blocking_flush_returns_and_dropping_the_flusher_joins_its_thread() {
        let db = db();
        let flusher = Flusher::start(db.clone()).unwrap();
        db.insert(b"k", b"v").unwrap();
        flusher.flush_blocking().unwrap();
        assert_eq!(flusher.flushes(), 1);
        drop(flusher);
    }
}
