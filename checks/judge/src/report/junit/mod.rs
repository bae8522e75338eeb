//! JUnit XML for CI dashboards, one document per submission: a `testsuite`
//! per step (in step order), a `testcase` per clause.
//!
//! - failed clause (a wrong answer): `<failure type="contract">` with the
//!   message's first line as `message` and the whole message as text;
//! - runtime error (the clause's first failing input panicked, timed out,
//!   crashed, flooded its output, ran away, forged an outcome or was not run
//!   for want of time; see `FaultKind::is_runtime_error`): `<error>` with the
//!   same `message` and text, its `type` the fault (`panicked`, `timed-out`,
//!   …), counted in `errors`, as Ant, Surefire and Jenkins count an
//!   unexpected error apart from a wrong answer;
//! - not implemented: `<failure type="not-implemented">` (a failure, not a
//!   skip, so `skipped` is always 0: an unfinished step costs points);
//! - not built: `<error type="build">` with the compiler's errors.
//!
//! `properties` (the seed and the submission's name) go inside every
//! `testsuite`, where the common JUnit schema allows them. A step without
//! clauses still gets one `testcase`, named after the step and carrying the
//! step's status, so a broken step can never look green.
//!
//! Every `testcase` has the `time` Maven Surefire's schema requires: the
//! clause's measured seconds; every `testsuite` the step's, and
//! `testsuites` the submission's. Times have three decimals, which both
//! Surefire (`xs:float`) and Jenkins' xunit schema (at most three decimals)
//! accept. The document is valid against Jenkins' `junit-10.xsd`, and each
//! `testsuite` in it, taken alone, against Surefire's
//! `surefire-test-report.xsd` (which declares no `testsuites`): `tests.rs`
//! reads the document back with an XML parser (roxmltree) and holds it to
//! what consumers read and to the elements and attributes both schemas
//! declare for what it holds.
//!
//! Text is escaped for XML 1.0: `& < > " '` always; tab, newline and carriage
//! return as character references inside attributes (and carriage return in
//! text too, so parsers keep it); characters XML 1.0 forbids (C0 controls
//! other than tab, newline and carriage return; U+FFFE, U+FFFF) become U+FFFD.
//! Messages are capped again with [`capped`] before escaping.
//!
//! Before either, what a person reads is made visible ([`crate::visible`]):
//! the submission's name and each test case's name as one line, messages
//! keeping their line feeds and tabs; every other control character (C0,
//! DEL, C1) and every bidirectional control becomes a Rust escape
//! (`\u{1b}`, `\u{202e}`, `\r`). So no such character reaches the
//! document, and the U+FFFD fallback is left for U+FFFE and U+FFFF.

use super::outside::{t, tr, visible};
use super::{capped, Build, ClauseStatus, FaultKind, StepReport, SubmissionReport, MESSAGE_CAP};
use std::fmt::Write as _;

/// What a non-passing test case carries.
struct Problem {
    /// `failure` or `error`.
    element: &'static str,
    kind: String,
    message: String,
    body: String,
}

struct Case {
    name: String,
    problem: Option<Problem>,
    /// Seconds.
    time: f64,
}

/// The JUnit XML document for one submission, each step told as `shown`
/// says ([`super::visibility`]).
pub fn junit_xml_shown(
    s: &SubmissionReport,
    seed: &str,
    shown: &super::visibility::Shown,
) -> String {
    junit_xml(&shown.redacted(s, false), seed)
}

/// `junit.xml`, every detail shown.
pub fn junit_xml(s: &SubmissionReport, seed: &str) -> String {
    let s = &s.attempted();
    let suites: Vec<(&StepReport, Vec<Case>)> =
        s.steps.iter().map(|step| (step, cases(step, s))).collect();
    let all = suites.iter().flat_map(|(_, cases)| cases);
    let (tests, failures, errors) = counts(all);

    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"retry-lab\" tests=\"{tests}\" failures=\"{failures}\" \
         errors=\"{errors}\" time=\"{}\">",
        time(s.seconds)
    );
    for (step, cases) in &suites {
        let (tests, failures, errors) = counts(cases.iter());
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{tests}\" failures=\"{failures}\" \
             errors=\"{errors}\" skipped=\"0\" time=\"{}\">",
            attr(&format!("{} {}", step.step, step.function)),
            time(step.seconds)
        );
        out.push_str("    <properties>\n");
        let _ = writeln!(
            out,
            "      <property name=\"seed\" value=\"{}\"/>",
            attr(seed)
        );
        let _ = writeln!(
            out,
            "      <property name=\"submission\" value=\"{}\"/>",
            attr(&visible::line(&s.name))
        );
        if let Some(id) = &step.mistake {
            let _ = writeln!(
                out,
                "      <property name=\"mistake\" value=\"{}\"/>",
                attr(id)
            );
        }
        out.push_str("    </properties>\n");
        let classname = attr(&format!("retry-lab.{}", step.step));
        for case in cases {
            let open = format!(
                "    <testcase classname=\"{classname}\" name=\"{}\" time=\"{}\"",
                attr(&visible::line(&case.name)),
                time(case.time)
            );
            match &case.problem {
                None => {
                    let _ = writeln!(out, "{open}/>");
                }
                Some(p) => {
                    // Surefire's `skipped` has a message and no type.
                    let kind = if p.element == "skipped" {
                        String::new()
                    } else {
                        format!(" type=\"{}\"", p.kind)
                    };
                    let _ = writeln!(
                        out,
                        "{open}>\n      <{el} message=\"{}\"{kind}>{}</{el}>\n    </testcase>",
                        attr(&p.message),
                        text(&p.body),
                        el = p.element,
                    );
                }
            }
        }
        out.push_str("  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}

/// (tests, failures, errors).
fn counts<'a>(cases: impl Iterator<Item = &'a Case>) -> (usize, usize, usize) {
    let (mut tests, mut failures, mut errors) = (0, 0, 0);
    for case in cases {
        tests += 1;
        match case.problem.as_ref().map(|p| p.element) {
            Some("error") => errors += 1,
            Some("skipped") => {}
            Some(_) => failures += 1,
            None => {}
        }
    }
    (tests, failures, errors)
}

