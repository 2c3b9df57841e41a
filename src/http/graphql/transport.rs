//! The one handler of `/graphql`. A WebSocket upgrade (either subscription protocol) is served
//! as subscriptions; anything else is one query or mutation: the caller resolved by the
//! `authenticate` middleware, a persisted query filled in, an anonymous query answered from the
//! cache when an identical one was answered within 300 s, introspection sent to its own schema.
//! Errors without a code (parse errors, unknown fields, the depth and complexity limits) get
//! `VALIDATION_ERROR`. A mutation is answered once its changes are durable.

use std::sync::Arc;

use async_graphql::http::ALL_WEBSOCKET_PROTOCOLS;
use async_graphql::parser::types::OperationType;
use async_graphql::{Data, ErrorExtensions};
use async_graphql_axum::{GraphQLProtocol, GraphQLRequest, GraphQLWebSocket, rejection::GraphQLRejection};
use axum::extract::{FromRequest, FromRequestParts, Request, State, WebSocketUpgrade};
use axum::http::header::{CONTENT_TYPE, UPGRADE};
use axum::http::{HeaderMap, HeaderName, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use bytes::Bytes;

use super::Gql;
use super::cache::{ResponseCache, operation_type};
use super::refusals::{ConnectionAudit, label, refusal};
use super::schema::{Viewer, VigiaSchema, gql_error};
use crate::http::AppState;
use crate::http::auth_layer::{Caller, RefusedInBody, client_context, resolve};

static CACHE_HEADER: HeaderName = HeaderName::from_static("x-graphql-cache");

/// `/graphql`, GET and POST.
#[utoipa::path(method(get, post), path = "/graphql", tag = "graphql",
    params(("query" = Option<String>, Query, description = "GET: the operation"), ("variables" = Option<String>, Query, description = "GET: its variables as JSON")),
    request_body(content = GraphqlRequest, description = "`{query, variables, operationName, extensions}`; a WebSocket upgrade (graphql-transport-ws or graphql-ws) on GET runs subscriptions", content_type = "application/json"),
    responses((status = 200, description = "`{data, errors}`; every error carries `extensions.code` with the REST code", body = GraphqlAnswer),
        (status = 101, description = "WebSocket upgrade for subscriptions"), (status = 429, description = "RATE_LIMIT_EXCEEDED")),
    security((), ("bearer_jwt" = []), ("api_key" = [])))]
pub async fn graphql(State(st): State<AppState>, Extension(gql): Extension<Arc<Gql>>, req: Request) -> Response {
    let caller = req.extensions().get::<Caller>().map_or(Ok(None), |c| c.0.clone());
    if req.headers().get(UPGRADE).is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"websocket")) {
        return subscribe(st, gql, Viewer(caller), req).await;
    }
    let mut request = match GraphQLRequest::<GraphQLRejection>::from_request(req, &st).await {
        Ok(r) => r.into_inner(),
        Err(e) => return e.into_response(),
    };
    if let Err(e) = gql.persisted.resolve(&mut request) {
        return Json(async_graphql::Response::from_errors(vec![e])).into_response();
    }
    let cache_key = matches!(caller, Ok(None)).then(|| ResponseCache::key(&request)).flatten();
    if let Some(body) = cache_key.as_deref().and_then(|k| gql.cache.get(k)) {
        return json_body(body, "hit");
    }
    let ty = operation_type(&mut request);
    let mutation = ty == Some(OperationType::Mutation);
    let schema = schema_for(&gql, &request.query);
    let mut response = schema.execute(request.data(Viewer(caller))).await;
    label(&mut response);
    // `/graphql` is left alone by the `durable` middleware (a query stores nothing); a
    // mutation's changes are on disk before it is answered, as a REST change's are.
    if mutation && let Err(e) = st.services.durability.commit().await {
        response.errors.push(gql_error(e).into_server_error(async_graphql::Pos::default()));
    }
    let body = Bytes::from(serde_json::to_vec(&response).unwrap_or_default());
    let mut resp = match cache_key {
        Some(key) if ty == Some(OperationType::Query) && response.is_ok() => {
            gql.cache.put(key, body.clone());
            json_body(body, "miss")
        }
        _ => json_body(body, "none"),
    };
    if let Some(code) = refusal(&response) {
        resp.extensions_mut().insert(RefusedInBody(code));
    }
    resp
}

/// A GraphQL request as the document shows it (async-graphql's `Request` reads it).
#[derive(utoipa::ToSchema)]
#[schema(as = GraphqlRequest)]
#[allow(dead_code)] // documents the body: async-graphql's own type reads it
struct GraphqlRequest {
    /// The document (absent with a persisted query's hash).
    query: Option<String>,
    /// Its variables: whatever the operation declares.
    variables: Option<Object>,
    /// Which operation of the document to run.
    #[schema(rename = "operationName")]
    operation_name: Option<String>,
    /// `{persistedQuery: {version: 1, sha256Hash}}` (Apollo's protocol) and the like.
    extensions: Option<Object>,
}

/// A GraphQL answer as the document shows it (async-graphql's `Response` writes it).
#[derive(utoipa::ToSchema)]
#[allow(dead_code)] // documents the answer: async-graphql's own type writes it
struct GraphqlAnswer {
    /// The selection asked for, shaped like the query; null when it could not run.
    data: Option<Object>,
    /// What went wrong, if anything.
    errors: Option<Vec<GraphqlErrorDoc>>,
}

