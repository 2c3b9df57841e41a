//! Refusals in GraphQL answers: every error gets a code (`VALIDATION_ERROR` when async-graphql
//! gave none: parse errors, unknown fields, the limits), and a refusal is audited as REST's
//! are. Over HTTP the `authenticate` middleware audits it (see [`refusal`]); on a subscription
//! connection, where no HTTP response carries it, the [`SubscriptionAudit`] extension does: no
//! or bad credentials (`unauthorized_access`), no permission, such as an investigation the
//! caller does not own (`forbidden_access`), a depth or complexity limit exceeded
//! (`limit_exceeded`), and a `connection_init` with a bad credential ([`ConnectionAudit`]).

use std::sync::Arc;

use async_graphql::extensions::{Extension, ExtensionContext, ExtensionFactory, NextSubscribe};
use async_graphql::{Response, ServerError};
use futures::StreamExt;
use futures::stream::BoxStream;

use super::schema::Viewer;
use crate::domain::{AuditEntry, ClientContext, Outcome, Principal};
use crate::error::ErrorCode;
use crate::http::auth_layer::refusal_action;
use crate::service::AuditService;

/// async-graphql's messages for the depth and complexity limits (`validation/mod.rs`), the
/// only way its errors tell them apart from other validation errors.
const LIMITS: [(&str, &str); 2] = [("Query is nested too deep.", "depth"), ("Query is too complex.", "complexity")];

/// Gives every error without a code `VALIDATION_ERROR`.
pub fn label(response: &mut Response) {
    for e in &mut response.errors {
        if e.extensions.as_ref().is_none_or(|x| x.get("code").is_none()) {
            e.extensions.get_or_insert_with(Default::default).set("code", "VALIDATION_ERROR");
        }
    }
}

fn code(e: &ServerError) -> Option<ErrorCode> {
    match e.extensions.as_ref()?.get("code")? {
        async_graphql::Value::String(s) => ErrorCode::parse(s),
        _ => None,
    }
}

/// The first refusal among an answer's errors (no or bad credentials, no permission), which
/// the audit trail records as it records REST's 401 and 403.
pub fn refusal(response: &Response) -> Option<ErrorCode> {
    response.errors.iter().filter_map(code).find(|c| refusal_action(*c).is_some())
}

/// The limit an answer's errors say was exceeded (`depth` or `complexity`).
fn limit(response: &Response) -> Option<&'static str> {
    response.errors.iter().find_map(|e| LIMITS.iter().find(|(m, _)| e.message == *m).map(|(_, l)| *l))
}

/// What a subscription connection audits with: the trail and where the connection came from.
#[derive(Clone)]
pub struct ConnectionAudit {
    /// The audit trail.
    pub audit: Arc<AuditService>,
    /// The upgrade request's address, user agent and request id.
    pub client: ClientContext,
}

impl ConnectionAudit {
    /// Records a refusal with `code` (a limit's when `limit` names it) of `who`'s operation.
    pub fn record(&self, code: ErrorCode, limit: Option<&str>, who: Option<&Principal>) {
        let (action, outcome) = match limit {
            Some(_) => ("limit_exceeded", Outcome::Denied),
            None => match refusal_action(code) {
                Some(refused) => refused,
                None => return,
            },
        };
        let mut entry = AuditEntry::new(action, outcome, &self.client)
            .actor(who.map(|p| p.user_id), who.map(|p| p.email.as_str()))
            .detail("path", "/graphql")
            .detail("transport", "websocket")
            .detail("code", code.as_str());
        if let Some(limit) = limit {
            entry = entry.detail("limit", limit);
        }
        self.audit.record(entry);
    }

    /// Labels an answer on the connection and audits it if it is a refusal.
    fn answer(&self, response: &mut Response, who: Option<&Principal>) {
        label(response);
        if let Some(which) = limit(response) {
            self.record(ErrorCode::Validation, Some(which), who);
        } else if let Some(code) = refusal(response) {
            self.record(code, None, who);
        }
    }
}

/// The schema extension that audits refusals on subscription connections (their connection
/// data carries a [`ConnectionAudit`]; operations over HTTP have none and pass untouched).
pub struct SubscriptionAudit;

impl ExtensionFactory for SubscriptionAudit {
    fn create(&self) -> Arc<dyn Extension> {
        Arc::new(SubscriptionAudit)
    }
}

impl Extension for SubscriptionAudit {
    fn subscribe<'s>(
        &self,
        ctx: &ExtensionContext<'_>,
        stream: BoxStream<'s, Response>,
        next: NextSubscribe<'_>,
    ) -> BoxStream<'s, Response> {
        let stream = next.run(ctx, stream);
        let Some(audit) = ctx.data_opt::<ConnectionAudit>().cloned() else { return stream };
        let who = match ctx.data_opt::<Viewer>() {
            Some(Viewer(Ok(Some(p)))) => Some(p.clone()),
            _ => None,
        };
        stream
            .map(move |mut response| {
                audit.answer(&mut response, who.as_ref());
                response
            })
            .boxed()
    }
}
