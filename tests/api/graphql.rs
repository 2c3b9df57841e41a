//! GraphQL on `/graphql` driven by a real client (reqwest POSTing JSON): every query and
//! mutation, ownership and error codes as REST gives them, the depth and complexity limits,
//! the introspection and playground switches, the anonymous cache and persisted queries, and
//! the example operations as listed. Subscriptions over both WebSocket protocols are in
//! [`ws`].

mod audit;
mod limits;
mod ws;

use std::time::Duration;

use serde_json::{Value, json};

use crate::helpers::{TestApp, spawn_app};

/// Runs one operation; the answer's JSON and its cache header.
pub async fn run(app: &TestApp, token: Option<&str>, query: &str, variables: Value) -> (Value, String) {
    let mut req = app.client.post(app.url("/graphql")).json(&json!({"query": query, "variables": variables}));
    if let Some(t) = token {
        req = req.bearer_auth(t);
    }
    let resp = req.send().await.unwrap();
    assert_eq!(resp.status(), 200);
    let cache = resp.headers().get("x-graphql-cache").map(|v| v.to_str().unwrap().to_string()).unwrap_or_default();
    (resp.json().await.unwrap(), cache)
}

/// Runs one operation that must succeed; its `data`.
pub async fn data(app: &TestApp, token: Option<&str>, query: &str, variables: Value) -> Value {
    let (v, _) = run(app, token, query, variables).await;
    assert!(v.get("errors").is_none(), "{query} answered errors: {v}");
    v["data"].clone()
}

/// The code of the first error of an answer.
pub fn code(v: &Value) -> &str {
    v["errors"][0]["extensions"]["code"].as_str().unwrap_or_else(|| panic!("no error code in {v}"))
}

const CREATE: &str = "mutation($input: InvestigationInput!) { createInvestigation(input: $input) { id status query } }";
const ONE: &str = "query($id: ID!) { investigation(id: $id) { id status progress anomaliesFound riskScore
  confidenceScore processingTimeMs completedAt findings { id type title severity confidence evidence }
  anomalies(limit: 3) { id type severity confidenceScore detectionMethod affectedEntities } user { id email role } } }";

/// Starts an investigation through GraphQL and returns its id.
pub async fn create(app: &TestApp, token: &str, query: &str) -> String {
    let d = data(app, Some(token), CREATE, json!({"input": {"query": query, "dataSources": ["portal_transparencia"]}}))
        .await;
    assert_eq!(d["createInvestigation"]["query"], query);
    d["createInvestigation"]["id"].as_str().unwrap().to_string()
}

