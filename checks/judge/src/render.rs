//! Turns calls, expectations and faults into the words a learner reads:
//! inputs as Rust calls they can paste into a unit test, and for step 08 the
//! expected and observed timelines side by side.

use crate::catalog::{t, tr};
use crate::limits::Limits;
use crate::platform::Exit;
pub use crate::show::float;
use crate::show::opt_str;
use crate::suites::{Check, Expect};
use crate::verdict::{same_event, Fault};
use lab_wire::{Call, Ending, Event, SoFar, Trace, Value};

/// A call of step `step` as Rust source, through the step's own view.
pub fn call(step: &str, c: &Call) -> String {
    crate::suites::step(step).show_call(c)
}

/// An expectation as the contract judges it: a float compared with `==`,
/// so a zero is shown without a sign (-0.0 and 0.0 both pass).
pub fn expected(e: &Expect) -> String {
    let judged = |x: f64| float(if x == 0.0 { 0.0 } else { x });
    match e {
        Expect::Bool(b) => b.to_string(),
        Expect::Float(x) => judged(*x),
        Expect::Huge => t("fail.any_huge"),
        Expect::Checked(Some(x)) => format!("Ok({})", judged(*x)),
        Expect::Checked(None) => t("fail.err"),
        Expect::Trace { ending, .. } => ending_text(ending),
        Expect::Script(e) => e.show(),
    }
}

pub fn value(v: &Value) -> String {
    match v {
        Value::Bool { value } => value.to_string(),
        Value::Bools { values } => format!("{values:?}"),
        Value::Float { value } => float(value.0),
        Value::Checked { ok: Some(x) } => format!("Ok({})", float(x.0)),
        Value::Checked { ok: None } => t("fail.err"),
        Value::Trace { trace } => ending_text(&trace.ending),
        Value::Json { value } => value.to_string(),
    }
}

fn ending_text(e: &Ending) -> String {
    match e {
        Ending::Ok {
            status,
            retry_after,
            body,
        } => {
            format!(
                "Ok(Response {{ status: {status}, retry_after: {}, body: {body:?} }})",
                opt_str(retry_after)
            )
        }
        Ending::InvalidArgument => "Err(ExecuteError::InvalidArgument(..))".into(),
        Ending::Timeout => "Err(ExecuteError::Timeout)".into(),
    }
}

fn event_text(e: &Event) -> String {
    match e {
        Event::Send { timeout } => format!("send({})", float(timeout.0)),
        Event::Sleep { seconds } => format!("sleep({})", float(seconds.0)),
    }
}

/// Expected and observed timelines side by side, first difference marked.
/// `expected_times` are the clock times of the expected events (display only).
pub fn timeline(
    events: &[Event],
    ending: &Ending,
    trace: &Trace,
    expected_times: &[f64],
    timeouts: bool,
) -> String {
    let yours = Yours {
        events: &trace.events,
        times: &trace.times,
        draws: trace.draws,
        clock_reads: trace.clock_reads,
    };
    let (mut lines, marked) = rows(
        t("timeline.title"),
        events,
        expected_times,
        &yours,
        timeouts,
    );
    let mark = if !marked && *ending != trace.ending {
        format!("  <- {}", t("timeline.first_difference"))
    } else {
        String::new()
    };
    lines.extend(results(ending, ending_text(&trace.ending), &mark));
    lines.push(yours.counts());
    lines.join("\n")
}

/// The timeline of a call that never answered, up to the moment it
/// stopped (as its runner last said), beside the expected one.
pub fn timeline_so_far(
    events: &[Event],
    ending: &Ending,
    so_far: &SoFar,
    expected_times: &[f64],
    timeouts: bool,
) -> String {
    let yours = Yours {
        events: &so_far.events,
        times: &so_far.times,
        draws: so_far.draws,
        clock_reads: so_far.clock_reads,
    };
    let (mut lines, marked) = rows(
        t("timeline.so_far_title"),
        events,
        expected_times,
        &yours,
        timeouts,
    );
    if so_far.more > 0 {
        lines.push(format!(
            "         {}",
            tr("timeline.more", &[("count", &so_far.more)])
        ));
    }
    let mark = if marked {
        String::new()
    } else {
        format!("  <- {}", t("timeline.first_difference"))
    };
    let no_answer = if so_far.events.is_empty() {
        t("timeline.no_answer_at_once")
    } else {
        t("timeline.no_answer")
    };
    lines.extend(results(ending, no_answer, &mark));
    lines.push(yours.counts());
    lines.join("\n")
}

