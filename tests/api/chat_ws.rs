//! The chat WebSocket: several turns on one connection, ping/pong, bad frames answered with an
//! error message on a connection that stays open, and the token query parameter.

use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

use crate::helpers::{spawn_app, spawn_secure_app};

type Ws = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn send(ws: &mut Ws, v: Value) {
    ws.send(Message::Text(v.to_string().into())).await.unwrap();
}

/// Reads JSON messages until one of `until` types arrives; returns them all.
async fn read_until(ws: &mut Ws, until: &[&str]) -> Vec<Value> {
    let mut out = Vec::new();
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(90);
    while let Ok(Some(Ok(msg))) = tokio::time::timeout_at(deadline, ws.next()).await {
        if let Message::Text(t) = msg {
            let v: Value = serde_json::from_str(t.as_str()).unwrap();
            let end = until.contains(&v["type"].as_str().unwrap_or(""));
            out.push(v);
            if end {
                return out;
            }
        }
    }
    panic!("no {until:?} before the deadline: {out:?}");
}

fn types(msgs: &[Value]) -> Vec<&str> {
    msgs.iter().map(|m| m["type"].as_str().unwrap()).collect()
}

#[tokio::test]
async fn a_websocket_carries_several_turns_pings_and_survives_bad_frames() {
    let app = spawn_app().await;
    let (mut ws, _) = tokio_tungstenite::connect_async(format!("ws://{}/api/v1/chat/ws", app.addr)).await.unwrap();
    send(&mut ws, json!({"type": "chat", "message": "olá!", "agent_name": "auto"})).await;
    let first = read_until(&mut ws, &["complete", "error"]).await;
    let t = types(&first);
    assert_eq!(&t[..3], ["start", "thinking", "agent_selected"]);
    assert_eq!(*t.last().unwrap(), "complete", "{first:?}");
    let session = first[0]["session_id"].as_str().unwrap().to_string();
    send(&mut ws, json!({"type": "ping"})).await;
    assert_eq!(read_until(&mut ws, &["pong"]).await.last().unwrap()["type"], "pong");
    ws.send(Message::Text("{not json".into())).await.unwrap();
    let e = read_until(&mut ws, &["error"]).await;
    assert_eq!(e.last().unwrap()["code"], "VALIDATION_ERROR");
    send(&mut ws, json!({"type": "dance"})).await;
    assert_eq!(read_until(&mut ws, &["error"]).await.last().unwrap()["code"], "VALIDATION_ERROR");
    send(
        &mut ws,
        json!({"type": "chat", "message": "contratos do Ministério da Saúde em 2024", "agent_name": "zumbi"}),
    )
    .await;
    let second = read_until(&mut ws, &["complete", "error"]).await;
    let done = second.last().unwrap();
    assert_eq!(done["type"], "complete", "{second:?}");
    assert_eq!(done["session_id"], session.as_str(), "the connection keeps its conversation");
    assert!(done["investigation_id"].is_string());
    assert!(types(&second).contains(&"chunk"));
    ws.close(None).await.unwrap();
    let v: Value = app.get(&format!("/api/v1/chat/history/{session}/paginated")).await.json().await.unwrap();
    assert_eq!(v["total_items"], 4);
    app.shutdown().await;
}

#[tokio::test]
async fn a_token_in_the_query_signs_the_websocket_in() {
    let app = spawn_secure_app().await;
    let user = app.user("analista").await;
    let url = format!("ws://{}/api/v1/chat/ws?token={}", app.addr, user.token);
    let (mut ws, _) = tokio_tungstenite::connect_async(url).await.unwrap();
    send(&mut ws, json!({"type": "chat", "message": "oi"})).await;
    let msgs = read_until(&mut ws, &["complete", "error"]).await;
    assert_eq!(msgs.last().unwrap()["type"], "complete", "{msgs:?}");
    let mine: Value = app.get_as("/api/v1/chat/history", &user.token).await.json().await.unwrap();
    assert_eq!(mine["total"], 1, "the session belongs to the token's user");
    let (mut bad, _) =
        tokio_tungstenite::connect_async(format!("ws://{}/api/v1/chat/ws?token=garbage", app.addr)).await.unwrap();
    send(&mut bad, json!({"type": "chat", "message": "oi"})).await;
    let msgs = read_until(&mut bad, &["complete", "error"]).await;
    assert_eq!(msgs.last().unwrap()["code"], "UNAUTHORIZED");
    app.shutdown().await;
}
