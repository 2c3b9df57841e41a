//! Refusals on subscription connections reach the audit trail as REST's do: no credentials and
//! a bad one in `connection_init` (`unauthorized_access`), someone else's investigation
//! (`forbidden_access`), a limit exceeded (`limit_exceeded`); read back through `/api/v1/audit`.

use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::client::IntoClientRequest;

use super::create;
use super::ws::{UPDATES, next, send, start};
use crate::helpers::{TestApp, spawn_app_with};

/// The first answer of a subscription: its errors' first code.
async fn refused(app: &TestApp, protocol: &str, token: Option<&str>, query: &str, variables: Value) -> String {
    let mut ws = start(app, protocol, token, query, variables).await;
    let m = next(&mut ws).await.expect("an answer");
    assert!(m["type"] == "next" || m["type"] == "data" || m["type"] == "error", "{m}");
    let errors = if m["type"] == "error" { &m["payload"] } else { &m["payload"]["errors"] };
    errors[0]["extensions"]["code"].as_str().unwrap_or_else(|| panic!("a code: {m}")).to_string()
}

#[tokio::test]
async fn refused_subscriptions_are_audited_with_their_caller_code_and_transport() {
    // A depth of two: enough for investigationUpdates (and createInvestigation), not for
    // agentActivity's nested agent.
    let app = spawn_app_with(|c| c.graphql.max_depth = 2).await;
    let owner = app.user("analista").await;
    let other = app.user("analista").await;
    let id = create(&app, &owner.token, "Contratos de 2024").await;

    let vars = json!({"id": id});
    assert_eq!(refused(&app, "graphql-transport-ws", None, UPDATES, vars.clone()).await, "UNAUTHORIZED");
    assert_eq!(refused(&app, "graphql-ws", Some(&other.token), UPDATES, vars).await, "PERMISSOES_INSUFICIENTES");
    // agentActivity { agent { .. } } nests three levels.
    let too_deep = "subscription { agentActivity { agent { agentName } } }";
    let code = refused(&app, "graphql-transport-ws", Some(&owner.token), too_deep, json!({})).await;
    assert_eq!(code, "VALIDATION_ERROR");

    // A bad credential in connection_init refuses the connection.
    let mut req = format!("ws://{}/graphql", app.addr).into_client_request().unwrap();
    req.headers_mut().insert("sec-websocket-protocol", "graphql-transport-ws".parse().unwrap());
    let (mut bad, _) = tokio_tungstenite::connect_async(req).await.unwrap();
    send(&mut bad, json!({"type": "connection_init", "payload": {"Authorization": "Bearer nope"}})).await;
    assert!(next(&mut bad).await.is_none_or(|m| m["type"] != "connection_ack"));

    let admin = app.admin_token().await;
    let r = app.get_as("/api/v1/audit?limit=100", &admin).await;
    assert_eq!(r.status(), 200);
    let v: Value = r.json().await.unwrap();
    let ws: Vec<&Value> =
        v["data"].as_array().unwrap().iter().filter(|e| e["details"]["transport"] == "websocket").collect();
    let find = |action: &str, code: &str| {
        ws.iter()
            .find(|e| e["action"] == action && e["details"]["code"] == code)
            .unwrap_or_else(|| panic!("no {action} {code} in {ws:?}"))
    };
    let anonymous = find("unauthorized_access", "UNAUTHORIZED");
    assert_eq!((&anonymous["outcome"], &anonymous["actor"]["email"]), (&json!("failure"), &Value::Null));
    assert_eq!(anonymous["details"]["path"], "/graphql");
    assert_eq!(anonymous["address"], "127.0.0.1");
    let forbidden = find("forbidden_access", "PERMISSOES_INSUFICIENTES");
    assert_eq!(
        (&forbidden["outcome"], forbidden["actor"]["email"].as_str()),
        (&json!("denied"), Some(other.email.as_str()))
    );
    let limit = find("limit_exceeded", "VALIDATION_ERROR");
    assert_eq!(
        (&limit["details"]["limit"], limit["actor"]["email"].as_str()),
        (&json!("depth"), Some(owner.email.as_str()))
    );
    assert_eq!(find("unauthorized_access", "TOKEN_INVALIDO")["details"]["path"], "/graphql");
    assert_eq!(ws.len(), 4, "one entry per refusal: {ws:?}");
}
