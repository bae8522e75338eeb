//! A validator for the subset of JSON Schema that `docs/events.schema.json`
//! uses: `type` (one or several), `const`, `enum`, `required`, `properties`,
//! `additionalProperties: false`, `items`, `minimum`, `minLength`,
//! `maxLength` (in characters), `oneOf` and `$ref` to `#/$defs/NAME`. Any
//! other keyword is an error, so the schema cannot lean on one it ignores.
//! The kit's tests and the selftest's mutant pass check every event line
//! with it; it is not used while a learner checks.

use serde_json::Value;

const ANNOTATIONS: &[&str] = &["$schema", "$id", "title", "description", "$defs"];

/// `Ok` when `value` matches `schema` (the whole schema document is `root`,
/// for `$ref`); else the first mismatch, with its place.
pub fn check(root: &Value, schema: &Value, value: &Value, at: &str) -> Result<(), String> {
    let Value::Object(rules) = schema else {
        return Err(format!("{at}: the schema is not an object"));
    };
    for (key, rule) in rules {
        match key.as_str() {
            k if ANNOTATIONS.contains(&k) => {}
            "$ref" => {
                let name = rule
                    .as_str()
                    .and_then(|r| r.strip_prefix("#/$defs/"))
                    .ok_or_else(|| format!("{at}: unsupported $ref {rule}"))?;
                let target = root
                    .get("$defs")
                    .and_then(|d| d.get(name))
                    .ok_or_else(|| format!("{at}: no $defs/{name}"))?;
                check(root, target, value, at)?;
            }
            "type" => {
                let names: Vec<&str> = match rule {
                    Value::String(s) => vec![s.as_str()],
                    Value::Array(a) => a.iter().filter_map(Value::as_str).collect(),
                    _ => return Err(format!("{at}: bad type {rule}")),
                };
                if !names.iter().any(|n| is_type(value, n)) {
                    return Err(format!("{at}: {value} is not of type {rule}"));
                }
            }
            "const" if value != rule => return Err(format!("{at}: {value} is not {rule}")),
            "const" => {}
            "enum" => {
                let options = rule.as_array().ok_or_else(|| format!("{at}: bad enum"))?;
                if !options.contains(value) {
                    return Err(format!("{at}: {value} is not one of {rule}"));
                }
            }
            "required" => {
                for name in rule
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                {
                    if value.as_object().is_some_and(|o| !o.contains_key(name)) {
                        return Err(format!("{at}: {name} is missing"));
                    }
                }
            }
            "properties" => {
                if let (Some(obj), Some(props)) = (value.as_object(), rule.as_object()) {
                    for (name, v) in obj {
                        if let Some(s) = props.get(name) {
                            check(root, s, v, &format!("{at}/{name}"))?;
                        }
                    }
                }
            }
            "additionalProperties" => {
                if rule != &Value::Bool(false) {
                    return Err(format!(
                        "{at}: only additionalProperties: false is supported"
                    ));
                }
                let props = schema.get("properties").and_then(Value::as_object);
                if let Some(obj) = value.as_object() {
                    if let Some(extra) = obj
                        .keys()
                        .find(|k| !props.is_some_and(|p| p.contains_key(*k)))
                    {
                        return Err(format!("{at}: {extra} is not allowed"));
                    }
                }
            }
            "items" => {
                for (i, item) in value.as_array().into_iter().flatten().enumerate() {
                    check(root, rule, item, &format!("{at}/{i}"))?;
                }
            }
            "minimum" => {
                if let (Some(v), Some(min)) = (value.as_f64(), rule.as_f64()) {
                    if v < min {
                        return Err(format!("{at}: {v} is below {min}"));
                    }
                }
            }
            "minLength" | "maxLength" => {
                if let (Some(s), Some(n)) = (value.as_str(), rule.as_u64()) {
                    let len = s.chars().count() as u64;
                    if (key == "minLength" && len < n) || (key == "maxLength" && len > n) {
                        return Err(format!("{at}: length {len} breaks {key} {n}"));
                    }
                }
            }
            "oneOf" => {
                let options = rule.as_array().ok_or_else(|| format!("{at}: bad oneOf"))?;
                let errors: Vec<String> = options
                    .iter()
                    .filter_map(|o| check(root, o, value, at).err())
                    .collect();
                let matched = options.len() - errors.len();
                if matched != 1 {
                    return Err(format!(
                        "{at}: matches {matched} of oneOf's {} ({})",
                        options.len(),
                        errors.join("; ")
                    ));
                }
            }
            other => return Err(format!("{at}: unsupported keyword {other}")),
        }
    }
    Ok(())
}

fn is_type(value: &Value, name: &str) -> bool {
    match name {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        "number" => value.is_number(),
        "integer" => value.is_u64() || value.is_i64(),
        _ => false,
    }
}

/// One line of `check --message-format json`, checked against the
/// kit's schema.
pub fn line(text: &str) -> Result<(), String> {
    let schema: Value = serde_json::from_str(super::SCHEMA_TEXT)
        .map_err(|e| format!("docs/events.schema.json: {e}"))?;
    let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON ({e}): {text}"))?;
    check(&schema, &schema, &value, "").map_err(|e| format!("{e}\n  in {text}"))
}
