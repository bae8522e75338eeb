//! Exercism's test-runner `results.json`, version 3: one test per clause, in
//! step order, with `task_id` = the step's number. `status` is `error` when
//! the submission does not compile (then `message` holds the compiler's
//! errors and `tests` is empty, as Exercism expects for errors), `pass` when
//! every step passed, else `fail`. A step without clauses is shown as one
//! test named after the step, so it cannot vanish.
//!
//! Per test:
//! - `status`: `pass`; `error` when the clause's first failing input ended in
//!   a runtime error (a panic, a time-out, a crash, an output flood, a
//!   runaway call, a forged outcome, or no time left to run it) and when it
//!   could not run (not compiled); `fail` for a wrong answer or `todo!()`.
//! - `message`: null when it passed, else its (capped) message or, for
//!   `todo!()`, a sentence saying so.
//! - `test_code`: the Rust call that was tested, as the learner would write
//!   it: the first failing input's (`retryable(503)`), or for a clause that
//!   passed (or still reaches `todo!()`) its first input's; the step's
//!   function when the clause did not run.
//! - `output`: what the learner's code printed during that input (for a
//!   clause that passed, during the first input that printed anything),
//!   null when it printed nothing; at most [`OUTPUT_CHARS`] characters, a
//!   cut one ending in a note that says so (the catalog's
//!   `report.output_cut`).
//!
//! Every text a person reads (`message`, and per test `name`, `test_code`,
//! `message` and `output`) is made visible before it is capped
//! ([`crate::visible`]): a control character (but a line feed or a tab) or
//! a bidirectional control appears as a Rust escape (`\u{1b}`,
//! `\u{202e}`), a test's name as one line.

use super::outside::{t, tr, visible};
use super::{capped, Build, ClauseReport, ClauseStatus, StepReport, SubmissionReport, MESSAGE_CAP};
use serde::Serialize;

#[derive(Serialize)]
struct Results {
    version: u32,
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<String>,
    tests: Vec<Test>,
}

#[derive(Serialize)]
struct Test {
    name: String,
    test_code: String,
    status: &'static str,
    message: Option<String>,
    output: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    task_id: Option<u32>,
}

/// Most characters of a test's `output` (Exercism's limit), cut note included.
pub const OUTPUT_CHARS: usize = 500;

/// Exercism's `results.json` (version 3) for one submission, pretty, newline,
/// each step told as `shown` says ([`super::visibility`]).
pub fn results_json_shown(s: &SubmissionReport, shown: &super::visibility::Shown) -> String {
    results_json(&shown.redacted(s, false))
}

/// Exercism's `results.json`, every detail shown.
pub fn results_json(s: &SubmissionReport) -> String {
    let s = &s.attempted();
    let results = match s.build {
        Build::Failed => Results {
            version: 3,
            status: "error",
            message: Some(capped(
                &visible::text(
                    &s.build_errors
                        .clone()
                        .unwrap_or_else(|| t("report.submission_does_not_compile")),
                ),
                MESSAGE_CAP,
            )),
            tests: Vec::new(),
        },
        Build::Error => Results {
            version: 3,
            status: "error",
            message: Some(capped(
                &visible::text(&tr(
                    "report.exercism.needs_review",
                    &[(
                        "reason",
                        &s.review
                            .clone()
                            .unwrap_or_else(|| t("report.exercism.could_not_finish")),
                    )],
                )),
                MESSAGE_CAP,
            )),
            tests: Vec::new(),
        },
        Build::Ok => Results {
            version: 3,
            status: if s.steps.iter().all(|step| step.passed) {
                "pass"
            } else {
                "fail"
            },
            message: None,
            tests: s.steps.iter().flat_map(tests).collect(),
        },
    };
    let mut text = serde_json::to_string_pretty(&results).expect("results always serialize");
    text.push('\n');
    text
}

fn tests(step: &StepReport) -> Vec<Test> {
    let task_id = step.step.parse().ok();
    if step.clauses.is_empty() {
        let whole = ClauseReport {
            key: step.step.clone(),
            name: format!("{} {}", step.step, step.function),
            status: step.status.as_clause(),
            message: None,
            fault: None,
            call: None,
            output: None,
            seconds: step.seconds,
        };
        return vec![test(&whole, step, task_id)];
    }
    step.clauses
        .iter()
        .map(|c| test(c, step, task_id))
        .collect()
}

