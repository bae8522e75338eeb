//! Step 11's hand-written table, `cases.json`: rows read into
//! `admit` calls or `execute_admitted` scenarios, with their expectations.

use super::model;
use crate::rng::Gen;
use crate::suites::fixture;
use lab_scripts::s11::{
    AdmitCall, Decision, Ending, Event, Handed, Parsed, Reason, Reply, Scenario,
};
use lab_wire::F64;
use serde_json::Value;

fn table_parsed(text: Option<&str>) -> Parsed {
    let Some(text) = text else {
        return Parsed::None;
    };
    match text.split_once(' ') {
        Some(("ok", d)) => Parsed::Ok {
            delay: d.parse().expect("11.json: ok N"),
        },
        Some(("err", e)) => Parsed::Err {
            error: lab_scripts::Named::parse(e)
                .unwrap_or_else(|| panic!("11.json: unknown error {e:?}")),
        },
        _ => panic!("11.json: bad retry_after {text:?}"),
    }
}

fn table_reason(text: &str) -> Reason {
    lab_scripts::Named::parse(text).unwrap_or_else(|| panic!("11.json: unknown reason {text:?}"))
}

pub(super) fn admit_from_table(case: &Value) -> (AdmitCall, Decision) {
    let call = AdmitCall {
        method: fixture::opt_text(case, "method").expect("11.json: method"),
        status: fixture::uint(case, "status") as u16,
        attempts: fixture::uint(case, "attempts") as u32,
        limit: fixture::uint(case, "limit") as u32,
        left: F64(fixture::float(case, "left")),
        retry_after: table_parsed(case["retry_after"].as_str()),
        min_gap: F64(fixture::float(case, "min_gap")),
        reserve: F64(fixture::float(case, "reserve")),
    };
    let text = case["expect"].as_str().expect("11.json: expect");
    let expect = match text.split_once(' ') {
        Some(("retry", w)) => Decision::Retry {
            wait: F64(w.parse().expect("11.json: retry W")),
        },
        Some(("refuse", r)) => Decision::Refuse {
            reason: table_reason(r),
        },
        _ if text == "invalid-argument" => Decision::InvalidArgument,
        _ => panic!("11.json: bad expect {text:?}"),
    };
    (call, expect)
}

fn handed(s: &Scenario, k: usize) -> Handed {
    let r = s.replies.get(k).unwrap_or(&s.fallback);
    Handed {
        reply: Some(k as u32),
        status: r.status,
        retry_after: r.retry_after.clone(),
        received_at: r.received_at,
        body: r.body.clone(),
    }
}

pub(super) fn execute_from_table(g: &mut Gen, case: &Value) -> (Scenario, Vec<Event>, Ending) {
    let (s, events, ending) = untimed_from_table(g, case);
    let events = timed(events, &model::execute(&s).events);
    (s, events, ending)
}

