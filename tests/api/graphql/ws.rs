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

async fn send(ws: &mut Ws, v: Value) {
    ws.send(Message::Text(v.to_string().into())).await.unwrap();
}

/// The next JSON message other than keep-alives; `None` at the end or after 60 s.
async fn next(ws: &mut Ws) -> Option<Value> {
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

/// Starts a subscription (`subscribe` or the older `start`) and returns its data messages up to
/// its `complete`.
pub async fn subscribe(
    app: &TestApp,
    protocol: &str,
    token: Option<&str>,
    query: &str,
    variables: Value,
) -> Vec<Value> {
    let mut ws = connect(app, protocol, token).await;
    let start = if protocol == "graphql-ws" { "start" } else { "subscribe" };
    send(&mut ws, json!({"id": "1", "type": start, "payload": {"query": query, "variables": variables}})).await;
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

const UPDATES: &str = "subscription($id: ID!) { investigationUpdates(investigationId: $id) { id status progress currentPhase anomaliesFound } }";

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

#[tokio::test]
async fn agent_activity_streams_agents_as_they_load_run_and_unload() {
    let app = spawn_app().await;
    let admin = app.admin_token().await;
    let mut ws = connect(&app, "graphql-ws", Some(&admin)).await;
    let query = "subscription { agentActivity { agentName loaded inFlight totalTasks lastActive } }";
    send(&mut ws, json!({"id": "a", "type": "start", "payload": {"query": query}})).await;
    // The first sample is the baseline: let it be taken before anything changes.
    tokio::time::sleep(Duration::from_millis(600)).await;
    let lazy = "/api/v1/admin/agent-lazy-loading";
    let r = app.post_as(&format!("{lazy}/load"), &admin, &json!({"agent_name": "oxossi"})).await;
    assert_eq!(r.status(), 200);
    seen(&mut ws, "oxossi", |s| s["loaded"] == true).await;
    let body = json!({"orgao": "36000", "ano": 2024});
    assert_eq!(app.post_as("/api/v1/agents/oxossi/investigate", &admin, &body).await.status(), 200);
    let ran = seen(&mut ws, "oxossi", |s| s["totalTasks"].as_u64() > Some(0)).await;
    assert!(ran["lastActive"].is_string());
    let r = app.post_as(&format!("{lazy}/unload"), &admin, &json!({"agent_name": "oxossi", "force": true})).await;
    assert_eq!(r.status(), 200, "{:?}", r.text().await);
    seen(&mut ws, "oxossi", |s| s["loaded"] == false).await;
}

/// The next `agentActivity` of `agent` that `want` accepts.
async fn seen(ws: &mut Ws, agent: &str, want: fn(&Value) -> bool) -> Value {
    while let Some(m) = next(ws).await {
        let s = m["payload"]["data"]["agentActivity"].clone();
        if s["agentName"] == agent && want(&s) {
            return s;
        }
    }
    panic!("{agent} never showed the change");
}
