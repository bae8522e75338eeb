//! Step 10 (not written yet).

use super::Builder;
use crate::rng::Gen;

pub fn build(_g: &mut Gen) -> Builder {
    Builder::new("10", &[])
}

pub fn same(expected: &serde_json::Value, got: &serde_json::Value) -> bool {
    expected == got
}

pub fn show_input(input: &serde_json::Value) -> String {
    input.to_string()
}

pub fn show_value(value: &serde_json::Value) -> String {
    value.to_string()
}
