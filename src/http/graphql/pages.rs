//! The pages beside `/graphql`: the playground (GraphQL Playground 1.7.28, MIT, its script,
//! stylesheet and icon built into the binary, so it works with no network; off with
//! `GRAPHQL_PLAYGROUND_ENABLED=false`), the endpoint's health (the schema answers a query) and
//! the example operations.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::header::{CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE};
use axum::http::{HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};

use super::Gql;
use crate::error::{Error, ErrorCode};
use crate::http::AppState;
use crate::http::auth_extract::MaybeAuthUser;
use crate::http::error::ApiError;

/// The playground's page: local assets only, no inline script.
const PAGE: &str = r#"<!DOCTYPE html>
<html>
<head>
  <meta charset="utf-8" />
  <meta name="viewport" content="user-scalable=no, initial-scale=1.0, minimum-scale=1.0, maximum-scale=1.0, minimal-ui" />
  <title>Vigia GraphQL Playground</title>
  <link rel="stylesheet" href="/graphql/playground/index.css" />
  <link rel="shortcut icon" href="/graphql/playground/favicon.png" />
  <script src="/graphql/playground/middleware.js"></script>
</head>
<body>
  <div id="root"></div>
  <script src="/graphql/playground/init.js"></script>
</body>
</html>
"#;

/// Starts the playground on `/graphql`, subscriptions on the same path.
const INIT: &str = r#"window.addEventListener('load', function () {
  var ws = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/graphql';
  GraphQLPlayground.init(document.getElementById('root'), {
    endpoint: '/graphql',
    subscriptionEndpoint: ws,
    settings: { 'request.credentials': 'same-origin', 'schema.polling.enable': false }
  });
});
"#;

/// The playground's script inserts its own styles and images from data URLs.
const PLAYGROUND_CSP: &str = "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; \
     font-src 'self' data:; connect-src 'self' ws: wss:";

/// The answer when the playground is switched off.
fn off() -> Response {
    ApiError::from(Error::new(
        ErrorCode::ResourceNotFound,
        "the playground is switched off (GRAPHQL_PLAYGROUND_ENABLED)",
    ))
    .into_response()
}

/// The page routes.
pub fn routes() -> crate::http::openapi::ApiRouter {
    use utoipa_axum::routes;
    crate::http::openapi::ApiRouter::new()
        .routes(routes!(playground))
        .routes(routes!(asset))
        .routes(routes!(health))
        .routes(routes!(examples))
}

/// `/graphql/playground` (404 when switched off).
#[utoipa::path(get, path = "/graphql/playground", tag = "graphql", responses((status = 200, description = "The GraphQL IDE, served with its files from the binary", content_type = "text/html"), (status = 404, description = "RESOURCE_NOT_FOUND")))]
pub async fn playground(Extension(gql): Extension<Arc<Gql>>) -> Response {
    if !gql.config.playground_enabled {
        return off();
    }
    let mut resp = ([(CONTENT_TYPE, "text/html; charset=utf-8")], PAGE).into_response();
    resp.headers_mut().insert(CONTENT_SECURITY_POLICY, HeaderValue::from_static(PLAYGROUND_CSP));
    resp
}

/// The playground's files.
#[utoipa::path(get, path = "/graphql/playground/{file}", tag = "graphql", params(("file" = String, Path, description = "middleware.js, index.css, favicon.png or init.js")), responses((status = 200, description = "The file"), (status = 404, description = "RESOURCE_NOT_FOUND")))]
pub async fn asset(Extension(gql): Extension<Arc<Gql>>, Path(name): Path<String>) -> Response {
    let (bytes, kind): (&'static [u8], &str) = match name.as_str() {
        "middleware.js" => (include_bytes!("assets/middleware.js"), "text/javascript; charset=utf-8"),
        "index.css" => (include_bytes!("assets/index.css"), "text/css; charset=utf-8"),
        "favicon.png" => (include_bytes!("assets/favicon.png"), "image/png"),
        "init.js" => (INIT.as_bytes(), "text/javascript; charset=utf-8"),
        _ => return ApiError::from(Error::new(ErrorCode::ResourceNotFound, "no such playground file")).into_response(),
    };
    if !gql.config.playground_enabled {
        return off();
    }
    ([(CONTENT_TYPE, kind), (CACHE_CONTROL, "public, max-age=86400")], bytes).into_response()
}

