//! The OpenAPI document and its pages: the document validates as OpenAPI 3 (every operation
//! answers something, every `$ref` resolves, every error response carries its route's
//! envelope with an example per code), every route the router serves is in it and every
//! operation in it is served, and `/docs` and `/redoc` load from this server alone.

use std::collections::{BTreeSet, HashSet};
use std::path::Path;

use serde_json::Value;

use self::conform::{conforms, refs, resolve};
use crate::helpers::spawn_app;

mod answers;
mod bare;
mod conform;

const METHODS: [&str; 8] = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

fn operations(doc: &Value) -> Vec<(String, String, Value)> {
    let mut out = Vec::new();
    for (path, item) in doc["paths"].as_object().expect("paths is an object") {
        for m in METHODS {
            if let Some(op) = item.get(m) {
                out.push((m.to_string(), path.clone(), op.clone()));
            }
        }
    }
    out
}

fn portuguese(path: &str) -> bool {
    path.starts_with("/api/v1/investigacoes") || path.starts_with("/api/v1/auth")
}

#[tokio::test]
async fn the_document_validates_as_openapi_3_with_resolvable_refs_and_envelopes_per_operation() {
    let app = spawn_app().await;
    let r = app.get("/openapi.json").await;
    assert_eq!(r.status(), 200);
    let doc: Value = r.json().await.unwrap();
    assert!(doc["openapi"].as_str().is_some_and(|v| v.starts_with("3.")), "openapi version: {}", doc["openapi"]);
    assert_eq!(doc["info"]["title"], "Vigia");
    assert!(doc["info"]["version"].as_str().is_some_and(|v| !v.is_empty()));
    let schemes = doc["components"]["securitySchemes"].as_object().expect("security schemes");
    assert_eq!(schemes["bearer_jwt"]["scheme"], "bearer");
    assert_eq!(schemes["api_key"]["in"], "header");
    assert_eq!(schemes["api_key"]["name"], "X-API-Key");

    let ops = operations(&doc);
    assert!(ops.len() > 80, "{} operations", ops.len());
    let mut ids = HashSet::new();
    for (method, path, op) in &ops {
        let at = format!("{method} {path}");
        assert!(ids.insert(op["operationId"].as_str().expect("operationId").to_string()), "duplicate id at {at}");
        let responses = op["responses"].as_object().unwrap_or_else(|| panic!("no responses at {at}"));
        assert!(responses.keys().any(|s| s.starts_with('2') || s == "101"), "no success response at {at}");
        assert!(responses.contains_key("500"), "no 500 at {at}");
        for scheme in
            op["security"].as_array().into_iter().flatten().filter_map(Value::as_object).flat_map(|o| o.keys())
        {
            assert!(schemes.contains_key(scheme), "unknown security scheme {scheme} at {at}");
        }
        let (envelope, key) = if portuguese(path) { ("ErroEnvelope", "erro") } else { ("ErrorEnvelope", "error") };
        for (status, response) in responses.iter().filter(|(s, _)| s.starts_with('4') || s.starts_with('5')) {
            // Either the route's envelope with an example per code, or a body of its own (the
            // health probes, the service's and GraphQL's, answer 503 with their report); an
            // unknown code in the annotation leaves neither.
            let content = &response["content"]["application/json"];
            assert!(content["schema"].is_object(), "no body: {status} {at}");
            let schema = content["schema"]["$ref"].as_str().unwrap_or_default();
            if schema.ends_with("Envelope") {
                assert_eq!(schema, format!("#/components/schemas/{envelope}"), "{status} at {at}");
                let examples = content["examples"].as_object().unwrap_or_else(|| panic!("no examples: {status} {at}"));
                assert!(!examples.is_empty());
                for example in examples.values() {
                    assert!(example["value"][key]["timestamp"].is_string(), "{status} at {at}: {example}");
                }
            } else {
                let probe = path.starts_with("/health") || path == "/graphql/health";
                assert!(probe, "{status} at {at} answers {}, not an envelope", content["schema"]);
            }
        }
    }
    let mut all = Vec::new();
    refs(&doc, &mut all);
    assert!(!all.is_empty());
    for r in all {
        assert!(r.starts_with("#/components/"), "external ref {r}");
        assert!(resolve(&doc, &r).is_some(), "dangling ref {r}");
    }
    for schema in ["ErrorEnvelope", "ErroEnvelope", "InvestigationRequest", "TokensView", "Health"] {
        assert!(doc["components"]["schemas"].get(schema).is_some(), "schema {schema}");
    }
    let start = &doc["paths"]["/api/v1/investigations/start"]["post"];
    assert!(start["requestBody"]["content"]["application/json"]["schema"]["$ref"].is_string());
    assert!(doc["components"]["schemas"]["InvestigationRequest"]["example"].is_object());
    // The Portuguese route of the same handler answers its errors in the Portuguese envelope.
    let pt = &doc["paths"]["/api/v1/investigacoes/{id}/status"]["get"]["responses"]["404"];
    assert_eq!(pt["description"], "INVESTIGACAO_NAO_ENCONTRADA");
    assert_eq!(
        pt["content"]["application/json"]["examples"]["INVESTIGACAO_NAO_ENCONTRADA"]["value"]["erro"]["codigo"],
        "INVESTIGACAO_NAO_ENCONTRADA"
    );
    let same: Value = app.get("/api/v1/openapi.json").await.json().await.unwrap();
    assert_eq!(same, doc);
}