fn test(c: &ClauseReport, step: &StepReport, task_id: Option<u32>) -> Test {
    let message =
        |otherwise: &dyn Fn() -> String| Some(c.message.clone().unwrap_or_else(otherwise));
    let (status, message) = match c.status {
        ClauseStatus::Passed => ("pass", None),
        ClauseStatus::Failed => (
            if c.fault.is_some_and(|f| f.is_runtime_error()) {
                "error"
            } else {
                "fail"
            },
            message(&|| t("report.failed")),
        ),
        ClauseStatus::NotImplemented => (
            "fail",
            message(&|| {
                tr(
                    "report.exercism.not_started",
                    &[("function", &step.function)],
                )
            }),
        ),
        ClauseStatus::NotAttempted => ("error", Some(t("report.not_attempted"))),
        ClauseStatus::NotBuilt => ("error", message(&|| t("report.does_not_compile"))),
    };
    Test {
        name: visible::line(&c.name).into_owned(),
        test_code: visible::text(c.call.as_deref().unwrap_or(&step.function)).into_owned(),
        status,
        message: message.map(|m| capped(&visible::text(&m), MESSAGE_CAP)),
        output: c.output.as_deref().map(|o| limited(&visible::text(o))),
        task_id,
    }
}

/// `text` in at most [`OUTPUT_CHARS`] characters: as it is when it fits,
/// else its start and a line saying it was cut.
fn limited(text: &str) -> String {
    if text.chars().count() <= OUTPUT_CHARS {
        return text.to_string();
    }
    let note = tr("report.output_cut", &[("chars", &OUTPUT_CHARS)]);
    let keep = OUTPUT_CHARS.saturating_sub(note.chars().count() + 1);
    let mut out: String = text.chars().take(keep).collect();
    out.push('\n');
    out.push_str(&note);
    out
}

#[cfg(test)]
mod tests {
    use super::super::snapshot::compare;
    use super::super::test_support::{
        assert_capped, class, hostile_build, hostile_submission, json_strings, long_message,
        long_submission, raw_hidden, COMPILER_ERRORS, HOSTILE, NASTY_SHOWN, SEED,
    };
    use super::super::{FaultKind, StepStatus};
    use super::*;
    use crate::catalog::Lang;
    use serde_json::Value;

    fn parsed(s: &SubmissionReport) -> Value {
        serde_json::from_str(&results_json(s)).unwrap()
    }

    #[test]
    fn matches_the_snapshots() {
        let c = class();
        let out: Vec<String> = c.submissions.iter().map(results_json).collect();
        compare("src/report/snapshots/exercism-alice.json", &out[0]);
        compare("src/report/snapshots/exercism-bob.json", &out[1]);
        compare("src/report/snapshots/exercism-carol.json", &out[2]);
    }

    #[test]
    fn has_the_fields_of_version_3() {
        for s in &class().submissions {
            let v = parsed(s);
            assert_eq!(v["version"], 3);
            assert!(v["tests"].is_array());
            let status = v["status"].as_str().unwrap();
            assert_eq!(v.get("message").is_some(), status == "error");
            let mut last = 0;
            for t in v["tests"].as_array().unwrap() {
                let keys: Vec<&str> = t.as_object().unwrap().keys().map(String::as_str).collect();
                assert_eq!(
                    keys,
                    [
                        "message",
                        "name",
                        "output",
                        "status",
                        "task_id",
                        "test_code"
                    ],
                );
                assert!(t["name"].is_string() && t["test_code"].is_string());
                assert!(t["output"]
                    .as_str()
                    .is_none_or(|o| o.chars().count() <= OUTPUT_CHARS));
                let task = t["task_id"].as_u64().expect("task_id is an integer");
                assert!(
                    (1..=8).contains(&task) && task >= last,
                    "task {task} after {last}"
                );
                last = task;
                match t["status"].as_str().unwrap() {
                    "pass" => assert!(t["message"].is_null()),
                    "fail" | "error" => assert!(t["message"].is_string()),
                    other => panic!("status {other}"),
                }
            }
        }
    }

