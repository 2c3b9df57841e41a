//! Health, metrics, security headers, request ids, compression and trailing slashes.

use serde_json::{Value, json};

use crate::helpers::spawn_app;

#[tokio::test]
async fn readiness_and_liveness_answer_200() {
    let app = spawn_app().await;
    for path in ["/health", "/health/live", "/health/ready", "/health/ready/"] {
        assert_eq!(app.get(path).await.status(), 200, "{path}");
    }
}

#[tokio::test]
async fn detailed_health_reports_store_runtime_and_demo_mode() {
    let app = spawn_app().await;
    let v: Value = app.get("/health/detailed").await.json().await.unwrap();
    assert_eq!(v["status"], "healthy");
    assert_eq!(v["components"]["store"]["status"], "healthy");
    assert_eq!(v["components"]["runtime"]["status"], "healthy");
    assert_eq!(v["components"]["upstream"]["mode"], "demo");
}

#[tokio::test]
async fn metrics_are_prometheus_text_with_request_counters() {
    let app = spawn_app().await;
    app.get("/health").await;
    let id = app.start(json!({"query": "contratos da saúde", "data_source": "portal_transparencia"})).await;
    app.wait_done(&id).await;
    for path in ["/metrics", "/health/metrics"] {
        let r = app.get(path).await;
        assert!(r.headers()["content-type"].to_str().unwrap().starts_with("text/plain"));
        let text = r.text().await.unwrap();
        assert!(text.contains("vigia_http_requests_total"), "{text}");
        assert!(text.contains("vigia_http_request_duration_seconds"), "{text}");
        assert!(text.contains("vigia_investigations_total"), "{text}");
        assert!(text.contains("vigia_agent_loads_total"), "{text}");
    }
}

#[tokio::test]
async fn every_response_carries_security_headers_and_a_request_id() {
    let app = spawn_app().await;
    let r = app.get("/health").await;
    let h = r.headers();
    assert_eq!(h["x-frame-options"], "DENY");
    assert_eq!(h["x-content-type-options"], "nosniff");
    assert!(h["strict-transport-security"].to_str().unwrap().contains("max-age=31536000"));
    assert_eq!(h["content-security-policy"], "default-src 'self'");
    assert!(h.contains_key("x-xss-protection"));
    assert!(!h["x-request-id"].is_empty());
    let echoed = app.client.get(app.url("/health")).header("x-request-id", "abc-123").send().await.unwrap();
    assert_eq!(echoed.headers()["x-request-id"], "abc-123");
}

#[tokio::test]
async fn large_responses_are_gzipped_and_small_ones_are_not() {
    let app = spawn_app().await;
    let id = app.start(json!({"query": "contratos da saúde", "data_source": "portal_transparencia"})).await;
    app.wait_done(&id).await;
    let big = app
        .client
        .get(app.url(&format!("/api/v1/investigations/{id}/results")))
        .bearer_auth(app.token().await)
        .header("accept-encoding", "gzip")
        .send()
        .await
        .unwrap();
    assert_eq!(big.headers()["content-encoding"], "gzip");
    let small = app.client.get(app.url("/health/live")).header("accept-encoding", "gzip").send().await.unwrap();
    assert!(!small.headers().contains_key("content-encoding"));
}
