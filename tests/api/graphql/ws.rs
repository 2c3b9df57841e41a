//! Subscriptions over WebSocket with each protocol on `/graphql`: `investigationUpdates`
//! follows an investigation until it completes, `agentActivity` sees an agent load, run and
//! unload, and credentials travel in the `connection_init` payload.

use std::time::Duration;

use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

use super::create;
use crate::helpers::{TestApp, spawn_app};

type Ws = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Opens a connection speaking `protocol` and completes `connection_init` (with the token in
/// its payload).
pub async fn connect(app: &TestApp, protocol: &str, token: Option<&str>) -> Ws {
    let mut req = format!("ws://{}/graphql", app.addr).into_client_request().unwrap();
    req.headers_mut().insert("sec-websocket-protocol", protocol.parse().unwrap());
    let (mut ws, resp) = tokio_tungstenite::connect_async(req).await.unwrap();
    assert_eq!(resp.headers()["sec-websocket-protocol"], protocol);
    let payload = token.map_or(json!({}), |t| json!({"Authorization": format!("Bearer {t}")}));
    send(&mut ws, json!({"type": "connection_init", "payload": payload})).await;
    let ack = next(&mut ws).await.expect("an answer to connection_init");
    assert_eq!(ack["type"], "connection_ack", "{ack}");
    ws
}

pub async fn send(ws: &mut Ws, v: Value) {
    ws.send(Message::Text(v.to_string().into())).await.unwrap();
}

/// The next JSON message other than keep-alives; `None` at the end or after 60 s.
pub async fn next(ws: &mut Ws) -> Option<Value> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while let Ok(Some(Ok(msg))) = tokio::time::timeout_at(deadline, ws.next()).await {
        if let Message::Text(t) = msg {
            let v: Value = serde_json::from_str(t.as_str()).unwrap();
            if v["type"] != "ka" && v["type"] != "ping" {
                return Some(v);
            }
        }
    }
    None
}

/// Opens a connection and starts a subscription on it (`subscribe`, or `start` in the older
/// protocol) with the id `1`.
pub async fn start(app: &TestApp, protocol: &str, token: Option<&str>, query: &str, variables: Value) -> Ws {
    let mut ws = connect(app, protocol, token).await;
    let start = if protocol == "graphql-ws" { "start" } else { "subscribe" };
    send(&mut ws, json!({"id": "1", "type": start, "payload": {"query": query, "variables": variables}})).await;
    ws
}

/// Starts a subscription and returns its data messages up to its `complete`.
pub async fn subscribe(
    app: &TestApp,
    protocol: &str,
    token: Option<&str>,
    query: &str,
    variables: Value,
) -> Vec<Value> {
    let mut ws = start(app, protocol, token, query, variables).await;
    let mut out = Vec::new();
    while let Some(msg) = next(&mut ws).await {
        match msg["type"].as_str().unwrap() {
            "next" | "data" => {
                assert!(msg["payload"].get("errors").is_none(), "{msg}");
                out.push(msg["payload"]["data"].clone());
            }
            "complete" => return out,
            other => panic!("unexpected {other}: {msg}"),
        }
    }
    panic!("no complete: {out:?}");
}

pub const UPDATES: &str = "subscription($id: ID!) { investigationUpdates(investigationId: $id) { id status progress currentPhase anomaliesFound } }";

#[tokio::test]
async fn investigation_updates_arrive_until_completion_over_both_protocols() {
    let app = spawn_app().await;
    let analyst = app.user("analista").await;
    for protocol in ["graphql-transport-ws", "graphql-ws"] {
        let id = create(&app, &analyst.token, "Contratos com preços acima da média").await;
        let updates = subscribe(&app, protocol, Some(&analyst.token), UPDATES, json!({"id": id})).await;
        let states: Vec<&Value> = updates.iter().map(|u| &u["investigationUpdates"]).collect();
        assert!(states.iter().all(|s| s["id"] == id.as_str()));
        assert_eq!(states.last().unwrap()["status"], "completed", "{protocol}: {states:?}");
        let progress: Vec<f64> = states.iter().map(|s| s["progress"].as_f64().unwrap()).collect();
        assert!(progress.windows(2).all(|w| w[0] <= w[1]), "{protocol}: progress never goes back: {progress:?}");
        assert!(states.windows(2).all(|w| w[0] != w[1]), "no repeats");
        // Once finished, a new subscription gets the final state once and completes.
        let again = subscribe(&app, protocol, Some(&analyst.token), UPDATES, json!({"id": id})).await;
        assert_eq!(again.len(), 1);
        assert_eq!(again[0]["investigationUpdates"]["status"], "completed");
    }
}

