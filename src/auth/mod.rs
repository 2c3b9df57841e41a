//! Authentication building blocks, free of storage and transport: RS256 keys and claims
//! ([`keys`]), password hashing ([`password`]), the failed-login schedule ([`lockout`]), TOTP
//! and backup codes ([`mfa`]), random secrets and their digests ([`secret`]), the cache of
//! verified tokens ([`verified`]) and the tiered request rate limiter ([`ratelimit`]).
//! `service::auth` combines them with the store.
//!
//! jsonwebtoken lives here and nowhere else.

pub mod keys;
pub mod lockout;
pub mod mfa;
pub mod password;
pub mod ratelimit;
pub mod secret;
pub mod verified;

pub use keys::{Claims, JwtKeys, TokenKind};

use crate::error::{Error, ErrorCode};

/// Authentication failures of this layer. Messages never contain a token, password, TOTP
/// secret or key material.
#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    /// The token's signature and issuer are good but it expired; its claims are kept so the
    /// caller can say whether the session may still be renewed.
    #[error("token expired at {}", .0.exp)]
    Expired(Box<Claims>),
    /// Malformed, wrong algorithm, bad signature, wrong issuer, wrong kind or revoked.
    #[error("invalid token: {0}")]
    Invalid(String),
    /// The key pair could not be generated, read or written.
    #[error("signing keys: {0}")]
    Keys(String),
    /// Password hashing failed (not a wrong password: that is a `false` from `verify`).
    #[error("password hashing: {0}")]
    Hash(String),
    /// The TOTP secret or QR code could not be built.
    #[error("totp: {0}")]
    Totp(String),
}

impl From<AuthError> for Error {
    fn from(e: AuthError) -> Self {
        match e {
            AuthError::Expired(claims) => {
                Error::new(ErrorCode::TokenExpired, "the access token expired; renew it with the refresh token")
                    .with("expirou_em", keys::rfc3339(claims.exp))
            }
            AuthError::Invalid(reason) => crate::domain::user::invalid_token(reason),
            other => Error::internal(other),
        }
    }
}
