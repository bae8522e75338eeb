//! Step 10: calls `parse_retry_after` once with the script's arguments.

use crate::advanced::parse_retry_after;
use lab_scripts::s10::Observed;

pub fn play(script: lab_scripts::s10::Script) -> Result<serde_json::Value, String> {
    let fields: Vec<&str> = script.fields.iter().map(String::as_str).collect();
    let observed = Observed::from(parse_retry_after(&fields, script.received));
    lab_scripts::s10::write(&observed)
}
