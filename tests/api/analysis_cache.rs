//! The analysis cache over HTTP: an investigation over records another one analysed moments
//! before takes each agent's output instead of running the agent again, says so in
//! `agents_cached`, and finds exactly the same; other records, or the cache turned off, run
//! every agent.

use serde_json::{Value, json};

use crate::helpers::{TestApp, spawn_app, spawn_app_with};

fn body(query: &str) -> Value {
    json!({"query": query, "data_source": "portal_transparencia"})
}

/// Runs one investigation to its end and returns its results' metadata and anomaly ids.
async fn run(app: &TestApp, query: &str) -> (Value, Vec<String>) {
    let id = app.start(body(query)).await;
    let status = app.wait_done(&id).await;
    assert_eq!(status["status"], "completed", "{status}");
    let r: Value = app.get_signed(&format!("/api/v1/investigations/{id}/results")).await.json().await.unwrap();
    let ids = r["anomalies"].as_array().unwrap().iter().map(|a| a["id"].as_str().unwrap().to_string()).collect();
    (r["metadata"].clone(), ids)
}

#[tokio::test]
async fn a_repeated_investigation_takes_every_agents_output_from_the_cache_and_finds_the_same() {
    let app = spawn_app().await;
    let (first, first_ids) = run(&app, "contratos do Ministério da Saúde").await;
    assert_eq!(first["agents_cached"], json!([]), "nothing was analysed before: {first}");
    let (second, second_ids) = run(&app, "contratos do Ministério da Saúde").await;
    assert!(!first_ids.is_empty());
    assert_eq!(second_ids, first_ids, "the same findings in the same order");
    assert_eq!(second["agents_used"], first["agents_used"]);
    assert_eq!(second["agents_cached"], second["agents_used"], "every agent answered from the cache: {second}");
}

#[tokio::test]
async fn other_records_are_analysed_again() {
    let app = spawn_app().await;
    run(&app, "contratos do Ministério da Saúde").await;
    let (other, _) = run(&app, "contratos do Ministério da Educação em 2024").await;
    assert_eq!(other["agents_cached"], json!([]), "{other}");
}

#[tokio::test]
async fn with_the_cache_turned_off_every_run_analyses_again() {
    let app = spawn_app_with(|c| c.agents.analysis_cache_ttl_secs = 0).await;
    let (_, first_ids) = run(&app, "contratos do Ministério da Saúde").await;
    let (second, second_ids) = run(&app, "contratos do Ministério da Saúde").await;
    assert_eq!(second["agents_cached"], json!([]), "{second}");
    assert_eq!(second_ids, first_ids, "identical input, identical findings, cache or not");
}
