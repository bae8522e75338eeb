//! Gradescope's autograder `results.json`: one test per step (points are per
//! step), in step order. The top-level `output` is a short overview with the
//! seed and how to reproduce the run, plus the compiler's errors when the
//! submission does not compile. Every `output` is capped with [`capped`].
//! `execution_time` is the submission's wall time in seconds, rounded to the
//! millisecond (0 when unknown). Passed steps have an empty `output`.
//!
//! Only keys of Gradescope's documented format are written. Every output
//! is plain text (`output_format`, `test_output_format` and
//! `test_name_format` are all `text`): Gradescope shows it as it is, so the
//! compiler's errors and the learner's own words (`Result<f64,
//! InvalidArgument>`, `a < b`) need no escaping and are never taken for
//! markup. What it shows is made visible all the same ([`crate::visible`]):
//! a control character (but a line feed or a tab) or a bidirectional
//! control, in a compiler error or in what the learner's code printed,
//! appears as a Rust escape (`\u{1b}`, `\u{202e}`), names as one line.
//!
//! Bonus (advanced) steps are extra credit: their tests have `max_score` 0
//! and score their points when passed; the top-level `score` is the sum of
//! every test's score (core points plus bonus points). There is no
//! top-level maximum in the format: Gradescope takes the assignment's total
//! from its own settings, which should be the core steps' points (the sum
//! of the tests' `max_score`), so a bonus shows as a score above it.
//!
//! A late penalty (`grade --due … --late …`) is one more test after the
//! steps, `Late penalty`, whose `score` is minus the points taken off and
//! whose `max_score` is 0, so the tests' scores still add up to `score`.
//! It is there only when the penalty is more than 0 points.

use super::outside::{t, tr, visible};
use super::visibility::Shown;
use super::{
    capped, AdvancedBuild, Build, ClauseStatus, StepReport, StepStatus, SubmissionReport,
    MESSAGE_CAP,
};
use serde::Serialize;

/// How every output and name is shown: as plain text.
const FORMAT: &str = "text";

#[derive(Serialize)]
struct Results {
    score: u32,
    execution_time: f64,
    output: String,
    output_format: &'static str,
    test_output_format: &'static str,
    test_name_format: &'static str,
    visibility: &'static str,
    stdout_visibility: &'static str,
    tests: Vec<Test>,
}

#[derive(Serialize)]
struct Test {
    name: String,
    number: String,
    /// Negative for the late penalty's test.
    score: i64,
    max_score: u32,
    status: &'static str,
    output: String,
    visibility: &'static str,
}

/// Gradescope's `results.json` for one submission, pretty, newline.
pub fn results_json(s: &SubmissionReport, seed: &str) -> String {
    results_json_shown(s, seed, &Shown::default())
}

/// [`results_json`] with each step's visibility and detail
/// ([`super::visibility`]): a step's `visibility` is its own.
pub fn results_json_shown(s: &SubmissionReport, seed: &str, shown: &Shown) -> String {
    let s = &shown.redacted(&s.attempted(), true);
    let mut results = Results {
        // Bonus points go on top: Gradescope shows a score above the
        // assignment's total as extra credit.
        score: s.score + s.bonus,
        execution_time: super::milliseconds(s.seconds),
        output: overview(s, seed),
        output_format: FORMAT,
        test_output_format: FORMAT,
        test_name_format: FORMAT,
        visibility: "visible",
        stdout_visibility: "hidden",
        tests: s
            .steps
            .iter()
            .map(|step| Test {
                name: visible::line(&tr(
                    if step.bonus {
                        "report.gradescope.bonus_step_name"
                    } else {
                        "report.gradescope.step_name"
                    },
                    &[("step", &step.step), ("function", &step.function)],
                ))
                .into_owned(),
                number: step.step.clone(),
                score: i64::from(step.score),
                // Extra credit: worth nothing towards the total.
                max_score: if step.bonus { 0 } else { step.weight },
                status: if step.passed { "passed" } else { "failed" },
                output: step_output(step),
                visibility: shown.of(&step.step).0.word(),
            })
            .collect(),
    };
    if let Some(late) = s.late.as_ref().filter(|l| l.penalty > 0) {
        results.tests.push(penalty_test(late));
    }
    let mut text = serde_json::to_string_pretty(&results).expect("results always serialize");
    text.push('\n');
    text
}

