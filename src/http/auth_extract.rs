//! Extractors for who is calling, reading what the `authenticate` middleware resolved:
//! [`MaybeAuthUser`] (optional, but a bad credential is still refused), [`AuthUser`]
//! (UNAUTHORIZED without credentials), [`AdminUser`] (admin role in the token and the admin
//! flag in the store, and a whitelisted address when the whitelist is on), and [`Client`]
//! (address, user agent, request id for audit records and sessions). Permission checks are
//! `Principal::require`.

use std::convert::Infallible;

use axum::extract::FromRequestParts;
use axum::http::request::Parts;

use super::AppState;
use super::auth_layer::{Caller, client_context, peer_ip};
use super::error::ApiError;
use crate::domain::user::{forbidden, unauthenticated};
use crate::domain::{ClientContext, Principal};

/// The caller if credentials were sent; a bad credential is rejected.
pub struct MaybeAuthUser(pub Option<Principal>);

impl<S: Send + Sync> FromRequestParts<S> for MaybeAuthUser {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        match parts.extensions.get::<Caller>() {
            Some(Caller(Ok(p))) => Ok(MaybeAuthUser(p.clone())),
            Some(Caller(Err(e))) => Err(ApiError(e.clone())),
            None => Ok(MaybeAuthUser(None)),
        }
    }
}

/// An authenticated caller.
pub struct AuthUser(pub Principal);

impl<S: Send + Sync> FromRequestParts<S> for AuthUser {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let MaybeAuthUser(p) = MaybeAuthUser::from_request_parts(parts, state).await?;
        p.map(AuthUser).ok_or_else(|| ApiError(unauthenticated()))
    }
}

/// An administrator calling from an allowed address.
pub struct AdminUser(pub Principal);

impl FromRequestParts<AppState> for AdminUser {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, Self::Rejection> {
        let AuthUser(p) = AuthUser::from_request_parts(parts, state).await?;
        if !p.is_admin() {
            return Err(ApiError(forbidden("administrators only")));
        }
        state.services.whitelist.authorize(peer_ip(&parts.extensions))?;
        Ok(AdminUser(p))
    }
}

/// Address, user agent and request id of the request.
pub struct Client(pub ClientContext);

impl<S: Send + Sync> FromRequestParts<S> for Client {
    type Rejection = Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        Ok(Client(client_context(&parts.extensions, &parts.headers)))
    }
}
