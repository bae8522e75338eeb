//! Step 09 Deadline: the table, then generated scripts per clause, then
//! random ones. A script starts the shared clock, calls `Deadline::new`
//! once and then moves the clock and asks questions; the judge's model
//! below answers them from `deadline = start + seconds`, fixed once.

use super::{fixture, show_answer, Builder, Observable};
use crate::rng::Gen;
use crate::show::float;
use lab_wire::scripts::s09::{Answer, Observed, Op, Script};
use lab_wire::F64;
use serde_json::Value;

const STEP: &str = "09";

/// The judge's own model of a correct `Deadline`.
pub fn model(script: &Script) -> Observed {
    let s = script.seconds.0;
    if !s.is_finite() || s < 0.0 {
        return Observed { answers: None };
    }
    let deadline = script.start.0 + s;
    let mut now = script.start.0;
    let left = |now: f64| {
        if deadline - now > 0.0 {
            deadline - now
        } else {
            0.0
        }
    };
    let mut answers = Vec::new();
    for op in &script.ops {
        match op {
            Op::At { t } => now = t.0,
            Op::Remaining => answers.push(Answer::Remaining {
                value: F64(left(now)),
            }),
            Op::TimeoutFor { cap } => answers.push(Answer::TimeoutFor {
                ok: (cap.0.is_finite() && cap.0 >= 0.0).then(|| F64(cap.0.min(left(now)))),
            }),
            Op::Expired => answers.push(Answer::Expired {
                value: now >= deadline,
            }),
        }
    }
    Observed {
        answers: Some(answers),
    }
}

fn script(start: f64, seconds: f64, ops: Vec<Op>) -> Script {
    Script {
        start: F64(start),
        seconds: F64(seconds),
        ops,
    }
}

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

fn from_table(case: &Value) -> (Script, Observed) {
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

/// Invalid budgets and caps: NaN, infinite or negative.
const BAD: [f64; 5] = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.015625, -1.0];

pub fn build(g: &mut Gen) -> Builder {
    let keys = [
        "rejects-invalid-budget",
        "zero-budget",
        "fixed-at-creation",
        "never-negative",
        "never-reset",
        "expired",
        "cap-shrinks",
        "cap-never-extends",
        "rejects-invalid-cap",
        "random",
    ];
    let mut b = Builder::new(STEP, &keys);
    for case in fixture::table(STEP) {
        let (s, expect) = from_table(&case);
        b.add_script(fixture::clause(&case), &s, expect);
    }
    let gen = |b: &mut Builder, key: &str, s: Script| {
        let expect = model(&s);
        b.add_script(key, &s, expect);
    };
    for _ in 0..20 {
        let start = g.sixty_fourths(0, 64 * 1000);
        let bad = if g.chance(1, 2) {
            *g.pick(&BAD)
        } else {
            g.sixty_fourths(-64 * 64, -1)
        };
        gen(
            &mut b,
            "rejects-invalid-budget",
            script(start, bad, vec![Op::Remaining]),
        );
        let zero = if g.chance(1, 2) { 0.0 } else { -0.0 };
        let cap = g.sixty_fourths(0, 64 * 8);
        gen(
            &mut b,
            "zero-budget",
            script(
                start,
                zero,
                vec![Op::Expired, Op::Remaining, Op::TimeoutFor { cap: F64(cap) }],
            ),
        );
        let seconds = g.sixty_fourths(2, 64 * 64);
        let deadline = start + seconds;
        let inside = start + g.sixty_fourths(1, (seconds * 64.0) as i64 - 1);
        gen(
            &mut b,
            "fixed-at-creation",
            script(
                start,
                seconds,
                vec![Op::At { t: F64(inside) }, Op::Remaining],
            ),
        );
        let late = deadline + g.sixty_fourths(1, 64 * 64);
        gen(
            &mut b,
            "never-negative",
            script(start, seconds, vec![Op::At { t: F64(late) }, Op::Remaining]),
        );
        let later = late + g.sixty_fourths(0, 64 * 64);
        gen(
            &mut b,
            "never-reset",
            script(
                start,
                seconds,
                vec![
                    Op::At { t: F64(late) },
                    Op::Remaining,
                    Op::Expired,
                    Op::Remaining,
                    Op::At { t: F64(later) },
                    Op::Remaining,
                    Op::TimeoutFor { cap: F64(cap) },
                    Op::Expired,
                ],
            ),
        );
        gen(
            &mut b,
            "expired",
            script(
                start,
                seconds,
                vec![
                    Op::At {
                        t: F64(deadline - 0.015625),
                    },
                    Op::Expired,
                    Op::At { t: F64(deadline) },
                    Op::Expired,
                ],
            ),
        );
        let left = deadline - inside;
        let smaller = g.sixty_fourths(0, (left * 64.0) as i64 - 1);
        gen(
            &mut b,
            "cap-shrinks",
            script(
                start,
                seconds,
                vec![
                    Op::At { t: F64(inside) },
                    Op::TimeoutFor { cap: F64(smaller) },
                ],
            ),
        );
        let larger = left + g.sixty_fourths(0, 64 * 64);
        gen(
            &mut b,
            "cap-never-extends",
            script(
                start,
                seconds,
                vec![
                    Op::At { t: F64(inside) },
                    Op::TimeoutFor { cap: F64(larger) },
                ],
            ),
        );
        let when = if g.chance(1, 2) { inside } else { late };
        gen(
            &mut b,
            "rejects-invalid-cap",
            script(
                start,
                seconds,
                vec![
                    Op::At { t: F64(when) },
                    Op::TimeoutFor {
                        cap: F64(*g.pick(&BAD)),
                    },
                ],
            ),
        );
    }
    for _ in 0..150 {
        let start = g.sixty_fourths(0, 64 * 1000);
        let seconds = if g.chance(1, 10) {
            *g.pick(&BAD)
        } else {
            g.sixty_fourths(0, 64 * 64)
        };
        let mut now = start;
        let mut ops = Vec::new();
        for _ in 0..g.int(1, 8) {
            ops.push(match g.below(4) {
                0 => {
                    now += g.sixty_fourths(0, 64 * 16);
                    Op::At { t: F64(now) }
                }
                1 => Op::Remaining,
                2 => Op::TimeoutFor {
                    cap: F64(if g.chance(1, 8) {
                        *g.pick(&BAD)
                    } else {
                        g.sixty_fourths(0, 64 * 64)
                    }),
                },
                _ => Op::Expired,
            });
        }
        gen(&mut b, "random", script(start, seconds, ops));
    }
    b
}

