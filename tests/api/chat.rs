//! Chat over real SSE: event order and fields for automatic and explicit agents, both request
//! bodies, errors inside the stream, an investigation started from chat that completes and is
//! visible through the investigation routes, a follow-up that reuses session memory, and what
//! an English question gets.

use eventsource_stream::Eventsource;
use futures::StreamExt;
use serde_json::{Value, json};

use crate::helpers::{TestApp, spawn_app, spawn_app_with};

/// One streamed turn: (event name, data) in order, to the terminal event.
pub async fn turn(app: &TestApp, body: Value) -> Vec<(String, Value)> {
    turn_at(&app.client, &app.url("/api/v1/chat/stream"), body).await
}

/// [`turn`] against the chat stream at `url` (of any server, the test app's or a binary's).
pub async fn turn_at(client: &reqwest::Client, url: &str, body: Value) -> Vec<(String, Value)> {
    let resp = client.post(url).json(&body).send().await.unwrap();
    assert_eq!(resp.status(), 200);
    assert!(resp.headers()["content-type"].to_str().unwrap().starts_with("text/event-stream"));
    assert_eq!(resp.headers()["cache-control"], "no-cache");
    assert!(resp.headers().get("content-encoding").is_none());
    let mut stream = resp.bytes_stream().eventsource();
    let mut out = Vec::new();
    let mut last_id = 0u64;
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(90);
    while let Ok(Some(Ok(e))) = tokio::time::timeout_at(deadline, stream.next()).await {
        let id: u64 = e.id.parse().expect("every event has a numeric id");
        assert_eq!(id, last_id + 1, "ids count up from 1");
        last_id = id;
        let data: Value = serde_json::from_str(&e.data).unwrap();
        assert_eq!(data["type"], e.event.as_str(), "data repeats the event name in type");
        let end = e.event == "complete" || e.event == "error";
        out.push((e.event, data));
        if end {
            break;
        }
    }
    out
}

fn names(events: &[(String, Value)]) -> Vec<&str> {
    events.iter().map(|(n, _)| n.as_str()).collect()
}

fn find<'a>(events: &'a [(String, Value)], name: &str) -> &'a Value {
    &events.iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("no {name} in {:?}", names(events))).1
}

