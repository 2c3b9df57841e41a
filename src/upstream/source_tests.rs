//! The shared client core against a local stand-in server switched between fault modes.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use super::*;

const KEY: &str = "secret-key-b81c";

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Ok,
    Empty,
    Unavailable,
    /// 429 with this `Retry-After` until served once, then 200.
    RateLimited(u64),
    Forbidden,
    Slow,
    Malformed,
    BadFilter,
}

#[derive(Clone)]
struct Stand {
    mode: Arc<Mutex<Mode>>,
    hits: Arc<AtomicUsize>,
    headers: Arc<Mutex<Vec<HeaderMap>>>,
    limited_once: Arc<AtomicUsize>,
}

async fn serve(State(s): State<Stand>, headers: HeaderMap, uri: axum::http::Uri) -> Response {
    s.hits.fetch_add(1, Ordering::SeqCst);
    s.headers.lock().unwrap().push(headers);
    let mode = *s.mode.lock().unwrap();
    match mode {
        Mode::Ok => axum::Json(serde_json::json!([{"query": uri.query().unwrap_or("")}])).into_response(),
        Mode::Empty => StatusCode::NO_CONTENT.into_response(),
        Mode::Unavailable => (StatusCode::SERVICE_UNAVAILABLE, "down").into_response(),
        Mode::RateLimited(secs) => {
            if s.limited_once.fetch_add(1, Ordering::SeqCst) == 0 {
                (StatusCode::TOO_MANY_REQUESTS, [("retry-after", secs.to_string())], "slow down").into_response()
            } else {
                axum::Json(serde_json::json!([])).into_response()
            }
        }
        Mode::Forbidden => StatusCode::FORBIDDEN.into_response(),
        Mode::Slow => {
            tokio::time::sleep(Duration::from_secs(5)).await;
            axum::Json(serde_json::json!([])).into_response()
        }
        Mode::Malformed => (StatusCode::OK, "<html>Human Verification</html>").into_response(),
        Mode::BadFilter => {
            (StatusCode::BAD_REQUEST, axum::Json(serde_json::json!({"Erro na API": "Filtros mínimos: Página"})))
                .into_response()
        }
    }
}

async fn stand_in(mode: Mode) -> (String, Stand) {
    let stand = Stand {
        mode: Arc::new(Mutex::new(mode)),
        hits: Arc::default(),
        headers: Arc::default(),
        limited_once: Arc::default(),
    };
    let app = Router::new().route("/{*rest}", get(serve)).with_state(stand.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("http://{addr}/"), stand)
}

fn config(base: String) -> SourceConfig {
    SourceConfig {
        name: "stand_in",
        base_url: base,
        secret_header: Some((HeaderName::from_static("chave-api-dados"), SecretString::from(KEY))),
        requests_per_minute: 60_000,
        timeout: Duration::from_millis(500),
        retries: 2,
        cache_ttl: Duration::from_secs(60),
        cache_max_entries: 16,
        cache_max_bytes: 1 << 20,
    }
}

