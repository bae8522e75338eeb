//! Step 11's scripts and observations as a learner reads them (calls as
//! Rust, runs as a compact timeline), and how two observations compare.

use crate::catalog::{t, tr};
use crate::show::float;
use crate::suites::Observable;
use lab_wire::scripts::s11::{
    AdmitCall, Decision, Ending, Event, Handed, Observed, Parsed, Reason, Scenario, Script,
};
use serde_json::Value;

fn parsed(p: &Parsed) -> String {
    match p {
        Parsed::None => "None".into(),
        Parsed::Ok { delay } => format!("Some(Ok({delay}))"),
        Parsed::Err { error } => format!("Some(Err(RetryAfterError::{}))", error.name()),
    }
}

fn admit_call(c: &AdmitCall) -> String {
    format!(
        "admit({:?}, {}, {}, {}, {}, {}, {}, {})",
        c.method,
        c.status,
        c.attempts,
        c.limit,
        float(c.left.0),
        parsed(&c.retry_after),
        float(c.min_gap.0),
        float(c.reserve.0)
    )
}

/// The world of a scenario as comment lines, the policy, then the call.
pub(crate) fn scenario(s: &Scenario) -> Vec<String> {
    let mut lines = vec![
        format!(
            "// {}",
            tr("11.show.clock", &[("start", &float(s.start.0))])
        ),
        format!("// {}", t("11.show.replies")),
    ];
    for (k, r) in s.replies.iter().enumerate() {
        lines.push(format!(
            "//   {}",
            tr(
                "11.show.reply",
                &[
                    ("k", &k),
                    ("status", &r.status),
                    ("fields", &format!("{:?}", r.retry_after)),
                    ("received", &r.received_at),
                    ("cost", &float(r.cost.0)),
                ]
            )
        ));
    }
    lines.push(format!(
        "//   {}",
        tr(
            "11.show.fallback",
            &[
                ("k", &s.replies.len()),
                ("status", &s.fallback.status),
                ("cost", &float(s.fallback.cost.0)),
            ]
        )
    ));
    if !s.overrun.is_empty() && s.overrun.iter().any(|x| x.0 != 0.0) {
        let list: Vec<String> = s.overrun.iter().map(|x| float(x.0)).collect();
        lines.push(format!(
            "// {}",
            tr("11.show.overrun", &[("list", &list.join(", "))])
        ));
    }
    match s.cancel_after {
        Some(0) => lines.push(format!("// {}", t("11.show.cancel_now"))),
        Some(n) => lines.push(format!("// {}", tr("11.show.cancel", &[("n", &n)]))),
        None => {}
    }
    lines.push(format!(
        "let policy = Policy {{ limit: {}, min_gap: {}, reserve: {} }};",
        s.limit,
        float(s.min_gap.0),
        float(s.reserve.0)
    ));
    lines.push(format!(
        "execute_admitted({:?}, {}, policy, &mut transport, &clock, &mut sleeper, &cancel)",
        s.method,
        float(s.deadline.0)
    ));
    lines
}

/// The script as the Rust a learner would write to replay it.
pub fn show_input(input: &Value) -> String {
    match super::super::read::<Script>(input) {
        Some(Script::Admit(c)) => admit_call(&c),
        Some(Script::Execute(s)) => scenario(&s).join("\n"),
        None => input.to_string(),
    }
}

fn stop(r: Reason) -> String {
    match r {
        Reason::Guard { fault } => format!("Stop::Guard(SleepFault::{fault:?})"),
        other => format!("Stop::{}", other.name()),
    }
}

fn response(h: &Handed) -> String {
    let which = h
        .reply
        .map_or_else(|| t("11.show.unsent"), |k| format!("#{k}"));
    format!(
        "{which} {{ status: {}, retry_after: {:?}, received_at: {}, body: {:?} }}",
        h.status, h.retry_after, h.received_at, h.body
    )
}

fn ending(e: &Ending) -> String {
    match e {
        Ending::InvalidArgument => "Err(InvalidArgument(_))".into(),
        Ending::Panicked => t("12.show.panicked"),
        Ending::Answer { response: r } => format!("Ok(Finish::Answer({}))", response(r)),
        Ending::Stopped { reason, last: None } => format!(
            "Ok(Finish::Stopped {{ reason: {}, last: None }})",
            stop(*reason)
        ),
        Ending::Stopped {
            reason,
            last: Some(r),
        } => format!(
            "Ok(Finish::Stopped {{ reason: {}, last: Some({}) }})",
            stop(*reason),
            response(r)
        ),
    }
}

