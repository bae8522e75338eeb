//! How step 10 reads its hand table (`cases.json`): the fields,
//! the receipt time, and `ok N` or `err kind`.

use super::model::err;
use lab_scripts::s10::{Observed, Script};
use serde_json::Value;

pub(super) fn from_table(case: &Value) -> (Script, Observed) {
    let fields = case["fields"]
        .as_array()
        .expect("10.json: fields is a list")
        .iter()
        .map(|f| f.as_str().expect("10.json: fields are strings").to_string())
        .collect();
    let received = case["received"]
        .as_i64()
        .expect("10.json: received is an integer");
    let text = case["expect"]
        .as_str()
        .expect("10.json: expect is a string");
    let expect = match text.split_once(' ') {
        Some(("ok", n)) => Observed::Ok {
            value: n.parse().expect("10.json: ok takes a u32"),
        },
        Some(("err", kind)) => err(lab_scripts::Named::parse(kind)
            .unwrap_or_else(|| panic!("10.json: unknown error {kind:?}"))),
        _ => panic!("10.json: expect must be \"ok N\" or \"err kind\", not {text:?}"),
    };
    (Script { fields, received }, expect)
}
