//! Step 11's scripts and observations as a learner reads them (calls as
//! Rust that builds the checker's world with `ScriptedWorld` and compiles
//! pasted into a learner's test, runs as a compact timeline), and how two
//! observations compare.

use crate::catalog::{t, tr};
use crate::show::float;
use crate::suites::Observable;
use lab_scripts::s11::{
    AdmitCall, Decision, Ending, Event, Handed, Observed, Parsed, Reason, Reply, Scenario, Script,
};
use serde_json::Value;

fn parsed(p: &Parsed) -> String {
    match p {
        Parsed::None => "None".into(),
        Parsed::Ok { delay } => format!("Some(Ok({delay}))"),
        Parsed::Err { error } => format!("Some(Err(RetryAfterError::{error:?}))"),
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

/// One line of Rust, with a comment after it when `note` is not empty.
fn noted(code: String, note: String) -> String {
    if note.is_empty() {
        code
    } else {
        format!("{code} // {note}")
    }
}

/// Adds `.wakes(vec![…])` to a world's builder, one wake a line, unless
/// the wakes are all exact: exact wakes at the end say nothing the world
/// does not do anyway.
pub(crate) fn push_wakes(chain: &mut Vec<(String, String)>, wakes: &[String], note: &str) {
    let exact = wakes
        .iter()
        .rev()
        .take_while(|w| *w == "ScriptedWake::Exact")
        .count();
    let wakes = &wakes[..wakes.len() - exact];
    if wakes.is_empty() {
        return;
    }
    chain.push(("    .wakes(vec![".into(), note.into()));
    for w in wakes {
        chain.push((format!("        {w},"), String::new()));
    }
    chain.push(("    ])".into(), String::new()));
}

/// A builder's lines, `(code, comment)`, as one statement.
pub(crate) fn statement(mut chain: Vec<(String, String)>) -> Vec<String> {
    if let Some(last) = chain.last_mut() {
        last.0.push(';');
    }
    chain.into_iter().map(|(c, n)| noted(c, n)).collect()
}

/// A reply as the `ScriptedReply` that plays it.
fn scripted_reply(r: &Reply) -> String {
    let fields: Vec<String> = r
        .retry_after
        .iter()
        .map(|f| format!("{f:?}.into()"))
        .collect();
    format!(
        "ScriptedReply {{ status: {}, retry_after: vec![{}], received_at: {}, body: {:?}.into(), takes: {} }}",
        r.status,
        fields.join(", "),
        r.received_at,
        r.body,
        float(r.cost.0)
    )
}

/// What tells step 11's world from `guarded_read`'s: the first line's
/// comment, the wakes as Rust expressions (step 11's overruns, or step 12's
/// wakes with the scripted panic) and how far each close moves the clock.
pub(crate) struct Extra {
    /// The first line's comment.
    pub clock: String,
    pub wakes: Vec<String>,
    /// The comment on the wakes.
    pub wakes_note: String,
    pub closing: Vec<f64>,
    /// The comment on the closes.
    pub closing_note: String,
}

/// The Rust that builds a read's world with `ScriptedWorld` and makes the
/// call (`call` names the function, `execute_admitted` or `guarded_read`),
/// printing its result with `dbg!`.
pub(crate) fn read_input(s: &Scenario, extra: &Extra, call: &str) -> Vec<String> {
    // The builder's lines: (code, comment); the last one ends the statement.
    let mut chain: Vec<(String, String)> = vec![(
        format!("let world = ScriptedWorld::new({})", float(s.start.0)),
        extra.clock.clone(),
    )];
    if !s.replies.is_empty() {
        chain.push(("    .replies(vec![".into(), t("11.show.replies")));
        for (k, r) in s.replies.iter().enumerate() {
            chain.push((format!("        {},", scripted_reply(r)), format!("#{k}")));
        }
        chain.push(("    ])".into(), String::new()));
    }
    chain.push((
        format!("    .later({})", scripted_reply(&s.fallback)),
        tr("11.show.later", &[("k", &s.replies.len())]),
    ));
    push_wakes(&mut chain, &extra.wakes, &extra.wakes_note);
    if extra.closing.iter().any(|x| *x != 0.0) {
        let list: Vec<String> = extra.closing.iter().map(|x| float(*x)).collect();
        chain.push((
            format!("    .closing(vec![{}])", list.join(", ")),
            extra.closing_note.clone(),
        ));
    }
    match s.cancel_after {
        Some(0) => chain.push(("    .cancel_after(0)".into(), t("11.show.cancel_now"))),
        Some(n) => chain.push((
            format!("    .cancel_after({n})"),
            tr("11.show.cancel", &[("n", &n)]),
        )),
        None => {}
    }
    let mut lines = statement(chain);
    lines.push("let (mut transport, clock, mut sleeper, cancel) = world.roles();".into());
    lines.push(format!(
        "let policy = Policy {{ limit: {}, min_gap: {}, reserve: {} }};",
        s.limit,
        float(s.min_gap.0),
        float(s.reserve.0)
    ));
    lines.push(format!(
        "dbg!({call}({:?}, {}, policy, &mut transport, &clock, &mut sleeper, &cancel));",
        s.method,
        float(s.deadline.0)
    ));
    lines
}

/// Step 11's world: each non-zero sleep overruns by its scripted overrun.
fn scenario(s: &Scenario) -> Vec<String> {
    let wakes: Vec<String> = s
        .overrun
        .iter()
        .map(|x| {
            if x.0 == 0.0 {
                "ScriptedWake::Exact".to_string()
            } else {
                format!("ScriptedWake::Late {{ over: {} }}", float(x.0))
            }
        })
        .collect();
    let extra = Extra {
        clock: tr("11.show.clock", &[("start", &float(s.start.0))]),
        wakes,
        wakes_note: t("11.show.wakes"),
        closing: Vec::new(),
        closing_note: String::new(),
    };
    read_input(s, &extra, "execute_admitted")
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
        Reason::Guard(fault) => format!("Stop::Guard(SleepFault::{fault:?})"),
        other => format!("Stop::{other:?}"),
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

/// A run judged on its sends alone: each send's method and timeout, and
/// the ending. `exact-timeouts` retries through these, so that a send
/// given less (or more) than all the time left shows there first, while
/// the closes and waits between the sends stay the rules of the clauses
/// after it (`close-before-wait`, `retry-after-wait`, …).
#[derive(Debug)]
pub(crate) struct SendsOnly(pub(crate) Observed);

impl<'de> serde::Deserialize<'de> for SendsOnly {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Observed::deserialize(d).map(SendsOnly)
    }
}

impl Observable for SendsOnly {
    fn same(&self, got: &Self) -> bool {
        let sends = |e: &[Event]| -> Vec<Event> {
            e.iter()
                .filter(|e| matches!(e, Event::Send { .. }))
                .cloned()
                .collect()
        };
        match (&self.0, &got.0) {
            (
                Observed::Execute {
                    events: e1,
                    ending: n1,
                },
                Observed::Execute {
                    events: e2,
                    ending: n2,
                },
            ) => same_run(&sends(e1), n1, &sends(e2), n2),
            (expected, got) => expected.same(got),
        }
    }

    fn show(&self) -> String {
        show_observed(&self.0)
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
    use super::super::ThisStep;
    use super::*;
    use crate::rng::Gen;
    use crate::suites::fixture;
    use lab_wire::F64;

    const STEP: &str = ThisStep::ID;

    #[test]
    fn exact_timeouts_retries_are_judged_on_their_sends_alone() {
        let send = |timeout: f64| Event::Send {
            method: "GET".into(),
            timeout: F64(timeout),
            at: F64(0.0),
        };
        let run = |events: Vec<Event>| Observed::Execute {
            events,
            ending: Ending::InvalidArgument,
        };
        let close = Event::Close {
            reply: 0,
            at: F64(0.0),
        };
        let sleep = Event::Sleep {
            seconds: F64(1.0),
            at: F64(0.0),
        };
        let want = run(vec![send(10.0), close.clone(), sleep.clone(), send(8.5)]);
        // Closed after the wait: another clause's rule.
        let late_close = run(vec![send(10.0), sleep.clone(), close.clone(), send(8.5)]);
        // The whole budget again for the retry: this clause's rule.
        let fresh = run(vec![send(10.0), close, sleep, send(10.0)]);
        assert!(!want.same(&late_close));
        let sends = |o: &Observed| SendsOnly(o.clone());
        assert!(sends(&want).same(&sends(&late_close)));
        assert!(!sends(&want).same(&sends(&fresh)));
    }

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
