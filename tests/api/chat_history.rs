//! Chat history: the cursor walk back and forth visits every message exactly once, limits,
//! sessions belong to their users, anonymous sessions are read by id.

use std::collections::HashSet;

use serde_json::{Value, json};

use crate::chat::turn;
use crate::helpers::{spawn_app, spawn_secure_app};

#[tokio::test]
async fn a_cursor_walk_back_and_forth_visits_every_message_exactly_once() {
    let app = spawn_app().await;
    let mut session = String::new();
    for k in 0..6 {
        let mut body = json!({"message": format!("olá, tudo bem? ({k})")});
        if !session.is_empty() {
            body["session_id"] = json!(session);
        }
        let events = turn(&app, body).await;
        assert_eq!(events.last().unwrap().0, "complete", "{events:?}");
        session = events[0].1["session_id"].as_str().unwrap().to_string();
    }
    let path = |q: &str| format!("/api/v1/chat/history/{session}/paginated?{q}");
    let first: Value = app.get(&path("limit=5")).await.json().await.unwrap();
    assert_eq!(first["total_items"], 12, "every user and assistant message is stored");
    assert_eq!(first["metadata"]["direction"], "prev");
    assert_eq!(first["metadata"]["page_size"], 5);
    assert_eq!(first["metadata"]["session_id"], session.as_str());
    assert!(first["metadata"]["oldest_message"].is_string() && first["metadata"]["newest_message"].is_string());
    assert_eq!(first["metadata"]["unread_count"], 6, "no page had shown the answers yet");
    assert!(first["next_cursor"].is_null() && first["has_more"] == true);
    // Walk back to the oldest message.
    let mut seen: Vec<String> = Vec::new();
    let mut page = first.clone();
    loop {
        let items = page["items"].as_array().unwrap();
        let ids: Vec<String> = items.iter().map(|i| i["id"].as_str().unwrap().to_string()).collect();
        let stamps: Vec<&str> = items.iter().map(|i| i["timestamp"].as_str().unwrap()).collect();
        assert!(stamps.windows(2).all(|w| w[0] <= w[1]), "newest last within a page");
        seen.splice(0..0, ids);
        match page["prev_cursor"].as_str() {
            Some(c) => page = app.get(&path(&format!("cursor={c}&limit=5"))).await.json().await.unwrap(),
            None => break,
        }
    }
    assert_eq!(seen.len(), 12);
    assert_eq!(seen.iter().collect::<HashSet<_>>().len(), 12, "no message twice");
    // And forward again from the oldest page.
    let mut forward: Vec<String> = Vec::new();
    let mut page: Value = app.get(&path("direction=next&limit=4")).await.json().await.unwrap();
    loop {
        forward.extend(page["items"].as_array().unwrap().iter().map(|i| i["id"].as_str().unwrap().to_string()));
        match page["next_cursor"].as_str() {
            Some(c) => page = app.get(&path(&format!("cursor={c}&direction=next&limit=4"))).await.json().await.unwrap(),
            None => break,
        }
    }
    assert_eq!(forward, seen, "both walks see the same order");
    let roles: Vec<String> = {
        let v: Value = app.get(&path("direction=next&limit=2")).await.json().await.unwrap();
        v["items"].as_array().unwrap().iter().map(|i| i["role"].as_str().unwrap().to_string()).collect()
    };
    assert_eq!(roles, ["user", "assistant"]);
    let again: Value = app.get(&path("limit=5")).await.json().await.unwrap();
    assert_eq!(again["metadata"]["unread_count"], 0, "the newest page was shown");
    for bad in ["limit=0", "limit=101", "direction=sideways", "cursor=garbage"] {
        let r = app.get(&path(bad)).await;
        assert_eq!(r.status(), 400, "{bad}");
        let v: Value = r.json().await.unwrap();
        assert_eq!(v["error"]["code"], "VALIDATION_ERROR");
    }
    app.shutdown().await;
}

#[tokio::test]
async fn a_users_sessions_are_listed_for_them_and_hidden_from_others() {
    let app = spawn_secure_app().await;
    let alice = app.user("analista").await;
    let bob = app.user("analista").await;
    let resp = app
        .client
        .post(app.url("/api/v1/chat/message"))
        .bearer_auth(&alice.token)
        .json(&json!({"message": "olá"}))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 200);
    let doc: Value = resp.json().await.unwrap();
    let session = doc["session_id"].as_str().unwrap().to_string();
    let mine: Value = app.get_as("/api/v1/chat/history", &alice.token).await.json().await.unwrap();
    assert_eq!(mine["sessions"][0]["session_id"], session.as_str());
    assert_eq!(mine["sessions"][0]["message_count"], 2);
    let theirs: Value = app.get_as("/api/v1/chat/history", &bob.token).await.json().await.unwrap();
    assert_eq!(theirs["total"], 0);
    let path = format!("/api/v1/chat/history/{session}/paginated");
    assert_eq!(app.get_as(&path, &bob.token).await.status(), 404);
    assert_eq!(app.get(&path).await.status(), 404, "an owned session is not readable anonymously");
    assert_eq!(app.get_as(&path, &alice.token).await.status(), 200);
    // Bob cannot write into Alice's conversation either.
    let r = app
        .client
        .post(app.url("/api/v1/chat/message"))
        .bearer_auth(&bob.token)
        .json(&json!({"message": "olá", "session_id": session}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 401);
    assert_eq!(app.get("/api/v1/chat/history").await.status(), 401, "anonymous sessions are read by id only");
    app.shutdown().await;
}

#[tokio::test]
async fn an_anonymous_session_is_reachable_with_its_id() {
    let app = spawn_app().await;
    let doc: Value = app
        .post("/api/v1/chat/message", &json!({"message": "oi", "session_id": "my-own-id"}))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(doc["session_id"], "my-own-id");
    let v: Value = app.get("/api/v1/chat/history/my-own-id/paginated").await.json().await.unwrap();
    assert_eq!(v["total_items"], 2);
    assert_eq!(app.get("/api/v1/chat/history/someone-else/paginated").await.status(), 404);
    app.shutdown().await;
}