/// Route registrations that bypass `ApiRouter` (and so the document) anywhere in `src/`.
fn unregistered_routes(dir: &Path, out: &mut Vec<String>) {
    const BYPASS: [&str; 7] =
        [".route(", ".route_service(", ".nest(", ".nest_service(", ".fallback_service(", "Router::new()", "Router::<"];
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "openapi") {
                unregistered_routes(&path, out);
            }
            continue;
        }
        // Unit tests' stand-in upstreams (`*_tests.rs`, `tests.rs`) serve no route of the service.
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let test_module = name.ends_with("_tests.rs") || name == "tests.rs";
        if path.extension().is_none_or(|e| e != "rs") || path.ends_with("http/openapi.rs") || test_module {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        // Only axum's routers serve routes (`senna.route(...)` in the services routes questions).
        if !text.contains("axum") {
            continue;
        }
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            let hit = BYPASS
                .iter()
                .any(|b| code.match_indices(b).any(|(i, _)| !(b.starts_with("Router") && code[..i].ends_with("Api"))));
            if hit {
                out.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
            }
        }
    }
}

#[test]
fn every_route_the_router_serves_goes_through_the_documented_registration() {
    let mut found = Vec::new();
    unregistered_routes(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut found);
    assert!(
        found.is_empty(),
        "routes registered outside ApiRouter (annotate the handler with #[utoipa::path] and register it \
         with ApiRouter::routes(routes!(..)) or ::alias; see docs/ARCHITECTURE.md):\n{}",
        found.join("\n")
    );
}

/// A value for a path parameter that routes (the handler may still refuse it).
fn sample(param: &str) -> &'static str {
    match param {
        "ip" => "10.1.2.3",
        "file" | "asset" => "index.css",
        "agent_name" => "zumbi",
        _ => "0193a1f2-7c4e-7d3a-9b1e-2f6c8d4e5a10",
    }
}