fn answer(events: &[(String, Value)]) -> String {
    events
        .iter()
        .filter(|(n, _)| n == "chunk")
        .map(|(_, d)| d["content"].as_str().unwrap().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Checks the order start, thinking, [agent_selected], chunk+, complete and rising progress.
fn assert_well_formed(events: &[(String, Value)], routed: bool) {
    let n = names(events);
    assert_eq!(n[0], "start", "{n:?}");
    assert_eq!(n[1], "thinking", "{n:?}");
    let mut k = 2;
    if routed {
        assert_eq!(n[2], "agent_selected", "{n:?}");
        k = 3;
    } else {
        assert!(!n.contains(&"agent_selected"), "an explicit agent is not routed: {n:?}");
    }
    assert!(n[k..n.len() - 1].iter().all(|e| *e == "chunk"), "{n:?}");
    assert!(n.len() - 1 > k, "at least one chunk: {n:?}");
    assert_eq!(*n.last().unwrap(), "complete", "{n:?} {:?}", events.last());
    let thinking = &events[1].1;
    assert!(thinking["status"].is_string() && thinking["agent"].is_string() && thinking["timestamp"].is_string());
    let mut last = 0.0;
    for (_, d) in events.iter().filter(|(n, _)| n == "chunk") {
        let p = d["progress"].as_f64().unwrap();
        assert!((0.0..=100.0).contains(&p) && p >= last, "progress {p} after {last}");
        last = p;
    }
    let done = &events.last().unwrap().1;
    assert_eq!(done["status"], "completed");
    assert!(done["anomalies"].is_u64() && done["confidence"].is_f64());
    assert!(done.get("investigation_id").is_some());
}

#[tokio::test]
async fn an_investigation_question_is_routed_streamed_and_visible_as_an_investigation() {
    let app = spawn_app().await;
    let events = turn(
        &app,
        json!({"message": "Investigue contratos suspeitos do Ministério da Saúde em 2024", "agent_name": "auto"}),
    )
    .await;
    assert_well_formed(&events, true);
    let selected = find(&events, "agent_selected");
    assert!(selected["agent"].is_string() && !selected["reason"].as_str().unwrap().is_empty());
    let done = find(&events, "complete");
    let id = done["investigation_id"].as_str().expect("an investigation was started");
    let status: Value = app.get(&format!("/api/v1/investigations/{id}/status")).await.json().await.unwrap();
    assert_eq!(status["status"], "completed");
    let results: Value = app.get(&format!("/api/v1/investigations/{id}/results")).await.json().await.unwrap();
    assert_eq!(results["anomalies"].as_array().unwrap().len() as u64, done["anomalies"].as_u64().unwrap());
    let text = answer(&events);
    assert!(text.to_lowercase().contains("demo"), "demo mode says so: {text}");
    app.shutdown().await;
}

#[tokio::test]
async fn an_english_question_gets_english_findings_and_an_agents_analysis_in_english() {
    let app = spawn_app().await;
    let body = json!({"message": "investigate the Ministry of Health contracts in 2024", "agent_name": "zumbi"});
    let events = turn(&app, body).await;
    let text = answer(&events);
    let id = find(&events, "complete")["investigation_id"].as_str().unwrap().to_string();
    let results: Value = app.get(&format!("/api/v1/investigations/{id}/results")).await.json().await.unwrap();
    let findings: Vec<&str> = text.lines().filter(|l| l.starts_with('[')).collect();
    assert!(!findings.is_empty(), "{text}");
    for line in findings {
        assert!(["[critical]", "[high]", "[medium]", "[low]"].iter().any(|s| line.starts_with(s)), "{line}");
        // The detector's own English explanation stands where a Portuguese line has its
        // description; a detector that wrote none has its Portuguese explanation quoted.
        let listed = line.rsplit_once("[id ").unwrap().1.split(']').next().unwrap();
        let anomalies = results["anomalies"].as_array().unwrap();
        let anomaly = anomalies.iter().find(|a| a["id"] == listed).unwrap_or_else(|| panic!("{listed}"));
        let explained = anomaly["explanation"]["human_readable"].as_str().unwrap();
        match explained.split_once("\n\n(EN) ") {
            Some((_, english)) => {
                let english = english.trim_end_matches('.');
                assert!(line.contains(&format!(": {english} (")) && !line.contains("in Portuguese"), "{line}");
            }
            None => assert!(
                line.ends_with(&format!(
                    "] — in Portuguese: \"{}\"",
                    anomaly["description"].as_str().unwrap().trim_end_matches('.')
                )),
                "{line}"
            ),
        }
    }
    let body = json!({"message": "spending per inhabitant by state in 2024", "agent_name": "lampiao"});
    let text = answer(&turn(&app, body).await);
    // lampião writes its analysis in English too: the answer takes it.
    assert!(text.contains("By region: ") && text.contains(" per inhabitant"), "{text}");
    assert!(!text.contains("Por região") && !text.contains("(in Portuguese):"), "{text}");
    // tiradentes' reports are Portuguese documents: an English answer says so before them.
    let body =
        json!({"message": "write a report on the Ministry of Health contracts in 2024", "agent_name": "tiradentes"});
    let text = answer(&turn(&app, body).await);
    assert!(text.contains("Tiradentes' report, as the agent writes it (in Portuguese):"), "{text}");
    app.shutdown().await;
}

#[tokio::test]
async fn an_explicit_agent_skips_routing_and_the_older_body_routes_automatically() {
    let app = spawn_app().await;
    let events =
        turn(&app, json!({"message": "contratos do Ministério da Saúde em 2024", "agent_name": "zumbi"})).await;
    assert_well_formed(&events, false);
    assert_eq!(events[1].1["agent"], "zumbi");
    assert_eq!(find(&events, "complete")["agent"], "zumbi");
    let session = events[0].1["session_id"].as_str().unwrap().to_string();
    // The body older clients send: an unknown agent_id means automatic routing.
    let events = turn(
        &app,
        json!({"message": "olá, bom dia!", "session_id": session, "agent_id": "nobody", "context": {"x": 1}}),
    )
    .await;
    assert_well_formed(&events, true);
    assert_eq!(events[0].1["session_id"], session.as_str());
    let r = app.post("/api/v1/chat/message", &json!({"message": "what can you do?", "session_id": session})).await;
    assert_eq!(r.status(), 200);
    let doc: Value = r.json().await.unwrap();
    assert_eq!(doc["session_id"], session.as_str());
    assert!(!doc["content"].as_str().unwrap().is_empty() && doc["message_id"].is_string());
    app.shutdown().await;
}

#[tokio::test]
async fn bad_messages_unknown_agents_and_bad_tokens_end_the_stream_with_an_error() {
    let app = spawn_app().await;
    for (body, code) in [
        (json!({"message": "   "}), "VALIDATION_ERROR"),
        (json!({"message": "a".repeat(4001)}), "VALIDATION_ERROR"),
        (json!({"message": "oi", "agent_name": "sherlock"}), "AGENT_NOT_FOUND"),
        (json!({"message": "oi", "session_id": "no spaces allowed"}), "VALIDATION_ERROR"),
    ] {
        let events = turn(&app, body).await;
        assert_eq!(names(&events), ["start", "error"]);
        let e = &events[1].1;
        assert_eq!(e["code"], code);
        assert!(e["error"].is_string() && e["message"].is_string());
    }
    let resp = app
        .client
        .post(app.url("/api/v1/chat/stream"))
        .bearer_auth("not-a-token")
        .json(&json!({"message": "oi"}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let text = resp.text().await.unwrap();
    assert!(text.contains("event: error") && text.contains("\"code\":\"UNAUTHORIZED\""), "{text}");
    let r = app.post("/api/v1/chat/message", &json!({"message": ""})).await;
    assert_eq!(r.status(), 400);
    app.shutdown().await;
}

#[tokio::test]
async fn the_rate_limit_is_reported_inside_the_stream_with_retry_after() {
    let app = spawn_app_with(|c| c.rate_limit.enabled = true).await;
    let mut refused = None;
    for _ in 0..12 {
        let events = turn(&app, json!({"message": "oi"})).await;
        if events.last().unwrap().0 == "error" {
            refused = Some(events.last().unwrap().1.clone());
            break;
        }
    }
    let e = refused.expect("the anonymous burst is ten requests");
    assert_eq!(e["code"], "RATE_LIMIT_EXCEEDED");
    assert!(e["retry_after"].as_u64().unwrap() >= 1);
    app.shutdown().await;
}

#[tokio::test]
async fn a_follow_up_reuses_the_organ_of_the_previous_turn() {
    let app = spawn_app().await;
    let first = turn(&app, json!({"message": "Investigue os contratos do Ministério da Saúde em 2024"})).await;
    let session = first[0].1["session_id"].as_str().unwrap().to_string();
    let first_id = find(&first, "complete")["investigation_id"].as_str().unwrap().to_string();
    let second = turn(&app, json!({"message": "e em 2023?", "session_id": session})).await;
    assert_well_formed(&second, true);
    let id = find(&second, "complete")["investigation_id"].as_str().expect("the follow-up investigates").to_string();
    assert_ne!(id, first_id);
    let filters = |id: String| {
        let app = &app;
        async move {
            let v: Value = app.get(&format!("/api/v1/investigations/{id}/results")).await.json().await.unwrap();
            v["metadata"]["filters"].clone()
        }
    };
    let before = filters(first_id).await;
    let after = filters(id).await;
    assert_eq!(before["organizations"], json!(["36000"]), "the first turn named the organ: {before}");
    assert!(before["date_range"]["start"].as_str().unwrap().starts_with("2024"), "{before}");
    assert_eq!(after["organizations"], json!(["36000"]), "the follow-up kept the organ: {after}");
    assert!(after["date_range"]["start"].as_str().unwrap().starts_with("2023"), "and changed the year: {after}");
    app.shutdown().await;
}