/// What `/graphql/health` answers.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct GraphqlHealth {
    /// healthy or unhealthy.
    pub status: &'static str,
    /// Where queries and mutations go.
    pub endpoint: &'static str,
    /// Where subscriptions go and over which protocols.
    pub subscriptions: SubscriptionsInfo,
    /// The depth and complexity limits in force.
    pub limits: GraphqlLimits,
    /// Whether introspection is answered.
    pub introspection_enabled: bool,
    /// Whether the playground is served.
    pub playground_enabled: bool,
    /// How long an anonymous query's answer is reused.
    pub anonymous_cache_ttl_secs: u64,
    /// Whether persisted queries are accepted.
    pub persisted_queries: bool,
}

/// Where subscriptions go (fields in alphabetical order, as the object they replaced wrote them).
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct SubscriptionsInfo {
    /// The WebSocket path.
    pub endpoint: &'static str,
    /// The protocols spoken there.
    pub protocols: [&'static str; 2],
}

/// The limits every operation is held to.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct GraphqlLimits {
    /// `GRAPHQL_MAX_COMPLEXITY`.
    pub max_complexity: usize,
    /// `GRAPHQL_MAX_DEPTH`.
    pub max_depth: usize,
}

/// What `/graphql/examples` answers.
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct GraphqlExamples {
    /// Where to send them.
    pub endpoint: &'static str,
    /// The operations.
    pub examples: Vec<super::examples::Example>,
}

/// `/graphql/health`: the schema answers `{ __typename }`; the limits and switches in force.
#[utoipa::path(get, path = "/graphql/health", tag = "graphql", responses((status = 200, description = "Healthy, with the limits and switches in force", body = GraphqlHealth), (status = 503, description = "The schema did not answer", body = GraphqlHealth)))]
pub async fn health(Extension(gql): Extension<Arc<Gql>>) -> Response {
    let answer = gql.schema().execute("{ __typename }").await;
    let healthy = answer.is_ok();
    let body = GraphqlHealth {
        status: if healthy { "healthy" } else { "unhealthy" },
        endpoint: "/graphql",
        subscriptions: SubscriptionsInfo { endpoint: "/graphql", protocols: ["graphql-transport-ws", "graphql-ws"] },
        limits: GraphqlLimits { max_complexity: gql.config.max_complexity, max_depth: gql.config.max_depth },
        introspection_enabled: gql.config.introspection_enabled,
        playground_enabled: gql.config.playground_enabled,
        anonymous_cache_ttl_secs: super::CACHE_TTL.as_secs(),
        persisted_queries: true,
    };
    let status = if healthy { StatusCode::OK } else { StatusCode::SERVICE_UNAVAILABLE };
    (status, Json(body)).into_response()
}

/// `/graphql/examples`: example operations, the ids they need filled in with the caller's
/// newest investigations.
#[utoipa::path(get, path = "/graphql/examples", tag = "graphql", responses((status = 200, description = "`{endpoint, examples}`: operations ready to send", body = GraphqlExamples)), security((), ("bearer_jwt" = []), ("api_key" = [])))]
pub async fn examples(State(st): State<AppState>, MaybeAuthUser(who): MaybeAuthUser) -> Result<Response, ApiError> {
    let examples = super::examples::list(&st.services.investigations, who.as_ref())?;
    Ok(Json(GraphqlExamples { endpoint: "/graphql", examples }).into_response())
}
