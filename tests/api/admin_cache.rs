//! Cache warming over HTTP: frequent agents end up loaded in the pool, warmed queries make the
//! next investigation's fetch a cache hit (a local stand-in upstream counts the requests),
//! popular and recent investigations are planned from the store after a restart, demo mode
//! says it has no response cache, bad input gets the envelope and non-admins are refused.

use serde_json::{Value, json};
use tempfile::TempDir;
use vigia::config::Config;

use crate::auth::en_error;
use crate::helpers::{TestApp, spawn_in, spawn_secure_app, test_config};
use crate::upstream::{KEY, fake_upstream};

const WARM: &str = "/api/v1/admin/cache-warming";
const SAUDE_2024: &str = "contratos do Ministério da Saúde em 2024";
const SAUDE_2023: &str = "contratos do Ministério da Saúde em 2023";

/// A production-mode config over the stand-in at `url`, storing in `dir`.
fn production(dir: &TempDir, url: &str) -> Config {
    let mut c = test_config(dir);
    c.upstream.api_url = url.to_string();
    c.upstream.api_key = Some(KEY.to_string().into());
    c.upstream.requests_per_minute = 60_000;
    c
}

async fn post(app: &TestApp, t: &str, path: &str, body: Value) -> Value {
    let r = app.post_as(&format!("{WARM}{path}"), t, &body).await;
    assert_eq!(r.status(), 200, "{path}");
    r.json().await.unwrap()
}

async fn get(app: &TestApp, t: &str, path: &str) -> Value {
    let r = app.get_as(&format!("{WARM}{path}"), t).await;
    assert_eq!(r.status(), 200, "{path}");
    r.json().await.unwrap()
}

fn strategy<'a>(list: &'a Value, name: &str) -> &'a Value {
    list["strategies"].as_array().unwrap().iter().find(|s| s["name"] == name).unwrap()
}

async fn loaded(app: &TestApp) -> Vec<String> {
    let s: Value = app.get("/api/v1/agents/status").await.json().await.unwrap();
    let agents = s["agents"].as_array().unwrap();
    agents.iter().filter(|a| a["loaded"] == true).map(|a| a["agent"].as_str().unwrap().to_string()).collect()
}

#[tokio::test]
async fn frequent_agents_are_the_most_called_ones_and_warming_loads_them_into_the_pool() {
    let app = spawn_secure_app().await;
    let t = app.admin_token().await;
    let s = get(&app, &t, "/status").await;
    assert_eq!(
        (s["is_warming"].as_bool(), s["runs"].as_u64(), s["last_warming"].is_null(), s["success_rate"].is_null()),
        (Some(false), Some(0), true, true),
        "{s}"
    );
    for (agent, year) in [("zumbi", 2023), ("zumbi", 2022), ("anita", 2023)] {
        let r = app.post(&format!("/api/v1/agents/{agent}/investigate"), &json!({"orgao": "36000", "ano": year})).await;
        assert_eq!(r.status(), 200, "{agent} {year}");
    }
    for agent in ["zumbi", "anita"] {
        let body = json!({"agent_name": agent, "force": true});
        let r = app.post_as("/api/v1/admin/agent-lazy-loading/unload", &t, &body).await;
        assert_eq!(r.status(), 200);
    }
    assert!(!loaded(&app).await.iter().any(|a| a == "zumbi" || a == "anita"));
    let list = get(&app, &t, "/strategies").await;
    assert_eq!(strategy(&list, "frequent_agents")["estimated_items"], 2, "{list}");
    assert_eq!(strategy(&list, "frequent_agents")["cache_type"], "agent_pool");
    for name in ["popular_queries", "recent_investigations"] {
        let s = strategy(&list, name);
        assert_eq!(s["estimated_items"], 0, "{s}");
        assert!(s["note"].as_str().unwrap().contains("demo mode"));
    }
    let run = post(&app, &t, "/strategies/frequent_agents", json!({})).await;
    assert_eq!(
        (run["strategy"].as_str(), run["success"].as_bool(), run["items_warmed"].as_u64(), run["attempted"].as_u64()),
        (Some("frequent_agents"), Some(true), Some(2), Some(2)),
        "{run}"
    );
    assert_eq!(run["already_warm"], 0);
    let now = loaded(&app).await;
    assert!(now.contains(&"zumbi".to_string()) && now.contains(&"anita".to_string()), "{now:?}");
    let pool: Value = app.get_as("/api/v1/admin/agent-lazy-loading/status", &t).await.json().await.unwrap();
    assert_eq!(pool["loaded_agents"][0], "zumbi", "the most called is loaded last, most recently used: {pool}");
    let s = get(&app, &t, "/status").await;
    assert_eq!(
        (s["runs"].as_u64(), s["total_warmed"].as_u64(), s["total_attempted"].as_u64(), s["success_rate"].as_f64()),
        (Some(1), Some(2), Some(2), Some(1.0)),
        "{s}"
    );
    assert!(chrono::DateTime::parse_from_rfc3339(s["last_warming"].as_str().unwrap()).is_ok());
    let demo = post(&app, &t, "/strategies/popular_queries", json!({})).await;
    assert_eq!((demo["success"].as_bool(), demo["items_warmed"].as_u64()), (Some(false), Some(0)), "{demo}");
    assert!(demo["reason"].as_str().unwrap().contains("no response cache"));
    let all = post(&app, &t, "/trigger", json!({})).await;
    assert_eq!((all["success"].as_bool(), all["items_warmed"].as_u64()), (Some(true), Some(2)), "{all}");
    assert_eq!(all["cache_types"], json!(["agent_pool"]), "demo mode warms no response cache");
    assert_eq!(all["strategies"].as_array().unwrap().len(), 3);
    assert!(all["duration_ms"].as_f64().unwrap() >= 0.0);
    let r = app.post_as(&format!("{WARM}/strategies/everything"), &t, &json!({})).await;
    assert_eq!(en_error(r, 404, "RESOURCE_NOT_FOUND").await["strategy"], "everything");
    app.shutdown().await;
}

