//! `check --message-format json`: one JSON object per line on the standard
//! output (`docs/events.schema.json`, described in `docs/EVENTS.md`), and
//! while it is on, the human report on the standard error
//! ([`crate::stdout`]). Texts are exact, cut to [`TEXT_CAP`] bytes.

use crate::evaluate::StepResult;
use crate::limits::Limits;
use crate::locate::Locator;
use crate::stdout::on;
use crate::verdict::{ClauseVerdict, Fault};
use serde_json::{json, Value};
use std::io::Write;

pub mod validate;

/// The events' JSON Schema (`docs/events.schema.json`).
pub const SCHEMA_TEXT: &str = include_str!("../../../docs/events.schema.json");

/// Every event's `schema`.
pub const SCHEMA: &str = "retry-lab.events/1";

/// The most bytes of any one text in an event.
pub const TEXT_CAP: usize = 8192;

/// `text` cut to [`TEXT_CAP`] bytes at a character boundary.
pub fn capped(text: &str) -> String {
    if text.len() <= TEXT_CAP {
        return text.to_string();
    }
    let mut end = TEXT_CAP - '…'.len_utf8();
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

/// One event as its line (no line feed): `schema` and `event` first, then
/// `fields` (an object).
pub fn line(event: &str, fields: Value) -> String {
    let head = format!("{{\"schema\":{},\"event\":{}", json!(SCHEMA), json!(event));
    let rest = match fields {
        Value::Object(map) if !map.is_empty() => Value::Object(map).to_string(),
        _ => return head + "}",
    };
    format!("{head},{}", &rest[1..])
}

/// Writes one event, when events are on.
pub fn emit(event: &str, fields: Value) {
    if !on() {
        return;
    }
    let mut out = std::io::stdout().lock();
    // A reader that went away ends the stream, not the check.
    let _ = writeln!(out, "{}", line(event, fields));
    let _ = out.flush();
}

/// What `run_finished` repeats: the seed, the rerun command, the counts.
#[derive(Default)]
struct Run {
    seed: u64,
    rerun: String,
    counts: (u64, u64, u64),
}

static RUN: std::sync::Mutex<Option<Run>> = std::sync::Mutex::new(None);

fn with_run(f: impl FnOnce(&mut Run)) {
    let mut run = RUN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    f(run.get_or_insert_with(Run::default));
}

/// `run_started`.
pub fn started(seed: u64, rerun: &str, steps: &[&str]) {
    with_run(|r| {
        *r = Run {
            seed,
            rerun: rerun.to_string(),
            counts: (0, 0, 0),
        }
    });
    let lang = crate::catalog::code(crate::catalog::active());
    emit(
        "run_started",
        json!({"seed": seed, "rerun": rerun, "steps": steps, "lang": lang}),
    );
}

/// `build_failed`: `file` does not compile, and `steps` cannot run.
pub fn build_failed(file: &str, steps: &[&str], message: &str) {
    emit(
        "build_failed",
        json!({"file": file, "steps": steps, "message": capped(message)}),
    );
}

/// `error`: the kit could not go on.
pub fn error(message: &str) {
    emit("error", json!({"message": capped(message)}));
}

/// The closing line's counts, for `run_finished`.
pub fn counts(passed: u64, failed: u64, not_started: u64) {
    with_run(|r| r.counts = (passed, failed, not_started));
}

/// `run_finished`, with the check's exit status.
pub fn finished(exit: u8) {
    let mut fields = Value::Null;
    with_run(|r| {
        let (passed, failed, not_started) = r.counts;
        fields = json!({
            "passed": passed, "failed": failed, "not_started": not_started,
            "seed": r.seed, "rerun": r.rerun, "exit": exit,
        });
    });
    emit("run_finished", fields);
}

/// The fault's name in the schema.
pub fn fault_name(f: &Fault) -> Option<&'static str> {
    Some(match f {
        Fault::Wrong(_) => return None,
        Fault::NotImplemented => "not_implemented",
        Fault::Panicked(..) => "panicked",
        Fault::Runaway(..) => "runaway",
        Fault::TimedOut(_) => "timed_out",
        Fault::CutShort => "cut_short",
        Fault::Crashed { .. } => "crashed",
        Fault::Flooded => "flooded",
        Fault::Forged(_) => "forged",
        Fault::NotRun => "not_run",
    })
}

