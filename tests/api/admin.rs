//! The admin surface over HTTP: the IP whitelist (every route, and the gate switched on and
//! off across restarts on the same data directory) and agent lazy loading.

use serde_json::{Value, json};

use crate::auth::en_error;
use crate::helpers::{TestApp, spawn_in, spawn_secure_app, test_config, with_admin};

const WL: &str = "/api/v1/admin/ip-whitelist";
const LAZY: &str = "/api/v1/admin/agent-lazy-loading";

#[tokio::test]
async fn the_whitelist_adds_checks_updates_lists_and_removes_entries() {
    let app = spawn_secure_app().await;
    let t = app.admin_token().await;
    let r = app.post_as(&format!("{WL}/add"), &t, &json!({"ip_address": "10.1.2.3", "description": "vpn"})).await;
    assert_eq!(r.status(), 201);
    let e: Value = r.json().await.unwrap();
    assert_eq!(e["ip_address"], "10.1.2.3");
    assert_eq!(e["is_active"], true);
    assert!(e["id"].is_u64() && e["added_at"].as_str().unwrap().ends_with('Z') && e["expires_at"].is_null());
    let dup = app.post_as(&format!("{WL}/add"), &t, &json!({"ip_address": "10.1.2.3", "description": "again"})).await;
    en_error(dup, 409, "CONFLICT").await;
    let bad = app.post_as(&format!("{WL}/add"), &t, &json!({"ip_address": "10.1.2", "description": "x"})).await;
    assert_eq!(en_error(bad, 400, "VALIDATION_ERROR").await["field"], "ip_address");
    let c: Value = app.get_as(&format!("{WL}/check/10.1.2.3"), &t).await.json().await.unwrap();
    assert_eq!(c["is_whitelisted"], true);
    assert_eq!(c["entry"]["id"], e["id"]);
    assert_eq!(c["entry"]["description"], "vpn");
    let r =
        app.put_as(&format!("{WL}/update/10.1.2.3"), &t, &json!({"description": "office", "is_active": false})).await;
    let updated: Value = r.json().await.unwrap();
    assert_eq!((updated["description"].as_str(), updated["is_active"].as_bool()), (Some("office"), Some(false)));
    let c: Value = app.get_as(&format!("{WL}/check/10.1.2.3"), &t).await.json().await.unwrap();
    assert_eq!(c["is_whitelisted"], false, "an inactive entry admits nobody");
    let c: Value = app.get_as(&format!("{WL}/check/192.0.2.1"), &t).await.json().await.unwrap();
    assert_eq!((c["is_whitelisted"].as_bool(), c["entry"].is_null()), (Some(false), true));
    let list: Value = app.get_as(&format!("{WL}/list"), &t).await.json().await.unwrap();
    assert_eq!(list.as_array().unwrap().len(), 1);
    let r: Value = app.delete_as(&format!("{WL}/remove/10.1.2.3"), &t).await.json().await.unwrap();
    assert_eq!(r["success"], true);
    assert!(r["message"].is_string());
    en_error(app.delete_as(&format!("{WL}/remove/10.1.2.3"), &t).await, 404, "RESOURCE_NOT_FOUND").await;
}

#[tokio::test]
async fn defaults_cleanup_and_stats_follow_the_spec() {
    let app = spawn_secure_app().await;
    let t = app.admin_token().await;
    let v: Value = app.post_as(&format!("{WL}/initialize-defaults"), &t, &json!({})).await.json().await.unwrap();
    assert_eq!(v["added_count"], 4);
    assert_eq!(v["added_ips"], json!(["127.0.0.1", "::1", "0.0.0.0", "localhost"]));
    let v: Value = app.post_as(&format!("{WL}/initialize-defaults"), &t, &json!({})).await.json().await.unwrap();
    assert_eq!(v["added_count"], 0, "defaults are added once");
    let past = (chrono::Utc::now() - chrono::Duration::minutes(1)).to_rfc3339();
    let body = json!({"ip_address": "203.0.113.9", "description": "temporary", "expires_at": past});
    assert_eq!(app.post_as(&format!("{WL}/add"), &t, &body).await.status(), 201);
    let s: Value = app.get_as(&format!("{WL}/stats"), &t).await.json().await.unwrap();
    assert_eq!((s["total_entries"].as_u64(), s["active_entries"].as_u64()), (Some(5), Some(4)));
    assert_eq!(s["expired_entries"], 1);
    assert_eq!(s["most_recent"]["ip_address"], "203.0.113.9");
    let v: Value = app.post_as(&format!("{WL}/cleanup"), &t, &json!({})).await.json().await.unwrap();
    assert_eq!(v, json!({"removed_count": 1, "removed_ips": ["203.0.113.9"]}));
    let s: Value = app.get_as(&format!("{WL}/stats"), &t).await.json().await.unwrap();
    assert_eq!(s["total_entries"], 4);
}