/// Polls `investigation` until it ends; its last answer.
async fn finished(app: &TestApp, token: &str, id: &str) -> Value {
    for _ in 0..3000 {
        let d = data(app, Some(token), ONE, json!({"id": id})).await;
        if !["pending", "processing"].contains(&d["investigation"]["status"].as_str().unwrap()) {
            return d["investigation"].clone();
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("investigation {id} never finished");
}

#[tokio::test]
async fn every_query_and_mutation_answers_from_the_services_the_rest_routes_use() {
    let app = spawn_app().await;
    let analyst = app.user("analista").await;
    let t = analyst.token.as_str();

    let me = data(&app, Some(t), "{ me { id email role name } }", json!({})).await;
    assert_eq!(
        (me["me"]["email"].as_str(), me["me"]["role"].as_str()),
        (Some(analyst.email.as_str()), Some("analista"))
    );
    assert_eq!(me["me"]["id"], analyst.id.as_str());
    assert_eq!(data(&app, None, "{ me { id } }", json!({})).await["me"], Value::Null);

    let id = create(&app, t, "Contratos com preços acima da média").await;
    let inv = finished(&app, t, &id).await;
    assert_eq!(inv["status"], "completed", "{inv}");
    // The same investigation as REST reports it.
    let rest: Value = app.get_as(&format!("/api/v1/investigations/{id}/results"), t).await.json().await.unwrap();
    assert_eq!(inv["anomaliesFound"].as_u64().unwrap() as usize, rest["anomalies"].as_array().unwrap().len());
    assert!(inv["anomalies"].as_array().unwrap().len() <= 3);
    assert!(!inv["findings"].as_array().unwrap().is_empty(), "{inv}");
    assert!(inv["processingTimeMs"].is_u64() && inv["confidenceScore"].is_f64());
    assert_eq!(inv["user"]["email"], analyst.email.as_str());

    let list =
        "query($f: [SearchFilter!], $p: PaginationInput) { investigations(filters: $f, pagination: $p) { id status } }";
    let mine =
        data(&app, Some(t), list, json!({"f": [{"field": "status", "operator": "eq", "value": "completed"}]})).await;
    assert_eq!(mine["investigations"][0]["id"], id.as_str());
    let none =
        data(&app, Some(t), list, json!({"f": [{"field": "anomaliesFound", "operator": "gt", "value": "100000"}]}))
            .await;
    assert_eq!(none["investigations"], json!([]));
    let skipped = data(&app, Some(t), list, json!({"p": {"offset": 1, "limit": 5}})).await;
    assert_eq!(skipped["investigations"], json!([]), "one investigation, offset 1");

    let contracts = "query($s: String, $min: Float) { contracts(search: $s, minValue: $min, pagination: {limit: 5, orderBy: \"value\"}) { id object supplier value orgao } }";
    let all = data(&app, None, contracts, json!({"min": 1000.0})).await["contracts"].clone();
    let all = all.as_array().unwrap();
    assert_eq!(all.len(), 5);
    assert!(all.windows(2).all(|w| w[0]["value"].as_f64() >= w[1]["value"].as_f64()), "largest first");
    assert!(all.iter().all(|c| c["value"].as_f64().unwrap() >= 1000.0));
    let word = all[0]["object"].as_str().unwrap().split_whitespace().max_by_key(|w| w.len()).unwrap().to_string();
    let found = data(&app, None, contracts, json!({"s": word})).await["contracts"].clone();
    assert!(
        found
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["object"].as_str().unwrap().contains(&word) || c["supplier"].as_str().unwrap().contains(&word)),
        "{word}: {found}"
    );

    let stats = data(
        &app,
        None,
        "{ agentStats { agentName totalTasks successfulTasks failedTasks avgResponseTimeMs lastActive } }",
        json!({}),
    )
    .await;
    let ran: Vec<&Value> =
        stats["agentStats"].as_array().unwrap().iter().filter(|s| s["totalTasks"].as_u64() > Some(0)).collect();
    assert!(!ran.is_empty(), "the investigation ran agents: {stats}");
    assert!(ran.iter().all(|s| s["lastActive"].is_string()));

    let chat = "mutation($i: ChatInput!) { sendChatMessage(input: $i) { id sessionId role content agent status } }";
    let reply = data(&app, Some(t), chat, json!({"i": {"message": "Olá, o que você pode fazer?"}})).await;
    assert_eq!(
        (reply["sendChatMessage"]["role"].as_str(), reply["sendChatMessage"]["status"].as_str()),
        (Some("assistant"), Some("completed"))
    );
    assert!(!reply["sendChatMessage"]["content"].as_str().unwrap().is_empty());
    let history: Value = app
        .get_as(&format!("/api/v1/chat/history/{}", reply["sendChatMessage"]["sessionId"].as_str().unwrap()), t)
        .await
        .json()
        .await
        .unwrap();
    assert!(history.to_string().contains(reply["sendChatMessage"]["id"].as_str().unwrap()), "stored: {history}");

    let cancel = "mutation($id: ID!) { cancelInvestigation(id: $id) { id status } }";
    let (done, _) = run(&app, Some(t), cancel, json!({"id": id})).await;
    assert_eq!(code(&done), "CONFLICT", "a finished investigation cannot be cancelled: {done}");
    let running = create(&app, t, "Contratos emergenciais sem licitação").await;
    let (v, _) = run(&app, Some(t), cancel, json!({"id": running})).await;
    // It may have finished before the cancel arrived; then it is the same CONFLICT as REST's.
    match v["data"]["cancelInvestigation"]["status"].as_str() {
        Some(s) => assert_eq!(s, "cancelled"),
        None => assert_eq!(code(&v), "CONFLICT", "{v}"),
    }
}

#[tokio::test]
async fn mutations_need_a_caller_and_ownership_and_errors_carry_the_rest_codes() {
    let app = spawn_app().await;
    let owner = app.user("analista").await;
    let other = app.user("analista").await;
    let id = create(&app, &owner.token, "Contratos de 2024").await;

    let (v, _) = run(&app, None, CREATE, json!({"input": {"query": "Contratos de 2024"}})).await;
    assert_eq!(code(&v), "UNAUTHORIZED", "{v}");
    let (v, _) = run(&app, None, "mutation { sendChatMessage(input: {message: \"oi\"}) { id } }", json!({})).await;
    assert_eq!(code(&v), "UNAUTHORIZED");
    let (v, _) = run(&app, Some("not-a-token"), "{ me { id } }", json!({})).await;
    assert_eq!(code(&v), "TOKEN_INVALIDO", "{v}");

    // Ownership as REST: the owner and admins see it; another user is refused, anonymous too.
    let one = "query($id: ID!) { investigation(id: $id) { id } }";
    assert_eq!(data(&app, Some(&owner.token), one, json!({"id": id})).await["investigation"]["id"], id.as_str());
    let admin = app.admin_token().await;
    assert_eq!(data(&app, Some(&admin), one, json!({"id": id})).await["investigation"]["id"], id.as_str());
    let (v, _) = run(&app, Some(&other.token), one, json!({"id": id})).await;
    assert_eq!(code(&v), "PERMISSOES_INSUFICIENTES", "{v}");
    let (v, _) = run(&app, None, one, json!({"id": id})).await;
    assert_eq!(code(&v), "UNAUTHORIZED");
    let (v, _) =
        run(&app, Some(&other.token), "mutation($id: ID!) { cancelInvestigation(id: $id) { id } }", json!({"id": id}))
            .await;
    assert_eq!(code(&v), "PERMISSOES_INSUFICIENTES");
    let list = "{ investigations { id } }";
    assert_eq!(data(&app, Some(&other.token), list, json!({})).await["investigations"], json!([]));
    // Refusals are audited as REST's 401 and 403 are.
    let audit: Value = app.get_as("/api/v1/audit?limit=100", &admin).await.json().await.unwrap();
    let entries = audit["data"].as_array().unwrap();
    let logged = |action: &str, code: &str| {
        entries
            .iter()
            .any(|e| e["action"] == action && e["details"]["path"] == "/graphql" && e["details"]["code"] == code)
    };
    assert!(logged("unauthorized_access", "UNAUTHORIZED"), "{audit}");
    assert!(logged("forbidden_access", "PERMISSOES_INSUFICIENTES"), "{audit}");

    // Queries wait for no flush; a mutation is answered once the store flushed (refused or not).
    finished(&app, &owner.token, &id).await;
    // The audit records above are written behind the requests: wait until the store is quiet.
    let mut before = app.store.flushes();
    loop {
        tokio::time::sleep(Duration::from_millis(300)).await;
        let now = app.store.flushes();
        if now == before {
            break;
        }
        before = now;
    }
    for _ in 0..20 {
        data(&app, Some(&owner.token), one, json!({"id": id})).await;
    }
    assert_eq!(app.store.flushes(), before, "queries store nothing");
    let cancel = "mutation($id: ID!) { cancelInvestigation(id: $id) { id } }";
    assert_eq!(code(&run(&app, Some(&owner.token), cancel, json!({"id": id})).await.0), "CONFLICT");
    assert!(app.store.flushes() > before, "the mutation was made durable before its answer");

    let (v, _) = run(&app, None, one, json!({"id": "not-a-uuid"})).await;
    assert_eq!(code(&v), "INVESTIGATION_NOT_FOUND");
    let (v, _) = run(&app, None, one, json!({"id": uuid::Uuid::now_v7().to_string()})).await;
    assert_eq!(code(&v), "INVESTIGATION_NOT_FOUND");
    let (v, _) = run(&app, None, "{ investigations(pagination: {limit: 500}) { id } }", json!({})).await;
    assert_eq!(code(&v), "VALIDATION_ERROR");
    let (v, _) =
        run(&app, Some(&owner.token), CREATE, json!({"input": {"query": "x", "dataSources": ["a", "b"]}})).await;
    assert_eq!(code(&v), "VALIDATION_ERROR");
    let (v, _) = run(&app, None, "{ nothing }", json!({})).await;
    assert_eq!(code(&v), "VALIDATION_ERROR", "unknown fields too: {v}");
}

#[tokio::test]
async fn the_example_operations_run_as_listed() {
    let app = spawn_app().await;
    let analyst = app.user("analista").await;
    let t = analyst.token.as_str();
    create(&app, t, "Contratos com preços acima da média").await;
    let listed: Value = app.get_as("/graphql/examples", t).await.json().await.unwrap();
    let examples = listed["examples"].as_array().unwrap();
    let names: Vec<&str> = examples.iter().map(|e| e["name"].as_str().unwrap()).collect();
    for name in
        ["me", "agentStats", "investigations", "investigation", "contracts", "createInvestigation", "sendChatMessage"]
    {
        assert!(names.contains(&name), "{name} missing from {names:?}");
    }
    for e in examples {
        let (query, vars) = (e["query"].as_str().unwrap(), e["variables"].clone());
        match e["kind"].as_str().unwrap() {
            "subscription" => {
                if e["name"] == "investigationUpdates" {
                    let msgs = ws::subscribe(&app, "graphql-transport-ws", Some(t), query, vars).await;
                    assert!(!msgs.is_empty(), "{e}");
                } else {
                    // agentActivity never completes: its first item is a snapshot.
                    let mut sub = ws::start(&app, "graphql-transport-ws", Some(t), query, vars).await;
                    assert_eq!(ws::activity(&mut sub).await["kind"], "SNAPSHOT", "{e}");
                }
            }
            _ => {
                let (v, _) = run(&app, Some(t), query, vars).await;
                // The running investigation may have ended between the listing and the cancel.
                if e["name"] == "cancelInvestigation" && v.get("errors").is_some() {
                    assert_eq!(code(&v), "CONFLICT");
                    continue;
                }
                assert!(v.get("errors").is_none(), "example {} failed: {v}", e["name"]);
            }
        }
    }
}

#[tokio::test]
async fn identical_anonymous_queries_are_answered_from_the_cache_and_persisted_queries_work() {
    let app = spawn_app().await;
    let q = "{ agentStats { agentName } }";
    assert_eq!(run(&app, None, q, json!({})).await.1, "miss");
    let (cached, how) = run(&app, None, q, json!({})).await;
    assert_eq!(how, "hit");
    assert!(cached["data"]["agentStats"].as_array().unwrap().len() > 5);
    let token = app.token().await.to_string();
    assert_eq!(run(&app, Some(&token), q, json!({})).await.1, "none", "signed-in callers are not cached");
    assert_eq!(run(&app, None, "{ nothing }", json!({})).await.1, "none", "errors are not cached");

    use sha2::Digest;
    let query = "{ agentStats { agentName loaded } }";
    let hash = hex::encode(sha2::Sha256::digest(query.as_bytes()));
    let ext = json!({"persistedQuery": {"version": 1, "sha256Hash": hash}});
    let send = |body: Value| app.client.post(app.url("/graphql")).json(&body).send();
    let v: Value = send(json!({"extensions": ext})).await.unwrap().json().await.unwrap();
    assert_eq!(code(&v), "PERSISTED_QUERY_NOT_FOUND");
    let v: Value = send(json!({"query": query, "extensions": ext})).await.unwrap().json().await.unwrap();
    assert!(v["data"]["agentStats"].is_array(), "{v}");
    let v: Value = send(json!({"extensions": ext})).await.unwrap().json().await.unwrap();
    assert!(v["data"]["agentStats"].is_array(), "by hash alone: {v}");
}
