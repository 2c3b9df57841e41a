//! Thread scheduling priority: long computations (agent analyses, demo-data generation) run on
//! threads lowered below the process, so that when the cores are saturated the kernel hands them
//! to the threads that serve requests and chat turns first. Used by the work pools
//! (`runtime::work`) and by the demo data generator (`upstream::demo`).

use thread_priority::{
    NormalThreadSchedulePolicy, ThreadPriority, ThreadPriorityValue, ThreadSchedulePolicy,
    set_thread_priority_and_policy, thread_native_id,
};

/// How far below the process's own priority lowered threads run: nice +10 is a scheduling
/// weight of about a tenth (110 against 1024), so work still progresses under any load while a
/// lock it holds is never starved for long.
const LOWER_BY: i32 = 10;

/// The calling thread's nice value, from /proc (Linux; elsewhere taken as 0).
pub fn nice_of_this_thread() -> Option<i32> {
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

/// Lowers the calling thread's priority by [`LOWER_BY`] from where it runs, once per thread; a
/// failure (no permission on some systems) leaves it as it was and is logged.
pub fn lower_this_thread() {
    thread_local! {
        static LOWERED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }
    if LOWERED.with(|l| l.replace(true)) {
        return;
    }
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
        tracing::debug!(error = e, "the thread keeps its priority");
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_scale_value_gives_at_least_the_nice_asked_for() {
        assert_eq!(super::scale_for(19), 0);
        for nice in -20..=19 {
            let p = super::scale_for(nice);
            let got = (39.0 * (1.0 - f32::from(p) / 99.0)) as i32 - 20;
            assert!(got >= nice && got <= nice + 1, "nice {nice}: scale {p} gives {got}");
        }
    }

    #[test]
    fn a_thread_is_lowered_once_however_often_it_asks() {
        std::thread::spawn(|| {
            let before = super::nice_of_this_thread().unwrap_or(0);
            super::lower_this_thread();
            let once = super::nice_of_this_thread().unwrap_or(0);
            super::lower_this_thread();
            assert_eq!(super::nice_of_this_thread().unwrap_or(0), once);
            assert!(once > before || before >= 19, "lowered from {before} to {once}");
        })
        .join()
        .unwrap();
    }
}
