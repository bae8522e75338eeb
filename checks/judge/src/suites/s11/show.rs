//! Step 11's scripts and observations as a learner reads them: calls as
//! Rust, runs as a compact timeline.

use crate::catalog::{t, tr};
use crate::show::float;
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

fn scenario(s: &Scenario) -> Vec<String> {
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
    format!("Stop::{}", r.name())
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
        Observed::Execute { events, ending: e } => {
            let mut lines = vec![t("11.show.timeline")];
            if events.is_empty() {
                lines.push(t("11.show.nothing"));
            }
            lines.extend(events.iter().map(event));
            lines.push(format!("→ {}", ending(e)));
            lines.join("\n")
        }
    }
}