/// The step's status in `step_finished`.
fn status(result: &StepResult) -> &'static str {
    if result
        .verdicts
        .iter()
        .any(|v| matches!(v, ClauseVerdict::NotBuilt))
    {
        "not_built"
    } else if result.verdicts.iter().all(ClauseVerdict::is_pass) {
        "passed"
    } else if result.not_started() {
        "not_started"
    } else {
        "failing"
    }
}

/// The events of one judged step, as lines: `step_started`, a `rule` per
/// clause, `step_finished`.
pub fn step_lines(result: &StepResult, limits: &Limits, at: &Locator) -> Vec<String> {
    let suite = &result.suite;
    let place = json!({"file": at.file, "line": at.line, "column": at.column});
    let mut start = json!({"step": suite.step, "items": suite.function});
    merge(&mut start, &place);
    let mut lines = vec![line("step_started", start)];
    let (mut passed, mut failed, mut faulted) = (0u64, 0u64, 0u64);
    for (i, clause) in suite.clauses.iter().enumerate() {
        let verdict = &result.verdicts[i];
        let text = |s: String| Value::String(capped(&s));
        let (outcome, fault, first, count) = match verdict {
            ClauseVerdict::Passed { .. } => ("passed", None, None, 0),
            ClauseVerdict::NotImplemented => ("faulted", Some("not_implemented"), None, 0),
            ClauseVerdict::NotAttempted => ("faulted", Some("not_attempted"), None, 0),
            ClauseVerdict::NotBuilt => ("faulted", Some("not_built"), None, 0),
            ClauseVerdict::Failed { faults, total } => {
                let first = faults.first();
                let fault = first.and_then(|(_, f)| fault_name(f));
                let outcome = if fault.is_some() { "faulted" } else { "failed" };
                (outcome, fault, first, *total)
            }
        };
        match outcome {
            "passed" => passed += 1,
            "failed" => failed += 1,
            _ => faulted += 1,
        }
        let (input, expected, got) =
            match first.and_then(|(k, f)| Some((clause.checks.get(*k)?, f))) {
                Some((check, f)) => (
                    text(crate::render::call(suite.step, &check.call)),
                    text(crate::render::expected(&check.expect)),
                    text(crate::render::fault(f, suite.step, suite.function, limits)),
                ),
                None => (Value::Null, Value::Null, Value::Null),
            };
        let message = crate::console::failure_text(result, i, limits).map_or(Value::Null, text);
        let mut rule = json!({
            "step": suite.step,
            "key": clause.key,
            "name": crate::console::trial_name(suite.step, suite.function, &clause.key),
            "outcome": outcome,
            "fault": fault,
            "input": input,
            "expected": expected,
            "got": got,
            "message": message,
            "cases_failed": count,
        });
        merge(&mut rule, &place);
        lines.push(line("rule", rule));
    }
    lines.push(line(
        "step_finished",
        json!({
            "step": suite.step,
            "status": status(result),
            "passed": passed,
            "failed": failed,
            "faulted": faulted,
        }),
    ));
    lines
}

fn merge(into: &mut Value, from: &Value) {
    if let (Value::Object(a), Value::Object(b)) = (into, from) {
        a.extend(b.clone());
    }
}

/// Writes the events of the judged steps, when events are on.
pub fn steps(results: &[StepResult], limits: &Limits, at: &dyn Fn(&str) -> Locator) {
    if !on() {
        return;
    }
    let mut out = std::io::stdout().lock();
    for r in results {
        for l in step_lines(r, limits, &at(r.suite.step)) {
            let _ = writeln!(out, "{l}");
        }
    }
    let _ = out.flush();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_line_carries_the_schema_and_its_event_first() {
        let l = line("error", json!({"message": "x\n::add-mask::"}));
        assert!(
            l.starts_with(r#"{"schema":"retry-lab.events/1","event":"error","#),
            "{l}"
        );
        assert!(!l.contains('\n'));
    }

    #[test]
    fn texts_are_cut_at_a_character_boundary() {
        let long = "是".repeat(TEXT_CAP);
        let cut = capped(&long);
        assert!(cut.len() <= TEXT_CAP && cut.ends_with('…'), "{}", cut.len());
        assert_eq!(capped("short"), "short");
    }
}