/// The late penalty as a test of minus its points.
fn penalty_test(late: &super::lms::Late) -> Test {
    let hours = format!("{:.1}", late.late_by.unwrap_or(0) as f64 / 3600.0);
    Test {
        name: t("report.gradescope.late_name"),
        number: "late".to_string(),
        score: -i64::from(late.penalty),
        max_score: 0,
        status: "failed",
        output: visible::text(&tr(
            "report.gradescope.late_output",
            &[
                ("hours", &hours),
                ("penalty", &late.penalty),
                ("before", &late.score_before_penalty),
                ("at", &late.submitted_at.clone().unwrap_or_default()),
            ],
        ))
        .into_owned(),
        visibility: "visible",
    }
}

pub(super) fn overview(s: &SubmissionReport, seed: &str) -> String {
    let mut text = tr("report.gradescope.seed", &[("seed", &seed)]) + "\n";
    let recorded =
        |what: &Option<String>| what.clone().unwrap_or_else(|| t("report.none_recorded"));
    match s.build {
        Build::Ok => {
            let passed = s.steps.iter().filter(|step| step.passed).count();
            text += &tr(
                "report.gradescope.score",
                &[
                    ("score", &s.score),
                    ("max", &s.max_score),
                    ("passed", &passed),
                    ("steps", &s.steps.len()),
                ],
            );
            match s.advanced_build {
                AdvancedBuild::Absent => {}
                AdvancedBuild::Ok => {
                    text += &tr("report.gradescope.bonus", &[("bonus", &s.bonus)]);
                }
                AdvancedBuild::Failed => {
                    let steps = super::outside::advanced_range().replace('–', "-");
                    text += &tr(
                        "report.gradescope.advanced_build_failed",
                        &[("steps", &steps)],
                    );
                    text += "\n";
                    text += &recorded(&s.advanced_build_errors);
                }
            }
        }
        Build::Failed => {
            text += &t("report.gradescope.build_failed");
            text += "\n";
            text += &recorded(&s.build_errors);
        }
        Build::Error => {
            text += &tr(
                "report.gradescope.needs_review",
                &[("reason", &recorded(&s.review))],
            );
        }
    }
    capped(&visible::text(&text), MESSAGE_CAP)
}

pub(super) fn step_output(step: &StepReport) -> String {
    let text = match step.status {
        StepStatus::Passed => String::new(),
        StepStatus::NotStarted => tr(
            "report.gradescope.not_started",
            &[("function", &step.function), ("step", &step.step)],
        ),
        StepStatus::NotAttempted => t("report.gradescope.not_attempted"),
        StepStatus::NotBuilt => t("report.gradescope.not_built"),
        StepStatus::Failed => {
            let failing: Vec<String> = step
                .clauses
                .iter()
                .filter_map(|c| match c.status {
                    ClauseStatus::Passed => None,
                    ClauseStatus::NotImplemented => Some(format!(
                        "{}\n{}",
                        c.name,
                        t("report.gradescope.clause_not_started")
                    )),
                    ClauseStatus::Failed | ClauseStatus::NotBuilt | ClauseStatus::NotAttempted => {
                        Some(format!(
                            "{}\n{}",
                            c.name,
                            c.message.clone().unwrap_or_else(|| t("report.failed"))
                        ))
                    }
                })
                .collect();
            if failing.is_empty() {
                t("report.failed")
            } else {
                failing.join("\n\n")
            }
        }
    };
    capped(&visible::text(&text), MESSAGE_CAP)
}

#[cfg(test)]
mod tests {
    use super::super::snapshot::compare;
    use super::super::test_support::{
        assert_capped, class, hostile_build, hostile_submission, json_strings, long_message,
        long_submission, raw_hidden, COMPILER_ERRORS, HOSTILE, NASTY_SHOWN, SEED,
    };
    use super::*;
    use crate::catalog::Lang;
    use serde_json::Value;

    fn parsed(s: &SubmissionReport) -> Value {
        serde_json::from_str(&results_json(s, SEED)).unwrap()
    }

    #[test]
    fn matches_the_snapshots() {
        let c = class();
        let out: Vec<String> = c
            .submissions
            .iter()
            .map(|s| results_json(s, SEED))
            .collect();
        compare("src/report/snapshots/gradescope-alice.json", &out[0]);
        compare("src/report/snapshots/gradescope-bob.json", &out[1]);
        compare("src/report/snapshots/gradescope-carol.json", &out[2]);
    }

