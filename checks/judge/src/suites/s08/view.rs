//! How step 08 shows its calls to a learner, and how it shrinks a failing one.

use super::super::Expect;
use crate::catalog::t;
use crate::oracle;
use crate::show::{float, opt_str};
use lab_wire::{Call, Scenario, F64};

pub fn show_call(call: &Call) -> String {
    match call {
        Call::Execute { scenario } => scenario_text(scenario),
        other => format!("{other:?}"),
    }
}

/// A response as Rust source.
fn response_rust(status: u16, retry_after: &Option<String>, body: &str) -> String {
    let retry_after = match retry_after {
        Some(v) => format!("Some({v:?}.into())"),
        None => "None".into(),
    };
    format!("Response {{ status: {status}, retry_after: {retry_after}, body: {body:?}.into() }}")
}

/// The scenario as Rust that builds the same world with closures and calls
/// `execute` in it: it compiles pasted into a learner's `#[test]`.
fn scenario_text(s: &Scenario) -> String {
    let list = |xs: &[F64]| xs.iter().map(|x| float(x.0)).collect::<Vec<_>>().join(", ");
    let mut out = vec![
        t("scenario.world"),
        format!("let now = std::cell::Cell::new({});", float(s.start.0)),
    ];
    if s.gap.0 != 0.0 {
        out.push("let mut first_reading = true;".into());
        out.push(format!(
            "let mut clock = || {{ let t = now.get(); if std::mem::take(&mut first_reading) {{ now.set(t + {}); }} t }}; {}",
            float(s.gap.0),
            t("scenario.gap_note")
        ));
    } else {
        out.push("let mut clock = || now.get();".into());
    }
    out.push("let mut replies = vec![".into());
    for r in &s.replies {
        out.push(format!(
            "    ({}, {}),",
            response_rust(r.status, &r.retry_after, &r.body),
            float(r.cost.0)
        ));
    }
    out.push("].into_iter();".into());
    let f = &s.fallback;
    out.push(format!(
        "let later = ({}, {}); {}",
        response_rust(f.status, &f.retry_after, &f.body),
        float(f.cost.0),
        t("scenario.later_note")
    ));
    out.push("let mut send = |_timeout: f64| {".into());
    out.push("    let (response, takes) = replies.next().unwrap_or_else(|| later.clone());".into());
    out.push("    now.set(now.get() + takes);".into());
    out.push("    response".into());
    out.push("};".into());
    if s.oversleep.iter().any(|x| x.0 != 0.0) {
        out.push(format!(
            "let mut oversleep = vec![{}].into_iter(); {}",
            list(&s.oversleep),
            t("scenario.oversleep_note")
        ));
        out.push("let mut sleep = |d: f64| if d != 0.0 {".into());
        out.push("    let extra = oversleep.next().unwrap_or(0.0);".into());
        out.push("    if d.is_finite() && d > 0.0 { now.set(now.get() + d + extra) }".into());
        out.push("};".into());
    } else {
        out.push(
            "let mut sleep = |d: f64| if d.is_finite() && d > 0.0 { now.set(now.get() + d) };"
                .into(),
        );
    }
    out.push(format!(
        "let mut fractions = vec![{}].into_iter(); {}",
        list(&s.fractions),
        t("scenario.fractions_note")
    ));
    out.push("let mut random_fraction = || fractions.next().unwrap_or(0.0);".into());
    out.push(format!(
        "let options = Options {{ method: {:?}, key: {}, timeout: {}, maximum: {} }};",
        s.method,
        opt_str(&s.key),
        float(s.timeout.0),
        s.maximum
    ));
    out.push(
        "dbg!(execute(&mut send, &mut clock, &mut sleep, options, &mut random_fraction));".into(),
    );
    out.join("\n")
}

/// Simpler worlds for a failing scenario: fewer replies, no oversleep, no
/// gap, round times and fractions, a smaller attempt limit. Every one is
/// still a world in which a correct `execute` ends (replies run out into the
/// final 200).
fn simpler_scenarios(s: &Scenario) -> Vec<Scenario> {
    let mut out = Vec::new();
    let mut with = |change: &dyn Fn(&mut Scenario)| {
        let mut t = s.clone();
        change(&mut t);
        if t != *s {
            out.push(t);
        }
    };
    with(&|t| {
        t.replies.pop();
    });
    with(&|t| t.oversleep.iter_mut().for_each(|x| *x = F64(0.0)));
    with(&|t| t.gap = F64(0.0));
    with(&|t| t.start = F64(0.0));
    with(&|t| t.timeout = F64(t.timeout.0.ceil()));
    with(&|t| t.maximum = t.maximum.min(t.replies.len() as u32 + 1).max(1));
    for k in 0..s.replies.len() {
        with(&|t| t.replies[k].cost = F64((t.replies[k].cost.0 * 4.0).round() / 4.0));
        with(&|t| t.replies[k].retry_after = None);
    }
    for k in 0..s.fractions.len() {
        for f in [0.0, 1.0, 0.5] {
            with(&|t| t.fractions[k] = F64(f));
        }
    }
    with(&|t| t.fallback.cost = F64(0.25));
    out
}

