//! Memory measurement. A global allocator wrapping mimalloc keeps two counters: the
//! process-wide net heap bytes (in stripes, one per group of threads, summed when read), and a
//! per-thread net count. An agent's memory is the net bytes its construction allocated and kept
//! on the constructing thread ([`measure`]), so the figures admins see are allocations that
//! really happened, not struct sizes. The process total is also read from the kernel's resident
//! set size ([`rss_bytes`]).

use std::alloc::{GlobalAlloc, Layout};

use mimalloc::MiMalloc;

/// The allocator underneath the counters. mimalloc rather than glibc's malloc: the detection
/// engine spends about a sixth of its CPU time less at 1M contracts with it (glibc's chunk
/// consolidation and page faults were a tenth of the profile) and peaks about 100 MiB lower
/// (BENCHMARKS.md, "allocator").
static INNER: MiMalloc = MiMalloc;

/// mimalloc reads its options from the environment once, before `main` runs.
const EAGER_COMMIT: &str = "MIMALLOC_ARENA_EAGER_COMMIT";

/// Tunes mimalloc for a long-running server; called first thing in `main`. Arenas should be
/// committed as they are used, not eagerly: eager commit kept about 35-45 MB of resident memory
/// the idle service never used (idle RSS 64-79 MB against 33-42 MB with the option off, through
/// /health/detailed and bench_spine). mimalloc takes the option from the environment before `main`, and setting
/// it later (`mi_option_set`) does not change the arena already committed, so when the
/// operator has not chosen a value the process executes itself again once with the option set
/// (same pid, arguments and environment otherwise). If that fails it runs on as it is.
#[cfg(unix)]
pub fn tune_allocator() {
    use std::os::unix::process::CommandExt;
    if std::env::var_os(EAGER_COMMIT).is_some() {
        return;
    }
    let Ok(exe) = std::env::current_exe() else { return };
    let error = std::process::Command::new(exe).args(std::env::args_os().skip(1)).env(EAGER_COMMIT, "0").exec();
    eprintln!("vigia: running with the allocator's defaults ({error})");
}

/// Elsewhere the defaults stay.
#[cfg(not(unix))]
pub fn tune_allocator() {}
use std::cell::Cell;
use std::sync::atomic::{AtomicI64, AtomicUsize, Ordering};

/// The counting allocator (installed in `lib.rs`).
pub struct CountingAllocator;

/// Stripes of the process-wide count. One counter that every allocation and free of every thread
/// added to kept its cache line moving between the cores: the locked add on it was four fifths
/// of the allocator wrapper's time, about 2% of a chat investigation turn's server samples.
const STRIPES: usize = 16;

/// One stripe, alone on its cache line (two lines: the adjacent-line prefetcher pairs them).
#[repr(align(128))]
struct Stripe(AtomicI64);

static HEAP: [Stripe; STRIPES] = [const { Stripe(AtomicI64::new(0)) }; STRIPES];

/// The stripe the next thread takes.
static NEXT_STRIPE: AtomicUsize = AtomicUsize::new(0);

/// No stripe taken yet.
const UNASSIGNED: usize = usize::MAX;

thread_local! {
    static THREAD_NET: Cell<i64> = const { Cell::new(0) };
    static THREAD_STRIPE: Cell<usize> = const { Cell::new(UNASSIGNED) };
}

/// The calling thread's stripe: taken in turn on its first allocation (stripe 0 while its
/// thread-locals are being torn down).
#[inline]
fn stripe() -> &'static AtomicI64 {
    let i = THREAD_STRIPE
        .try_with(|s| {
            if s.get() == UNASSIGNED {
                s.set(NEXT_STRIPE.fetch_add(1, Ordering::Relaxed) % STRIPES);
            }
            s.get()
        })
        .unwrap_or(0);
    &HEAP[i].0
}

#[inline]
fn record(delta: i64) {
    stripe().fetch_add(delta, Ordering::Relaxed);
    let _ = THREAD_NET.try_with(|c| c.set(c.get() + delta));
}

// SAFETY: every method forwards to `INNER` with the same arguments; the counters only observe.
// A global allocator cannot be written without unsafe: the one exception to the workspace lint.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded unchanged.
        let p = unsafe { INNER.alloc(layout) };
        if !p.is_null() {
            record(layout.size() as i64);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: forwarded unchanged.
        let p = unsafe { INNER.alloc_zeroed(layout) };
        if !p.is_null() {
            record(layout.size() as i64);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged.
        unsafe { INNER.dealloc(ptr, layout) };
        record(-(layout.size() as i64));
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: forwarded unchanged.
        let p = unsafe { INNER.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            record(new_size as i64 - layout.size() as i64);
        }
        p
    }
}

/// Returns to the system the memory the calling thread's heap and the allocator's arenas hold
/// free. mimalloc returns freed pages lazily, when the thread that freed them allocates again:
/// the start-up thread frees tens of megabytes (store recovery, schema and document builds) and
/// then only waits, so without this they stayed resident for good (idle RSS, BENCHMARKS.md).
pub fn release_free_memory() {
    // SAFETY: `mi_collect` has no preconditions; it only purges free memory of mimalloc's own.
    #[allow(unsafe_code)]
    unsafe {
        libmimalloc_sys::mi_collect(true)
    };
}

/// Runs `f` and returns its result with the net heap bytes it allocated and did not free on
/// this thread (what the returned value and anything it stored keep alive). `f` must not
/// await or hop threads, which a plain closure cannot.
pub fn measure<R>(f: impl FnOnce() -> R) -> (R, i64) {
    let before = THREAD_NET.with(Cell::get);
    let r = f();
    let after = THREAD_NET.with(Cell::get);
    (r, after - before)
}

/// Net bytes the calling thread has allocated and not freed since it started.
pub fn thread_net() -> i64 {
    THREAD_NET.with(Cell::get)
}

/// Net heap bytes of the whole process (allocated minus freed).
pub fn heap_bytes() -> i64 {
    HEAP.iter().map(|s| s.0.load(Ordering::Relaxed)).sum()
}

/// Resident set size of the process from `/proc/self/status` (Linux); `None` elsewhere.
pub fn rss_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Bytes to MiB, rounded to 3 decimals (what the admin API reports).
pub fn to_mb(bytes: i64) -> f64 {
    (bytes.max(0) as f64 / (1024.0 * 1024.0) * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measure_counts_what_a_closure_keeps_and_not_what_it_frees() {
        let (kept, bytes) = measure(|| vec![0u8; 1 << 20]);
        assert!(bytes >= 1 << 20, "{bytes}");
        let ((), freed) = measure(|| drop(vec![0u8; 1 << 20]));
        assert!(freed.abs() < 1024, "{freed}");
        drop(kept);
    }

    #[test]
    fn what_threads_keep_adds_up_in_the_process_count_whatever_their_stripe() {
        // Zeroed pages the kernel maps lazily: counted in full, barely touched. Other tests
        // allocating and freeing meanwhile move the count by far less than the margin.
        const EACH: usize = 64 << 20;
        let before = heap_bytes();
        let kept: Vec<Vec<u8>> =
            (0..STRIPES + 3).map(|_| std::thread::spawn(|| vec![0u8; EACH]).join().unwrap()).collect();
        let grown = heap_bytes() - before;
        let total = (EACH * kept.len()) as i64;
        assert!(grown > total - (256 << 20) && grown < total + (256 << 20), "{grown} of {total}");
        drop(kept);
        assert!(heap_bytes() - before < 256 << 20, "freed from the stripe of the thread that frees");
    }
}
