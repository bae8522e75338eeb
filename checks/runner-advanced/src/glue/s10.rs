//! Step 10: calls `parse_retry_after` once with the script's arguments.

use crate::advanced::parse_retry_after;
use lab_wire::scripts::s10::Observed;

pub fn play(input: serde_json::Value) -> Result<serde_json::Value, String> {
    let script = lab_wire::scripts::s10::read(input)?;
    let fields: Vec<&str> = script.fields.iter().map(String::as_str).collect();
    let observed = Observed::from(parse_retry_after(&fields, script.received));
    lab_wire::scripts::s10::write(&observed)
}
