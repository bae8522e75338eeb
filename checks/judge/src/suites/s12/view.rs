//! Step 12's scripts and observations as a learner reads them (Rust-like
//! lines, a timeline), and how two observations compare.

use crate::catalog::{t, tr};
use crate::show::float;
use crate::suites::s11::view::{same_run, scenario, show_run};
use crate::suites::Observable;
use lab_wire::scripts::s12::{
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
        lines.push(ending_text(self.result).into());
        lines.join("\n")
    }
}

fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, 11) | (2, 12) | (3, 13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

fn wake_text(w: Wake) -> String {
    match w {
        Wake::Exact => "clock.advance(s)".into(),
        Wake::Early { moved } => format!("clock.advance({})", float(moved.0)),
        Wake::Frozen => "{} // the clock does not move".into(),
        Wake::Late { over } => format!("clock.advance(s + {})", float(over.0)),
        Wake::Back { by } => format!("clock.advance(-{})", float(by.0)),
        Wake::Reads { t } => format!("clock.set({})", float(t.0)),
    }
}

/// The script as Rust-like lines.
pub fn show_input(input: &Value) -> String {
    match super::super::read::<Script>(input) {
        Some(Script::SleepAtLeast(s)) => sleep_input(&s),
        Some(Script::GuardedRead(g)) => guarded_input(&g),
        None => input.to_string(),
    }
}

/// A `guarded_read` script: step 11's world (its first line replaced, as
/// closes may move this clock), what each sleep and close does, the call.
fn guarded_input(g: &Guarded) -> String {
    let mut lines = scenario(&g.read);
    let call = lines.pop().unwrap_or_default();
    let policy = lines.pop().unwrap_or_default();
    lines[0] = format!(
        "// {}",
        tr("12.show.clock", &[("start", &float(g.read.start.0))])
    );
    lines.push(format!("// {}", t("12.show.sleeps")));
    for (i, w) in g.wakes.iter().enumerate() {
        lines.push(format!("//   {} sleep: {}", ordinal(i + 1), wake_text(*w)));
    }
    lines.push(if g.wakes.is_empty() {
        "//   every sleep: clock.advance(s)".into()
    } else {
        "//   later sleeps: clock.advance(s)".into()
    });
    for (k, x) in g.closing.iter().enumerate() {
        if x.0 != 0.0 {
            lines.push(format!(
                "// {}",
                tr("12.show.closing", &[("k", &k), ("by", &float(x.0))])
            ));
        }
    }
    if let Some(n) = g.sleeper_panics {
        lines.push(format!("// {}", tr("12.show.panics", &[("n", &n)])));
    }
    lines.push(policy);
    lines.push(call.replacen("execute_admitted(", "guarded_read(", 1));
    lines.join("\n")
}

/// A `sleep_at_least` script: the clock, what each `sleep(s)` does to it,
/// the cancel flag, and the call.
fn sleep_input(s: &SleepScript) -> String {
    let mut lines = vec![
        format!("let clock = ManualClock::new({});", float(s.start.0)),
        "// sleeper.sleep(s) moves the clock (sleeps of zero are ignored):".into(),
    ];
    for (i, w) in s.wakes.iter().enumerate() {
        lines.push(format!("//   {} sleep: {}", ordinal(i + 1), wake_text(*w)));
    }
    lines.push(if s.wakes.is_empty() {
        "//   every sleep: clock.advance(s)".into()
    } else {
        "//   later sleeps: clock.advance(s)".into()
    });
    lines.push(match s.cancel_after_sleeps {
        None => "// cancel.is_cancelled(): always false".into(),
        Some(0) => "// cancel.is_cancelled(): true from the start".into(),
        Some(k) => format!(
            "// cancel.is_cancelled(): true once {k} sleep{} returned",
            if k == 1 { " has" } else { "s have" }
        ),
    });
    lines.push(format!(
        "sleep_at_least({}, {}, &clock, &mut sleeper, &cancel)",
        float(s.wait.0),
        float(s.deadline.0)
    ));
    lines.join("\n")
}

fn ending_text(e: Ending) -> &'static str {
    match e {
        Ending::Ok => "Ok(())",
        Ending::InvalidArgument => "Err(SleepFault::InvalidArgument)",
        Ending::UnrepresentableWait => "Err(SleepFault::UnrepresentableWait)",
        Ending::NonFiniteReading => "Err(SleepFault::NonFiniteReading)",
        Ending::ClockWentBackwards => "Err(SleepFault::ClockWentBackwards)",
        Ending::Cancelled => "Err(SleepFault::Cancelled)",
        Ending::DeadlineReached => "Err(SleepFault::DeadlineReached)",
        Ending::NoProgress => "Err(SleepFault::NoProgress)",
        Ending::TooManyWakeUps => "Err(SleepFault::TooManyWakeUps)",
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
        assert!(input.contains("1st sleep: clock.advance(0.25)"), "{input}");
        assert!(input.contains("sleep_at_least(1.0, 20.0,"), "{input}");
    }

    #[test]
    fn a_guarded_run_reads_as_step_11_with_the_guard_named() {
        use lab_wire::scripts::s11::{Ending as End, Event, Reason};
        let seen = GuardedSeen {
            events: vec![Event::Send {
                method: "GET".into(),
                timeout: F64(10.0),
                at: F64(0.0),
            }],
            ending: End::Stopped {
                reason: Reason::Guard {
                    fault: Ending::ClockWentBackwards,
                },
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
