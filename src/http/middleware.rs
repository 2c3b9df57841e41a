//! Cross-cutting layers: request ids (echoed or generated), the error envelope, request
//! metrics, security headers, compression over 1 KB (never on event streams), durable
//! acknowledgements of state changes and panics turned into a generic 500 envelope.

use std::time::Instant;

use axum::body::Body;
use axum::extract::{MatchedPath, Request};
use axum::http::header::{CONTENT_LENGTH, CONTENT_TYPE};
use axum::http::{HeaderName, HeaderValue};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use tower_http::compression::CompressionLayer;
use tower_http::compression::predicate::{NotForContentType, Predicate, SizeAbove};

use super::error::{ApiError, Lang, PendingError, envelope, error_for_status};
use crate::error::{Error, ErrorCode};

/// The service's own layers as one middleware, outermost first: [`observe`] (request id,
/// envelope, security headers, metrics), [`durable`] (acknowledge a change once it is on disk),
/// [`super::auth_layer::authenticate`] (who is calling; audit of refusals and admin actions)
/// and [`super::rate_limit::limit`]. One layer, not four: each axum layer clones the stack
/// below it and boxes its future on every request, while these steps nest as plain async
/// calls the compiler builds into one future.
pub async fn pipeline(
    axum::extract::State(st): axum::extract::State<super::AppState>,
    req: Request,
    next: Next,
) -> Response {
    observe(req, async |req| {
        durable(&st, req, async |req| {
            super::auth_layer::authenticate(&st, req, async |req| {
                super::rate_limit::limit(&st, req, async move |req| next.run(req).await).await
            })
            .await
        })
        .await
    })
    .await
}

/// `X-Request-ID`.
pub static REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// The request id of the current request, as handlers and the envelope see it.
#[derive(Debug, Clone)]
pub struct RequestId(pub String);

/// Request id, envelope, security headers and metrics in one pass, so each error body carries the same id as
/// the response header and each request is counted once with its final status.
pub async fn observe(mut req: Request, next: impl AsyncFnOnce(Request) -> Response) -> Response {
    let started = Instant::now();
    let request_id = req
        .headers()
        .get(&REQUEST_ID)
        .and_then(|v| v.to_str().ok())
        .filter(|v| !v.is_empty() && v.len() <= 128 && v.chars().all(|c| c.is_ascii_graphic()))
        .map(str::to_string)
        .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
    req.extensions_mut().insert(RequestId(request_id.clone()));
    // The URI's parts share the request buffer: a clone is a reference count, not a copy.
    let uri = req.uri().clone();
    let path = uri.path();
    let method = req.method().clone();
    let route = req.extensions().get::<MatchedPath>().cloned();

    let mut resp = next(req).await;

    let status = resp.status();
    let pending = resp.extensions_mut().remove::<PendingError>().map(|p| p.0);
    let is_json = resp.headers().get(CONTENT_TYPE).is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
    let error = pending.or_else(|| (status.as_u16() >= 400 && !is_json).then(|| error_for_status(status, path)));
    if let Some(error) = error {
        let body = envelope(Lang::for_path(path), &error, &request_id);
        let mut fresh = (status, axum::Json(body)).into_response();
        for (name, value) in resp.headers() {
            if name != CONTENT_TYPE && name != CONTENT_LENGTH {
                fresh.headers_mut().insert(name.clone(), value.clone());
            }
        }
        resp = fresh;
    }
    if let Ok(v) = HeaderValue::from_str(&request_id) {
        resp.headers_mut().insert(REQUEST_ID.clone(), v);
    }
    security_headers(resp.headers_mut());
    let route = route.as_ref().map_or("unmatched", MatchedPath::as_str);
    let (count, duration) = request_metrics(&method, route, status.as_u16());
    count.increment(1);
    duration.record(started.elapsed().as_secs_f64());
    resp
}

