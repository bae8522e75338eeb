//! Step 12's hand-written table, `cases.json`: each row read
//! into a script and the observation it expects.

use super::model::guarded;
use crate::rng::Gen;
use crate::suites::fixture;
use crate::suites::s11::table::{timed, untimed_from_table};
use lab_scripts::s12::{Ending, Guarded, GuardedSeen, SleepScript, SleepSeen, Slept, Wake};
use lab_wire::F64;
use serde_json::Value;

/// One table wake: `exact`, `early X`, `frozen`, `late X`, `back X`, `reads X`.
fn table_wake(text: &str) -> Wake {
    let (name, arg) = text.split_once(' ').unwrap_or((text, ""));
    let num = || {
        F64(arg
            .parse()
            .unwrap_or_else(|_| panic!("12.json: bad number in {text:?}")))
    };
    match name {
        "exact" => Wake::Exact,
        "early" => Wake::Early { moved: num() },
        "frozen" => Wake::Frozen,
        "late" => Wake::Late { over: num() },
        "back" => Wake::Back { by: num() },
        "reads" => Wake::Reads { t: num() },
        _ => panic!("12.json: unknown wake {text:?}"),
    }
}

fn table_ending(text: &str) -> Ending {
    lab_scripts::named::ending::parse(text)
        .unwrap_or_else(|| panic!("12.json: unknown result {text:?}"))
}

fn table_wakes(case: &Value) -> Vec<Wake> {
    case["wakes"]
        .as_array()
        .expect("12.json: wakes is a list")
        .iter()
        .map(|w| table_wake(w.as_str().expect("12.json: wakes are strings")))
        .collect()
}

/// A `guarded_read` row (its clause starts with `guarded-`).
pub(super) fn is_guarded_row(case: &Value) -> bool {
    fixture::clause(case).starts_with("guarded-")
}

/// A `guarded_read` row: step 11's scenario fields and expectations (see
/// `s11/cases.json`), plus `wakes`, `closing` (how far closing the
/// k-th response moves the clock) and `sleeper_panics` (which sleep panics).
pub(super) fn guarded_from_table(g: &mut Gen, case: &Value) -> (Guarded, GuardedSeen) {
    let (read, events, ending) = untimed_from_table(g, case);
    let closing = case["closing"]
        .as_array()
        .map(|list| {
            list.iter()
                .map(|x| {
                    F64(x
                        .as_str()
                        .and_then(|t| t.parse().ok())
                        .unwrap_or_else(|| panic!("12.json: bad closing {x}")))
                })
                .collect()
        })
        .unwrap_or_default();
    let script = Guarded {
        read,
        wakes: table_wakes(case),
        closing,
        sleeper_panics: case["sleeper_panics"]
            .as_u64()
            .map(|n| u32::try_from(n).expect("12.json: sleeper_panics fits in u32")),
    };
    let events = timed(events, &guarded(&script).seen.events);
    (script, GuardedSeen { events, ending })
}

pub(super) fn from_table(case: &Value) -> (SleepScript, SleepSeen) {
    let wakes = table_wakes(case);
    let s = SleepScript {
        wait: F64(fixture::float(case, "wait")),
        deadline: F64(fixture::float(case, "deadline")),
        start: F64(fixture::float(case, "start")),
        wakes,
        cancel_after_sleeps: case["cancel_after_sleeps"]
            .as_u64()
            .map(|k| u32::try_from(k).expect("12.json: cancel_after_sleeps fits in u32")),
    };
    let expect = &case["expect"];
    // The readings after each expected sleep follow from the world's rule.
    let mut now = s.start.0;
    let sleeps = expect["sleeps"]
        .as_array()
        .expect("12.json: expect.sleeps is a list")
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let asked: f64 = a
                .as_str()
                .and_then(|t| t.parse().ok())
                .unwrap_or_else(|| panic!("12.json: bad sleep {a} in {case}"));
            now = s.wake(i + 1).after(now, asked);
            Slept {
                asked: F64(asked),
                after: F64(now),
            }
        })
        .collect();
    let result = table_ending(
        expect["result"]
            .as_str()
            .expect("12.json: expect.result is a string"),
    );
    let observed = SleepSeen {
        start: s.start,
        sleeps,
        result,
    };
    (s, observed)
}

#[cfg(test)]
mod tests {
    use super::super::model::model;
    use super::super::ThisStep;
    use super::*;
    use crate::suites::Observable;

    const STEP: &str = ThisStep::ID;

    fn json<T: serde::Serialize>(x: &T) -> Value {
        serde_json::to_value(x).unwrap()
    }

    #[test]
    fn the_model_agrees_with_every_table_case() {
        for case in fixture::table(STEP) {
            if is_guarded_row(&case) {
                let (s, expect) = guarded_from_table(&mut Gen::new(1), &case);
                let m = guarded(&s);
                assert!(!m.ambiguous, "an ambiguous table case: {case}");
                assert!(expect.same(&m.seen), "{case}\nmodel: {}", m.seen.show());
                continue;
            }
            let (s, expect) = from_table(&case);
            let m = model(&s);
            assert!(!m.ambiguous, "an ambiguous table case: {case}");
            assert!(expect.same(&m.observed), "{case}");
            assert_eq!(json(&expect), json(&m.observed), "readings: {case}");
        }
    }
}