/// One error of a GraphQL answer.
#[derive(utoipa::ToSchema)]
#[schema(as = GraphqlError)]
#[allow(dead_code)] // documents the answer: async-graphql's own type writes it
struct GraphqlErrorDoc {
    /// What went wrong.
    message: String,
    /// Where in the document, when it is about the document.
    locations: Option<Vec<GraphqlLocation>>,
    /// The field's path in `data`: names and list indices.
    path: Option<Vec<serde_json::Value>>,
    /// The REST code and its details.
    extensions: Option<GraphqlErrorExtensions>,
}

/// `{line, column}` in the document.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)] // documents the answer: async-graphql's own type writes it
struct GraphqlLocation {
    line: usize,
    column: usize,
}

/// `{code, details?}` of an error.
#[derive(utoipa::ToSchema)]
#[allow(dead_code)] // documents the answer: async-graphql's own type writes it
struct GraphqlErrorExtensions {
    /// The REST code (`UNAUTHORIZED`, `VALIDATION_ERROR`, ...).
    code: String,
    /// The REST error's details, when it has any.
    details: Option<Object>,
}

/// A JSON object of any shape.
type Object = serde_json::Map<String, serde_json::Value>;

/// A JSON answer saying whether it came from the cache.
fn json_body(body: Bytes, cache: &'static str) -> Response {
    let mut resp = body.into_response();
    resp.headers_mut().insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    resp.headers_mut().insert(CACHE_HEADER.clone(), HeaderValue::from_static(cache));
    resp
}

/// The introspection schema for documents that ask for `__schema` or `__type` (when
/// introspection is on), the limited one otherwise.
fn schema_for<'a>(gql: &'a Gql, query: &str) -> &'a VigiaSchema {
    match gql.introspection() {
        Some(s) if introspects(query) => s,
        _ => gql.schema(),
    }
}

/// Whether a document names `__schema` or `__type` (not `__typename`).
fn introspects(query: &str) -> bool {
    ["__schema", "__type"].iter().any(|name| {
        query
            .match_indices(name)
            .any(|(i, _)| !query[i + name.len()..].chars().next().is_some_and(|c| c.is_alphanumeric() || c == '_'))
    })
}

/// Upgrades to a subscription connection. The caller is the one of the upgrade request's
/// headers, or the credentials of the `connection_init` payload (`Authorization` with a bearer
/// token, or `X-API-Key`, under any letter case), which browsers use since they cannot set
/// headers on a WebSocket. An invalid credential in the payload refuses the connection.
async fn subscribe(st: AppState, gql: Arc<Gql>, header_viewer: Viewer, req: Request) -> Response {
    let (mut parts, _) = req.into_parts();
    let protocol = match GraphQLProtocol::from_request_parts(&mut parts, &st).await {
        Ok(p) => p,
        Err(e) => return e.into_response(),
    };
    let upgrade = match WebSocketUpgrade::from_request_parts(&mut parts, &st).await {
        Ok(u) => u,
        Err(e) => return e.into_response(),
    };
    let schema = gql.schema().clone();
    let shutdown = st.shutdown.clone();
    let audit =
        ConnectionAudit { audit: st.services.audit.clone(), client: client_context(&parts.extensions, &parts.headers) };
    upgrade.protocols(ALL_WEBSOCKET_PROTOCOLS).on_upgrade(move |socket| async move {
        let connection = GraphQLWebSocket::new(socket, schema, protocol)
            .on_connection_init(move |payload| async move { connection_data(&st, payload, header_viewer, audit) })
            .serve();
        // The subscriptions' streams end at shutdown; the connection is closed with them.
        tokio::select! {
            _ = connection => {}
            _ = shutdown.wait() => {}
        }
    })
}

/// The data of a subscription connection: its caller, and what its refusals are audited with
/// (a bad credential in the payload is audited here, as it refuses the connection).
fn connection_data(
    st: &AppState,
    payload: serde_json::Value,
    header_viewer: Viewer,
    audit: ConnectionAudit,
) -> async_graphql::Result<Data> {
    let mut headers = HeaderMap::new();
    if let Some(fields) = payload.as_object() {
        for (name, value) in fields {
            let name = name.to_ascii_lowercase();
            let header = match name.as_str() {
                "authorization" | "authtoken" => "authorization",
                "x-api-key" | "apikey" => "x-api-key",
                _ => continue,
            };
            let Some(text) = value.as_str() else { continue };
            // `authToken` carries the bare token; `Authorization` the whole header value.
            let text = if name == "authtoken" && !text.contains(' ') { format!("Bearer {text}") } else { text.into() };
            if let Ok(v) = HeaderValue::from_str(&text) {
                headers.insert(header, v);
            }
        }
    }
    let viewer = if headers.is_empty() {
        header_viewer
    } else {
        let resolved = resolve(st, &headers);
        if let Err(e) = &resolved {
            audit.record(e.code, None, None);
            return Err(gql_error(e.clone()).extend());
        }
        Viewer(resolved)
    };
    let mut data = Data::default();
    data.insert(viewer);
    data.insert(audit);
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::introspects;

    #[test]
    fn introspection_is_recognised_by_schema_and_type_but_not_typename() {
        assert!(introspects("{ __schema { types { name } } }"));
        assert!(introspects("{ __type(name: \"Query\") { name } }"));
        assert!(!introspects("{ me { __typename } }"));
    }
}