/// The learner's side of a timeline.
struct Yours<'a> {
    events: &'a [Event],
    times: &'a [lab_wire::F64],
    draws: u32,
    clock_reads: u32,
}

impl Yours<'_> {
    fn counts(&self) -> String {
        format!(
            "    {}",
            tr(
                "timeline.draws",
                &[("draws", &self.draws), ("reads", &self.clock_reads)]
            )
        )
    }
}

/// A timeline's title, heading and rows; whether a row was marked as the
/// first difference.
fn rows(
    title: String,
    events: &[Event],
    expected_times: &[f64],
    yours: &Yours,
    timeouts: bool,
) -> (Vec<String>, bool) {
    let (e_head, g_head) = (t("timeline.expected"), t("timeline.got"));
    let mut lines = vec![format!("    {title}")];
    // No events on either side: no table.
    if !events.is_empty() || !yours.events.is_empty() {
        lines.push(format!("      #  {}{g_head}", padded(&e_head, 38)));
    }
    let mut marked = false;
    for i in 0..events.len().max(yours.events.len()) {
        let (e, g) = (events.get(i), yours.events.get(i));
        let differs = match (e, g) {
            (Some(a), Some(b)) => !same_event(a, b, timeouts),
            _ => true,
        };
        let mark = if differs && !marked {
            marked = true;
            format!("  <- {}", t("timeline.first_difference"))
        } else {
            String::new()
        };
        let cell = |x: Option<&Event>, at: Option<f64>| match (x, at) {
            (Some(x), Some(at)) => format!("t={:<10} {}", float(at), event_text(x)),
            (Some(x), None) => event_text(x),
            (None, _) => "-".to_string(),
        };
        let (e_at, g_at) = (
            expected_times.get(i).copied(),
            yours.times.get(i).map(|x| x.0),
        );
        lines.push(format!(
            "    {:>3}  {:<38}{}{mark}",
            i + 1,
            cell(e, e_at),
            cell(g, g_at)
        ));
    }
    (lines, marked)
}

/// The expected result and the learner's (`got`, marked with `mark`).
fn results(ending: &Ending, got: String, mark: &str) -> [String; 4] {
    [
        format!("    {}: {}", t("timeline.result"), t("timeline.expected")),
        format!("      {}", ending_text(ending)),
        format!("    {}: {}{mark}", t("timeline.result"), t("timeline.got")),
        format!("      {got}"),
    ]
}

pub fn fault(f: &Fault, step: &str, function: &str, limits: &Limits) -> String {
    match f {
        Fault::Wrong(Value::Json { value }) => crate::suites::step(step).show_json(value),
        Fault::Wrong(v) => value(v),
        Fault::NotImplemented => tr(
            "fault.todo",
            &[
                ("step", &step),
                ("function", &function),
                ("file", &crate::suites::file_of(step)),
            ],
        ),
        Fault::Panicked(message, None) => tr("fault.panicked", &[("message", &message)]),
        Fault::Panicked(message, Some(at)) => {
            tr("fault.panicked_at", &[("message", &message), ("at", &at)])
        }
        Fault::Runaway(count, kind) => {
            use lab_wire::Use;
            let key = match kind {
                Use::World => "fault.runaway",
                Use::Sends => "fault.runaway.sends",
                Use::Sleeps => "fault.runaway.sleeps",
                Use::ClockReadings => "fault.runaway.clock_readings",
                Use::CancelChecks => "fault.runaway.cancel_checks",
            };
            tr(key, &[("count", count)])
        }
        Fault::TimedOut(_) => tr(
            "fault.timed_out",
            &[("seconds", &limits.case.as_secs_f64())],
        ),
        Fault::CutShort => tr(
            "fault.cut_short",
            &[(
                "seconds",
                &limits.case.min(crate::session::AFTER_A_HANG).as_secs_f64(),
            )],
        ),
        Fault::Crashed { exit, stderr } => crashed(exit, stderr),
        Fault::Flooded => tr("fault.flooded", &[("mib", &(limits.output_cap >> 20))]),
        Fault::Forged(why) => tr("fault.forged", &[("why", why)]),
        Fault::NotRun => tr("fault.not_run", &[("seconds", &limits.suite.as_secs_f64())]),
    }
}