/// An app over `dir` with the bootstrap admin and the whitelist switched as asked.
async fn app_in(dir: &tempfile::TempDir, whitelist: bool) -> TestApp {
    let mut cfg = test_config(dir);
    with_admin(&mut cfg);
    cfg.security.ip_whitelist_enabled = whitelist;
    spawn_in(cfg).await
}

#[tokio::test]
async fn with_the_whitelist_on_only_whitelisted_addresses_reach_admin_routes() {
    let dir = tempfile::tempdir().unwrap();
    // Off: an empty whitelist blocks nobody.
    let off = app_in(&dir, false).await;
    let t = off.admin_token().await;
    assert_eq!(off.get_as(&format!("{WL}/list"), &t).await.status(), 200);
    off.shutdown().await;
    // On with nothing listed: the loopback defaults are seeded, so the admin is not locked out.
    let on = app_in(&dir, true).await;
    let t = on.admin_token().await;
    let listed: Value = on.get_as(&format!("{WL}/list"), &t).await.json().await.unwrap();
    assert!(listed.to_string().contains("127.0.0.1") && listed.to_string().contains("::1"), "{listed}");
    assert_eq!(on.get_as("/api/v1/auth/me", &t).await.status(), 200);
    on.shutdown().await;
    // A whitelist without the caller's address refuses admin routes, and only them.
    let off = app_in(&dir, false).await;
    let t = off.admin_token().await;
    for a in ["::1", "0.0.0.0", "localhost"] {
        assert_eq!(off.delete_as(&format!("{WL}/remove/{a}"), &t).await.status(), 200, "{a}");
    }
    let r = off.put_as(&format!("{WL}/update/127.0.0.1"), &t, &json!({"is_active": false})).await;
    assert_eq!(r.status(), 200);
    off.shutdown().await;
    let on = app_in(&dir, true).await;
    let t = on.admin_token().await;
    let d = en_error(on.get_as(&format!("{WL}/list"), &t).await, 403, "PERMISSOES_INSUFICIENTES").await;
    assert_eq!(d["ip_address"], "127.0.0.1");
    assert_eq!(on.get_as("/api/v1/auth/me", &t).await.status(), 200, "only admin routes are gated");
    on.shutdown().await;
    // Listed and active: admitted, until the entry is switched off.
    let off = app_in(&dir, false).await;
    let t = off.admin_token().await;
    let r = off.put_as(&format!("{WL}/update/127.0.0.1"), &t, &json!({"is_active": true})).await;
    assert_eq!(r.status(), 200);
    off.shutdown().await;
    let on = app_in(&dir, true).await;
    let t = on.admin_token().await;
    assert_eq!(on.get_as(&format!("{LAZY}/status"), &t).await.status(), 200);
    let r = on.put_as(&format!("{WL}/update/127.0.0.1"), &t, &json!({"is_active": false})).await;
    assert_eq!(r.status(), 200);
    en_error(on.get_as(&format!("{WL}/list"), &t).await, 403, "PERMISSOES_INSUFICIENTES").await;
}