fn same_answer(e: &Answer, g: &Answer) -> bool {
    match (e, g) {
        (Answer::Remaining { value: a }, Answer::Remaining { value: b }) => a.0 == b.0,
        (Answer::TimeoutFor { ok: a }, Answer::TimeoutFor { ok: b }) => match (a, b) {
            (Some(a), Some(b)) => a.0 == b.0,
            (None, None) => true,
            (Some(_), None) | (None, Some(_)) => false,
        },
        (Answer::Expired { value: a }, Answer::Expired { value: b }) => a == b,
        (Answer::Remaining { .. } | Answer::TimeoutFor { .. } | Answer::Expired { .. }, _) => false,
    }
}

impl Observable for Observed {
    /// Floats with `==` (NaN never matches, -0.0 equals 0.0).
    fn same(&self, got: &Self) -> bool {
        match (&self.answers, &got.answers) {
            (None, None) => true,
            (Some(a), Some(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same_answer(x, y))
            }
            (Some(_), None) | (None, Some(_)) => false,
        }
    }

    /// The answers in order, as a list.
    fn show(&self) -> String {
        match &self.answers {
            None => "Deadline::new → Err(InvalidArgument)".into(),
            Some(answers) => {
                let items: Vec<String> = answers
                    .iter()
                    .map(|a| match a {
                        Answer::Remaining { value } => float(value.0),
                        Answer::TimeoutFor { ok: Some(x) } => format!("Ok({})", float(x.0)),
                        Answer::TimeoutFor { ok: None } => "Err(InvalidArgument)".into(),
                        Answer::Expired { value } => value.to_string(),
                    })
                    .collect();
                format!("Deadline::new → Ok; answers: [{}]", items.join(", "))
            }
        }
    }
}

/// The script as the Rust a learner would write to replay it.
pub fn show_input(input: &Value) -> String {
    let Some(s) = super::read::<Script>(input) else {
        return input.to_string();
    };
    let mut lines = vec![
        format!(
            "let clock = Arc::new(ManualClock::new({}));",
            float(s.start.0)
        ),
        format!(
            "let d = Deadline::new({}, clock.clone())?;",
            float(s.seconds.0)
        ),
    ];
    for op in &s.ops {
        lines.push(match op {
            Op::At { t } => format!("clock.set({});", float(t.0)),
            Op::Remaining => "d.remaining()".into(),
            Op::TimeoutFor { cap } => format!("d.timeout_for({})", float(cap.0)),
            Op::Expired => "d.expired()".into(),
        });
    }
    lines.join("\n")
}

/// Step 09 in the registry.
pub struct ThisStep;

impl super::Step for ThisStep {
    fn build(&self, g: &mut Gen) -> Builder {
        build(g)
    }
    fn show_call(&self, call: &lab_wire::Call) -> String {
        match call {
            lab_wire::Call::Advanced { input, .. } => show_input(input),
            other => format!("{other:?}"),
        }
    }
    fn show_json(&self, value: &serde_json::Value) -> String {
        show_answer::<Observed>(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_model_agrees_with_every_table_case() {
        for case in fixture::table(STEP) {
            let (s, expect) = from_table(&case);
            assert!(expect.same(&model(&s)), "{case}");
        }
    }

    #[test]
    fn a_tolerance_in_expired_is_told_apart() {
        let s = script(0.0, 5e-324, vec![Op::Expired]);
        let tolerant = Observed {
            answers: Some(vec![Answer::Expired { value: true }]),
        };
        assert!(!model(&s).same(&tolerant));
    }

    #[test]
    fn a_lazy_start_is_told_apart() {
        let s = script(10.0, 5.0, vec![Op::At { t: F64(13.0) }, Op::Remaining]);
        let lazy = Observed {
            answers: Some(vec![Answer::Remaining { value: F64(5.0) }]),
        };
        assert!(!model(&s).same(&lazy));
    }
}