#[tokio::test]
async fn every_operation_in_the_document_is_served_by_the_router() {
    let app = spawn_app().await;
    let doc: Value = app.get("/openapi.json").await.json().await.unwrap();
    let client = reqwest::Client::new();
    let mut missing = BTreeSet::new();
    for (method, path, _) in operations(&doc) {
        let concrete: String = path
            .split('/')
            .map(|seg| match seg.strip_prefix('{').and_then(|s| s.strip_suffix('}')) {
                Some(p) => sample(p).to_string(),
                None => seg.to_string(),
            })
            .collect::<Vec<_>>()
            .join("/");
        let m = reqwest::Method::from_bytes(method.to_uppercase().as_bytes()).unwrap();
        let r = client.request(m, app.url(&concrete)).send().await.unwrap();
        let status = r.status().as_u16();
        let body: Value = if path.ends_with("/stream") || path.contains("/stream/") {
            Value::Null
        } else {
            r.json().await.unwrap_or(Value::Null)
        };
        let code = body["error"]["code"].as_str().or(body["erro"]["codigo"].as_str()).unwrap_or_default();
        if status == 405 || ["ROUTE_NOT_FOUND", "ROTA_NAO_ENCONTRADA"].contains(&code) {
            missing.insert(format!("{method} {path} -> {status} {code}"));
        }
    }
    assert!(missing.is_empty(), "documented but not served: {missing:#?}");
    // And a path in no route is still refused, so the check above can fail.
    assert_eq!(app.get("/api/v1/nowhere").await.status(), 404);
}

/// Every `src="..."` and `href="..."` of a page.
fn links(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    for attr in ["src=\"", "href=\""] {
        for (i, _) in html.match_indices(attr) {
            let rest = &html[i + attr.len()..];
            out.push(rest[..rest.find('"').unwrap_or(rest.len())].to_string());
        }
    }
    out
}

async fn page_loads_from_this_server_alone(path: &str, expected_assets: usize) -> reqwest::header::HeaderMap {
    let app = spawn_app().await;
    let r = app.get(path).await;
    assert_eq!(r.status(), 200, "{path}");
    let headers = r.headers().clone();
    assert!(headers["content-type"].to_str().unwrap().starts_with("text/html"));
    let html = r.text().await.unwrap();
    assert!(!html.contains("http://") && !html.contains("https://"), "{path} names another host:\n{html}");
    let assets: Vec<String> = links(&html).into_iter().filter(|l| !l.starts_with("data:")).collect();
    assert_eq!(assets.len(), expected_assets, "{path}: {assets:?}");
    for asset in assets {
        assert!(asset.starts_with('/') && !asset.starts_with("//"), "{path} links {asset} off this server");
        let r = app.get(&asset).await;
        assert_eq!(r.status(), 200, "{asset}");
        assert!(!r.bytes().await.unwrap().is_empty(), "{asset} is empty");
    }
    headers
}

#[tokio::test]
async fn swagger_ui_at_docs_loads_only_assets_of_this_server_and_reads_the_document_here() {
    // Stylesheets, two icons and three scripts.
    let headers = page_loads_from_this_server_alone("/docs", 7).await;
    assert_eq!(headers["content-security-policy"], "default-src 'self'");
    let app = spawn_app().await;
    let init = app.get("/docs/swagger-initializer.js").await.text().await.unwrap();
    assert!(init.contains("\"/openapi.json\""), "{init}");
    assert!(!init.contains("petstore"), "{init}");
    assert_eq!(app.get("/docs/no-such-file.js").await.status(), 404);
}

#[tokio::test]
async fn redoc_at_redoc_loads_its_committed_bundle_from_this_server() {
    let headers = page_loads_from_this_server_alone("/redoc", 1).await;
    let csp = headers["content-security-policy"].to_str().unwrap();
    assert!(csp.starts_with("default-src 'self'") && !csp.contains("http"), "{csp}");
    let app = spawn_app().await;
    let r = app.get("/redoc/redoc.standalone.js").await;
    assert_eq!(r.headers()["content-type"], "text/javascript");
    assert_eq!(r.bytes().await.unwrap().len(), 1_103_471, "redoc@2.5.4 bundles/redoc.standalone.js");
}

/// The schema the document gives the success response of `method path`.
fn success_schema<'a>(doc: &'a Value, method: &str, path: &str) -> &'a Value {
    let responses = &doc["paths"][path][method]["responses"];
    let ok = ["200", "201"].iter().find_map(|s| responses.get(*s)).unwrap_or_else(|| panic!("{method} {path}"));
    &ok["content"]["application/json"]["schema"]
}

