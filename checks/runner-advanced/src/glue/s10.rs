//! Step 10: calls `parse_retry_after` once with the script's arguments.

use crate::advanced::parse_retry_after;
use lab_wire::scripts::s10::{Observed, Script};

pub fn play(input: serde_json::Value) -> Result<serde_json::Value, String> {
    let script: Script = serde_json::from_value(input).map_err(|e| e.to_string())?;
    let fields: Vec<&str> = script.fields.iter().map(String::as_str).collect();
    let observed = Observed::from(parse_retry_after(&fields, script.received));
    serde_json::to_value(observed).map_err(|e| e.to_string())
}
