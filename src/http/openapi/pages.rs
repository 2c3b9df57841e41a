//! The document and the pages that show it, all served from the binary: `/openapi.json` (also
//! `/api/v1/openapi.json`), Swagger UI at `/docs` (the files vendored by utoipa-swagger-ui)
//! and ReDoc at `/redoc` (`assets/redoc/redoc.standalone.js` from the npm package
//! `redoc@2.5.4`, committed). Nothing is fetched from another host, so the pages work offline.

use std::sync::{Arc, OnceLock};

use axum::Json;
use axum::extract::Path;
use axum::http::header::{CACHE_CONTROL, CONTENT_ENCODING, CONTENT_SECURITY_POLICY, CONTENT_TYPE};
use axum::http::{HeaderValue, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use serde_json::Value;
use utoipa_axum::routes;
use utoipa_swagger_ui::Config;

use super::{ApiRouter, document};

/// The ReDoc bundle (MIT, see `assets/redoc/LICENSE`).
static REDOC_JS: &[u8] = include_bytes!("../../../assets/redoc/redoc.standalone.js");

/// The ReDoc page. No inline script: the bundle renders the `<redoc>` element itself, so the
/// page runs under a policy that allows scripts from this origin only.
const REDOC_HTML: &str = r#"<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"/><title>Vigia API - ReDoc</title><link rel="icon" href="data:,"></head>
<body><redoc spec-url="/openapi.json"></redoc><script src="/redoc/redoc.standalone.js"></script></body>
</html>
"#;

/// ReDoc's styled components inject `<style>` and its search runs in a `blob:` worker; the
/// rest of the service keeps `default-src 'self'`.
const REDOC_CSP: &str =
    "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; worker-src 'self' blob:";

/// The document and page routes.
pub fn router() -> ApiRouter {
    ApiRouter::new()
        .routes(routes!(openapi_json))
        .alias("/api/v1/openapi.json", routes!(openapi_json))
        .routes(routes!(swagger_index))
        .routes(routes!(swagger_file))
        .routes(routes!(redoc_page))
        .routes(routes!(redoc_js))
}

/// The OpenAPI document (OpenAPI 3.1).
#[utoipa::path(get, path = "/openapi.json", tag = "docs",
    responses((status = 200, description = "The OpenAPI 3 document of every route", body = Object)))]
async fn openapi_json() -> Json<&'static Value> {
    Json(document())
}

/// Swagger UI.
#[utoipa::path(get, path = "/docs", tag = "docs",
    responses((status = 200, description = "Swagger UI page", content_type = "text/html", body = String)))]
async fn swagger_index() -> Response {
    swagger("index.html")
}

/// A Swagger UI file.
#[utoipa::path(get, path = "/docs/{file}", tag = "docs",
    params(("file" = String, Path, description = "A Swagger UI file, e.g. swagger-ui-bundle.js")),
    responses(
        (status = 200, description = "The file", content_type = "application/octet-stream", body = Vec<u8>),
        (status = 404, description = "RESOURCE_NOT_FOUND"),
    ))]
async fn swagger_file(Path(file): Path<String>) -> Response {
    swagger(&file)
}

fn swagger(file: &str) -> Response {
    static CONFIG: OnceLock<Arc<Config<'static>>> = OnceLock::new();
    let config = CONFIG.get_or_init(|| Arc::new(Config::new(["/openapi.json"]))).clone();
    match utoipa_swagger_ui::serve(file, config) {
        Ok(Some(f)) => {
            let mut resp = if file == "index.html" {
                // Trailing slashes are trimmed before routing, so the page lives at `/docs` and
                // its relative links would resolve against `/`: point them at `/docs/`.
                let html = String::from_utf8_lossy(&f.bytes)
                    .replace("href=\"./", "href=\"/docs/")
                    .replace("src=\"./", "src=\"/docs/")
                    .replace("href=\"index.css\"", "href=\"/docs/index.css\"");
                Html(html).into_response()
            } else {
                ([(CONTENT_TYPE, f.content_type)], f.bytes.into_owned()).into_response()
            };
            if f.gzpipped {
                resp.headers_mut().insert(CONTENT_ENCODING, HeaderValue::from_static("gzip"));
            }
            resp
        }
        Ok(None) => super::super::error::ApiError(crate::error::Error::new(
            crate::error::ErrorCode::ResourceNotFound,
            format!("no documentation file '{file}'"),
        ))
        .into_response(),
        Err(e) => {
            tracing::error!(error = %e, "serving a Swagger UI file");
            StatusCode::INTERNAL_SERVER_ERROR.into_response()
        }
    }
}

/// ReDoc.
#[utoipa::path(get, path = "/redoc", tag = "docs",
    responses((status = 200, description = "ReDoc page", content_type = "text/html", body = String)))]
async fn redoc_page() -> Response {
    ([(CONTENT_SECURITY_POLICY, REDOC_CSP)], Html(REDOC_HTML)).into_response()
}

/// The ReDoc bundle.
#[utoipa::path(get, path = "/redoc/redoc.standalone.js", tag = "docs",
    responses((status = 200, description = "ReDoc 2.5.4 standalone bundle", content_type = "text/javascript", body = String)))]
async fn redoc_js() -> Response {
    ([(CONTENT_TYPE, "text/javascript"), (CACHE_CONTROL, "public, max-age=86400")], REDOC_JS).into_response()
}