#[tokio::test]
async fn warm_specific_loads_named_agents_and_names_the_field_of_bad_input() {
    let app = spawn_secure_app().await;
    let t = app.admin_token().await;
    let body = json!({"cache_keys": ["bonifacio", "oxossi", "bonifacio"], "cache_type": "agents"});
    let run = post(&app, &t, "/warm-specific", body.clone()).await;
    assert_eq!(
        (run["success"].as_bool(), run["items_warmed"].as_u64(), run["already_warm"].as_u64()),
        (Some(true), Some(2), Some(0)),
        "{run}"
    );
    let now = loaded(&app).await;
    assert!(now.contains(&"bonifacio".to_string()) && now.contains(&"oxossi".to_string()), "{now:?}");
    let again = post(&app, &t, "/warm-specific", body).await;
    assert_eq!(again["already_warm"], 2, "{again}");
    let demo = post(&app, &t, "/warm-specific", json!({"cache_keys": ["36000"], "cache_type": "queries"})).await;
    assert_eq!((demo["success"].as_bool(), demo["attempted"].as_u64()), (Some(false), Some(0)), "{demo}");
    assert!(demo["reason"].as_str().unwrap().contains("demo mode"));
    let bad = [
        (json!({"cache_keys": ["zumbi"], "cache_type": "redis"}), "cache_type"),
        (json!({"cache_keys": ["zumbi", "sherlock"], "cache_type": "agents"}), "cache_keys[1]"),
        (json!({"cache_keys": [], "cache_type": "agents"}), "cache_keys"),
        (json!({"cache_type": "agents"}), "cache_keys"),
        (json!({"cache_keys": ["x".repeat(2001)], "cache_type": "queries"}), "cache_keys[0]"),
    ];
    for (body, field) in bad {
        let r = app.post_as(&format!("{WARM}/warm-specific"), &t, &body).await;
        assert_eq!(en_error(r, 400, "VALIDATION_ERROR").await["field"], field, "{body}");
    }
    let s = get(&app, &t, "/status").await;
    assert_eq!((s["runs"].as_u64(), s["total_warmed"].as_u64()), (Some(3), Some(4)), "{s}");
    app.shutdown().await;
}

#[tokio::test]
async fn the_cache_warming_routes_need_the_admin_role() {
    let app = spawn_secure_app().await;
    let user = app.user("analyst").await;
    let before = loaded(&app).await;
    let body = json!({"cache_keys": ["zumbi"], "cache_type": "agents"});
    for path in ["/status", "/strategies"] {
        assert_eq!(app.get_as(&format!("{WARM}{path}"), &user.token).await.status(), 403, "{path}");
        assert_eq!(app.get(&format!("{WARM}{path}")).await.status(), 401, "{path}");
    }
    for path in ["/trigger", "/warm-specific", "/strategies/frequent_agents"] {
        assert_eq!(app.post_as(&format!("{WARM}{path}"), &user.token, &body).await.status(), 403, "{path}");
        assert_eq!(app.post(&format!("{WARM}{path}"), &body).await.status(), 401, "{path}");
    }
    assert_eq!(loaded(&app).await, before, "nothing was warmed");
    app.shutdown().await;
}

