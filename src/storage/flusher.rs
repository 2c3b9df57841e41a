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
//!
//! Group commit across busy moments: work that will end with a flush (a chat turn) counts
//! itself with [`Flusher::writer`] while it runs. While more of those units are still working
//! than [`BUSY_PER_CORE`] per core, the cores have their work to do and the thread holds a
//! flush back, at most [`GROUP_WINDOW`], for more of them to reach it (PostgreSQL's
//! `commit_delay` with `commit_siblings`, the siblings counted per core): each flush saved is
//! a log write, a `sync_file_range` and the wake of sled's I/O threads, and the wait costs no
//! throughput while the cores are busy. With few units working (a lone chat, a handful of
//! streams on a 2-core machine) a flush starts at once: there the wait would leave the cores
//! idle and only add latency.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use tokio::sync::watch;

use super::StorageError;

/// Units of work still working per core from which a flush is held back for them.
pub const BUSY_PER_CORE: u64 = 2;

/// The longest a flush is held back for more units of work to reach it.
pub const GROUP_WINDOW: Duration = Duration::from_millis(5);

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

/// Tickets handed out, how far the thread has taken them, what it waits for, and the stop
/// request, guarded by one mutex the thread waits on.
#[derive(Debug, Default)]
struct Requests {
    issued: u64,
    /// Every ticket up to this one is covered by a flush that ran or is running.
    taken: u64,
    /// The thread waits for a first ticket.
    idle: bool,
    /// The thread holds a flush back for more tickets ([`gathers`]).
    gathering: bool,
    stopping: bool,
}

impl Requests {
    /// Whether a flush the thread holds back is no longer worth holding (a ticket or a writer
    /// that ends left too few writers working). A thread that is flushing looks at the tickets
    /// when it is done; one waiting for a first ticket is woken by a ticket alone.
    fn releases(&self, writers: u64, busy: u64) -> bool {
        self.gathering && !gathers(self.issued - self.taken, writers, busy)
    }
}

#[derive(Debug, Default)]
struct Shared {
    requests: Mutex<Requests>,
    wake: Condvar,
    /// Units of work running that will each end with a flush ([`Flusher::writer`]).
    writers: AtomicU64,
    /// Units still working (not waiting for a flush) from which a flush is held back.
    busy: u64,
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
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get() as u64);
        Flusher::start_holding_for(db, BUSY_PER_CORE * cores)
    }

    /// [`Flusher::start`] holding flushes back while at least `busy` writers are working.
    fn start_holding_for(db: sled::Db, busy: u64) -> Result<Flusher, StorageError> {
        let shared = Arc::new(Shared { busy: busy.max(1), ..Shared::default() });
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
            if r.idle || r.releases(self.shared.writers.load(Ordering::Relaxed), self.shared.busy) {
                self.shared.wake.notify_one();
            }
            r.issued
        };
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

    /// Counts a unit of work that will end with a flush (a chat turn) while the guard lives, so
    /// that flushes are gathered while many run at once (see the module's documentation).
    pub(super) fn writer(&self) -> Writer {
        self.shared.writers.fetch_add(1, Ordering::Relaxed);
        Writer { shared: self.shared.clone() }
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

/// A running unit of work that will end with a flush; counted until dropped.
#[derive(Debug)]
pub struct Writer {
    shared: Arc<Shared>,
}

impl Drop for Writer {
    fn drop(&mut self) {
        let writers = self.shared.writers.fetch_sub(1, Ordering::Relaxed) - 1;
        // A flush held back for this unit may no longer be worth holding (an idle thread has
        // nothing to flush: waking it would only put it back to sleep).
        if self.shared.lock().releases(writers, self.shared.busy) {
            self.shared.wake.notify_one();
        }
    }
}

/// Whether a flush that `waiting` acknowledgements wait for is held back while `writers` units
/// of work run: only while at least `busy` of them are still working.
fn gathers(waiting: u64, writers: u64, busy: u64) -> bool {
    writers.saturating_sub(waiting) >= busy
}

/// The thread: wait for tickets, gather more while many writers run (at most
/// [`GROUP_WINDOW`]), flush once for all of them, publish, repeat; a last flush at stop so
/// nothing written before the store closed is left in memory.
fn run(db: &sled::Db, shared: &Shared, tx: &watch::Sender<Done>) {
    let mut flushes = 0;
    loop {
        let (target, stopping) = {
            let mut r = shared.lock();
            while r.issued == r.taken && !r.stopping {
                r.idle = true;
                r = shared.wake.wait(r).unwrap_or_else(PoisonError::into_inner);
            }
            r.idle = false;
            let until = Instant::now() + GROUP_WINDOW;
            while !r.stopping && gathers(r.issued - r.taken, shared.writers.load(Ordering::Relaxed), shared.busy) {
                let Some(left) = until.checked_duration_since(Instant::now()).filter(|d| !d.is_zero()) else {
                    break;
                };
                r.gathering = true;
                r = shared.wake.wait_timeout(r, left).unwrap_or_else(PoisonError::into_inner).0;
            }
            r.gathering = false;
            r.taken = r.issued;
            (r.issued, r.stopping)
        };
        let result = db.flush();
        flushes += 1;
        if let Err(e) = &result {
            tracing::error!(error = %e, "flushing the store failed");
        }
        tx.send_replace(Done { covered: target, error: result.err().map(|e| e.to_string().into()), flushes });
        if stopping && shared.lock().issued == target {
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
    fn flushes_are_held_back_only_while_enough_writers_are_still_working() {
        let busy = 4;
        assert!(!gathers(1, 1, busy), "a lone writer is flushed at once");
        assert!(!gathers(1, busy, busy), "too few others still working to wait for");
        assert!(gathers(1, busy + 1, busy), "enough still working: gather");
        assert!(gathers(10, 100, busy));
        assert!(!gathers(97, 100, busy), "nearly every writer waits: the cores would idle");
        assert!(!gathers(5, 2, busy), "acknowledgements from outside the writers are not held");
    }

    #[test]
    fn writers_that_flush_one_after_another_share_flushes_and_idle_ones_hold_none_for_ever() {
        let db = db();
        let busy = 4;
        let flusher = Arc::new(Flusher::start_holding_for(db.clone(), busy).unwrap());
        let writers = 16u32;
        let threads: Vec<_> = (0..writers)
            .map(|i| {
                let (db, f) = (db.clone(), flusher.clone());
                let writer = f.writer();
                std::thread::spawn(move || {
                    // One after another within the window, as turns finish on a busy machine:
                    // each would have had a flush of its own.
                    std::thread::sleep(Duration::from_micros(250 * u64::from(i)));
                    db.insert(i.to_be_bytes(), vec![1; 64]).unwrap();
                    let flushed = f.flush_blocking();
                    drop(writer);
                    flushed
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap().unwrap();
        }
        let flushes = flusher.flushes();
        assert!(flushes <= u64::from(writers) / 2, "{flushes} flushes for {writers} writers");
        // Writers that run but never flush hold a flush back for the window at most.
        let idle: Vec<Writer> = (0..busy * 2).map(|_| flusher.writer()).collect();
        db.insert(b"late", b"v").unwrap();
        flusher.flush_blocking().unwrap();
        assert_eq!(flusher.flushes(), flushes + 1);
        drop(idle);
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