#[tokio::test]
async fn agents_load_unload_preload_and_report_their_measured_memory() {
    let app = spawn_secure_app().await;
    let t = app.admin_token().await;
    let s: Value = app.get_as(&format!("{LAZY}/status"), &t).await.json().await.unwrap();
    for key in ["loaded_agents", "total_loaded", "total_available", "memory_usage_mb", "config", "statistics"] {
        assert!(s.get(key).is_some(), "{key} in {s}");
    }
    assert_eq!(s["config"]["max_loaded_agents"], 10);
    assert!(s["statistics"]["cache_misses"].is_u64());
    let r: Value = app
        .post_as(&format!("{LAZY}/load"), &t, &json!({"agent_name": "Zumbi dos Palmares"}))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!((r["success"].as_bool(), r["agent_name"].as_str()), (Some(true), Some("zumbi")));
    assert!(r["load_time_ms"].as_f64().unwrap() >= 0.0 && r["memory_usage_mb"].as_f64().unwrap() >= 0.0, "{r}");
    let s: Value = app.get_as(&format!("{LAZY}/status"), &t).await.json().await.unwrap();
    assert_eq!(s["loaded_agents"], json!(["zumbi"]));
    assert_eq!(s["memory_usage_mb"], r["memory_usage_mb"], "the sum of the agents' measured memory");
    let m: Value = app.get_as(&format!("{LAZY}/memory-usage"), &t).await.json().await.unwrap();
    assert!(m["total_memory_mb"].as_f64().unwrap() > 1.0);
    assert_eq!(m["agents"][0]["name"], "zumbi");
    assert!(m["agents"][0]["last_used"].as_str().unwrap().ends_with('Z'));
    let missing = app.post_as(&format!("{LAZY}/load"), &t, &json!({"agent_name": "nobody"})).await;
    en_error(missing, 404, "AGENT_NOT_FOUND").await;
    if let Some(id) = vigia_agents::AgentId::ALL.iter().find(|a| vigia_agents::instantiate(**a).is_none()) {
        let r = app.post_as(&format!("{LAZY}/load"), &t, &json!({"agent_name": id.as_str()})).await;
        en_error(r, 503, "AGENT_UNAVAILABLE").await;
    }
    let r: Value = app
        .post_as(&format!("{LAZY}/unload"), &t, &json!({"agent_name": "zumbi", "force": false}))
        .await
        .json()
        .await
        .unwrap();
    assert_eq!((r["success"].as_bool(), r["agent_name"].as_str()), (Some(true), Some("zumbi")));
    assert!(r["freed_memory_mb"].as_f64().unwrap() >= 0.0);
    let p: Value = app.post_as(&format!("{LAZY}/preload-all"), &t, &json!({})).await.json().await.unwrap();
    assert_eq!(p["success"], true);
    assert_eq!(p["total_loaded"], p["loaded_agents"].as_array().unwrap().len());
    assert!(p["total_time_ms"].is_number());
    // Agents just used are kept; force unloads every agent not in use.
    let kept: Value = app.post_as(&format!("{LAZY}/cleanup"), &t, &json!({})).await.json().await.unwrap();
    assert_eq!(kept["unloaded_agents"], json!([]), "{kept}");
    let bad = app.post_as(&format!("{LAZY}/cleanup"), &t, &json!({"force": "yes"})).await;
    assert_eq!(en_error(bad, 400, "VALIDATION_ERROR").await["field"], "force");
    let c: Value = app.post_as(&format!("{LAZY}/cleanup"), &t, &json!({"force": true})).await.json().await.unwrap();
    let sorted = |v: &Value| {
        let mut names: Vec<String> = v.as_array().unwrap().iter().map(|n| n.as_str().unwrap().to_string()).collect();
        names.sort();
        names
    };
    assert_eq!(sorted(&c["unloaded_agents"]), sorted(&p["loaded_agents"]));
    assert!(c["freed_memory_mb"].is_number());
}

#[tokio::test]
async fn the_lazy_loading_settings_change_at_run_time() {
    let app = spawn_secure_app().await;
    let t = app.admin_token().await;
    let body = json!({"unload_after_minutes": 0.5, "max_loaded_agents": 1, "preload_agents": ["zumbi"]});
    let r = app.put_as(&format!("{LAZY}/config"), &t, &body).await;
    assert_eq!(r.status(), 200);
    let s: Value = r.json().await.unwrap();
    assert_eq!(s["config"]["unload_after_minutes"], 0.5);
    assert_eq!(s["config"]["max_loaded_agents"], 1);
    assert!(s.get("loaded_agents").is_some(), "the answer is the new status");
    let bad = app.put_as(&format!("{LAZY}/config"), &t, &json!({"max_loaded_agents": 0})).await;
    assert_eq!(en_error(bad, 400, "VALIDATION_ERROR").await["field"], "max_loaded_agents");
    let p: Value = app.post_as(&format!("{LAZY}/preload-all"), &t, &json!({})).await.json().await.unwrap();
    assert_eq!(p["loaded_agents"], json!(["zumbi"]));
}
