//! Request rate limits over HTTP (switched on here; the other tests run without them): the
//! headers, the 429 envelope in both variants, the tiers, admins unlimited, exempt paths.

use serde_json::Value;

use crate::auth::{en_error, pt_error};
use crate::helpers::{spawn_app_with, spawn_secure_app_with};

fn header(r: &reqwest::Response, name: &str) -> Option<u64> {
    r.headers().get(name).map(|v| v.to_str().unwrap().parse().unwrap())
}

#[tokio::test]
async fn anonymous_callers_get_rate_headers_and_a_429_after_the_burst_of_ten() {
    let app = spawn_app_with(|c| c.rate_limit.enabled = true).await;
    let now = chrono::Utc::now().timestamp() as u64;
    for expected_remaining in (0..10).rev() {
        let r = app.get("/api/v1/investigations").await;
        assert_eq!(r.status(), 200);
        assert_eq!(header(&r, "x-ratelimit-limit"), Some(100));
        assert_eq!(header(&r, "x-ratelimit-remaining"), Some(expected_remaining));
        let reset = header(&r, "x-ratelimit-reset").unwrap();
        assert!(reset >= now && reset <= now + 400, "epoch seconds within the refill time: {reset}");
    }
    let r = app.get("/api/v1/investigations").await;
    let retry = header(&r, "x-ratelimit-retry-after").unwrap();
    assert!((30..=36).contains(&retry), "one token every 36 s: {retry}");
    assert_eq!(header(&r, "retry-after"), Some(retry));
    assert_eq!(header(&r, "x-ratelimit-remaining"), Some(0));
    let d = en_error(r, 429, "RATE_LIMIT_EXCEEDED").await;
    assert_eq!(d["retry_after"], retry);
    let r = app.get("/api/v1/investigacoes").await;
    pt_error(r, 429, "LIMITE_TAXA_EXCEDIDO").await;
}

#[tokio::test]
async fn health_metrics_and_the_jwks_are_exempt() {
    let app = spawn_app_with(|c| c.rate_limit.enabled = true).await;
    for _ in 0..15 {
        for path in ["/health", "/health/ready", "/metrics", "/.well-known/jwks.json"] {
            let r = app.get(path).await;
            assert_eq!(r.status(), 200, "{path}");
            assert!(!r.headers().contains_key("x-ratelimit-limit"), "{path}");
        }
    }
}

#[tokio::test]
async fn signed_in_users_premium_users_and_admins_have_their_own_tiers() {
    let app = spawn_secure_app_with(|c| c.rate_limit.enabled = true).await;
    let analyst = app.user("analista").await;
    let premium = app.user_with("analista", true).await;
    let admin = app.admin_token().await;
    let r = app.get_as("/api/v1/investigations", &analyst.token).await;
    assert_eq!(header(&r, "x-ratelimit-limit"), Some(1_000));
    assert_eq!(header(&r, "x-ratelimit-remaining"), Some(99));
    let r = app.get_as("/api/v1/investigations", &premium.token).await;
    assert_eq!(header(&r, "x-ratelimit-limit"), Some(10_000));
    assert_eq!(header(&r, "x-ratelimit-remaining"), Some(999));
    for _ in 0..30 {
        let r = app.get_as("/api/v1/investigations", &admin).await;
        assert_eq!(r.status(), 200);
        assert!(!r.headers().contains_key("x-ratelimit-limit"), "admins are not limited");
    }
    // Users are counted per user, not per address: the analyst's bucket is its own.
    let r = app.get_as("/api/v1/investigations", &analyst.token).await;
    assert_eq!(header(&r, "x-ratelimit-remaining"), Some(98));
    let v: Value = r.json().await.unwrap();
    assert!(v["data"].is_array());
}
