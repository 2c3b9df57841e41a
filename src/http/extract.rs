//! Extractors that parse at the edge and fail with the spec's envelope: JSON bodies, required or
//! optional (with the path of the offending field), investigation ids, and the `Last-Event-ID` header.

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Path, Request};
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use super::error::ApiError;
use crate::domain::InvestigationId;
use crate::error::{Error, ErrorCode};

/// A JSON body; errors name the field (`filters.min_value`) and the reason.
pub struct ApiJson<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for ApiJson<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let bytes = read(req, state).await?;
        if bytes.is_empty() {
            return Err(ApiError(Error::validation("body", "a JSON body is required")));
        }
        parse(&bytes).map(ApiJson)
    }
}

/// A JSON body a route may omit (the spec says "none"): an empty body is `T::default()`.
pub struct OptionalJson<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned + Default> FromRequest<S> for OptionalJson<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let bytes = read(req, state).await?;
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(OptionalJson(T::default()));
        }
        parse(&bytes).map(OptionalJson)
    }
}

async fn read<S: Send + Sync>(req: Request, state: &S) -> Result<Bytes, ApiError> {
    Bytes::from_request(req, state).await.map_err(|rejection| {
        if rejection.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
            ApiError(Error::new(ErrorCode::PayloadTooLarge, "request body is too large"))
        } else {
            ApiError(Error::validation("body", "could not read the request body"))
        }
    })
}

/// Parses a JSON body; errors name the field and the reason.
fn parse<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    let de = &mut serde_json::Deserializer::from_slice(bytes);
    serde_path_to_error::deserialize(de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let root = path == "." || path.is_empty();
        // serde reports a missing field at its parent: name the field itself.
        let field = match (missing_field(&inner.to_string()), root) {
            (Some(name), true) => name,
            (Some(name), false) => format!("{path}.{name}"),
            (None, true) => "body".to_string(),
            (None, false) => path,
        };
        let reason = if inner.is_syntax() || inner.is_eof() {
            format!("malformed JSON at line {} column {}", inner.line(), inner.column())
        } else {
            strip_position(&inner.to_string())
        };
        ApiError(Error::validation(&field, reason))
    })
}

/// The field of serde's "missing field `x`" message.
fn missing_field(msg: &str) -> Option<String> {
    let rest = msg.strip_prefix("missing field `")?;
    rest.split('`').next().filter(|f| !f.is_empty()).map(str::to_string)
}

/// serde's messages end with " at line L column C"; the field path says more.
fn strip_position(msg: &str) -> String {
    msg.split(" at line ").next().unwrap_or(msg).to_string()
}

/// An investigation id from the last path segment; not a UUID gives INVESTIGATION_NOT_FOUND.
pub struct InvId(pub InvestigationId);

impl<S: Send + Sync> FromRequestParts<S> for InvId {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let Path(raw) = Path::<String>::from_request_parts(parts, state)
            .await
            .map_err(|_| ApiError(Error::validation("investigation_id", "missing")))?;
        InvestigationId::parse(&raw).map(InvId).ok_or_else(|| {
            ApiError(
                Error::new(ErrorCode::InvestigationNotFound, format!("investigation {raw} not found"))
                    .with("id", raw)
                    .with("reason", "not a UUID"),
            )
        })
    }
}

/// The sequence number a client last saw (`Last-Event-ID`), 0 when absent or unparsable.
pub struct LastEventId(pub u64);

impl<S: Send + Sync> FromRequestParts<S> for LastEventId {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let id = parts
            .headers
            .get("last-event-id")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse().ok())
            .or_else(|| {
                parts.uri.query().and_then(|q| {
                    q.split('&').find_map(|kv| kv.strip_prefix("last_event_id=")).and_then(|v| v.parse().ok())
                })
            })
            .unwrap_or(0);
        Ok(LastEventId(id))
    }
}