    #[test]
    fn an_attempted_bonus_step_is_extra_credit() {
        let mut alice = class().submissions[0].clone();
        alice.steps[3].status = StepStatus::Passed;
        alice.steps[3].passed = true;
        alice.steps[3].score = 10;
        alice.bonus = 10;
        alice.advanced_build = AdvancedBuild::Ok;
        let v = parsed(&alice);
        assert_eq!(v["score"], 40);
        assert!(v.get("max_score").is_none());
        let tests = v["tests"].as_array().unwrap();
        assert_eq!(tests.len(), 4);
        assert_eq!(tests[3]["name"], "Step 09 (bonus): Deadline");
        assert_eq!(
            (&tests[3]["score"], &tests[3]["max_score"]),
            (&10.into(), &0.into())
        );
        // The total is every test's score; the maximum only the core's.
        let sum = |key: &str| tests.iter().map(|t| t[key].as_u64().unwrap()).sum::<u64>();
        assert_eq!(v["score"], sum("score"));
        assert_eq!(sum("max_score"), u64::from(alice.max_score));
        assert!(v["output"].as_str().unwrap().contains("+10"));

        // Not passed: nothing on top, and still nothing towards the total.
        alice.steps[3].status = StepStatus::Failed;
        alice.steps[3].passed = false;
        alice.steps[3].score = 0;
        alice.bonus = 0;
        let v = parsed(&alice);
        assert_eq!(v["score"], 30);
        assert_eq!(v["tests"][3]["max_score"], 0);
        assert_eq!(v["tests"][3]["status"], "failed");
    }

    /// Gradescope's documented keys: the top level's and a test's.
    const TOP: &[&str] = &[
        "score",
        "execution_time",
        "output",
        "output_format",
        "test_output_format",
        "test_name_format",
        "visibility",
        "stdout_visibility",
        "extra_data",
        "tests",
        "leaderboard",
    ];
    const PER_TEST: &[&str] = &[
        "score",
        "max_score",
        "status",
        "name",
        "name_format",
        "number",
        "output",
        "output_format",
        "tags",
        "visibility",
        "extra_data",
    ];
    /// The formats Gradescope renders.
    const FORMATS: &[&str] = &["text", "html", "simple_format", "md", "ansi"];

    #[test]
    fn only_documented_keys_and_plain_text_outputs() {
        let mut all = class().submissions;
        all.push(long_submission());
        for s in &all {
            let v = parsed(s);
            for key in v.as_object().unwrap().keys() {
                assert!(TOP.contains(&key.as_str()), "undocumented top-level {key}");
            }
            for t in v["tests"].as_array().unwrap() {
                for key in t.as_object().unwrap().keys() {
                    assert!(PER_TEST.contains(&key.as_str()), "undocumented {key}");
                }
                assert!(["passed", "failed"].contains(&t["status"].as_str().unwrap()));
            }
            for key in ["output_format", "test_output_format", "test_name_format"] {
                assert_eq!(v[key], "text", "{key}");
                assert!(FORMATS.contains(&v[key].as_str().unwrap()));
            }
        }
        // Plain text: the compiler's words and the learner's arrive as they
        // are, but for control characters, shown escaped.
        let carol = parsed(&class().submissions[2]);
        assert!(carol["output"].as_str().unwrap().contains(COMPILER_ERRORS));
        assert!(COMPILER_ERRORS.contains('<') && COMPILER_ERRORS.contains('&'));
        let bob = parsed(&class().submissions[1]);
        assert!(bob["tests"][1]["output"]
            .as_str()
            .unwrap()
            .contains(NASTY_SHOWN));
    }

    #[test]
    fn has_the_fields_gradescope_requires() {
        for s in &class().submissions {
            let v = parsed(s);
            // Steps that were not attempted are left out of the file.
            let s = &s.attempted();
            assert!(v["score"].is_number());
            assert_eq!(v["score"], s.score);
            assert!(v["execution_time"].is_number());
            assert_eq!(v["execution_time"].as_f64(), Some(s.seconds));
            assert!(v["output"].as_str().unwrap().contains(SEED));
            assert_eq!(v["visibility"], "visible");
            assert_eq!(v["stdout_visibility"], "hidden");
            let tests = v["tests"].as_array().unwrap();
            assert_eq!(tests.len(), s.steps.len());
            let mut total = 0;
            for (t, step) in tests.iter().zip(&s.steps) {
                assert_eq!(t["name"], format!("Step {}: {}", step.step, step.function));
                assert_eq!(t["number"], step.step.as_str());
                assert!(t["score"].is_number() && t["max_score"].is_number());
                assert_eq!(t["score"], step.score);
                assert_eq!(t["max_score"], step.weight);
                let status = if step.passed { "passed" } else { "failed" };
                assert_eq!(t["status"], status);
                assert!(t["output"].is_string());
                assert_eq!(t["visibility"], "visible");
                total += t["score"].as_u64().unwrap();
            }
            assert_eq!(total, u64::from(s.score));
            let most: u64 = tests.iter().map(|t| t["max_score"].as_u64().unwrap()).sum();
            assert_eq!(most, u64::from(s.max_score));
        }
    }

