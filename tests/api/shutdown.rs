//! The ordered shutdown: open streams end, the server stops within 10 s, and an investigation
//! still running is not lost (it resumes and completes at the next start).

use std::time::Duration;

use eventsource_stream::Eventsource;
use futures::StreamExt;
use serde_json::{Value, json};

use crate::helpers::{spawn_in, test_config};

#[tokio::test]
async fn shutdown_ends_open_streams_and_running_work_resumes_at_next_start() {
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = test_config(&dir);
    cfg.demo.records = 400_000;
    cfg.server.shutdown_grace_secs = 0.2;
    let app = spawn_in(cfg.clone()).await;
    let id =
        app.start(json!({"query": "contratos do Ministério da Saúde", "data_source": "portal_transparencia"})).await;
    let resp = app
        .client
        .get(app.url(&format!("/api/v1/investigations/stream/{id}")))
        .bearer_auth(app.token().await)
        .header("accept", "text/event-stream")
        .send()
        .await
        .unwrap();
    let mut stream = resp.bytes_stream().eventsource();
    let first = stream.next().await.unwrap().unwrap();
    assert_eq!(first.event, "progress");
    let reader = tokio::spawn(async move {
        let mut n = 1;
        while let Some(Ok(_)) = stream.next().await {
            n += 1;
        }
        n
    });
    let took = app.shutdown().await;
    assert!(took < Duration::from_secs(10), "shutdown took {took:?}");
    let ended = tokio::time::timeout(Duration::from_secs(5), reader).await;
    assert!(ended.is_ok(), "the open stream ended with the server");

    cfg.demo.records = 600;
    // In one process the stopped app's last tasks may still hold the sled lock for a moment
    // (a real restart is a new process, whose exit released it); wait for it like a restart.
    let mut tries = 0;
    while sled_locked(&cfg.storage.data_dir) && tries < 100 {
        tokio::time::sleep(Duration::from_millis(50)).await;
        tries += 1;
    }
    let again = spawn_in(cfg).await;
    let status = again.wait_done(&id).await;
    assert_eq!(status["status"], "completed", "{status}");
    let results: Value = again.get_signed(&format!("/api/v1/investigations/{id}/results")).await.json().await.unwrap();
    assert!(results["summary"]["total_anomalies"].as_u64().unwrap() > 0);
    again.shutdown().await;
}

/// Whether another handle still holds the store's lock (opening and dropping a store probes it).
fn sled_locked(dir: &std::path::Path) -> bool {
    vigia::storage::Store::open(dir, 1).is_err()
}

#[tokio::test]
async fn a_head_a_crash_left_behind_its_runs_final_record_is_rewritten_at_start_and_the_run_not_repeated() {
    use vigia::domain::ports::InvestigationStore;
    use vigia::domain::{ErrorInfo, Investigation, InvestigationRequest, Status};
    let dir = tempfile::tempdir().unwrap();
    let cfg = test_config(&dir);
    let running =
        Investigation::start(InvestigationRequest::new("contratos do Ministério da Saúde"), uuid::Uuid::nil());
    let mut ended = running.clone();
    ended.status = Status::Failed;
    ended.completed_at = Some(chrono::Utc::now());
    ended.error = Some(ErrorInfo {
        code: "DATA_UNAVAILABLE".into(),
        message: "no data could be collected".into(),
        recoverable: true,
        details: Default::default(),
    });
    {
        let store = vigia::storage::Store::open(&cfg.storage.data_dir, 1).unwrap();
        store.save(&running).unwrap();
        // The run's final save wrote its record and a crash came before its head.
        store.save(&ended).unwrap();
        store.rewrite_head(&running).unwrap();
        store.flush_blocking().unwrap();
    }
    let app = spawn_in(cfg).await;
    let status: Value = app.get(&format!("/api/v1/investigations/{}/status", running.id)).await.json().await.unwrap();
    assert_eq!(status["status"], "failed", "the head says what the record says: {status}");
    app.shutdown().await;
}

#[tokio::test]
async fn a_stream_of_a_run_whose_last_events_a_crash_lost_ends_with_a_terminal_event_made_from_its_record() {
    use vigia::domain::investigation::Results;
    use vigia::domain::ports::InvestigationStore;
    use vigia::domain::{EventKind, Investigation, InvestigationEvent, InvestigationRequest, Phase, Status};
    let dir = tempfile::tempdir().unwrap();
    let cfg = test_config(&dir);
    let mut inv =
        Investigation::start(InvestigationRequest::new("contratos do Ministério da Saúde"), uuid::Uuid::nil());
    {
        let store = vigia::storage::Store::open(&cfg.storage.data_dir, 1).unwrap();
        let first = EventKind::Progress { percentage: 0.0, current_phase: Phase::Initialization, agents_active: 0 };
        store.append_events(inv.id, &[InvestigationEvent { seq: 1, kind: first }]).unwrap();
        inv.status = Status::Completed;
        inv.completed_at = Some(chrono::Utc::now());
        inv.results = Some(Results { agents_used: vec!["zumbi".into()], execution_time_ms: 12, ..Results::default() });
        // The run's final record was written, and a crash came before its last events.
        store.save(&inv).unwrap();
        store.flush_blocking().unwrap();
    }
    let app = spawn_in(cfg).await;
    let events = app.events(&format!("/api/v1/investigations/stream/{}", inv.id), None, 100).await;
    let names: Vec<&str> = events.iter().map(|e| e.event.as_str()).collect();
    assert_eq!(names, ["progress", "complete"], "the stream ends");
    let end: Value = serde_json::from_str(&events[1].data).unwrap();
    assert_eq!((end["agents_used"].clone(), end["processing_time"].clone()), (json!(["zumbi"]), json!(12)), "{end}");
    let seq: u64 = events[1].id.parse().unwrap();
    assert!(seq > vigia::runtime::SEQ_BLOCK, "numbered after every number the run could have used: {seq}");
    app.shutdown().await;
}