pub fn shrink(call: &Call) -> Vec<Call> {
    match call {
        Call::Execute { scenario } => simpler_scenarios(scenario)
            .into_iter()
            .map(|s| Call::Execute {
                scenario: Box::new(s),
            })
            .collect(),
        _ => Vec::new(),
    }
}

pub fn expect(call: &Call) -> Option<Expect> {
    match call {
        Call::Execute { scenario } => {
            let (events, ending) = oracle::execute(scenario);
            Some(Expect::Trace {
                events,
                ending: Box::new(ending),
                timeouts: true,
            })
        }
        _ => None,
    }
}

/// The clause whose rule decides a scenario: the last clause, in the
/// declared order, whose special case the correct loop meets on its way
/// through the scenario; with none, `final-response` for a scenario of one
/// send and `exact-timeouts` (the general retry loop) otherwise.
///
/// The special cases, in the order the clauses are declared:
/// - `invalid-options`: the options are rejected (nothing else happens);
/// - `gap-before-first-send`: the clock jumps after its first reading;
/// - `timeout-before-send`: no time left before a send, or a sleep that
///   overruns;
/// - `attempt-limit`: the call gives up at `maximum` sends, or `maximum` is
///   `u32::MAX`;
/// - `above-31-sends`: a wait is computed after the 32nd send or later;
/// - `not-replay-safe`: a retryable response comes back for a method that is
///   not replay-safe (not POST);
/// - `post-key`: a retryable response comes back for a POST, whose key then
///   decides;
/// - `invalid-fraction`: a drawn fraction is NaN or outside [0, 1], or -0.0;
/// - `retry-after`: a retryable response's Retry-After is read;
/// - `retry-after-beyond-budget`: the call gives up on a wait that is not
///   below the time left before the send;
/// - `response-time-counts`: the call gives up on a wait that was below the
///   time left before the send (the response's own time ended it);
/// - `wait-equals-budget`: the budget equals the wait at a decision;
/// - `late-response`: a response arrives at or after the deadline.
pub fn domain(call: &Call) -> Option<&'static str> {
    let Call::Execute { scenario } = call else {
        return None;
    };
    Some(special_case(scenario))
}

fn special_case(s: &Scenario) -> &'static str {
    if !(s.timeout.0.is_finite() && s.timeout.0 > 0.0) || s.maximum == 0 {
        return "invalid-options";
    }
    let mut met: Vec<&'static str> = Vec::new();
    let mut now = s.start.0;
    let deadline = now + s.timeout.0;
    if s.gap.0 != 0.0 {
        met.push("gap-before-first-send");
        now += s.gap.0;
    }
    if s.maximum == u32::MAX {
        met.push("attempt-limit");
    }
    let safe = oracle::replay_safe(&s.method, s.key.as_deref());
    let post = s.method.eq_ignore_ascii_case("POST");
    let (mut sends, mut sleeps) = (0usize, 0usize);
    let mut fractions = s.fractions.iter().map(|f| f.0);
    loop {
        let left = oracle::remaining(deadline, now);
        if left == 0.0 {
            met.push("timeout-before-send");
            break;
        }
        let reply = s.replies.get(sends).unwrap_or(&s.fallback);
        sends += 1;
        now += reply.cost.0;
        let budget = oracle::remaining(deadline, now);
        if budget == 0.0 {
            met.push("late-response");
        }
        if !oracle::retryable(reply.status) {
            break;
        }
        if post {
            met.push("post-key");
        }
        if !safe {
            if !post {
                met.push("not-replay-safe");
            }
            break;
        }
        let n = sends as u32;
        let fraction = fractions.next().unwrap_or(0.0);
        let valid = (0.0..=1.0).contains(&fraction);
        if !valid || (fraction == 0.0 && fraction.is_sign_negative()) {
            met.push("invalid-fraction");
        }
        if !valid {
            break;
        }
        if n > 31 {
            met.push("above-31-sends");
        }
        if reply.retry_after.is_some() {
            met.push("retry-after");
        }
        let backed = oracle::backoff((n - 1).min(30), lab_api::BASE, lab_api::CAP);
        let local = backed.map_or(0.0, |b| b * fraction);
        let wait = oracle::wait_delay(local, reply.retry_after.as_deref());
        if n >= s.maximum {
            met.push("attempt-limit");
            break;
        }
        if budget == wait {
            met.push("wait-equals-budget");
        }
        if budget <= wait {
            met.push(if wait < left {
                "response-time-counts"
            } else {
                "retry-after-beyond-budget"
            });
            break;
        }
        if wait != 0.0 {
            let over = s.oversleep.get(sleeps).map_or(0.0, |x| x.0);
            if over != 0.0 {
                met.push("timeout-before-send");
            }
            now += wait + over;
            sleeps += 1;
        }
    }
    let general = if sends > 1 {
        "exact-timeouts"
    } else {
        "final-response"
    };
    super::KEYS
        .iter()
        .rev()
        .find(|k| met.contains(k))
        .copied()
        .unwrap_or(general)
}

/// When each expected event happens, for the timeline.
pub fn times(call: &Call) -> Vec<f64> {
    match call {
        Call::Execute { scenario } => oracle::execute_timed(scenario).2,
        _ => Vec::new(),
    }
}
