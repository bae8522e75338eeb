//! JUnit XML for CI dashboards, one document per submission: a `testsuite`
//! per step (in step order), a `testcase` per clause. The document is built
//! as the data model of the `quick-junit` crate (cargo-nextest's), which
//! writes and escapes the XML; this module decides what goes in it.
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
//! holds it to the elements and attributes both declare for what it holds.
//!
//! What a person reads is first made visible ([`crate::visible`]): the
//! submission's name and each test case's name as one line, messages
//! keeping their line feeds and tabs; every other control character (C0,
//! DEL, C1) and every bidirectional control becomes a Rust escape
//! (`\u{1b}`, `\u{202e}`, `\r`). Messages are capped again with [`capped`].
//! `quick-junit` then escapes `& < > " '`. Two things it does are undone
//! here, so that readers get what they got before it wrote the file:
//!
//! - it drops tabs (its `XmlString` strips terminal escapes, and a tab with
//!   them): a tab travels through it as U+FFFF (in text) or U+FFFE (in an
//!   attribute), which XML 1.0 forbids and so never reach it otherwise
//!   (they become U+FFFD first), and comes back as a tab in text and as
//!   `&#9;` in an attribute (a raw one would be read as a space);
//! - it writes `skipped` on `<testsuites>`, an attribute Jenkins'
//!   `junit-10.xsd` does not declare there (the xunit plugin validates the
//!   file against it): it is taken out of the root's start tag.

use super::outside::{t, tr, visible};
use super::{capped, Build, ClauseStatus, FaultKind, StepReport, SubmissionReport, MESSAGE_CAP};
use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};
use std::time::Duration;

/// How a tab in element text travels through `quick-junit`.
const TAB_IN_TEXT: char = '\u{FFFF}';
/// How a tab in an attribute's value travels through `quick-junit`.
const TAB_IN_ATTRIBUTE: char = '\u{FFFE}';

/// The JUnit XML document for one submission.
pub fn junit_xml(s: &SubmissionReport, seed: &str) -> String {
    let s = &s.attempted();
    let mut report = Report::new("retry-lab");
    report.set_time(time(s.seconds));
    for step in &s.steps {
        report.add_test_suite(suite(step, s, seed));
    }
    let xml = report
        .to_string()
        .expect("a report in memory always serializes");
    without_root_skipped(&xml)
        .replace(TAB_IN_TEXT, "\t")
        .replace(TAB_IN_ATTRIBUTE, "&#9;")
}

/// One step's `testsuite`: its properties, then a test case per clause.
fn suite(step: &StepReport, s: &SubmissionReport, seed: &str) -> TestSuite {
    let mut suite = TestSuite::new(attr(&format!("{} {}", step.step, step.function)));
    suite.set_time(time(step.seconds));
    suite.add_property(Property::new("seed", attr(seed)));
    suite.add_property(Property::new("submission", attr(&visible::line(&s.name))));
    if let Some(id) = &step.mistake {
        suite.add_property(Property::new("mistake", attr(id)));
    }
    let classname = attr(&format!("retry-lab.{}", step.step));
    let mut add = |name: &str, status: TestCaseStatus, seconds: f64| {
        let mut case = TestCase::new(attr(&visible::line(name)), status);
        case.set_classname(classname.as_str())
            .set_time(time(seconds));
        suite.add_test_case(case);
    };
    if step.clauses.is_empty() {
        let status = outcome(step.status.as_clause(), None, None, step, s);
        add(
            &format!("{} {}", step.step, step.function),
            status,
            step.seconds,
        );
    }
    for c in &step.clauses {
        let status = outcome(c.status, c.message.as_deref(), c.fault, step, s);
        add(&c.name, status, c.seconds);
    }
    suite
}