#[tokio::test]
async fn subscriptions_check_the_caller_like_queries() {
    let app = spawn_app().await;
    let owner = app.user("analista").await;
    let id = create(&app, &owner.token, "Contratos de 2024").await;
    let mut ws = connect(&app, "graphql-transport-ws", None).await;
    send(&mut ws, json!({"id": "1", "type": "subscribe", "payload": {"query": UPDATES, "variables": {"id": id}}}))
        .await;
    let refused = next(&mut ws).await.unwrap();
    // A resolver's error arrives as the subscription's one result, then it completes.
    assert_eq!(refused["type"], "next", "{refused}");
    assert_eq!(refused["payload"]["errors"][0]["extensions"]["code"], "UNAUTHORIZED");
    assert_eq!(next(&mut ws).await.unwrap()["type"], "complete");

    // A bad credential in connection_init refuses the connection.
    let mut req = format!("ws://{}/graphql", app.addr).into_client_request().unwrap();
    req.headers_mut().insert("sec-websocket-protocol", "graphql-transport-ws".parse().unwrap());
    let (mut bad, _) = tokio_tungstenite::connect_async(req).await.unwrap();
    send(&mut bad, json!({"type": "connection_init", "payload": {"Authorization": "Bearer nope"}})).await;
    assert!(next(&mut bad).await.is_none_or(|m| m["type"] != "connection_ack"));
}

const ACTIVITY: &str =
    "subscription { agentActivity { kind reason ok error durationMs agent { agentName loaded inFlight totalTasks } } }";

#[tokio::test]
async fn agent_activity_sends_a_snapshot_then_each_load_analysis_and_unload_as_it_happens_over_both_protocols() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let lazy = "/api/v1/admin/agent-lazy-loading";
    // A different year each time: the same body would be answered from the direct-call cache.
    for (protocol, year) in [("graphql-transport-ws", 2024), ("graphql-ws", 2023)] {
        let mut ws = start(&app, protocol, Some(&admin), ACTIVITY, json!({})).await;
        // First every agent of the roster once, as it is now.
        let mut snapshot = Vec::new();
        while snapshot.len() < 16 {
            let item = activity(&mut ws).await;
            assert_eq!(item["kind"], "SNAPSHOT", "{protocol}: {item}");
            snapshot.push(item["agent"]["agentName"].as_str().unwrap().to_string());
        }
        assert!(snapshot.contains(&"oxossi".to_string()));

        let r = app.post_as(&format!("{lazy}/load"), &admin, &json!({"agent_name": "oxossi"})).await;
        assert_eq!(r.status(), 200);
        let body = json!({"orgao": "36000", "ano": year});
        assert_eq!(app.post_as("/api/v1/agents/oxossi/investigate", &admin, &body).await.status(), 200);
        let r = app.post_as(&format!("{lazy}/unload"), &admin, &json!({"agent_name": "oxossi"})).await;
        assert_eq!(r.status(), 200, "{:?}", r.text().await);

        let mut seen = Vec::new();
        while seen.last().is_none_or(|i: &Value| i["kind"] != "UNLOADED") {
            let item = activity(&mut ws).await;
            if item["agent"]["agentName"] == "oxossi" {
                seen.push(item);
            }
        }
        let kinds: Vec<&str> = seen.iter().map(|i| i["kind"].as_str().unwrap()).collect();
        assert_eq!(kinds, ["LOADED", "ANALYSIS_STARTED", "ANALYSIS_FINISHED", "UNLOADED"], "{protocol}: {seen:?}");
        let [loaded, started, finished, unloaded] = &seen[..] else { unreachable!() };
        assert_eq!(loaded["agent"]["loaded"], true);
        assert_eq!(started["agent"]["inFlight"], 1);
        assert_eq!((&finished["ok"], &finished["error"]), (&json!(true), &Value::Null), "{finished}");
        assert!(finished["durationMs"].as_f64().unwrap() > 0.0);
        assert_eq!(finished["agent"]["inFlight"], 0);
        // The call is counted before its end is told.
        let total = |i: &Value| i["agent"]["totalTasks"].as_u64().unwrap();
        assert_eq!(total(finished), total(started) + 1, "{started} {finished}");
        assert_eq!((&unloaded["reason"], &unloaded["agent"]["loaded"]), (&json!("admin"), &json!(false)));
    }
}

/// The next `agentActivity` item.
pub async fn activity(ws: &mut Ws) -> Value {
    let m = next(ws).await.expect("an activity item");
    assert!(m["payload"].get("errors").is_none(), "{m}");
    m["payload"]["data"]["agentActivity"].clone()
}