fn cases(step: &StepReport, s: &SubmissionReport) -> Vec<Case> {
    if step.clauses.is_empty() {
        let status = step.status.as_clause();
        return vec![Case {
            name: format!("{} {}", step.step, step.function),
            problem: problem(status, None, None, step, s),
            time: step.seconds,
        }];
    }
    step.clauses
        .iter()
        .map(|c| Case {
            name: c.name.clone(),
            problem: problem(c.status, c.message.as_deref(), c.fault, step, s),
            time: c.seconds,
        })
        .collect()
}

fn problem(
    status: ClauseStatus,
    message: Option<&str>,
    fault: Option<FaultKind>,
    step: &StepReport,
    s: &SubmissionReport,
) -> Option<Problem> {
    match status {
        ClauseStatus::Passed => None,
        ClauseStatus::Failed => {
            let body = shown(&message.map_or_else(|| t("report.junit.failed"), str::to_string));
            // A runtime error is an `error`, a wrong answer a `failure`.
            let (element, kind) = match fault.filter(|f| f.is_runtime_error()) {
                Some(f) => ("error", fault_name(f)),
                None => ("failure", "contract".to_string()),
            };
            Some(Problem {
                element,
                kind,
                message: body.lines().next().unwrap_or_default().to_string(),
                body,
            })
        }
        ClauseStatus::NotImplemented => {
            let todo = || {
                tr(
                    "report.junit.not_started",
                    &[("step", &step.step), ("function", &step.function)],
                )
            };
            Some(Problem {
                element: "failure",
                kind: "not-implemented".to_string(),
                message: t("report.junit.not_implemented"),
                body: shown(&message.map_or_else(todo, str::to_string)),
            })
        }
        // Left out of the file (see `SubmissionReport::attempted`); kept
        // total for a report that was filtered some other way.
        ClauseStatus::NotAttempted => Some(Problem {
            element: "skipped",
            kind: "not-attempted".to_string(),
            message: t("report.not_attempted"),
            body: String::new(),
        }),
        ClauseStatus::NotBuilt if s.build == Build::Error => Some(Problem {
            element: "error",
            kind: "review".to_string(),
            message: t("report.junit.needs_review"),
            body: shown(s.review.as_deref().unwrap_or("")),
        }),
        ClauseStatus::NotBuilt => {
            let errors = s
                .build_errors
                .clone()
                .unwrap_or_else(|| t("report.submission_does_not_compile"));
            Some(Problem {
                element: "error",
                kind: "build".to_string(),
                message: t("report.does_not_compile"),
                body: shown(&errors),
            })
        }
    }
}

/// A message's text as a person reads it: made visible, then capped.
fn shown(text: &str) -> String {
    capped(&visible::text(text), MESSAGE_CAP)
}

/// A fault's name as the kit's reports spell it (`timed-out`).
fn fault_name(f: FaultKind) -> String {
    match serde_json::to_value(f) {
        Ok(serde_json::Value::String(name)) => name,
        _ => format!("{f:?}"),
    }
}

/// Seconds with three decimals ("0.000" when unknown): an `xs:float` for
/// Surefire, and no more decimals than Jenkins' xunit schema allows.
fn time(seconds: f64) -> String {
    format!("{:.3}", super::milliseconds(seconds))
}

/// Whether XML 1.0 allows `c` at all.
fn allowed(c: char) -> bool {
    matches!(c,
        '\t' | '\n' | '\r'
        | '\u{20}'..='\u{D7FF}'
        | '\u{E000}'..='\u{FFFD}'
        | '\u{10000}'..='\u{10FFFF}')
}

fn escape(raw: &str, in_attribute: bool) -> String {
    let mut out = String::with_capacity(raw.len());
    for c in raw.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\r' => out.push_str("&#13;"),
            '\n' if in_attribute => out.push_str("&#10;"),
            '\t' if in_attribute => out.push_str("&#9;"),
            c if allowed(c) => out.push(c),
            _ => out.push('\u{FFFD}'),
        }
    }
    out
}

fn attr(raw: &str) -> String {
    escape(raw, true)
}

fn text(raw: &str) -> String {
    escape(raw, false)
}

#[cfg(test)]
mod tests;
