//! How step 09 reads its hand table (`cases.json`): ops and
//! answers as text, or "rejected".

use super::super::fixture;
use super::model::script;
use lab_scripts::s09::{Answer, Observed, Op, Script};
use lab_wire::F64;
use serde_json::Value;

/// One table op: `at T`, `remaining`, `timeout_for C` or `expired`.
fn table_op(text: &str) -> Op {
    let (name, arg) = text.split_once(' ').unwrap_or((text, ""));
    let num = || {
        F64(arg
            .parse()
            .unwrap_or_else(|_| panic!("09.json: bad number in {text:?}")))
    };
    match name {
        "at" => Op::At { t: num() },
        "remaining" => Op::Remaining,
        "timeout_for" => Op::TimeoutFor { cap: num() },
        "expired" => Op::Expired,
        _ => panic!("09.json: unknown op {text:?}"),
    }
}

/// One table answer: a float, `Ok(x)`, `err`, `true` or `false`, read
/// against the query it answers.
fn table_answer(op: &Op, text: &str) -> Answer {
    let num = |t: &str| {
        F64(t
            .parse()
            .unwrap_or_else(|_| panic!("09.json: bad answer {text:?}")))
    };
    match op {
        Op::Remaining => Answer::Remaining { value: num(text) },
        Op::TimeoutFor { .. } if text == "err" => Answer::TimeoutFor { ok: None },
        Op::TimeoutFor { .. } => Answer::TimeoutFor {
            ok: Some(num(text
                .strip_prefix("Ok(")
                .and_then(|t| t.strip_suffix(')'))
                .unwrap_or_else(|| {
                    panic!("09.json: {text:?} is not Ok(x) or err")
                }))),
        },
        Op::Expired => Answer::Expired {
            value: text == "true",
        },
        Op::At { .. } => unreachable!("clock moves have no answers"),
    }
}

pub(super) fn from_table(case: &Value) -> (Script, Observed) {
    let ops: Vec<Op> = case["ops"]
        .as_array()
        .expect("09.json: ops is a list")
        .iter()
        .map(|o| table_op(o.as_str().expect("09.json: ops are strings")))
        .collect();
    let s = script(
        fixture::float(case, "start"),
        fixture::float(case, "seconds"),
        ops,
    );
    let expect = match &case["expect"] {
        Value::String(r) if r == "rejected" => Observed { answers: None },
        Value::Array(items) => {
            let queries = s.ops.iter().filter(|o| !matches!(o, Op::At { .. }));
            let texts: Vec<&str> = items.iter().filter_map(Value::as_str).collect();
            assert_eq!(texts.len(), queries.clone().count(), "09.json: {case}");
            Observed {
                answers: Some(
                    queries
                        .zip(texts)
                        .map(|(op, t)| table_answer(op, t))
                        .collect(),
                ),
            }
        }
        other => panic!("09.json: expect must be \"rejected\" or a list, not {other}"),
    };
    (s, expect)
}
