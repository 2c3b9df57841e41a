//! Reading the document in tests: following `$ref`s and checking a JSON value against the
//! schema the document gives it.

use serde_json::Value;

/// Every `$ref` anywhere in `v`.
pub(super) fn refs(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                match (k.as_str(), x) {
                    ("$ref", Value::String(r)) => out.push(r.clone()),
                    _ => refs(x, out),
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| refs(x, out)),
        _ => {}
    }
}

/// Follows a local JSON pointer (`#/components/schemas/X`).
pub(super) fn resolve<'a>(doc: &'a Value, reference: &str) -> Option<&'a Value> {
    doc.pointer(reference.strip_prefix('#')?)
}

/// Whether `value` has the shape `schema` describes: every key it sends is a documented
/// property, every required property is sent, recursively through refs, arrays, `allOf` and
/// `oneOf` (one alternative must fit). Returns the first mismatch.
pub(super) fn conforms(doc: &Value, schema: &Value, value: &Value, at: &str) -> Result<(), String> {
    if let Some(r) = schema["$ref"].as_str() {
        let target = resolve(doc, r).ok_or_else(|| format!("{at}: dangling {r}"))?;
        return conforms(doc, target, value, at);
    }
    if let Some(alternatives) = schema["oneOf"].as_array().or(schema["anyOf"].as_array()) {
        let errors: Vec<String> = alternatives.iter().filter_map(|s| conforms(doc, s, value, at).err()).collect();
        return if errors.len() < alternatives.len() { Ok(()) } else { Err(errors.join(" / ")) };
    }
    if value.is_null() {
        let types = &schema["type"];
        let nullable = types == "null" || types.as_array().is_some_and(|t| t.iter().any(|t| t == "null"));
        // A schema that constrains neither type nor properties (a free value, `{}` with at most
        // a description) accepts null, as JSON Schema has it.
        let free = schema.get("type").is_none() && schema.get("properties").is_none();
        return if nullable || free { Ok(()) } else { Err(format!("{at}: null where the schema says {schema}")) };
    }
    let kind = match value {
        Value::Object(_) => "object",
        Value::Array(_) => "array",
        Value::String(_) => "string",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_f64() => "number",
        Value::Number(_) => "integer",
        Value::Null => "null",
    };
    let types: Vec<&str> = match &schema["type"] {
        Value::String(t) => vec![t.as_str()],
        Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let fits = types.is_empty() || types.contains(&kind) || (kind == "integer" && types.contains(&"number"));
    if !fits {
        return Err(format!("{at}: {kind} where the schema says {types:?}"));
    }
    let mut properties = serde_json::Map::new();
    let mut required = Vec::new();
    let mut parts = vec![schema];
    for part in schema["allOf"].as_array().into_iter().flatten() {
        parts.push(part.get("$ref").and_then(Value::as_str).and_then(|r| resolve(doc, r)).unwrap_or(part));
    }
    for part in parts {
        properties.extend(part["properties"].as_object().cloned().unwrap_or_default());
        required.extend(part["required"].as_array().cloned().unwrap_or_default());
    }
    match value {
        Value::Object(map) if !properties.is_empty() => {
            for key in required.iter().filter_map(Value::as_str) {
                if !map.contains_key(key) {
                    return Err(format!("{at}: required '{key}' missing"));
                }
            }
            for (key, v) in map {
                let property = properties.get(key).ok_or_else(|| format!("{at}: '{key}' is not documented"))?;
                conforms(doc, property, v, &format!("{at}.{key}"))?;
            }
            Ok(())
        }
        Value::Array(items) => {
            items.iter().enumerate().try_for_each(|(i, v)| conforms(doc, &schema["items"], v, &format!("{at}[{i}]")))
        }
        _ => Ok(()),
    }
}
