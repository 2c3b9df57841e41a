//! Who is calling. One middleware resolves the credentials of every request once (a bearer
//! token, else a legacy `X-API-Key`) and leaves the outcome in the request for the rate limiter
//! and the extractors; an invalid or expired credential is kept as an error, so even routes
//! with optional authentication refuse it. After the handler it writes the audit records the
//! transport alone can see: unauthorised (401) and forbidden (403) requests, and every
//! state-changing admin request with its outcome.

use std::net::{IpAddr, SocketAddr};

use axum::extract::{ConnectInfo, Request};
use axum::http::header::{AUTHORIZATION, USER_AGENT};
use axum::http::{HeaderMap, Method};
use axum::response::Response;

use super::AppState;
use super::error::PendingError;
use super::middleware::RequestId;
use crate::domain::user::invalid_token;
use crate::domain::{AuditEntry, ClientContext, Outcome, Principal};
use crate::error::{Error, ErrorCode};

/// The credentials of a request: none, a principal, or the error a bad credential gives.
#[derive(Clone)]
pub(crate) struct Caller(pub Result<Option<Principal>, Error>);

impl Caller {
    /// The principal, when the credentials were valid.
    pub fn principal(&self) -> Option<&Principal> {
        self.0.as_ref().ok().and_then(Option::as_ref)
    }
}

/// A refusal answered inside a successful body (a GraphQL error), audited as the same code
/// answered with its error status would be.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RefusedInBody(pub ErrorCode);

/// The peer address (from the listener's connect info; no proxy header is trusted).
pub(crate) fn peer_ip(req_extensions: &axum::http::Extensions) -> Option<IpAddr> {
    req_extensions.get::<ConnectInfo<SocketAddr>>().map(|ConnectInfo(a)| a.ip())
}

/// Address, user agent and request id of a request.
pub(crate) fn client_context(extensions: &axum::http::Extensions, headers: &HeaderMap) -> ClientContext {
    ClientContext {
        address: peer_ip(extensions),
        user_agent: headers.get(USER_AGENT).and_then(|v| v.to_str().ok()).map(str::to_string),
        request_id: extensions.get::<RequestId>().map(|r| r.0.clone()),
    }
}

/// The caller of a set of headers (bearer token, else `X-API-Key`); also the GraphQL WebSocket's
/// `connection_init` payload seen as headers.
pub(crate) fn resolve(st: &AppState, headers: &HeaderMap) -> Result<Option<Principal>, Error> {
    if let Some(value) = headers.get(AUTHORIZATION) {
        let value = value.to_str().map_err(|_| invalid_token("the Authorization header is not text"))?;
        let (scheme, token) = value.trim().split_once(' ').ok_or_else(|| invalid_token("expected 'Bearer <token>'"))?;
        if !scheme.eq_ignore_ascii_case("bearer") {
            return Err(invalid_token("only the Bearer scheme is accepted"));
        }
        return st.services.auth.authenticate_bearer(token.trim()).map(Some);
    }
    if let Some(key) = headers.get("x-api-key") {
        let key = key.to_str().map_err(|_| invalid_token("the X-API-Key header is not text"))?;
        return st.services.auth.authenticate_api_key(key.trim()).map(Some);
    }
    Ok(None)
}

/// Resolves the caller, runs the request, audits what needs auditing.
pub async fn authenticate(st: &AppState, mut req: Request, next: impl AsyncFnOnce(Request) -> Response) -> Response {
    let caller = Caller(resolve(st, req.headers()));
    let client = client_context(req.extensions(), req.headers());
    let (method, path) = (req.method().clone(), req.uri().path().to_string());
    req.extensions_mut().insert(caller.clone());
    let resp = next(req).await;
    let code = resp
        .extensions()
        .get::<PendingError>()
        .map(|p| p.0.code)
        .or_else(|| resp.extensions().get::<RefusedInBody>().map(|r| r.0));
    let principal = caller.principal();
    let (action, outcome) = match code.and_then(refusal_action) {
        Some(refused) => refused,
        _ if is_admin_change(&method, &path) && principal.is_some_and(Principal::is_admin) => {
            ("admin_action", if resp.status().is_success() { Outcome::Success } else { Outcome::Failure })
        }
        _ => return resp,
    };
    let mut entry = AuditEntry::new(action, outcome, &client)
        .actor(principal.map(|p| p.user_id), principal.map(|p| p.email.as_str()))
        .detail("method", method.as_str())
        .detail("path", path)
        .detail("status", resp.status().as_u16());
    if let Some(code) = code {
        entry = entry.detail("code", code.as_str());
    }
    st.services.audit.record(entry);
    resp
}

/// The audit action and outcome of a refusal with `code`: no or bad credentials, or no
/// permission (REST's 401 and 403, and GraphQL's errors with those codes); `None` otherwise.
pub(crate) fn refusal_action(code: ErrorCode) -> Option<(&'static str, Outcome)> {
    match code {
        ErrorCode::Unauthorized | ErrorCode::TokenInvalid | ErrorCode::TokenExpired => {
            Some(("unauthorized_access", Outcome::Failure))
        }
        ErrorCode::InsufficientPermissions => Some(("forbidden_access", Outcome::Denied)),
        _ => None,
    }
}

/// Requests that change something through the admin surface (reads are not audited).
fn is_admin_change(method: &Method, path: &str) -> bool {
    method != Method::GET
        && method != Method::HEAD
        && (path.starts_with("/api/v1/admin/") || path == "/api/v1/auth/register")
}