#[tokio::test]
async fn investigation_answers_in_both_languages_have_the_documented_shapes() {
    let app = spawn_app().await;
    let doc: Value = app.get("/openapi.json").await.json().await.unwrap();
    let body = serde_json::json!({"query": "contratos da saúde", "data_source": "portal_transparencia",
        "include_explanations": true});
    let r = app.post_signed("/api/v1/investigations/start", &body).await;
    assert_eq!(r.status(), 201);
    let started: Value = r.json().await.unwrap();
    conforms(&doc, success_schema(&doc, "post", "/api/v1/investigations/start"), &started, "start").unwrap();
    let id = started["investigation_id"].as_str().unwrap().to_string();
    app.wait_done(&id).await;
    let r = app.post_signed("/api/v1/investigacoes/iniciar", &body).await;
    let iniciada: Value = r.json().await.unwrap();
    let pt_start = success_schema(&doc, "post", "/api/v1/investigacoes/iniciar");
    assert_eq!(pt_start["$ref"], "#/components/schemas/InvestigacaoIniciada");
    conforms(&doc, pt_start, &iniciada, "iniciar").unwrap();
    for (en, pt) in [
        ("/api/v1/investigations/{id}/status", "/api/v1/investigacoes/{id}/status"),
        ("/api/v1/investigations/{id}/results", "/api/v1/investigacoes/{id}/resultados"),
        ("/api/v1/investigations", "/api/v1/investigacoes"),
        ("/api/v1/investigations/paginated", "/api/v1/investigacoes/paginado"),
    ] {
        for path in [en, pt] {
            let answer: Value = app.get_signed(&path.replace("{id}", &id)).await.json().await.unwrap();
            conforms(&doc, success_schema(&doc, "get", path), &answer, path).unwrap();
        }
    }
}

#[tokio::test]
async fn every_get_route_answers_an_admin_with_the_documented_shape() {
    let app = spawn_app().await;
    let doc: Value = app.get("/openapi.json").await.json().await.unwrap();
    let id = app.start(serde_json::json!({"query": "contratos da saúde", "data_source": "portal_transparencia"})).await;
    app.wait_done(&id).await;
    let admin = app.admin_token().await;
    let mut checked = Vec::new();
    for (method, path, op) in operations(&doc) {
        let schema = &op["responses"]["200"]["content"]["application/json"]["schema"];
        if method != "get" || schema.is_null() {
            continue;
        }
        let concrete = path.replace("{id}", &id).replace("{ip}", "127.0.0.1").replace("{file}", "index.css");
        let r = app.get_as(&concrete, &admin).await;
        let json = r.headers().get("content-type").is_some_and(|c| c.to_str().unwrap().starts_with("application/json"));
        if r.status() != 200 || !json {
            continue;
        }
        let answer: Value = r.json().await.unwrap();
        conforms(&doc, schema, &answer, &path).unwrap_or_else(|e| panic!("GET {path}: {e}\n{answer}"));
        checked.push(path);
    }
    assert!(checked.len() >= 40, "only {} GET routes answered 200 with JSON: {checked:?}", checked.len());
}

#[tokio::test]
async fn the_documented_examples_fit_their_schemas_and_the_start_example_starts_an_investigation() {
    let app = spawn_app().await;
    let doc: Value = app.get("/openapi.json").await.json().await.unwrap();
    let mut examples = 0;
    for (name, schema) in doc["components"]["schemas"].as_object().unwrap() {
        if let Some(example) = schema.get("example") {
            conforms(&doc, schema, example, name).unwrap();
            examples += 1;
        }
    }
    assert!(examples >= 5, "{examples} schema examples");
    let example = &doc["components"]["schemas"]["InvestigationRequest"]["example"];
    let r = app.post_signed("/api/v1/investigations/start", example).await;
    assert_eq!(r.status(), 201, "{}", r.text().await.unwrap());
}