fn q(pairs: &[(&'static str, &str)]) -> Vec<(&'static str, String)> {
    pairs.iter().map(|(k, v)| (*k, v.to_string())).collect()
}

#[tokio::test]
async fn a_get_sends_the_key_header_and_json_accept_and_the_repeat_comes_from_the_cache() {
    let (base, stand) = stand_in(Mode::Ok).await;
    let src = UpstreamSource::new(config(base)).unwrap();
    let body = src.get_json("/contratos", &q(&[("pagina", "1"), ("dataInicial", "01/05/2024")])).await.unwrap();
    assert_eq!(body.unwrap()[0]["query"], "pagina=1&dataInicial=01%2F05%2F2024");
    let (again, cached) =
        src.get_traced("/contratos", &q(&[("dataInicial", "01/05/2024"), ("pagina", "1")])).await.unwrap();
    assert!(cached && again.is_some(), "same path and parameters in another order: a cache hit");
    assert_eq!(stand.hits.load(Ordering::SeqCst), 1);
    let h = &stand.headers.lock().unwrap()[0];
    assert_eq!(h["chave-api-dados"], KEY);
    assert_eq!(h["accept"], "application/json");
    assert!(h["user-agent"].to_str().unwrap().starts_with("Mozilla/5.0"));
    assert_eq!(src.cache_size().0, 1);
    assert!(!format!("{src:?} {:?}", config(String::new())).contains(KEY), "Debug never prints the key");
}

#[tokio::test]
async fn an_empty_answer_is_none_and_cached() {
    let (base, stand) = stand_in(Mode::Empty).await;
    let src = UpstreamSource::new(config(base)).unwrap();
    assert_eq!(src.get_json("/x", &[]).await.unwrap(), None);
    assert_eq!(src.get_json("/x", &[]).await.unwrap(), None);
    assert_eq!(stand.hits.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn server_errors_are_retried_then_reported_as_server_error_without_the_key() {
    let (base, stand) = stand_in(Mode::Unavailable).await;
    let src = UpstreamSource::new(config(base)).unwrap();
    let e = src.get_json("/contratos", &q(&[("pagina", "1")])).await.unwrap_err();
    assert_eq!(e.class(), "server_error");
    assert_eq!(stand.hits.load(Ordering::SeqCst), 3, "one try and two retries");
    assert!(!e.to_string().contains(KEY) && !format!("{e:?}").contains(KEY));
    assert_eq!(src.last_error_class(), Some("server_error"));
    assert_eq!(src.counters().read().failures, 3);
    *stand.mode.lock().unwrap() = Mode::Ok;
    assert!(src.get_json("/contratos", &q(&[("pagina", "1")])).await.is_ok(), "failures are not cached");
}

#[tokio::test]
async fn a_429_waits_its_retry_after_then_succeeds() {
    let (base, stand) = stand_in(Mode::RateLimited(1)).await;
    let mut cfg = config(base);
    cfg.timeout = Duration::from_secs(2);
    let src = UpstreamSource::new(cfg).unwrap();
    let started = Instant::now();
    assert!(src.get_json("/ceis", &[]).await.unwrap().is_some());
    assert!(started.elapsed() >= Duration::from_secs(1), "Retry-After honoured: {:?}", started.elapsed());
    assert_eq!(stand.hits.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_retry_after_longer_than_the_timeout_gives_up_at_once_as_rate_limited() {
    let (base, stand) = stand_in(Mode::RateLimited(120)).await;
    let src = UpstreamSource::new(config(base)).unwrap();
    let started = Instant::now();
    let e = src.get_json("/ceis", &[]).await.unwrap_err();
    assert_eq!((e.class(), stand.hits.load(Ordering::SeqCst)), ("rate_limited", 1));
    assert!(started.elapsed() < Duration::from_millis(500));
}

#[tokio::test]
async fn forbidden_is_blocked_and_not_retried() {
    let (base, stand) = stand_in(Mode::Forbidden).await;
    let src = UpstreamSource::new(config(base)).unwrap();
    let e = src.get_json("/servidores/remuneracao", &[]).await.unwrap_err();
    assert_eq!((e.class(), stand.hits.load(Ordering::SeqCst)), ("blocked", 1));
}

#[tokio::test]
async fn a_slow_upstream_ends_as_timeout_within_the_timeout() {
    let (base, _stand) = stand_in(Mode::Slow).await;
    let src = UpstreamSource::new(config(base)).unwrap();
    let started = Instant::now();
    let e = src.get_json("/contratos", &[]).await.unwrap_err();
    assert_eq!(e.class(), "timeout");
    assert!(started.elapsed() < Duration::from_millis(900), "{:?}", started.elapsed());
}

#[tokio::test]
async fn html_instead_of_json_is_malformed_and_a_bad_filter_is_rejected_with_the_upstream_message() {
    let (base, stand) = stand_in(Mode::Malformed).await;
    let src = UpstreamSource::new(config(base)).unwrap();
    assert_eq!(src.get_json("/a", &[]).await.unwrap_err().class(), "malformed");
    *stand.mode.lock().unwrap() = Mode::BadFilter;
    let e = src.get_json("/b", &[]).await.unwrap_err();
    assert_eq!(e.class(), "rejected");
    assert!(e.to_string().contains("Filtros mínimos"), "{e}");
}

#[tokio::test]
async fn an_unreachable_upstream_is_a_transport_error_after_the_retries() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let src = UpstreamSource::new(config(base)).unwrap();
    let e = src.get_json("/a", &[]).await.unwrap_err();
    assert_eq!(e.class(), "transport");
    assert_eq!(src.counters().read().requests, 3);
}

#[tokio::test]
async fn the_token_bucket_lets_its_capacity_through_then_spaces_requests_at_its_rate() {
    let (base, stand) = stand_in(Mode::Ok).await;
    let mut cfg = config(base);
    cfg.requests_per_minute = 120; // 120 in the bucket, refilled one every 500 ms
    let src = UpstreamSource::new(cfg).unwrap();
    let started = Instant::now();
    let calls = (0..120).map(|i| {
        let src = src.clone();
        async move { src.get_json("/p", &[("pagina", i.to_string())]).await }
    });
    for r in futures::future::join_all(calls).await {
        r.unwrap();
    }
    let burst = started.elapsed();
    let then = Instant::now();
    for i in 0..3 {
        src.get_json("/q", &[("pagina", i.to_string())]).await.unwrap();
    }
    let spaced = then.elapsed();
    assert_eq!(stand.hits.load(Ordering::SeqCst), 123);
    // Tokens refilled while the burst went out serve some of the three at once; the rest
    // wait 500 ms each.
    let refilled = (burst.as_millis() / 500) as u32 + 1;
    let expected =
        (Duration::from_millis(500) * 3u32.saturating_sub(refilled)).saturating_sub(Duration::from_millis(50));
    assert!(spaced >= expected, "burst {burst:?}, then 3 took {spaced:?}, expected at least {expected:?}");
    assert!(expected >= Duration::from_millis(400) || burst > Duration::from_millis(500), "the test measured nothing");
    assert!(src.counters().read().waits >= 1);
}

#[test]
fn the_cache_key_sorts_the_query() {
    assert_eq!(cache_key("/c", &q(&[("b", "2"), ("a", "1")])), "/c?a=1&b=2");
    assert_eq!(cache_key("/c", &[]), "/c");
}