/// What a test case carries: nothing when it passed, else a `failure`, an
/// `error` or (kept total for a report filtered some other way) `skipped`.
fn outcome(
    status: ClauseStatus,
    message: Option<&str>,
    fault: Option<FaultKind>,
    step: &StepReport,
    s: &SubmissionReport,
) -> TestCaseStatus {
    match status {
        ClauseStatus::Passed => TestCaseStatus::success(),
        ClauseStatus::Failed => {
            let body = shown(&message.map_or_else(|| t("report.junit.failed"), str::to_string));
            let first = body.lines().next().unwrap_or_default().to_string();
            // A runtime error is an `error`, a wrong answer a `failure`.
            match fault.filter(|f| f.is_runtime_error()) {
                Some(f) => problem(NonSuccessKind::Error, &fault_name(f), &first, &body),
                None => problem(NonSuccessKind::Failure, "contract", &first, &body),
            }
        }
        ClauseStatus::NotImplemented => {
            let todo = || {
                tr(
                    "report.junit.not_started",
                    &[("step", &step.step), ("function", &step.function)],
                )
            };
            problem(
                NonSuccessKind::Failure,
                "not-implemented",
                &t("report.junit.not_implemented"),
                &shown(&message.map_or_else(todo, str::to_string)),
            )
        }
        // Left out of the file (see `SubmissionReport::attempted`). Surefire's
        // `skipped` has a message and no type.
        ClauseStatus::NotAttempted => {
            let mut skipped = TestCaseStatus::skipped();
            skipped.set_message(attr(&t("report.not_attempted")));
            skipped
        }
        ClauseStatus::NotBuilt if s.build == Build::Error => problem(
            NonSuccessKind::Error,
            "review",
            &t("report.junit.needs_review"),
            &shown(s.review.as_deref().unwrap_or("")),
        ),
        ClauseStatus::NotBuilt => {
            let errors = s
                .build_errors
                .clone()
                .unwrap_or_else(|| t("report.submission_does_not_compile"));
            problem(
                NonSuccessKind::Error,
                "build",
                &t("report.does_not_compile"),
                &shown(&errors),
            )
        }
    }
}

/// A `failure` or an `error` with its `type`, `message` and text.
fn problem(kind: NonSuccessKind, ty: &str, message: &str, body: &str) -> TestCaseStatus {
    let mut status = TestCaseStatus::non_success(kind);
    status
        .set_type(attr(ty))
        .set_message(attr(message))
        .set_description(text(body));
    status
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

/// Seconds rounded to the millisecond, which `quick-junit` writes with three
/// decimals ("0.000" when unknown): an `xs:float` for Surefire, and no more
/// decimals than Jenkins' xunit schema allows.
fn time(seconds: f64) -> Duration {
    Duration::try_from_secs_f64(super::milliseconds(seconds)).unwrap_or_default()
}

/// `raw` for `quick-junit`, with tabs as `tab`, and the characters XML 1.0
/// forbids that it would let through (U+FFFE, U+FFFF) as U+FFFD.
fn carried(raw: &str, tab: char) -> String {
    raw.chars()
        .map(|c| match c {
            '\t' => tab,
            '\u{FFFE}' | '\u{FFFF}' => '\u{FFFD}',
            c => c,
        })
        .collect()
}

/// An attribute's value for `quick-junit`.
fn attr(raw: &str) -> String {
    carried(raw, TAB_IN_ATTRIBUTE)
}

/// Element text for `quick-junit`.
fn text(raw: &str) -> String {
    carried(raw, TAB_IN_TEXT)
}

/// `xml` without the `skipped` attribute of its root, `<testsuites>` (the
/// first start tag after the declaration; `quick-junit` escapes `>` in
/// values, so the first `>` after it ends the tag).
fn without_root_skipped(xml: &str) -> String {
    let tag = xml.find("<testsuites ").and_then(|start| {
        let end = start + xml[start..].find('>')?;
        let at = start + xml[start..end].find(" skipped=\"")?;
        let value = at + " skipped=\"".len();
        Some((at, value + xml[value..end].find('"')? + 1))
    });
    match tag {
        Some((from, to)) => format!("{}{}", &xml[..from], &xml[to..]),
        None => xml.to_string(),
    }
}

#[cfg(test)]
mod tests;
