//! The OpenAPI 3 document of every route, and the pages that show it (`/docs`, `/redoc`).
//!
//! Routes are registered through [`ApiRouter`], which only accepts handlers annotated with
//! `#[utoipa::path]` (through `utoipa_axum::routes!`), so what the router serves and what the
//! document describes come from one registration and cannot drift. A handler served at a
//! second path (the Portuguese routes, `/metrics`) is registered again with
//! [`ApiRouter::alias`], which documents the same operation at that path.
//!
//! The annotations stay short; [`finish`] completes the document once: unique operation ids,
//! and each error response given the envelope of its route's language (English `error` or
//! Portuguese `erro`, as the envelope middleware chooses by path) with one example per code,
//! rendered by the same function that renders real errors.

mod document;
mod pages;
mod schemas;

use std::sync::OnceLock;

use axum::Router;
use serde_json::Value;
use utoipa::OpenApi;
use utoipa_axum::router::{OpenApiRouter, UtoipaMethodRouter};

use self::schemas::Security;
use super::AppState;

pub use document::finish;
pub use pages::router;

/// Routes with their documentation: every route of the service is registered through one.
pub struct ApiRouter(OpenApiRouter<AppState>);

impl Default for ApiRouter {
    fn default() -> Self {
        ApiRouter(OpenApiRouter::with_openapi(ApiDoc::openapi()))
    }
}

impl ApiRouter {
    /// An empty router carrying the document's info, security schemes and envelopes.
    pub fn new() -> Self {
        Self::default()
    }

    /// Serves the handlers of `routes!(...)` at the paths their annotations name.
    pub fn routes(self, routes: UtoipaMethodRouter<AppState>) -> Self {
        ApiRouter(self.0.routes(routes))
    }

    /// Serves the handlers of `routes!(...)` also at `path` (one path's handlers per call),
    /// documenting the same operations there.
    pub fn alias(self, path: &str, (schemas, paths, method_router): UtoipaMethodRouter<AppState>) -> Self {
        let mut moved = utoipa::openapi::path::Paths::new();
        let mut items = paths.paths.into_values();
        if let Some(mut item) = items.next() {
            for next in items {
                item.merge_operations(next);
            }
            moved.paths.insert(path.to_string(), item);
        }
        ApiRouter(self.0.routes((schemas, moved, method_router)))
    }

    /// Adds another module's routes.
    pub fn merge(self, other: ApiRouter) -> Self {
        ApiRouter(self.0.merge(other.0))
    }

    /// The axum router and the finished document.
    pub fn split(self) -> (Router<AppState>, Value) {
        let (router, api) = self.0.split_for_parts();
        let mut doc = serde_json::to_value(&api).unwrap_or(Value::Null);
        finish(&mut doc);
        (router, doc)
    }
}

/// The document's info, security schemes and shared schemas; paths come from the routers.
#[derive(OpenApi)]
#[openapi(
    info(
        title = "Vigia",
        description = "Investigates Brazilian federal public spending and reports anomalies with evidence. \
            Routes under /api/v1/investigacoes and /api/v1/auth answer errors in the Portuguese envelope \
            (`erro`); every other route in the English one (`error`).",
        license(name = "MIT"),
    ),
    modifiers(&Security),
    components(schemas(
        super::error::ErrorEnvelope,
        super::error::ErrorBody,
        super::error::ErroEnvelope,
        super::error::ErroCorpo,
        // The Portuguese twins of the investigation views (the English ones come with the
        // routes); `finish` points the Portuguese routes at them.
        super::views::shapes::InvestigacaoIniciada,
        super::views::shapes::StatusInvestigacao,
        super::views::shapes::ResultadosInvestigacao,
        super::views::shapes::InvestigacaoCancelada,
        super::views::lists::PaginaInvestigacoes,
        super::views::lists::PaginaCursorInvestigacoes,
    )),
)]
struct ApiDoc;

/// The finished document of the whole service, built once from the same registration the
/// application serves.
pub fn document() -> &'static Value {
    static DOC: OnceLock<Value> = OnceLock::new();
    DOC.get_or_init(|| super::api_routes().split().1)
}