    #[test]
    fn outputs_say_why_each_step_failed() {
        let c = class();
        let bob = parsed(&c.submissions[1]);
        assert_eq!(bob["tests"][0]["output"], "");
        assert_eq!(
            bob["tests"][1]["output"],
            format!("02 replay_safe :: POST with key is safe\n{NASTY_SHOWN}")
        );
        assert!(bob["tests"][2]["output"]
            .as_str()
            .unwrap()
            .contains("Not implemented yet"));

        let carol = parsed(&c.submissions[2]);
        let overview = carol["output"].as_str().unwrap();
        assert!(overview.contains(COMPILER_ERRORS));
        for t in carol["tests"].as_array().unwrap() {
            assert!(t["output"].as_str().unwrap().contains("not compile"));
            assert_eq!(t["status"], "failed");
        }
    }

    #[test]
    fn names_and_outputs_follow_the_chosen_language() {
        let bob = &class().submissions[1];
        let zh: Value = crate::catalog::scoped(Lang::Zh, || {
            serde_json::from_str(&results_json(bob, SEED)).unwrap()
        });
        let tests = zh["tests"].as_array().unwrap();
        assert_eq!(tests[0]["name"], "第 01 步：retryable");
        assert!(tests[2]["output"]
            .as_str()
            .unwrap()
            .starts_with("尚未实现：`remaining`"));
        let overview = zh["output"].as_str().unwrap();
        assert!(
            overview.contains("得分 10/30：3 个步骤中通过 1 个。"),
            "{overview}"
        );
        // Only the words change: the scores, statuses and learner's text stay.
        let en = parsed(bob);
        assert_eq!(zh["score"], en["score"]);
        assert_eq!(zh["tests"][1]["output"], en["tests"][1]["output"]);
        // The language was lent to that render only.
        assert_eq!(en["tests"][0]["name"], "Step 01: retryable");
    }

    /// What Gradescope shows a person (test names, outputs) holds no
    /// control or bidirectional character but line feeds and tabs: what the
    /// learner's code printed, or its compiler quoted, is shown escaped.
    /// result.json keeps the submission's name exactly.
    #[test]
    fn control_and_bidi_characters_are_shown_escaped() {
        let bob = hostile_submission();
        let v = parsed(&bob);
        for text in json_strings(&v) {
            assert_eq!(raw_hidden(&text), [], "{text:?}");
            assert!(!text.contains('\r'), "{text:?}");
        }
        assert_eq!(
            v["tests"][1]["output"],
            "02 replay_safe :: POST with key is safe\n\
             \\u{1b}[31mred\\u{7}\\r\n\\u{202e}gnp.exe\\u{9b}\n  expected: true"
        );
        let result: Value =
            serde_json::from_str(&crate::report::kit::result_json(&bob, SEED)).unwrap();
        assert_eq!(result["name"], HOSTILE);

        let carol = parsed(&hostile_build());
        for text in json_strings(&carol) {
            assert_eq!(raw_hidden(&text), [], "{text:?}");
        }
        let overview = carol["output"].as_str().unwrap();
        assert!(
            overview.ends_with("\n\\u{1b}[31mred\\u{7}\\r\n\\u{202e}gnp.exe\\u{9b}"),
            "{overview:?}"
        );
    }

    #[test]
    fn unknown_times_are_zero_not_null() {
        let mut alice = class().submissions[0].clone();
        alice.seconds = f64::NAN;
        assert_eq!(parsed(&alice)["execution_time"].as_f64(), Some(0.0));
        alice.seconds = 0.1 + 0.2;
        assert_eq!(parsed(&alice)["execution_time"].as_f64(), Some(0.3));
    }

    #[test]
    fn long_messages_are_capped_on_a_char_boundary() {
        let v = parsed(&long_submission());
        let output = v["tests"][1]["output"].as_str().unwrap();
        let full = format!(
            "02 replay_safe :: POST with key is safe\n{}",
            long_message()
        );
        assert_capped(output, &full);

        let mut carol = class().submissions[2].clone();
        carol.build_errors = Some(long_message());
        let overview = parsed(&carol)["output"].as_str().unwrap().to_string();
        assert!(overview.starts_with("retry-lab, seed "));
        let (kept, _) = overview.split_once("\n[… cut: ").unwrap();
        assert!(kept.len() <= MESSAGE_CAP);
    }
}