fn crashed(exit: &Exit, stderr: &str) -> String {
    if stderr.contains("has overflowed its stack") {
        return t("fault.stack_overflow");
    }
    match exit {
        Exit::Signalled(s) if *s == crate::platform::FILE_TOO_LARGE => t("fault.file_too_large"),
        Exit::FolderFull => t("fault.folder_too_large"),
        Exit::Signalled(signal) => tr("fault.signalled", &[("signal", signal)]),
        Exit::Failure(code) => tr("fault.exited", &[("code", code)]),
        Exit::Success => tr("fault.exited", &[("code", &0)]),
        Exit::CaseTimeLimit | Exit::OverallTimeLimit | Exit::Flood | Exit::Stopped => {
            format!("{exit:?}")
        }
    }
}

/// `text` as one visible line (see [`crate::visible::line`]), then spaces
/// up to `columns` terminal columns (wide characters take two); a wider
/// text stays whole.
pub fn padded(text: &str, columns: usize) -> String {
    let text = crate::visible::line(text);
    format!(
        "{text}{}",
        " ".repeat(columns.saturating_sub(display_width(&text)))
    )
}

/// Spaces, then `text` as one visible line, up to `columns` terminal columns.
pub fn right_aligned(text: &str, columns: usize) -> String {
    let text = crate::visible::line(text);
    format!(
        "{}{text}",
        " ".repeat(columns.saturating_sub(display_width(&text)))
    )
}

/// Columns a terminal gives `text`: East Asian wide characters take two.
/// Punctuation such as `–` and `…` stays one column wide.
pub fn display_width(text: &str) -> usize {
    const WIDE: [(char, char); 8] = [
        ('\u{1100}', '\u{115f}'), // Hangul Jamo
        ('\u{2e80}', '\u{303e}'), // CJK radicals, symbols and punctuation
        ('\u{3041}', '\u{a4cf}'), // kana, CJK ideographs, Yi
        ('\u{ac00}', '\u{d7a3}'), // Hangul syllables
        ('\u{f900}', '\u{faff}'), // CJK compatibility ideographs
        ('\u{fe30}', '\u{fe4f}'), // CJK compatibility forms
        ('\u{ff00}', '\u{ff60}'), // full-width forms
        ('\u{ffe0}', '\u{ffe6}'), // full-width signs
    ];
    text.chars()
        .map(|c| {
            if WIDE.iter().any(|(lo, hi)| (*lo..=*hi).contains(&c)) {
                2
            } else {
                1
            }
        })
        .sum()
}

/// What the learner's code printed during a case, marked as theirs and
/// indented under the failure (already capped by the session).
pub fn printed(text: &str) -> String {
    let mut out = format!("\n  {}", t("fail.printed"));
    for line in text.lines() {
        out += &format!("\n    | {line}");
    }
    out
}

/// One failing case in a line: for a timeline, its first difference; else
/// what came back (its first line).
pub fn brief(check: &Check, f: &Fault, step: &str, function: &str, limits: &Limits) -> String {
    if let (
        Expect::Trace {
            events,
            ending,
            timeouts,
        },
        Fault::Wrong(Value::Trace { trace }),
    ) = (&check.expect, f)
    {
        let timeouts = *timeouts;
        let at = (0..events.len().max(trace.events.len())).find(|&i| {
            match (events.get(i), trace.events.get(i)) {
                (Some(a), Some(b)) => !same_event(a, b, timeouts),
                _ => true,
            }
        });
        let cell = |e: Option<&Event>| e.map_or_else(|| "-".to_string(), event_text);
        return match at {
            Some(i) => tr(
                "fail.brief_event",
                &[
                    ("n", &(i + 1)),
                    ("expected", &cell(events.get(i))),
                    ("got", &cell(trace.events.get(i))),
                ],
            ),
            None => tr(
                "fail.brief_result",
                &[
                    ("expected", &ending_text(ending)),
                    ("got", &ending_text(&trace.ending)),
                ],
            ),
        };
    }
    let (want, got) = (expected(&check.expect), fault(f, step, function, limits));
    let (want, got): (Vec<&str>, Vec<&str>) = (want.lines().collect(), got.lines().collect());
    if want.len() <= 1 && got.len() <= 1 {
        let one = |l: &[&str]| l.first().unwrap_or(&"").trim().to_string();
        return tr(
            "fail.brief_result",
            &[("expected", &one(&want)), ("got", &one(&got))],
        );
    }
    // Texts of several lines (an advanced step's story): their first
    // differing line.
    let line = |l: &[&str], i: usize| l.get(i).map_or("-".to_string(), |x| x.trim().to_string());
    match (0..want.len().max(got.len())).find(|&i| want.get(i) != got.get(i)) {
        Some(i) => tr(
            "fail.brief_line",
            &[
                ("n", &(i + 1)),
                ("expected", &line(&want, i)),
                ("got", &line(&got, i)),
            ],
        ),
        None => t("fail.same_text"),
    }
}

