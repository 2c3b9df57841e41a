//! The schema and what every resolver shares: the services, the caller, and the mapping of
//! service errors to GraphQL errors whose `extensions.code` is the REST code.

use async_graphql::{Context, ErrorExtensions, Schema};

use super::mutation::Mutation;
use super::query::Query;
use super::subscription::Subscription;
use crate::config::GraphqlConfig;
use crate::domain::{InvestigationId, Principal};
use crate::error::{Error, ErrorCode};
use crate::runtime::ShutdownSignal;
use crate::service::Services;

/// The Vigia schema.
pub type VigiaSchema = Schema<Query, Mutation, Subscription>;

/// The caller of an operation, as the `authenticate` middleware (HTTP) or the connection's
/// `connection_init` payload (WebSocket) resolved it: nobody, a principal, or the error an
/// invalid credential gives (every operation is then refused with it, as REST refuses it).
#[derive(Clone)]
pub struct Viewer(pub Result<Option<Principal>, Error>);

/// The schema's data: the service facades and the server's shutdown (streams end with it).
#[derive(Clone)]
pub struct Shared {
    /// Service facades.
    pub services: Services,
    /// Flips when the server begins shutting down.
    pub shutdown: ShutdownSignal,
}

/// The schema with the configured depth and complexity limits and introspection switch.
pub fn build(shared: Shared, cfg: &GraphqlConfig) -> VigiaSchema {
    let builder = Schema::build(Query, Mutation, Subscription)
        .data(shared)
        .extension(super::refusals::SubscriptionAudit)
        .limit_depth(cfg.max_depth)
        .limit_complexity(cfg.max_complexity);
    if cfg.introspection_enabled { builder.finish() } else { builder.disable_introspection().finish() }
}

/// The schema that answers introspection queries when introspection is on: nothing but
/// introspection (other fields resolve to null), twice the depth limit, because the IDEs'
/// standard introspection query nests its type references 13 levels deep.
pub fn build_introspection(shared: Shared, cfg: &GraphqlConfig) -> VigiaSchema {
    Schema::build(Query, Mutation, Subscription)
        .data(shared)
        .introspection_only()
        .limit_depth(cfg.max_depth.saturating_mul(2))
        .limit_complexity(cfg.max_complexity)
        .finish()
}

/// A service error as a GraphQL error: the message, `extensions.code` (the REST code) and the
/// error's details under `extensions.details`.
pub fn gql_error(e: Error) -> async_graphql::Error {
    let details = (!e.details.is_empty())
        .then(|| async_graphql::Value::from_json(serde_json::Value::Object(e.details.clone())).ok())
        .flatten();
    async_graphql::Error::new(e.message).extend_with(|_, ext| {
        ext.set("code", e.code.as_str());
        if let Some(d) = details {
            ext.set("details", d);
        }
    })
}

/// `.gql()` on service results.
pub trait GqlResult<T> {
    /// The result with the error mapped by [`gql_error`].
    fn gql(self) -> async_graphql::Result<T>;
}

impl<T> GqlResult<T> for Result<T, Error> {
    fn gql(self) -> async_graphql::Result<T> {
        self.map_err(gql_error)
    }
}

/// The services.
pub fn services<'a>(ctx: &Context<'a>) -> &'a Services {
    &shared(ctx).services
}

/// The schema's shared data.
pub fn shared<'a>(ctx: &Context<'a>) -> &'a Shared {
    // Both schemas are built with `Shared` (see `build`), so it is always there.
    ctx.data_unchecked::<Shared>()
}

/// The caller, if any; an invalid credential is an error (UNAUTHORIZED, TOKEN_EXPIRED, ...).
pub fn viewer<'a>(ctx: &Context<'a>) -> async_graphql::Result<Option<&'a Principal>> {
    match ctx.data_opt::<Viewer>() {
        Some(Viewer(Ok(p))) => Ok(p.as_ref()),
        Some(Viewer(Err(e))) => Err(gql_error(e.clone())),
        None => Ok(None),
    }
}

/// The caller, who must be signed in (mutations).
pub fn signed_in<'a>(ctx: &Context<'a>) -> async_graphql::Result<&'a Principal> {
    viewer(ctx)?.ok_or_else(|| gql_error(crate::domain::user::unauthenticated()))
}

/// An investigation id argument; INVESTIGATION_NOT_FOUND when it is not a UUID (as REST).
pub fn investigation_id(raw: &str) -> async_graphql::Result<InvestigationId> {
    InvestigationId::parse(raw).ok_or_else(|| {
        gql_error(
            Error::new(ErrorCode::InvestigationNotFound, format!("investigation {raw} not found"))
                .with("id", raw)
                .with("reason", "not a UUID"),
        )
    })
}