/// A scenario row: the scenario, the expected events (every time 0) and
/// the expected ending. Step 12's `guarded_read` rows are read here too
/// (with `stop guard FAULT` and `panicked` results).
pub(crate) fn untimed_from_table(g: &mut Gen, case: &Value) -> (Scenario, Vec<Event>, Ending) {
    let replies = case["replies"]
        .as_array()
        .expect("11.json: replies")
        .iter()
        .map(|r| Reply {
            status: fixture::uint(r, "status") as u16,
            retry_after: r["retry_after"]
                .as_array()
                .expect("11.json: retry_after is a list")
                .iter()
                .map(|f| f.as_str().expect("11.json: fields").to_string())
                .collect(),
            received_at: r["received_at"].as_i64().expect("11.json: received_at"),
            body: g.id("body-"),
            cost: F64(fixture::float(r, "cost")),
        })
        .collect();
    let s = Scenario {
        method: fixture::opt_text(case, "method").expect("11.json: method"),
        deadline: F64(fixture::float(case, "deadline")),
        limit: fixture::uint(case, "limit") as u32,
        min_gap: F64(fixture::float(case, "min_gap")),
        reserve: F64(fixture::float(case, "reserve")),
        start: F64(fixture::float(case, "start")),
        replies,
        fallback: Reply {
            status: 200,
            retry_after: Vec::new(),
            received_at: 1_700_000_000,
            body: g.id("body-"),
            cost: F64(fixture::float(case, "fallback_cost")),
        },
        overrun: case["overrun"]
            .as_array()
            .expect("11.json: overrun")
            .iter()
            .map(|v| F64(v.as_str().and_then(|t| t.parse().ok()).expect("float text")))
            .collect(),
        cancel_after: case["cancel_after"].as_u64().map(|n| n as u32),
    };
    let expect = &case["expect"];
    let events = expect["events"]
        .as_array()
        .expect("11.json: expect.events")
        .iter()
        .map(|e| {
            let text = e.as_str().expect("11.json: event text");
            let (kind, value) = text
                .split_once(' ')
                .unwrap_or_else(|| panic!("11.json: bad event {text:?}"));
            let num = || -> f64 {
                value
                    .parse()
                    .unwrap_or_else(|_| panic!("11.json: bad event {text:?}"))
            };
            let at = F64(0.0);
            match kind {
                "send" => Event::Send {
                    method: s.method.clone(),
                    timeout: F64(num()),
                    at,
                },
                "close" => Event::Close {
                    reply: value.parse().expect("11.json: close K"),
                    at,
                },
                "sleep" => Event::Sleep {
                    seconds: F64(num()),
                    at,
                },
                _ => panic!("11.json: bad event {text:?}"),
            }
        })
        .collect();
    let text = expect["result"].as_str().expect("11.json: expect.result");
    let words: Vec<&str> = text.split(' ').collect();
    let ending = match words.as_slice() {
        ["invalid-argument"] => Ending::InvalidArgument,
        ["panicked"] => Ending::Panicked,
        ["stop", "guard", fault] => Ending::Stopped {
            reason: Reason::Guard(
                lab_scripts::Named::parse(fault)
                    .unwrap_or_else(|| panic!("bad guard fault {fault:?}")),
            ),
            last: None,
        },
        ["answer", k] => Ending::Answer {
            response: handed(&s, k.parse().expect("11.json: answer K")),
        },
        ["stop", r] => Ending::Stopped {
            reason: table_reason(r),
            last: None,
        },
        ["stop", r, k] => Ending::Stopped {
            reason: table_reason(r),
            last: Some(handed(&s, k.parse().expect("11.json: stop R K"))),
        },
        _ => panic!("11.json: bad result {text:?}"),
    };
    (s, events, ending)
}

/// The table's events with the model's clock times, for display only
/// (times are never judged); left at 0 where the two disagree.
pub(crate) fn timed(mut events: Vec<Event>, model: &[Event]) -> Vec<Event> {
    for (e, m) in events.iter_mut().zip(model) {
        match (e, m) {
            (Event::Send { at, .. }, Event::Send { at: t, .. })
            | (Event::Close { at, .. }, Event::Close { at: t, .. })
            | (Event::Sleep { at, .. }, Event::Sleep { at: t, .. }) => *at = *t,
            _ => {}
        }
    }
    events
}

pub(super) fn is_admit_row(case: &Value) -> bool {
    fixture::clause(case).starts_with("admit-")
}

#[cfg(test)]
mod tests {
    use super::super::{ThisStep, KEYS};
    use super::*;
    use crate::suites::Observable;
    use lab_scripts::s11::Observed;

    const STEP: &str = ThisStep::ID;

    fn expected_of(case: &Value) -> (Observed, Observed) {
        let mut g = Gen::new(1);
        if is_admit_row(case) {
            let (call, expect) = admit_from_table(case);
            let e = Observed::Admit { decision: expect };
            let m = Observed::Admit {
                decision: model::admit(&call),
            };
            (e, m)
        } else {
            let (s, events, ending) = execute_from_table(&mut g, case);
            let run = model::execute(&s);
            assert!(!run.ambiguous, "{case}");
            let e = Observed::Execute { events, ending };
            let m = Observed::Execute {
                events: run.events,
                ending: run.ending,
            };
            (e, m)
        }
    }

    #[test]
    fn the_model_agrees_with_every_table_case() {
        for case in fixture::table(STEP) {
            let (e, m) = expected_of(&case);
            assert!(e.same(&m), "{case}\nmodel: {}", m.show());
        }
    }

    #[test]
    fn every_clause_has_table_cases() {
        let table = fixture::table(STEP);
        for key in KEYS {
            if key.ends_with("random") {
                continue;
            }
            assert!(
                table.iter().any(|c| fixture::clause(c) == key),
                "no table case for {key}"
            );
        }
    }
}
