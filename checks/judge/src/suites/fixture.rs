//! The hand-written case tables in fixtures/cases, embedded at build time so
//! the judge needs no files at run time. Floats are written as Rust text.

use serde_json::Value;

pub fn table(step: &str) -> Vec<Value> {
    let text = match step {
        "01" => include_str!("../../../../fixtures/cases/01.json"),
        "02" => include_str!("../../../../fixtures/cases/02.json"),
        "03" => include_str!("../../../../fixtures/cases/03.json"),
        "04" => include_str!("../../../../fixtures/cases/04.json"),
        "05" => include_str!("../../../../fixtures/cases/05.json"),
        "06" => include_str!("../../../../fixtures/cases/06.json"),
        "07" => include_str!("../../../../fixtures/cases/07.json"),
        "08" => include_str!("../../../../fixtures/cases/08.json"),
        "09" => include_str!("../../../../fixtures/cases/09.json"),
        "10" => include_str!("../../../../fixtures/cases/10.json"),
        "11" => include_str!("../../../../fixtures/cases/11.json"),
        "12" => include_str!("../../../../fixtures/cases/12.json"),
        "13" => include_str!("../../../../fixtures/cases/13.json"),
        _ => "{\"cases\":[]}",
    };
    let doc: Value =
        serde_json::from_str(text).unwrap_or_else(|e| panic!("fixtures/cases/{step}.json: {e}"));
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