/// `got` with its first line that differs from `want`'s line at the same
/// place marked, as a timeline marks its first difference, when both run
/// over several lines (an advanced step's story: a fan-out's timelines, a
/// read's events); unchanged otherwise.
fn marked(want: &str, got: &str) -> String {
    let (w, g): (Vec<&str>, Vec<&str>) = (want.lines().collect(), got.lines().collect());
    if w.len() <= 1 || g.len() <= 1 {
        return got.to_string();
    }
    let Some(i) = (0..g.len()).find(|&i| w.get(i) != g.get(i)) else {
        // `got` is a shorter copy of `want`'s start: what is missing follows.
        return format!("{got}  <- {}", t("timeline.first_difference"));
    };
    g.iter()
        .enumerate()
        .map(|(k, l)| {
            if k == i {
                format!("{l}  <- {}", t("timeline.first_difference"))
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

pub fn failure(check: &Check, f: &Fault, step: &str, function: &str, limits: &Limits) -> String {
    let labels = [t("fail.input"), t("fail.expected"), t("fail.got")];
    let width = labels.iter().map(|l| display_width(l)).max().unwrap_or(0);
    let label = |l: &str| format!("  {l}:{}", " ".repeat(width - display_width(l) + 1));
    // An advanced step's texts of several lines continue under the first.
    let under = format!("\n{}", " ".repeat(width + 4));
    let advanced = matches!(check.call, Call::Advanced { .. });
    let lines = |text: String| {
        if advanced {
            text.replace('\n', &under)
        } else {
            text
        }
    };
    // An input of several lines (step 08's world too) continues under its
    // first line.
    let input = call(check.step, &check.call).replace('\n', &under);
    let mut out = format!("{}{input}\n", label(&labels[0]));
    let (want, got) = (expected(&check.expect), fault(f, step, function, limits));
    // Never the same words twice: the difference is then in what follows.
    let has_timeline = matches!(
        (&check.expect, f),
        (Expect::Trace { .. }, Fault::Wrong(Value::Trace { .. }))
    );
    let got = match (got == want, has_timeline) {
        (false, _) if advanced => marked(&want, &got),
        (false, _) => got,
        (true, true) => t("fail.same_result_timeline"),
        (true, false) => t("fail.same_text"),
    };
    out += &format!("{}{}\n", label(&labels[1]), lines(want));
    out += &format!("{}{}", label(&labels[2]), lines(got));
    if let (
        Expect::Trace {
            events,
            ending,
            timeouts,
        },
        Fault::Wrong(Value::Trace { trace }),
    ) = (&check.expect, f)
    {
        let times = crate::suites::step(check.step).times(&check.call);
        out += "\n";
        out += &timeline(events, ending, trace, &times, *timeouts);
        // Every correct call reads the clock before its first send.
        let sent = trace.events.iter().any(|e| matches!(e, Event::Send { .. }));
        if sent && trace.clock_reads == 0 {
            out += &format!("\n  {}", t("fail.no_clock_reads"));
        }
    }
    // The first call that hung: what it did up to the moment it stopped.
    if let (
        Expect::Trace {
            events,
            ending,
            timeouts,
        },
        Fault::TimedOut(Some(so_far)),
    ) = (&check.expect, f)
    {
        let times = crate::suites::step(check.step).times(&check.call);
        out += "\n";
        out += &timeline_so_far(events, ending, so_far, &times, *timeouts);
    }
    out
}

#[cfg(test)]
mod tests;
