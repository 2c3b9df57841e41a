//! The rest of the admin surface over HTTP: compression (metrics counted by the layer,
//! algorithms, optimize, codec tests and their level ranges), connection pools, the store as
//! a database and cache warming. Every figure is checked against what the test itself did.

use std::time::Duration;

use serde_json::{Value, json};

use crate::auth::en_error;
use crate::helpers::{TestApp, spawn_secure_app, spawn_secure_app_with};
use crate::upstream::{KEY, fake_upstream};

const COMP: &str = "/api/v1/admin/compression";
const DB: &str = "/api/v1/admin/database";
const POOLS: &str = "/api/v1/admin/connection-pools";

/// Fetches `path` asking for `encoding`, reading the whole body as sent; its encoding.
async fn fetch_encoded(app: &TestApp, path: &str, encoding: &str) -> (Option<String>, usize) {
    let raw = reqwest::Client::builder().no_gzip().no_brotli().no_deflate().build().unwrap();
    let r = raw.get(app.url(path)).header("accept-encoding", encoding).send().await.unwrap();
    let enc = r.headers().get("content-encoding").map(|v| v.to_str().unwrap().to_string());
    (enc, r.bytes().await.unwrap().len())
}

/// Polls the metrics until `done` holds (a body is counted when the server drops it, just
/// after the client has it).
async fn metrics_until(app: &TestApp, t: &str, done: impl Fn(&Value) -> bool) -> Value {
    let mut m = Value::Null;
    for _ in 0..100 {
        m = app.get_as(&format!("{COMP}/metrics"), t).await.json().await.unwrap();
        if done(&m) {
            return m;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("metrics never showed the expected counts: {m}");
}

#[tokio::test]
async fn compression_metrics_count_what_the_layer_compressed_per_algorithm() {
    let app = spawn_secure_app().await;
    let t = app.admin_token().await;
    for _ in 0..3 {
        app.get("/health").await;
    }
    let (gz, gz_len) = fetch_encoded(&app, "/metrics", "gzip").await;
    let (br, _) = fetch_encoded(&app, "/metrics", "br").await;
    let (df, _) = fetch_encoded(&app, "/metrics", "deflate").await;
    let (none, plain_len) = fetch_encoded(&app, "/metrics", "identity").await;
    assert_eq!((gz.as_deref(), br.as_deref(), df.as_deref(), none), (Some("gzip"), Some("br"), Some("deflate"), None));
    assert!(gz_len < plain_len, "gzip {gz_len} vs plain {plain_len}");
    let m = metrics_until(&app, &t, |m| m["compressed_requests"].as_u64() >= Some(3)).await;
    assert_eq!((m["algorithms"]["gzip"].as_u64(), m["algorithms"]["brotli"].as_u64()), (Some(1), Some(1)));
    assert_eq!(m["algorithms"]["deflate"], 1);
    assert!(m["total_requests"].as_u64().unwrap() >= 7, "{m}");
    assert!(m["bytes_saved"].as_u64().unwrap() > 0, "{m}");
    let ratio = m["compression_ratio"].as_f64().unwrap();
    assert!(ratio > 0.0 && ratio < 1.0, "{m}");
    assert!(m["avg_compression_ratio"].as_f64().unwrap() < 1.0);
    assert!(m["uncompressed_large_bytes"].as_u64().unwrap() >= plain_len as u64, "{m}");
    let a: Value = app.get_as(&format!("{COMP}/algorithms"), &t).await.json().await.unwrap();
    let list = a["algorithms"].as_array().unwrap();
    let gzip = list.iter().find(|x| x["name"] == "gzip").unwrap();
    assert_eq!(
        (gzip["level"].as_u64(), gzip["supported"].as_bool(), gzip["responses"].as_u64()),
        (Some(6), Some(true), Some(1))
    );
    assert!(gzip["avg_ratio"].as_f64().unwrap() < 1.0 && gzip["avg_time_ms"].as_f64().unwrap() >= 0.0);
    assert!(list.iter().any(|x| x["name"] == "zstd" && x["supported"] == false));
    let o: Value = app.get_as(&format!("{COMP}/optimize"), &t).await.json().await.unwrap();
    let recs = o["recommendations"].as_array().unwrap();
    let client = recs.iter().find(|r| r["type"] == "client_encoding").expect("uncompressed bytes were sent");
    assert!(client["potential_savings_mb"].as_f64().unwrap() > 0.0);
    assert!(recs.iter().any(|r| r["type"] == "algorithm" && r["reasoning"].as_str().unwrap().contains("brotli 4")));
}

#[tokio::test]
async fn the_codec_test_runs_every_level_in_range_and_refuses_the_rest() {
    let app = spawn_secure_app().await;
    let t = app.admin_token().await;
    let mut last = usize::MAX;
    for (alg, levels) in [("gzip", 1..=9), ("brotli", 1..=11), ("deflate", 1..=9)] {
        for level in levels {
            let r = app.get_as(&format!("{COMP}/test?algorithm={alg}&level={level}"), &t).await;
            assert_eq!(r.status(), 200, "{alg} {level}");
            let v: Value = r.json().await.unwrap();
            assert_eq!((v["algorithm"].as_str(), v["level"].as_u64()), (Some(alg), Some(level as u64)));
            let (orig, comp) = (v["original_size"].as_u64().unwrap(), v["compressed_size"].as_u64().unwrap());
            assert!(comp < orig && comp > 0, "{v}");
            assert!((v["compression_ratio"].as_f64().unwrap() - comp as f64 / orig as f64).abs() < 1e-9);
            assert!(v["compression_time_ms"].as_f64().unwrap() >= 0.0);
            if alg == "brotli" && level == 11 {
                assert!((comp as usize) < last, "brotli 11 beats brotli 1");
            }
            if alg == "brotli" && level == 1 {
                last = comp as usize;
            }
        }
    }
    for (alg, level) in
        [("gzip", "10"), ("gzip", "0"), ("brotli", "12"), ("brotli", "0"), ("deflate", "10"), ("gzip", "x")]
    {
        let r = app.get_as(&format!("{COMP}/test?algorithm={alg}&level={level}"), &t).await;
        assert_eq!(en_error(r, 400, "VALIDATION_ERROR").await["field"], "level", "{alg} {level}");
    }
    let r = app.get_as(&format!("{COMP}/test?algorithm=lzma&level=3"), &t).await;
    assert_eq!(en_error(r, 400, "VALIDATION_ERROR").await["field"], "algorithm");
}

#[tokio::test]
async fn the_extra_admin_routes_need_the_admin_role() {
    let app = spawn_secure_app().await;
    let user = app.user("analyst").await;
    let paths = [
        "/compression/metrics",
        "/compression/test?algorithm=gzip&level=1",
        "/database/database-stats",
        "/database/missing-indexes",
    ];
    for path in paths {
        let r = app.get_as(&format!("/api/v1/admin{path}"), &user.token).await;
        assert_eq!(r.status(), 403, "{path}");
        assert_eq!(app.get(&format!("/api/v1/admin{path}")).await.status(), 401, "{path}");
    }
}

#[tokio::test]
async fn the_database_routes_report_the_stores_trees_timings_and_filtered_scans() {
    let app = spawn_secure_app().await;
    let t = app.admin_token().await;
    let body = json!({"query": "contratos", "data_source": "portal_transparencia"});
    let r = app.post_as("/api/v1/investigations/start", &t, &body).await;
    let id = r.json::<Value>().await.unwrap()["investigation_id"].as_str().unwrap().to_string();
    app.wait_done(&id).await;
    let analyst = app.user("analyst").await;
    for _ in 0..2 {
        assert_eq!(app.get_as("/api/v1/investigations?status=completed", &analyst.token).await.status(), 200);
    }
    let s: Value = app.get_as(&format!("{DB}/database-stats"), &t).await.json().await.unwrap();
    let tables = s["tables"].as_array().unwrap();
    let rows = |name: &str| tables.iter().find(|x| x["name"] == name).map(|x| x["rows"].as_u64().unwrap());
    assert_eq!(rows("investigations"), Some(1), "{s}");
    assert!(rows("users").unwrap() >= 2 && rows("investigation_events").unwrap() > 1);
    assert_eq!(s["total_tables"].as_u64().unwrap() as usize, tables.len());
    assert_eq!(s["total_rows"].as_u64().unwrap(), tables.iter().map(|x| x["rows"].as_u64().unwrap()).sum::<u64>());
    assert!(s["flushes"].as_u64().unwrap() > 0 && s["transactions_per_second"].as_f64().unwrap() > 0.0, "{s}");
    assert!(s["cache_hit_ratio"].is_null() && s["cache_capacity_mb"].as_f64().unwrap() > 0.0);
    let q: Value = app.get_as(&format!("{DB}/analyze-slow-queries"), &t).await.json().await.unwrap();
    let ops = q["slow_queries"].as_array().unwrap();
    let list = ops.iter().find(|o| o["query"] == "investigations.list").expect("the list scan was timed");
    assert!(list["call_count"].as_u64() >= Some(2), "{list}");
    assert!(ops.iter().any(|o| o["query"] == "investigation_events.append" && o["call_count"].as_u64() > Some(1)));
    let none: Value =
        app.get_as(&format!("{DB}/analyze-slow-queries?threshold_ms=100000"), &t).await.json().await.unwrap();
    assert_eq!(none["total_slow_queries"], 0);
    let bad = app.get_as(&format!("{DB}/analyze-slow-queries?threshold_ms=-1"), &t).await;
    assert_eq!(en_error(bad, 400, "VALIDATION_ERROR").await["field"], "threshold_ms");
    let m: Value = app.get_as(&format!("{DB}/missing-indexes"), &t).await.json().await.unwrap();
    let ix = &m["missing_indexes"][0];
    assert_eq!((ix["table"].as_str(), ix["affected_queries"].as_u64()), (Some("investigations"), Some(2)), "{m}");
    assert_eq!(ix["columns"], json!(["user_id", "status"]));
    assert_eq!(
        (ix["rows_scanned"].as_u64(), ix["rows_matched"].as_u64(), ix["estimated_impact"].as_f64()),
        (Some(2), Some(0), Some(1.0))
    );
    let c: Value = app
        .post_as(
            &format!("{DB}/create-indexes"),
            &t,
            &json!({"indexes": [{"table": "investigations", "columns": ["status"], "name": "ix"}]}),
        )
        .await
        .json()
        .await
        .unwrap();
    assert_eq!((c["created_indexes"].as_u64(), c["failed_indexes"].as_u64()), (Some(0), Some(1)));
    assert!(c["details"][0]["status"].as_str().unwrap().contains("no secondary indexes"));
    let o: Value = app.post_as(&format!("{DB}/optimize-statistics"), &t, &json!({})).await.json().await.unwrap();
    assert_eq!((o["success"].as_bool(), o["tables_optimized"].as_u64()), (Some(true), s["total_tables"].as_u64()));
}

#[tokio::test]
async fn connection_pools_count_the_upstream_clients_requests_and_report_absent_pools() {
    let (url, _fake) = fake_upstream(false).await;
    let app = spawn_secure_app_with(|c| {
        c.upstream.api_url = url;
        c.upstream.api_key = Some(KEY.to_string().into());
        c.upstream.max_pages = 3;
        c.upstream.requests_per_minute = 60_000;
    })
    .await;
    let t = app.admin_token().await;
    let body = json!({"query": "contratos do Ministério da Saúde em 2024", "data_source": "portal_transparencia"});
    let r = app.post_as("/api/v1/investigations/start", &t, &body).await;
    let id = r.json::<Value>().await.unwrap()["investigation_id"].as_str().unwrap().to_string();
    app.wait_done(&id).await;
    let mut s = Value::Null;
    for _ in 0..100 {
        s = app.get_as(&format!("{POOLS}/stats"), &t).await.json().await.unwrap();
        if s["upstream_http"]["active"] == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let up = &s["upstream_http"];
    assert_eq!(
        (up["present"].as_bool(), up["active"].as_u64(), up["failures"].as_u64()),
        (Some(true), Some(0), Some(0)),
        "{s}"
    );
    assert!(up["total"].as_u64().unwrap() >= 1 && up["avg_request_time_ms"].as_f64().unwrap() > 0.0, "{s}");
    assert_eq!((s["redis"]["present"].as_bool(), s["database"]["pooled"].as_bool()), (Some(false), Some(false)));
    let h: Value = app.get_as(&format!("{POOLS}/health"), &t).await.json().await.unwrap();
    assert_eq!(h["healthy"], true, "{h}");
    assert_eq!(
        (h["pools"]["upstream_http"]["status"].as_str(), h["pools"]["redis"]["status"].as_str()),
        (Some("healthy"), Some("absent"))
    );
    assert!(h["pools"]["database"]["response_time_ms"].as_f64().unwrap() >= 0.0);
    let c: Value = app.get_as(&format!("{POOLS}/config"), &t).await.json().await.unwrap();
    assert_eq!((c["upstream_http"]["timeout"].as_f64(), c["redis"]["present"].as_bool()), (Some(30.0), Some(false)));
    for path in ["optimize", "recommendations"] {
        let v: Value = app.get_as(&format!("{POOLS}/{path}"), &t).await.json().await.unwrap();
        assert!(v["recommendations"].as_array().unwrap().is_empty(), "no waits, no failures: {v}");
    }
    let r: Value = app.post_as(&format!("{POOLS}/reset-stats"), &t, &json!({})).await.json().await.unwrap();
    assert_eq!(r["success"], true);
    let s: Value = app.get_as(&format!("{POOLS}/stats"), &t).await.json().await.unwrap();
    assert_eq!(s["upstream_http"]["total"], 0);
}

#[tokio::test]
async fn in_demo_mode_the_upstream_pool_is_reported_absent() {
    let app = spawn_secure_app().await;
    let t = app.admin_token().await;
    let s: Value = app.get_as(&format!("{POOLS}/stats"), &t).await.json().await.unwrap();
    assert_eq!((s["upstream_http"]["present"].as_bool(), s["upstream_http"]["total"].is_null()), (Some(false), true));
    let h: Value = app.get_as(&format!("{POOLS}/health"), &t).await.json().await.unwrap();
    assert_eq!((h["healthy"].as_bool(), h["pools"]["upstream_http"]["status"].as_str()), (Some(true), Some("absent")));
    let r: Value = app.post_as(&format!("{POOLS}/reset-stats"), &t, &json!({})).await.json().await.unwrap();
    assert_eq!(r["success"], false);
}
