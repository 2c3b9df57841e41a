//! No operation answers (2xx) or takes a body the document describes as a bare object: every
//! object in a success response or a request body, however deep, names its properties (or the
//! type of its map's values), except the few that are free-form by nature, allowed below.

use std::collections::HashSet;

use serde_json::Value;

use super::conform::resolve;
use super::operations;
use crate::helpers::spawn_app;

/// What is free-form on purpose, each with why: a property (`Schema.field`, or a field name
/// wherever it is), or a whole operation (`method path`).
const FREE_FORM: &[(&str, &str)] = &[
    ("technical_details", "an engine finding's figures: each detector reports its own measurements"),
    ("detalhes_tecnicos", "the same figures on the Portuguese routes"),
    ("AuditView.details", "what an audited action records differs per action (ids, codes, counts)"),
    ("Detailed.components", "each component of the detailed health check reports its own figures"),
    ("DetectRequest.records[]", "the portal's records of any kind, recognised by their fields"),
    ("GraphqlRequest.variables", "a GraphQL operation's variables are whatever it declares"),
    ("GraphqlRequest.extensions", "client extensions (persisted queries and any a client adds)"),
    ("GraphqlAnswer.data", "a GraphQL answer's data is shaped by its query"),
    ("GraphqlErrorExtensions.details", "the REST error's details, which differ per code"),
    ("get /openapi.json", "the OpenAPI document itself"),
    ("get /api/v1/openapi.json", "the OpenAPI document itself"),
];

/// Whether `at` is allowed to be free-form.
fn free_form(at: &str) -> bool {
    FREE_FORM.iter().any(|(e, _)| {
        at == *e
            || at.ends_with(&format!(".{e}"))
            || at.ends_with(&format!(".{e}[]"))
            || at.starts_with(&format!("{e} "))
    })
}

/// Whether `schema` is an object with nothing said of its contents.
fn bare(schema: &Value) -> bool {
    let Some(o) = schema.as_object() else { return false };
    let object =
        schema["type"] == "object" || schema["type"].as_array().is_some_and(|t| t.iter().any(|t| t == "object"));
    let structured = ["properties", "allOf", "oneOf", "anyOf", "$ref", "items"].iter().any(|k| o.contains_key(*k))
        || schema["additionalProperties"].as_object().is_some_and(|a| !a.is_empty())
        || schema["additionalProperties"] == false;
    object && !structured
}

/// Every bare object reachable from `schema`, named by where it is (`at`).
fn walk(doc: &Value, schema: &Value, at: &str, seen: &mut HashSet<String>, out: &mut Vec<String>) {
    if let Some(r) = schema["$ref"].as_str() {
        if seen.insert(r.to_string()) {
            let name = r.rsplit('/').next().unwrap_or(r);
            if let Some(target) = resolve(doc, r) {
                walk(doc, target, name, seen, out);
            }
        }
        return;
    }
    if bare(schema) && !free_form(at) {
        out.push(at.to_string());
    }
    for (name, property) in schema["properties"].as_object().into_iter().flatten() {
        walk(doc, property, &format!("{at}.{name}"), seen, out);
    }
    for key in ["allOf", "oneOf", "anyOf"] {
        for part in schema[key].as_array().into_iter().flatten() {
            walk(doc, part, at, seen, out);
        }
    }
    for key in ["items", "additionalProperties"] {
        if schema[key].is_object() {
            walk(doc, &schema[key], &format!("{at}[]"), seen, out);
        }
    }
}

#[tokio::test]
async fn no_success_answer_or_request_body_is_documented_as_a_bare_object() {
    let app = spawn_app().await;
    let doc: Value = app.get("/openapi.json").await.json().await.unwrap();
    let mut found = Vec::new();
    let mut seen = HashSet::new();
    for (method, path, op) in operations(&doc) {
        let at = format!("{method} {path}");
        let mut bodies: Vec<(String, &Value)> = Vec::new();
        for (status, response) in op["responses"].as_object().into_iter().flatten() {
            if status.starts_with('2') {
                for (ty, content) in response["content"].as_object().into_iter().flatten() {
                    bodies.push((format!("{at} {status} {ty}"), &content["schema"]));
                }
            }
        }
        for (ty, content) in op["requestBody"]["content"].as_object().into_iter().flatten() {
            bodies.push((format!("{at} body {ty}"), &content["schema"]));
        }
        for (where_, schema) in bodies {
            let before = found.len();
            walk(&doc, schema, &where_, &mut seen, &mut found);
            // A schema reached before was checked then; a bare one inline is named here.
            if found.len() == before && bare(schema) && !free_form(&where_) {
                found.push(where_);
            }
        }
    }
    found.sort();
    found.dedup();
    assert!(
        found.is_empty(),
        "documented as a bare object (type it, or allow it in FREE_FORM with why):\n{}",
        found.join("\n")
    );
}
