//! How step 08 shows its calls to a learner, and how it shrinks a failing one.

use super::super::Expect;
use crate::catalog::{t, tr};
use crate::oracle;
use crate::show::{float, opt_str};
use lab_wire::{Call, Scenario, F64};

pub fn show_call(call: &Call) -> String {
    match call {
        Call::Execute { scenario } => scenario_text(scenario),
        other => format!("{other:?}"),
    }
}

fn scenario_text(s: &Scenario) -> String {
    let mut out = format!(
        "execute(.., Options {{ method: {:?}, key: {}, timeout: {}, maximum: {} }}, ..)\n",
        s.method,
        opt_str(&s.key),
        float(s.timeout.0),
        s.maximum
    );
    out += &format!(
        "    {}",
        tr("scenario.clock", &[("start", &float(s.start.0))])
    );
    if s.gap.0 != 0.0 {
        out += &tr("scenario.gap", &[("gap", &float(s.gap.0))]);
    }
    out += "\n";
    for (i, r) in s.replies.iter().enumerate() {
        let response = format!(
            "Response {{ status: {}, retry_after: {}, body: {:?} }}",
            r.status,
            opt_str(&r.retry_after),
            r.body
        );
        let args: [(&str, &dyn std::fmt::Display); 3] = [
            ("n", &(i + 1)),
            ("response", &response),
            ("cost", &float(r.cost.0)),
        ];
        out += &format!("    {}\n", tr("scenario.send", &args));
    }
    out += &format!(
        "    {}\n",
        tr("scenario.later", &[("cost", &float(s.fallback.cost.0))])
    );
    let list = |xs: &[lab_wire::F64]| xs.iter().map(|x| float(x.0)).collect::<Vec<_>>().join(", ");
    // Past its list the world's random_fraction() returns 0.0.
    let fractions = if s.fractions.is_empty() {
        t("scenario.no_fractions")
    } else {
        tr("scenario.fractions", &[("list", &list(&s.fractions))])
    };
    out += &format!("    {fractions}");
    if s.oversleep.iter().any(|x| x.0 != 0.0) {
        out += &format!(
            "\n    {}",
            tr("scenario.oversleep", &[("list", &list(&s.oversleep))])
        );
    }
    out
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
            .map(|s| Call::Execute { scenario: s })
            .collect(),
        _ => Vec::new(),
    }
}

pub fn expect(call: &Call) -> Option<Expect> {
    match call {
        Call::Execute { scenario } => {
            let (events, ending) = oracle::execute(scenario);
            Some(Expect::Trace { events, ending })
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