#[tokio::test]
async fn a_warmed_query_makes_the_next_investigations_fetch_a_cache_hit() {
    let (url, stand) = fake_upstream(false).await;
    let dir = tempfile::tempdir().unwrap();
    let app = spawn_in(production(&dir, &url)).await;
    let t = app.admin_token().await;
    let run = post(&app, &t, "/warm-specific", json!({"cache_keys": [SAUDE_2024], "cache_type": "queries"})).await;
    assert_eq!(
        (run["success"].as_bool(), run["items_warmed"].as_u64(), run["already_warm"].as_u64()),
        (Some(true), Some(1), Some(0)),
        "{run}"
    );
    let warmed = (stand.requests_to("/contratos"), stand.requests_to("/contratos/termo-aditivo"));
    assert!(warmed.0 > 0 && warmed.1 > 0, "the warm fetched from the upstream");
    let id = app.start(json!({"query": SAUDE_2024, "data_source": "portal_transparencia"})).await;
    let s = app.wait_done(&id).await;
    assert_eq!(s["metadata"]["data_status"], "completed", "{s}");
    assert_eq!(s["metadata"]["source"], "portal_transparencia_api");
    assert_eq!(
        (stand.requests_to("/contratos"), stand.requests_to("/contratos/termo-aditivo")),
        warmed,
        "the investigation sent no request: its data came from the warmed cache"
    );
    let again = post(&app, &t, "/warm-specific", json!({"cache_keys": [SAUDE_2024], "cache_type": "queries"})).await;
    assert_eq!(again["already_warm"], 1, "{again}");
    app.shutdown().await;
}

#[tokio::test]
async fn popular_and_recent_investigations_are_warmed_from_the_store_after_a_restart() {
    let (url, stand) = fake_upstream(false).await;
    let dir = tempfile::tempdir().unwrap();
    let app = spawn_in(production(&dir, &url)).await;
    for query in [SAUDE_2024, SAUDE_2023, "Contratos do Ministério da  Saúde em 2024"] {
        let id = app.start(json!({"query": query, "data_source": "portal_transparencia"})).await;
        app.wait_done(&id).await;
    }
    app.shutdown().await;
    // A new process: the response cache is empty, the investigations are in the store.
    let app = spawn_in(production(&dir, &url)).await;
    let t = app.admin_token().await;
    let list = get(&app, &t, "/strategies").await;
    assert_eq!(strategy(&list, "popular_queries")["estimated_items"], 2, "two distinct queries: {list}");
    assert_eq!(strategy(&list, "recent_investigations")["estimated_items"], 3);
    let before = stand.requests_to("/contratos");
    let popular = post(&app, &t, "/strategies/popular_queries", json!({})).await;
    assert_eq!(
        (popular["items_warmed"].as_u64(), popular["already_warm"].as_u64(), popular["success"].as_bool()),
        (Some(2), Some(0), Some(true)),
        "{popular}"
    );
    let warmed = stand.requests_to("/contratos");
    assert!(warmed > before, "the popular queries were fetched again");
    let recent = post(&app, &t, "/strategies/recent_investigations", json!({})).await;
    assert_eq!((recent["items_warmed"].as_u64(), recent["already_warm"].as_u64()), (Some(3), Some(3)), "{recent}");
    let id = app.start(json!({"query": SAUDE_2024, "data_source": "portal_transparencia"})).await;
    assert_eq!(app.wait_done(&id).await["metadata"]["source"], "portal_transparencia_api");
    assert_eq!(stand.requests_to("/contratos"), warmed, "the investigation read the warmed cache");
    let all = post(&app, &t, "/trigger", json!({})).await;
    assert_eq!(all["success"], true, "{all}");
    assert_eq!(all["cache_types"], json!(["agent_pool", "upstream_responses"]));
    let status = get(&app, &t, "/status").await;
    let total = 2 + 3 + all["items_warmed"].as_u64().unwrap();
    assert_eq!((status["runs"].as_u64(), status["total_warmed"].as_u64()), (Some(3), Some(total)), "{status}");
    app.shutdown().await;
    let app = spawn_in(production(&dir, &url)).await;
    let t = app.admin_token().await;
    let kept = get(&app, &t, "/status").await;
    assert_eq!(
        (kept["runs"].clone(), kept["total_warmed"].clone()),
        (status["runs"].clone(), status["total_warmed"].clone())
    );
    assert_eq!(kept["last_warming"], status["last_warming"]);
    app.shutdown().await;
}