/// The request counter and duration histogram of one method, route and status. The recorder
/// finds a metric by building and hashing a key of owned labels; a server answering tens of
/// thousands of requests a second looks each combination up once and keeps the handles (the
/// combinations are bounded by the routes).
fn request_metrics(method: &axum::http::Method, route: &str, status: u16) -> (metrics::Counter, metrics::Histogram) {
    use std::collections::HashMap;
    use std::hash::{Hash, Hasher};
    use std::sync::{LazyLock, PoisonError, RwLock};
    type Entry = (axum::http::Method, Box<str>, u16, metrics::Counter, metrics::Histogram);
    static HANDLES: LazyLock<RwLock<HashMap<u64, Vec<Entry>>>> = LazyLock::new(RwLock::default);
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (method.as_str(), route, status).hash(&mut h);
    let key = h.finish();
    let same = |e: &&Entry| e.0 == *method && &*e.1 == route && e.2 == status;
    if let Some(e) = HANDLES.read().unwrap_or_else(PoisonError::into_inner).get(&key).and_then(|v| v.iter().find(same))
    {
        return (e.3.clone(), e.4.clone());
    }
    let labels = [("method", method.to_string()), ("route", route.to_string()), ("status", status.to_string())];
    let count = metrics::counter!("vigia_http_requests_total", &labels);
    let duration = metrics::histogram!("vigia_http_request_duration_seconds", &labels[..2]);
    let entry = (method.clone(), Box::from(route), status, count.clone(), duration.clone());
    HANDLES.write().unwrap_or_else(PoisonError::into_inner).entry(key).or_default().push(entry);
    (count, duration)
}

/// Answers a request that may have changed state only once the change is durable
/// ([`crate::service::Durability`]); a failed commit answers 503 instead of the handler's answer.
pub async fn durable(st: &super::AppState, req: Request, next: impl AsyncFnOnce(Request) -> Response) -> Response {
    use axum::http::Method;
    let reads = matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    let own = commits_itself(req.uri().path());
    let resp = next(req).await;
    if reads || own {
        return resp;
    }
    match st.services.durability.commit().await {
        Ok(()) => resp,
        Err(e) => ApiError(e).into_response(),
    }
}

/// POST routes that store nothing or make their own writes durable before acknowledging them:
/// a chat turn flushes before its `complete` (and a stream's head must not wait for a flush),
/// the analysis routes only read, and an investigation they start is flushed by its service;
/// `/graphql` commits after a mutation itself (its queries store nothing).
fn commits_itself(path: &str) -> bool {
    matches!(
        path,
        "/api/v1/chat/stream"
            | "/api/v1/chat/message"
            | "/api/v1/anomalies/detect"
            | "/api/v1/multi-agent/query"
            | "/graphql"
    ) || (path.starts_with("/api/v1/agents/") && (path.ends_with("/investigate") || path.ends_with("/orchestrate")))
}

/// The response to a panic in a handler: a generic 500; the panic goes to the log.
pub fn panic_response(err: Box<dyn std::any::Any + Send + 'static>) -> Response<Body> {
    let text = err
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| err.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    tracing::error!(panic = %text, "handler panicked");
    ApiError(Error::new(ErrorCode::Internal, "internal server error")).into_response()
}

/// The security headers of the spec (Authentication, item 12) and `X-API-Version`.
const SECURITY_HEADERS: [(HeaderName, HeaderValue); 6] = [
    (HeaderName::from_static("x-frame-options"), HeaderValue::from_static("DENY")),
    (HeaderName::from_static("x-content-type-options"), HeaderValue::from_static("nosniff")),
    (HeaderName::from_static("x-xss-protection"), HeaderValue::from_static("1; mode=block")),
    (
        HeaderName::from_static("strict-transport-security"),
        HeaderValue::from_static("max-age=31536000; includeSubDomains"),
    ),
    (HeaderName::from_static("content-security-policy"), HeaderValue::from_static("default-src 'self'")),
    (HeaderName::from_static("x-api-version"), HeaderValue::from_static("1")),
];

/// Sets each security header a handler did not set itself. Part of [`observe`] rather than a
/// layer per header: each layer wraps and clones the whole stack below it on every request.
fn security_headers(headers: &mut axum::http::HeaderMap) {
    for (name, value) in SECURITY_HEADERS {
        if !headers.contains_key(&name) {
            headers.insert(name, value);
        }
    }
}

/// gzip for bodies over 1 KB; never event streams, images or gRPC.
pub fn compression() -> CompressionLayer<impl Predicate> {
    let predicate =
        SizeAbove::new(1024).and(NotForContentType::SSE).and(NotForContentType::IMAGES).and(NotForContentType::GRPC);
    CompressionLayer::new().gzip(true).br(true).deflate(true).compress_when(predicate)
}
