//! A small JSON Schema validator (test builds only) for the subset the
//! kit's hand-written schemas under `fixtures/` use: `type` (one name),
//! `required`, `properties`, `additionalProperties: false`, `items`,
//! `minimum`, `maximum` and `minLength`. Any other keyword in a schema is
//! refused, so a schema cannot silently ask more than is checked. Shared by
//! the report formats' unit tests (declared in `report/mod.rs`) and the
//! end-to-end tests (`tests/e2e_prairielearn.rs` includes this file).

use serde_json::Value;

const KNOWN: &[&str] = &[
    "$schema",
    "$comment",
    "type",
    "required",
    "properties",
    "additionalProperties",
    "items",
    "minimum",
    "maximum",
    "minLength",
];

/// Every way `value` breaks `schema`, each with its JSON path; empty when
/// it holds.
pub fn violations(schema: &Value, value: &Value) -> Vec<String> {
    let mut out = Vec::new();
    check(schema, value, "$", &mut out);
    out
}

fn check(schema: &Value, value: &Value, at: &str, out: &mut Vec<String>) {
    let Some(rules) = schema.as_object() else {
        out.push(format!("{at}: the schema is not an object"));
        return;
    };
    for key in rules.keys() {
        if !KNOWN.contains(&key.as_str()) {
            out.push(format!("{at}: schema keyword {key:?} is not supported"));
        }
    }
    if let Some(kind) = rules.get("type").and_then(Value::as_str) {
        let ok = match kind {
            "object" => value.is_object(),
            "array" => value.is_array(),
            "string" => value.is_string(),
            "boolean" => value.is_boolean(),
            "number" => value.is_number(),
            "integer" => value.is_u64() || value.is_i64(),
            "null" => value.is_null(),
            _ => false,
        };
        if !ok {
            out.push(format!("{at}: {value} is not of type {kind}"));
            return;
        }
    }
    if let Some(n) = value.as_f64() {
        if let Some(min) = rules.get("minimum").and_then(Value::as_f64) {
            if n < min {
                out.push(format!("{at}: {n} is below {min}"));
            }
        }
        if let Some(max) = rules.get("maximum").and_then(Value::as_f64) {
            if n > max {
                out.push(format!("{at}: {n} is above {max}"));
            }
        }
    }
    if let (Some(s), Some(min)) = (
        value.as_str(),
        rules.get("minLength").and_then(Value::as_u64),
    ) {
        if (s.chars().count() as u64) < min {
            out.push(format!("{at}: {s:?} is shorter than {min}"));
        }
    }
    if let Some(object) = value.as_object() {
        for need in rules
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let need = need.as_str().unwrap_or_default();
            if !object.contains_key(need) {
                out.push(format!("{at}: {need:?} is missing"));
            }
        }
        let properties = rules.get("properties").and_then(Value::as_object);
        for (key, inner) in object {
            match properties.and_then(|p| p.get(key)) {
                Some(sub) => check(sub, inner, &format!("{at}.{key}"), out),
                None if rules.get("additionalProperties") == Some(&Value::Bool(false)) => {
                    out.push(format!("{at}: {key:?} is not allowed"));
                }
                None => {}
            }
        }
    }
    if let (Some(items), Some(array)) = (rules.get("items"), value.as_array()) {
        for (i, item) in array.iter().enumerate() {
            check(items, item, &format!("{at}[{i}]"), out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn it_finds_each_kind_of_violation() {
        let schema = json!({
            "type": "object",
            "required": ["a"],
            "additionalProperties": false,
            "properties": {
                "a": {"type": "number", "minimum": 0, "maximum": 1},
                "b": {"type": "array", "items": {"type": "string", "minLength": 1}}
            }
        });
        assert!(violations(&schema, &json!({"a": 0.5, "b": ["x"]})).is_empty());
        let bad = [
            json!({}),
            json!({"a": 2}),
            json!({"a": -1}),
            json!({"a": "0"}),
            json!({"a": 0, "c": 1}),
            json!({"a": 0, "b": [""]}),
            json!({"a": 0, "b": [1]}),
            json!([]),
        ];
        for value in bad {
            assert_eq!(violations(&schema, &value).len(), 1, "{value}");
        }
        let unknown = json!({"type": "object", "if": {}});
        assert_eq!(violations(&unknown, &json!({})).len(), 1);
    }
}
