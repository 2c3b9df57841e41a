//! The one mapping from `crate::Error` to HTTP: status per code, and the spec's envelope in
//! English (`{error: {code, message, details, request_id, timestamp}}`) or Portuguese
//! (`{erro: {codigo, mensagem, detalhes, id_requisicao, timestamp}}`), chosen by route.
//!
//! Handlers return [`ApiError`], which only sets the status and attaches the error; the
//! `envelope` middleware renders the body, because it alone knows the request id and path.
//! Error responses that did not come from an `ApiError` (axum's own 404/405/413, a panic)
//! are given an envelope by status there too, so no client ever sees a bare error.

use axum::http::header::RETRY_AFTER;
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use chrono::{SecondsFormat, Utc};
use serde_json::{Map, Value};

use super::views::bilingual::{bilingual, localized};
use crate::error::{Error, ErrorCode};

/// Which naming variant a route speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    /// English identifiers.
    En,
    /// Portuguese identifiers.
    Pt,
}

impl Lang {
    /// Portuguese for the Portuguese investigation routes and the (Portuguese) auth routes.
    pub fn for_path(path: &str) -> Lang {
        if path.starts_with("/api/v1/investigacoes") || path.starts_with("/api/v1/auth") { Lang::Pt } else { Lang::En }
    }
}

/// An error on its way out; rendered by the envelope middleware.
#[derive(Debug)]
pub struct ApiError(pub Error);

impl From<Error> for ApiError {
    fn from(e: Error) -> Self {
        ApiError(e)
    }
}

/// The error attached to a response for the envelope middleware.
#[derive(Debug, Clone)]
pub(crate) struct PendingError(pub Error);

/// HTTP status of each code.
pub fn status_of(code: ErrorCode) -> StatusCode {
    match code {
        ErrorCode::Validation | ErrorCode::InvalidDataSource => StatusCode::BAD_REQUEST,
        ErrorCode::ResourceNotFound
        | ErrorCode::RouteNotFound
        | ErrorCode::InvestigationNotFound
        | ErrorCode::AgentNotFound => StatusCode::NOT_FOUND,
        ErrorCode::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
        ErrorCode::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
        ErrorCode::InvestigationInProgress | ErrorCode::Conflict => StatusCode::CONFLICT,
        ErrorCode::InsufficientData => StatusCode::UNPROCESSABLE_ENTITY,
        ErrorCode::RateLimitExceeded => StatusCode::TOO_MANY_REQUESTS,
        ErrorCode::AgentUnavailable | ErrorCode::ServiceUnavailable => StatusCode::SERVICE_UNAVAILABLE,
        ErrorCode::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        ErrorCode::Unauthorized | ErrorCode::InvalidCredentials | ErrorCode::TokenExpired | ErrorCode::TokenInvalid => {
            StatusCode::UNAUTHORIZED
        }
        ErrorCode::InsufficientPermissions => StatusCode::FORBIDDEN,
        ErrorCode::AccountLocked => StatusCode::LOCKED,
        ErrorCode::MfaRequired => StatusCode::PRECONDITION_REQUIRED,
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut resp = status_of(self.0.code).into_response();
        // A 429 tells the client when to come back (whole seconds, rounded up).
        if self.0.code == ErrorCode::RateLimitExceeded
            && let Some(secs) = self.0.details.get("retry_after").and_then(Value::as_f64)
        {
            resp.headers_mut().insert(RETRY_AFTER, HeaderValue::from(secs.max(0.0).ceil() as u64));
        }
        resp.extensions_mut().insert(PendingError(self.0));
        resp
    }
}

/// The error for a bare error status produced outside the handlers.
pub(crate) fn error_for_status(status: StatusCode, path: &str) -> Error {
    match status {
        StatusCode::NOT_FOUND => {
            Error::new(ErrorCode::RouteNotFound, format!("no route for {path}")).with("path", path)
        }
        StatusCode::METHOD_NOT_ALLOWED => {
            Error::new(ErrorCode::MethodNotAllowed, format!("method not allowed on {path}")).with("path", path)
        }
        StatusCode::UNAUTHORIZED => crate::domain::user::unauthenticated(),
        StatusCode::PAYLOAD_TOO_LARGE => Error::new(ErrorCode::PayloadTooLarge, "request body is too large"),
        StatusCode::UNSUPPORTED_MEDIA_TYPE | StatusCode::BAD_REQUEST | StatusCode::UNPROCESSABLE_ENTITY => {
            Error::validation("body", status.canonical_reason().unwrap_or("invalid request"))
        }
        StatusCode::REQUEST_TIMEOUT => Error::new(ErrorCode::ServiceUnavailable, "request timed out"),
        s if s.is_server_error() => Error::new(ErrorCode::Internal, "internal server error"),
        s => Error::new(ErrorCode::Validation, s.canonical_reason().unwrap_or("request failed")),
    }
}

bilingual! {
    /// The body of the error envelope.
    ErrorBody / ErroCorpo {
        /// Stable code (`VALIDATION_ERROR`; `ERRO_VALIDACAO` on the Portuguese routes).
        #[schema(example = "VALIDATION_ERROR")]
        code / codigo: &'static str => &'static str,
        /// Safe to show to a user.
        message / mensagem: String => String,
        /// Structured details (field, reason, id, ...).
        #[schema(value_type = Object)]
        details / detalhes: Map<String, Value> => Map<String, Value>,
        /// The request's id (also in the `X-Request-ID` header).
        request_id / id_requisicao: String => String,
        /// When the error happened (RFC 3339 UTC, milliseconds).
        timestamp / timestamp: String => String,
    }
}

bilingual! {
    /// The error envelope: `{error: {code, message, details, request_id, timestamp}}`, or
    /// `{erro: {codigo, mensagem, detalhes, id_requisicao, timestamp}}` on the Portuguese routes.
    ErrorEnvelope / ErroEnvelope {
        /// The error.
        error / erro: ErrorBody => ErroCorpo,
    }
}

/// The envelope body.
pub(crate) fn envelope(lang: Lang, e: &Error, request_id: &str) -> Value {
    envelope_at(lang, e, request_id, &Utc::now().to_rfc3339_opts(SecondsFormat::Millis, true))
}

/// The envelope body with a given timestamp (the document's examples use this too).
pub(crate) fn envelope_at(lang: Lang, e: &Error, request_id: &str, timestamp: &str) -> Value {
    let code = if lang == Lang::Pt { e.code.as_pt() } else { e.code.as_str() };
    let body = ErrorBody {
        code,
        message: e.message.clone(),
        details: e.details.clone(),
        request_id: request_id.to_string(),
        timestamp: timestamp.to_string(),
    };
    serde_json::to_value(localized(lang, ErrorEnvelope { error: body })).unwrap_or(Value::Null)
}
