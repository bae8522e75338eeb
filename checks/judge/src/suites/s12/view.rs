//! Step 12's scripts and observations as a learner reads them (Rust that
//! builds the checker's world with `ScriptedWorld`, a timeline), and how two
//! observations compare.

use crate::catalog::{t, tr};
use crate::show::float;
use crate::suites::s11::view::{push_wakes, read_input, same_run, show_run, statement, Extra};
use crate::suites::Observable;
use lab_scripts::s12::{
    Ending, Guarded, GuardedSeen, Observed, Script, SleepScript, SleepSeen, Wake,
};
use serde_json::Value;

impl Observable for Observed {
    /// A call's observation against the same call's: see each kind's `same`.
    fn same(&self, got: &Self) -> bool {
        match (self, got) {
            (Observed::SleepAtLeast(a), Observed::SleepAtLeast(b)) => a.same(b),
            (Observed::GuardedRead(a), Observed::GuardedRead(b)) => a.same(b),
            (Observed::SleepAtLeast(_) | Observed::GuardedRead(_), _) => false,
        }
    }

    fn show(&self) -> String {
        match self {
            Observed::SleepAtLeast(o) => o.show(),
            Observed::GuardedRead(o) => o.show(),
        }
    }
}

impl Observable for GuardedSeen {
    /// As step 11's runs: the same sends (timeouts with `==`), closes and
    /// sleeps in the same order, and the same ending; times are shown only.
    fn same(&self, got: &Self) -> bool {
        same_run(&self.events, &self.ending, &got.events, &got.ending)
    }

    fn show(&self) -> String {
        show_run(&self.events, &self.ending)
    }
}

impl Observable for SleepSeen {
    /// The requested sleeps (floats with `==`: NaN never matches, -0.0
    /// equals 0.0) and the result; the clock readings are shown, never judged.
    fn same(&self, got: &Self) -> bool {
        self.result == got.result
            && self.sleeps.len() == got.sleeps.len()
            && self
                .sleeps
                .iter()
                .zip(&got.sleeps)
                .all(|(a, b)| a.asked.0 == b.asked.0)
    }

    /// A timeline: the first reading, each sleep requested → the clock
    /// after it, then the result.
    fn show(&self) -> String {
        let mut lines = vec![format!("clock {}", float(self.start.0))];
        for s in &self.sleeps {
            lines.push(format!(
                "sleep({}) → clock {}",
                float(s.asked.0),
                float(s.after.0)
            ));
        }
        lines.push(ending_text(self.result));
        lines.join("\n")
    }
}

/// A wake as the `ScriptedWake` that plays it.
fn wake_rust(w: Wake) -> String {
    match w {
        Wake::Exact => "ScriptedWake::Exact".into(),
        Wake::Early { moved } => format!("ScriptedWake::Early {{ moved: {} }}", float(moved.0)),
        Wake::Frozen => "ScriptedWake::Frozen".into(),
        Wake::Late { over } => format!("ScriptedWake::Late {{ over: {} }}", float(over.0)),
        Wake::Back { by } => format!("ScriptedWake::Back {{ by: {} }}", float(by.0)),
        Wake::Reads { t } => format!("ScriptedWake::Reads {{ t: {} }}", float(t.0)),
    }
}

/// The script as Rust that builds the checker's world with `ScriptedWorld`
/// and compiles pasted into a learner's test (the result printed with `dbg!`).
pub fn show_input(input: &Value) -> String {
    match super::super::read::<Script>(input) {
        Some(Script::SleepAtLeast(s)) => sleep_input(&s),
        Some(Script::GuardedRead(g)) => guarded_input(&g),
        None => input.to_string(),
    }
}

