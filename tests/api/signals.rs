//! Stop signals against the real binary: a graceful stop keeps its budget even while demo data
//! is being generated (the generation is cancelled), and a second signal exits at once.

use std::process::{Child, Command};
use std::time::{Duration, Instant};

use crate::crash::{admin_token, free_port, serve_with, start_signed, wait_ready};

/// Far more contracts than the test could wait for: the run is still generating when stopped.
const HUGE: usize = 5_000_000;

/// Serves, starts an investigation over `HUGE` demo contracts and gives it a moment to start.
async fn busy_server(dir: &std::path::Path, grace_secs: &str) -> Child {
    let port = free_port();
    let base = format!("http://127.0.0.1:{port}");
    let child = serve_with(dir, port, HUGE, &[("VIGIA__SERVER__SHUTDOWN_GRACE_SECS", grace_secs)]);
    let client = reqwest::Client::new();
    wait_ready(&client, &base).await;
    let token = admin_token(&client, &base).await;
    start_signed(&client, &base, &token).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    child
}

fn signal(child: &Child, name: &str) {
    Command::new("kill").arg(format!("-{name}")).arg(child.id().to_string()).status().unwrap();
}

/// Waits at most `limit` for the child to exit; kills it and fails otherwise.
fn exits_within(child: &mut Child, limit: Duration) -> std::process::ExitStatus {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if started.elapsed() > limit {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("the server was still running {limit:?} after the signal");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[tokio::test]
async fn sigterm_during_demo_generation_stops_within_the_grace_budget() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = busy_server(dir.path(), "1").await;
    signal(&child, "TERM");
    // Budget: 3 s for open connections, the 1 s grace, 1 s for the blocking pool, and slack.
    let status = exits_within(&mut child, Duration::from_secs(8));
    assert!(status.success(), "{status:?}");
}

#[tokio::test]
async fn a_second_sigterm_exits_at_once() {
    let dir = tempfile::tempdir().unwrap();
    // A grace far longer than the test: only the second signal can end it in time.
    let mut child = busy_server(dir.path(), "600").await;
    signal(&child, "TERM");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(child.try_wait().unwrap().is_none(), "the first signal waits for the running investigation");
    signal(&child, "TERM");
    let status = exits_within(&mut child, Duration::from_secs(3));
    assert_eq!(status.code(), Some(143), "{status:?}");
}