    #[test]
    fn follows_the_status_rules() {
        let c = class();
        let alice = parsed(&c.submissions[0]);
        assert_eq!(alice["status"], "pass");
        assert_eq!(alice["tests"].as_array().unwrap().len(), 6);

        let bob = parsed(&c.submissions[1]);
        assert_eq!(bob["status"], "fail");
        let tests = bob["tests"].as_array().unwrap();
        let ids: Vec<u64> = tests
            .iter()
            .map(|t| t["task_id"].as_u64().unwrap())
            .collect();
        assert_eq!(ids, [1, 1, 2, 2, 3, 3]);
        assert_eq!(tests[3]["status"], "fail");
        assert_eq!(tests[3]["message"], NASTY_SHOWN);
        assert!(tests[4]["message"].as_str().unwrap().contains("todo!()"));

        let carol = parsed(&c.submissions[2]);
        assert_eq!(carol["status"], "error");
        assert_eq!(carol["message"], COMPILER_ERRORS);
        assert_eq!(carol["tests"], Value::Array(Vec::new()));
    }

    #[test]
    fn test_code_is_the_call_that_was_tested() {
        let c = class();
        let bob = parsed(&c.submissions[1]);
        let tests = bob["tests"].as_array().unwrap();
        let clauses = c.submissions[1].steps.iter().flat_map(|s| &s.clauses);
        for (t, clause) in tests.iter().zip(clauses) {
            let shown = clause.call.as_deref().map(|c| c.replace('\u{1}', "\\u{1}"));
            assert_eq!(t["test_code"].as_str(), shown.as_deref());
        }
        // The failing input's call (shown escaped), and a passing clause's
        // first input.
        assert_eq!(tests[3]["test_code"], NASTY_SHOWN.lines().next().unwrap());
        assert_eq!(tests[0]["test_code"], "retryable(503)");
        // A clause that did not run: the step's function.
        let mut advanced = c.submissions[0].clone();
        advanced.steps[3].status = StepStatus::NotBuilt;
        for clause in &mut advanced.steps[3].clauses {
            clause.status = ClauseStatus::NotBuilt;
        }
        let v = parsed(&advanced);
        assert_eq!(v["tests"][6]["test_code"], "Deadline");
        assert_eq!(v["tests"][6]["status"], "error");
    }

    #[test]
    fn a_runtime_error_is_an_error_and_a_wrong_answer_a_failure() {
        let mut bob = class().submissions[1].clone();
        for (kind, status) in [
            (FaultKind::Wrong, "fail"),
            (FaultKind::NotImplemented, "fail"),
            (FaultKind::Panicked, "error"),
            (FaultKind::TimedOut, "error"),
            (FaultKind::Crashed, "error"),
            (FaultKind::Flooded, "error"),
            (FaultKind::Runaway, "error"),
            (FaultKind::Forged, "error"),
            (FaultKind::NotRun, "error"),
        ] {
            bob.steps[1].clauses[1].fault = Some(kind);
            let v = parsed(&bob);
            assert_eq!(v["tests"][3]["status"], status, "{kind:?}");
            assert_eq!(v["tests"][3]["message"], NASTY_SHOWN);
            // A test's error is not the run's: the tests did run.
            assert_eq!(v["status"], "fail");
        }
    }

    #[test]
    fn messages_follow_the_chosen_language() {
        let c = class();
        let (bob, carol) = crate::catalog::scoped(Lang::Zh, || {
            let mut carol = c.submissions[2].clone();
            carol.build_errors = None;
            (parsed(&c.submissions[1]), parsed(&carol))
        });
        let tests = bob["tests"].as_array().unwrap();
        assert_eq!(
            tests[4]["message"],
            "尚未实现：`remaining` 仍然执行到 todo!()。完成它才能通过这项测试。"
        );
        assert_eq!(tests[3]["message"], NASTY_SHOWN);
        assert_eq!(carol["message"], "提交无法编译");
        // The language was lent to those renders only.
        let mut carol = c.submissions[2].clone();
        carol.build_errors = None;
        assert_eq!(parsed(&carol)["message"], "the submission does not compile");
    }