fn event(e: &Event) -> String {
    let (at, what) = match e {
        Event::Send {
            method,
            timeout,
            at,
        } => (at, format!("send({method:?}, {})", float(timeout.0))),
        Event::Close { reply, at } => (at, format!("close(#{reply})")),
        Event::Sleep { seconds, at } => (at, format!("sleep({})", float(seconds.0))),
    };
    format!("t={:<10} {what}", float(at.0))
}

/// A decision, or a run as a timeline (t = seconds since the clock's start).
pub fn show_observed(o: &Observed) -> String {
    match o {
        Observed::Admit { decision } => match decision {
            Decision::Retry { wait } => {
                format!("Ok(Admission::Retry {{ wait: {} }})", float(wait.0))
            }
            Decision::Refuse { reason } => format!("Ok(Admission::Refuse({}))", stop(*reason)),
            Decision::InvalidArgument => "Err(InvalidArgument(_))".into(),
        },
        Observed::Execute { events, ending: e } => show_run(events, e),
    }
}

/// A run as a timeline, then how it ended.
pub(crate) fn show_run(events: &[Event], e: &Ending) -> String {
    let mut lines = vec![t("11.show.timeline")];
    if events.is_empty() {
        lines.push(t("11.show.nothing"));
    }
    lines.extend(events.iter().map(event));
    lines.push(format!("→ {}", ending(e)));
    lines.join("\n")
}

/// Two runs compare equal: the same events (times ignored), the same ending.
pub(crate) fn same_run(e1: &[Event], n1: &Ending, e2: &[Event], n2: &Ending) -> bool {
    e1.len() == e2.len() && e1.iter().zip(e2).all(|(a, b)| same_event(a, b)) && n1 == n2
}

fn same_decision(e: &Decision, g: &Decision) -> bool {
    match (e, g) {
        (Decision::Retry { wait: a }, Decision::Retry { wait: b }) => a.0 == b.0,
        (Decision::Refuse { reason: a }, Decision::Refuse { reason: b }) => a == b,
        (Decision::InvalidArgument, Decision::InvalidArgument) => true,
        (Decision::Retry { .. } | Decision::Refuse { .. } | Decision::InvalidArgument, _) => false,
    }
}

/// Events are compared without their times (shown, never judged).
fn same_event(e: &Event, g: &Event) -> bool {
    match (e, g) {
        (
            Event::Send {
                method: m1,
                timeout: t1,
                ..
            },
            Event::Send {
                method: m2,
                timeout: t2,
                ..
            },
        ) => m1 == m2 && t1.0 == t2.0,
        (Event::Close { reply: a, .. }, Event::Close { reply: b, .. }) => a == b,
        (Event::Sleep { seconds: a, .. }, Event::Sleep { seconds: b, .. }) => a.0 == b.0,
        (Event::Send { .. } | Event::Close { .. } | Event::Sleep { .. }, _) => false,
    }
}

impl Observable for Observed {
    /// Floats with `==` (NaN never matches, -0.0 equals 0.0); event times ignored.
    fn same(&self, got: &Self) -> bool {
        match (self, got) {
            (Observed::Admit { decision: a }, Observed::Admit { decision: b }) => {
                same_decision(a, b)
            }
            (
                Observed::Execute {
                    events: e1,
                    ending: n1,
                },
                Observed::Execute {
                    events: e2,
                    ending: n2,
                },
            ) => same_run(e1, n1, e2, n2),
            (Observed::Admit { .. } | Observed::Execute { .. }, _) => false,
        }
    }

    fn show(&self) -> String {
        show_observed(self)
    }
}

#[cfg(test)]
mod tests {
    use super::super::table::execute_from_table;
    use super::super::STEP;
    use super::*;
    use crate::rng::Gen;
    use crate::suites::fixture;

    #[test]
    fn a_response_closed_after_the_sleep_is_told_apart() {
        let case = fixture::table(STEP)
            .into_iter()
            .find(|c| fixture::clause(c) == "close-before-wait")
            .unwrap();
        let (_, events, ending) = execute_from_table(&mut Gen::new(1), &case);
        let e = Observed::Execute { events, ending };
        let Observed::Execute { mut events, ending } = e.clone() else {
            panic!("an execute case");
        };
        // The close moved after the sleep that follows it.
        let i = events
            .iter()
            .position(|x| matches!(x, Event::Close { .. }))
            .unwrap();
        events.swap(i, i + 1);
        let late = Observed::Execute { events, ending };
        assert!(!e.same(&late));
    }
}