/// A `guarded_read` script: step 11's world, with the wakes of the whole
/// read (the scripted panic in its place) and the time closes take.
fn guarded_input(g: &Guarded) -> String {
    let mut wakes: Vec<String> = g.wakes.iter().map(|w| wake_rust(*w)).collect();
    // Sleeps are counted from 1: a panic at sleep 0 never happens.
    if let Some(n) = g.sleeper_panics.filter(|&n| n > 0) {
        let n = n as usize;
        if wakes.len() < n {
            wakes.resize(n, wake_rust(Wake::Exact));
        }
        wakes[n - 1] = "ScriptedWake::Panics".into();
    }
    let extra = Extra {
        clock: tr("12.show.clock", &[("start", &float(g.read.start.0))]),
        wakes,
        wakes_note: t("12.show.sleeps"),
        closing: g.closing.iter().map(|x| x.0).collect(),
        closing_note: t("12.show.closing"),
    };
    read_input(&g.read, &extra, "guarded_read").join("\n")
}

/// A `sleep_at_least` script: the clock, what each non-zero sleep does to
/// it, the cancel flag, and the call.
fn sleep_input(s: &SleepScript) -> String {
    let mut chain = vec![(
        format!("let world = ScriptedWorld::new({})", float(s.start.0)),
        tr("12.show.sleep_clock", &[("start", &float(s.start.0))]),
    )];
    let wakes: Vec<String> = s.wakes.iter().map(|w| wake_rust(*w)).collect();
    push_wakes(&mut chain, &wakes, &t("12.show.wakes"));
    match s.cancel_after_sleeps {
        None => {}
        Some(0) => chain.push(("    .cancel_after(0)".into(), t("11.show.cancel_now"))),
        Some(k) => chain.push((
            format!("    .cancel_after({k})"),
            tr("12.show.cancel", &[("n", &k)]),
        )),
    }
    let mut lines = statement(chain);
    lines.push("let (_, clock, mut sleeper, cancel) = world.roles();".into());
    lines.push(format!(
        "dbg!(sleep_at_least({}, {}, &clock, &mut sleeper, &cancel));",
        float(s.wait.0),
        float(s.deadline.0)
    ));
    lines.join("\n")
}

fn ending_text(e: Ending) -> String {
    match e {
        Ok(()) => "Ok(())".into(),
        Err(fault) => format!("Err(SleepFault::{fault:?})"),
    }
}

#[cfg(test)]
mod tests {
    use super::super::generate::script;
    use super::super::model::model;
    use super::*;
    use lab_wire::F64;

    #[test]
    fn the_timeline_reads_well() {
        let s = script(
            1.0,
            20.0,
            10.0,
            vec![Wake::Early { moved: F64(0.25) }],
            None,
        );
        let text = model(&s).observed.show();
        assert_eq!(
            text,
            "clock 10.0\nsleep(1.0) → clock 10.25\nsleep(0.75) → clock 11.0\nOk(())"
        );
        let input = show_input(&serde_json::to_value(Script::SleepAtLeast(s)).unwrap());
        assert!(
            input.contains("ScriptedWorld::new(10.0)")
                && input.contains("ScriptedWake::Early { moved: 0.25 },")
                && input
                    .ends_with("dbg!(sleep_at_least(1.0, 20.0, &clock, &mut sleeper, &cancel));"),
            "{input}"
        );
    }

    #[test]
    fn a_guarded_run_reads_as_step_11_with_the_guard_named() {
        use lab_api::advanced::SleepFault;
        use lab_scripts::s11::{Ending as End, Event, Reason};
        let seen = GuardedSeen {
            events: vec![Event::Send {
                method: "GET".into(),
                timeout: F64(10.0),
                at: F64(0.0),
            }],
            ending: End::Stopped {
                reason: Reason::Guard(SleepFault::ClockWentBackwards),
                last: None,
            },
        };
        let text = seen.show();
        assert!(
            text.contains("Stop::Guard(SleepFault::ClockWentBackwards)"),
            "{text}"
        );
        let panicked = GuardedSeen {
            events: Vec::new(),
            ending: End::Panicked,
        };
        assert!(!panicked.same(&seen));
        // The words come from the catalog (not selected in unit tests).
        assert!(panicked.show().contains("12.show.panicked"));
    }
}
