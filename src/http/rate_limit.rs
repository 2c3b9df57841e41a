//! The request rate limit: each request spends a token of its caller's bucket (per user, or
//! per address for anonymous callers) and holds one of its concurrency slots while the handler
//! runs (an open event stream does not hold it). Limited responses carry `X-RateLimit-Limit`
//! (requests per hour), `X-RateLimit-Remaining` (requests available right now) and
//! `X-RateLimit-Reset` (epoch seconds when the bucket is full again); a refusal is 429
//! RATE_LIMIT_EXCEEDED with `Retry-After` and `X-RateLimit-Retry-After`. Health, metrics,
//! documentation and `/.well-known/*` are exempt, and admins are not limited.

use axum::extract::Request;
use axum::http::{HeaderMap, HeaderName, HeaderValue};
use axum::response::{IntoResponse, Response};

use super::AppState;
use super::auth_layer::{Caller, peer_ip};
use super::error::ApiError;
use crate::error::{Error, ErrorCode};
use crate::service::Tier;

static LIMIT: HeaderName = HeaderName::from_static("x-ratelimit-limit");
static REMAINING: HeaderName = HeaderName::from_static("x-ratelimit-remaining");
static RESET: HeaderName = HeaderName::from_static("x-ratelimit-reset");
static RETRY_AFTER: HeaderName = HeaderName::from_static("x-ratelimit-retry-after");

/// Paths no limit applies to (CONTRACT.md).
pub(crate) fn exempt(path: &str) -> bool {
    path == "/health"
        || path.starts_with("/health/")
        || path == "/metrics"
        || path == "/openapi.json"
        || ["/docs", "/redoc", "/.well-known"].iter().any(|p| path == *p || path.starts_with(&format!("{p}/")))
}

fn set(headers: &mut HeaderMap, name: &HeaderName, value: u64) {
    headers.insert(name.clone(), HeaderValue::from(value));
}

/// A refusal the chat stream reports inside the stream (its clients read errors there).
#[derive(Debug, Clone)]
pub(crate) struct StreamRefusal(pub Error);

/// Routes whose refusals travel inside their event stream rather than as a 429.
fn refused_in_stream(path: &str) -> bool {
    path == "/api/v1/chat/stream"
}

/// The bucket of a caller: tier and key (per user, or per address for anonymous callers).
pub(crate) fn bucket(principal: Option<&crate::domain::Principal>, ip: Option<std::net::IpAddr>) -> (Tier, String) {
    match principal {
        Some(p) if p.is_admin() => (Tier::Admin, String::new()),
        Some(p) => (if p.premium { Tier::Premium } else { Tier::Authenticated }, format!("user:{}", p.user_id)),
        None => (Tier::Anonymous, format!("ip:{}", ip.map_or("unknown".into(), |ip| ip.to_string()))),
    }
}

/// The RATE_LIMIT_EXCEEDED error of a refusal.
pub(crate) fn refusal_error(refusal: &crate::service::RateRefusal) -> Error {
    let secs = refusal.retry_after.as_secs_f64().ceil().max(1.0) as u64;
    let reason = if refusal.rate { "request rate" } else { "concurrent requests" };
    Error::new(ErrorCode::RateLimitExceeded, format!("too many requests ({reason}); retry later"))
        .with("retry_after", secs)
        .with("limit", refusal.limit)
        .with("reason", reason)
}

/// Admits, refuses or lets through (exempt, disabled, admin) each request.
pub async fn limit(st: &AppState, mut req: Request, next: impl AsyncFnOnce(Request) -> Response) -> Response {
    let limits = &st.services.rate_limits;
    if !limits.enabled() || exempt(req.uri().path()) {
        return next(req).await;
    }
    let principal = req.extensions().get::<Caller>().and_then(Caller::principal);
    let (tier, key) = bucket(principal, peer_ip(req.extensions()));
    match limits.admit(tier, &key) {
        Ok(None) => next(req).await,
        Ok(Some(admission)) => {
            let mut resp = next(req).await;
            let h = resp.headers_mut();
            set(h, &LIMIT, admission.limit.into());
            set(h, &REMAINING, admission.remaining.into());
            set(h, &RESET, admission.reset_epoch);
            resp
        }
        Err(refusal) if refused_in_stream(req.uri().path()) => {
            req.extensions_mut().insert(StreamRefusal(refusal_error(&refusal)));
            next(req).await
        }
        Err(refusal) => {
            let secs = refusal.retry_after.as_secs_f64().ceil().max(1.0) as u64;
            let mut resp = ApiError(refusal_error(&refusal)).into_response();
            let h = resp.headers_mut();
            set(h, &LIMIT, refusal.limit.into());
            set(h, &REMAINING, 0);
            set(h, &RESET, refusal.reset_epoch);
            set(h, &RETRY_AFTER, secs);
            resp
        }
    }
}