    #[test]
    fn output_is_what_the_test_printed_in_at_most_500_characters() {
        let c = class();
        let bob = parsed(&c.submissions[1]);
        let tests = bob["tests"].as_array().unwrap();
        let printed = c.submissions[1].steps[1].clauses[1].output.as_deref();
        assert_eq!(tests[3]["output"].as_str(), printed);
        assert!(printed.is_some());
        assert!(tests[0]["output"].is_null());

        let mut loud = c.submissions[1].clone();
        // Three-byte characters: the limit counts characters, not bytes.
        let long = "中".repeat(391_200 / 3);
        loud.steps[1].clauses[1].output = Some(long.clone());
        let v = parsed(&loud);
        let output = v["tests"][3]["output"].as_str().unwrap();
        assert_eq!(output.chars().count(), OUTPUT_CHARS);
        let (kept, note) = output.rsplit_once('\n').unwrap();
        assert!(long.starts_with(kept));
        assert_eq!(note, tr("report.output_cut", &[("chars", &OUTPUT_CHARS)]));
        assert!(note.contains("500"));
        // Exactly at the limit: as it is.
        let fits = "x".repeat(OUTPUT_CHARS);
        assert_eq!(limited(&fits), fits);
        assert_eq!(limited(&format!("{fits}y")).chars().count(), OUTPUT_CHARS);
    }

    /// What Exercism shows a person (names, test code, messages, outputs)
    /// holds no control or bidirectional character but line feeds and tabs:
    /// what the learner's code printed, or its compiler quoted, is shown
    /// escaped. result.json keeps the submission's name exactly.
    #[test]
    fn control_and_bidi_characters_are_shown_escaped() {
        let bob = hostile_submission();
        let v = parsed(&bob);
        for text in json_strings(&v) {
            assert_eq!(raw_hidden(&text), [], "{text:?}");
            assert!(!text.contains('\r'), "{text:?}");
        }
        let test = &v["tests"][3];
        assert_eq!(
            test["output"],
            "\\u{1b}[31mred\\u{7}\\r\n\\u{202e}gnp.exe\\u{9b}"
        );
        assert_eq!(
            test["message"],
            "\\u{1b}[31mred\\u{7}\\r\n\\u{202e}gnp.exe\\u{9b}\n  expected: true"
        );
        assert_eq!(
            test["test_code"],
            "replay_safe(\\u{1b}[31mred\\u{7}\\r\n\\u{202e}gnp.exe\\u{9b})"
        );
        let result: Value =
            serde_json::from_str(&crate::report::kit::result_json(&bob, SEED)).unwrap();
        assert_eq!(result["name"], HOSTILE);
        assert_eq!(
            result["steps"][1]["clauses"][1]["output"],
            "\u{1b}[31mred\u{7}\r\n\u{202e}gnp.exe\u{9b}",
            "result.json keeps what was printed exactly"
        );

        let carol = parsed(&hostile_build());
        assert_eq!(
            carol["message"],
            "\\u{1b}[31mred\\u{7}\\r\n\\u{202e}gnp.exe\\u{9b}"
        );
        // Escapes count towards the 500 characters.
        let mut loud = bob.clone();
        loud.steps[1].clauses[1].output = Some("\u{7}".repeat(400));
        let output = parsed(&loud)["tests"][3]["output"]
            .as_str()
            .unwrap()
            .to_string();
        assert_eq!(output.chars().count(), OUTPUT_CHARS);
        assert!(output.starts_with("\\u{7}\\u{7}"), "{output}");
    }

    #[test]
    fn long_messages_are_capped_on_a_char_boundary() {
        let v = parsed(&long_submission());
        assert_capped(v["tests"][3]["message"].as_str().unwrap(), &long_message());

        let mut carol = class().submissions[2].clone();
        carol.build_errors = Some(long_message());
        assert_capped(parsed(&carol)["message"].as_str().unwrap(), &long_message());
    }
}
