//! Completes the generated document: operation ids unique by method and path, and every
//! error response given its route's envelope, its codes in that language and one example per
//! code. Annotations name an error response's codes in its description (`"VALIDATION_ERROR,
//! INVESTIGATION_NOT_FOUND"`, English names); the codes every route shares (401 on routes
//! that take credentials, 429 where the rate limit applies, 500) are added here.

use serde_json::{Map, Value, json};

use crate::error::{Error, ErrorCode};
use crate::http::error::{Lang, envelope_at, status_of};
use crate::http::rate_limit::exempt;
use crate::http::views::shapes::SCHEMA_PAIRS;

const METHODS: [&str; 8] = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/// The request id the examples show.
const EXAMPLE_REQUEST_ID: &str = "0193a1f2-7c4e-7d3a-9b1e-2f6c8d4e5a10";
/// The instant the examples show.
const EXAMPLE_TIMESTAMP: &str = "2026-01-15T12:00:00.000Z";

/// Finishes `doc` (an OpenAPI document as JSON) in place.
pub fn finish(doc: &mut Value) {
    let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) else { return };
    for (path, item) in paths.iter_mut() {
        let lang = Lang::for_path(path);
        for method in METHODS {
            if let Some(op) = item.get_mut(method).and_then(Value::as_object_mut) {
                op.insert("operationId".into(), Value::String(operation_id(method, path)));
                shared_errors(path, op);
                if let Some(responses) = op.get_mut("responses").and_then(Value::as_object_mut) {
                    for (status, response) in responses.iter_mut() {
                        if status.starts_with('4') || status.starts_with('5') {
                            error_response(lang, response);
                        } else if lang == Lang::Pt {
                            portuguese_body(response);
                        }
                    }
                }
            }
        }
    }
}

/// Points a success response of a Portuguese route at the Portuguese twin of its body.
fn portuguese_body(response: &mut Value) {
    let Some(content) = response.get_mut("content").and_then(Value::as_object_mut) else { return };
    for media in content.values_mut() {
        let Some(reference) = media.pointer_mut("/schema/$ref") else { continue };
        let twin = SCHEMA_PAIRS
            .iter()
            .find(|(en, _)| reference.as_str() == Some(&format!("#/components/schemas/{en}")))
            .map(|(_, pt)| format!("#/components/schemas/{pt}"));
        if let Some(twin) = twin {
            *reference = Value::String(twin);
        }
    }
}

/// `get /api/v1/investigations/{id}` -> `get_api_v1_investigations_id`.
fn operation_id(method: &str, path: &str) -> String {
    let slug: String = path.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    let words: Vec<&str> = slug.split('_').filter(|w| !w.is_empty()).collect();
    if words.is_empty() { method.to_string() } else { format!("{method}_{}", words.join("_")) }
}

/// Adds the error codes every route of its kind can answer.
fn shared_errors(path: &str, op: &mut Map<String, Value>) {
    let takes_credentials = op.get("security").and_then(Value::as_array).is_some_and(|s| !s.is_empty());
    let mut shared = vec![ErrorCode::Internal];
    if takes_credentials {
        shared.extend([ErrorCode::Unauthorized, ErrorCode::TokenInvalid, ErrorCode::TokenExpired]);
    }
    if !exempt(path) {
        shared.push(ErrorCode::RateLimitExceeded);
    }
    let Some(responses) = op.entry("responses").or_insert_with(|| json!({})).as_object_mut() else { return };
    for code in shared {
        let status = status_of(code).as_u16().to_string();
        let entry = responses.entry(status).or_insert_with(|| json!({"description": ""}));
        let codes = codes_of(entry);
        if !codes.contains(&code) {
            let mut all = codes;
            all.push(code);
            entry["description"] = Value::String(all.iter().map(|c| c.as_str()).collect::<Vec<_>>().join(", "));
        }
    }
}

/// The codes an error response's description names (English names).
fn codes_of(response: &Value) -> Vec<ErrorCode> {
    let text = response.get("description").and_then(Value::as_str).unwrap_or_default();
    text.split(',').filter_map(|name| ErrorCode::ALL.into_iter().find(|c| c.as_str() == name.trim())).collect()
}

/// Gives an error response its envelope schema, its codes in `lang` and an example per code.
fn error_response(lang: Lang, response: &mut Value) {
    let codes = codes_of(response);
    if codes.is_empty() {
        return;
    }
    let (schema, name): (&str, fn(ErrorCode) -> &'static str) = match lang {
        Lang::En => ("ErrorEnvelope", ErrorCode::as_str),
        Lang::Pt => ("ErroEnvelope", ErrorCode::as_pt),
    };
    let mut examples = Map::new();
    for code in &codes {
        let error = Error::new(*code, example_message(*code));
        examples.insert(
            name(*code).to_string(),
            json!({"summary": name(*code), "value": envelope_at(lang, &error, EXAMPLE_REQUEST_ID, EXAMPLE_TIMESTAMP)}),
        );
    }
    let described: Vec<&str> = codes.iter().map(|c| name(*c)).collect();
    response["description"] = Value::String(described.join(", "));
    response["content"] = json!({"application/json": {
        "schema": {"$ref": format!("#/components/schemas/{schema}")},
        "examples": examples,
    }});
}

/// A message like the ones the service writes for `code`.
fn example_message(code: ErrorCode) -> String {
    let reason = status_of(code).canonical_reason().unwrap_or("error");
    format!("{reason} ({})", code.as_str().to_lowercase().replace('_', " "))
}
