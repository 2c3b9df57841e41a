//! The limits and switches: depth and complexity refuse abusive queries with a clear error,
//! introspection answers the IDEs' standard query (and is refused when switched off), the
//! playground loads with only local assets (and is gone when switched off), and the health
//! route reports what is in force.

use serde_json::{Value, json};

use super::{code, data, run};
use crate::helpers::{spawn_app, spawn_app_with};

/// The introspection query GraphQL IDEs send (graphql-js `getIntrospectionQuery()`).
const INTROSPECTION: &str = "query IntrospectionQuery { __schema { queryType { name } mutationType { name }
  subscriptionType { name } types { ...FullType } directives { name description locations args { ...InputValue } } } }
fragment FullType on __Type { kind name description fields(includeDeprecated: true) { name description
  args { ...InputValue } type { ...TypeRef } isDeprecated deprecationReason } inputFields { ...InputValue }
  interfaces { ...TypeRef } enumValues(includeDeprecated: true) { name description isDeprecated deprecationReason }
  possibleTypes { ...TypeRef } }
fragment InputValue on __InputValue { name description type { ...TypeRef } defaultValue }
fragment TypeRef on __Type { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name
  ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } } } }";

fn message(v: &Value) -> String {
    v["errors"][0]["message"].as_str().unwrap_or_default().to_string()
}

#[tokio::test]
async fn depth_and_complexity_limits_refuse_abusive_queries_with_a_clear_error() {
    let app = spawn_app().await;
    // 600 aliases of a two-field selection: complexity 1,200 > 1,000.
    let wide: String = (0..600).map(|i| format!("a{i}: agentStats {{ agentName }} ")).collect();
    let (v, _) = run(&app, None, &format!("{{ {wide} }}"), json!({})).await;
    assert_eq!((code(&v), v["data"].clone()), ("VALIDATION_ERROR", Value::Null), "{v}");
    assert!(message(&v).contains("too complex"), "{}", message(&v));
    // A list's complexity grows with its page: 100 investigations of 11 fields.
    let fields =
        "id query status progress anomaliesFound riskScore createdAt completedAt error dataSource currentPhase";
    let (v, _) =
        run(&app, None, &format!("{{ investigations(pagination: {{limit: 100}}) {{ {fields} }} }}"), json!({})).await;
    assert!(message(&v).contains("too complex"), "{v}");
    assert!(
        data(&app, None, &format!("{{ investigations(pagination: {{limit: 50}}) {{ {fields} }} }}"), json!({}))
            .await
            .is_object()
    );
    // Introspection nested past its own limit (twice the depth limit).
    let deep = format!(
        "{{ __schema {{ types {{ fields {{ type {{ {} name {} }} }} }} }} }}",
        "ofType { ".repeat(25),
        "}".repeat(25)
    );
    let (v, _) = run(&app, None, &deep, json!({})).await;
    assert!(message(&v).contains("nested too deep"), "{v}");
    assert_eq!(code(&v), "VALIDATION_ERROR");

    let shallow = spawn_app_with(|c| c.graphql.max_depth = 2).await;
    let (v, _) = run(&shallow, None, "{ investigations { user { id } } }", json!({})).await;
    assert!(message(&v).contains("nested too deep"), "{v}");
    assert!(data(&shallow, None, "{ investigations { id } }", json!({})).await.is_object());
}

#[tokio::test]
async fn introspection_answers_the_ides_query_and_can_be_switched_off() {
    let app = spawn_app().await;
    let schema = data(&app, None, INTROSPECTION, json!({})).await;
    assert_eq!(schema["__schema"]["queryType"]["name"], "Query");
    assert_eq!(schema["__schema"]["subscriptionType"]["name"], "Subscription");
    let names: Vec<&str> =
        schema["__schema"]["types"].as_array().unwrap().iter().filter_map(|t| t["name"].as_str()).collect();
    for t in [
        "Investigation",
        "Finding",
        "Anomaly",
        "Contract",
        "ChatMessage",
        "AgentStats",
        "SearchFilter",
        "PaginationInput",
    ] {
        assert!(names.contains(&t), "{t} missing");
    }
    // Introspection fields in an ordinary query are fine, and data fields still answer.
    let typed = data(&app, None, "{ me { __typename } agentStats { __typename } }", json!({})).await;
    assert_eq!(typed["agentStats"][0]["__typename"], "AgentStats");

    let closed = spawn_app_with(|c| c.graphql.introspection_enabled = false).await;
    let (v, _) = run(&closed, None, INTROSPECTION, json!({})).await;
    assert!(v.get("errors").is_some(), "{v}");
    let health: Value = closed.get("/graphql/health").await.json().await.unwrap();
    assert_eq!(health["introspection_enabled"], false);
}

#[tokio::test]
async fn the_playground_loads_only_local_assets_and_can_be_switched_off() {
    let app = spawn_app().await;
    let page = app.get("/graphql/playground").await;
    assert_eq!(page.status(), 200);
    assert!(page.headers()["content-type"].to_str().unwrap().starts_with("text/html"));
    let html = page.text().await.unwrap();
    assert!(!html.contains("//"), "no absolute or protocol-relative URL: {html}");
    let refs: Vec<&str> = html.split(['"', '\'']).filter(|s| s.starts_with('/')).collect();
    assert!(refs.len() >= 4, "{refs:?}");
    for r in refs {
        let asset = app.get(r).await;
        assert_eq!(asset.status(), 200, "{r}");
        assert!(!asset.bytes().await.unwrap().is_empty());
    }
    let script = app.get("/graphql/playground/middleware.js").await.bytes().await.unwrap();
    assert!(script.len() > 1_000_000, "the IDE itself is served");
    let health: Value = app.get("/graphql/health").await.json().await.unwrap();
    assert_eq!(health["status"], "healthy");
    assert_eq!(
        (health["limits"]["max_depth"].as_u64(), health["limits"]["max_complexity"].as_u64()),
        (Some(10), Some(1000))
    );

    let off = spawn_app_with(|c| c.graphql.playground_enabled = false).await;
    assert_eq!(off.get("/graphql/playground").await.status(), 404);
    assert_eq!(off.get("/graphql/playground/middleware.js").await.status(), 404);
    assert_eq!(data(&off, None, "{ me { id } }", json!({})).await["me"], Value::Null, "GraphQL itself stays");
}
