//! Reading the hand-written case tables (each step folder's `cases.json`),
//! which the registry embeds at build time so the judge needs no files at
//! run time. Floats are written as Rust text.

use serde_json::Value;

pub fn table(step: &str) -> Vec<Value> {
    let entry = super::entry(step);
    let doc: Value = serde_json::from_str(entry.table)
        .unwrap_or_else(|e| panic!("{}/cases.json: {e}", entry.dir()));
    doc["cases"].as_array().cloned().unwrap_or_default()
}

pub fn clause(case: &Value) -> &str {
    case["clause"]
        .as_str()
        .expect("every table case names its clause")
}

pub fn float(case: &Value, field: &str) -> f64 {
    let text = case[field]
        .as_str()
        .unwrap_or_else(|| panic!("{field} must be a float string in {case}"));
    text.parse()
        .unwrap_or_else(|_| panic!("{field}: {text:?} is not a float"))
}

pub fn uint(case: &Value, field: &str) -> u64 {
    case[field]
        .as_u64()
        .unwrap_or_else(|| panic!("{field} must be an unsigned integer in {case}"))
}

pub fn boolean(case: &Value, field: &str) -> bool {
    case[field]
        .as_bool()
        .unwrap_or_else(|| panic!("{field} must be true or false in {case}"))
}

pub fn opt_text(case: &Value, field: &str) -> Option<String> {
    case[field].as_str().map(str::to_string)
}

/// `"err"` or a float text.
pub fn checked(case: &Value, field: &str) -> Option<f64> {
    match case[field].as_str() {
        Some("err") => None,
        _ => Some(float(case, field)),
    }
}
