//! Exercism's test-runner `results.json`, version 3: one test per clause, in
//! step order, with `task_id` = the step's number (1..8) and `test_code` =
//! the clause's stable key. `status` is `error` when the submission does not
//! compile (then `message` holds the compiler's errors and `tests` is empty,
//! as Exercism expects for errors), `pass` when every step passed, else
//! `fail`. A test's `message` is null when it passed, else its (capped)
//! message or, for `todo!()`, a sentence saying so; `output` is always null
//! (what learner code prints is never shown). A step without clauses is shown
//! as one test named after the step, so it cannot vanish.

use super::{capped, Build, ClauseStatus, StepReport, SubmissionReport, MESSAGE_CAP};
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

/// Exercism's `results.json` (version 3) for one submission, pretty, newline.
pub fn results_json(s: &SubmissionReport) -> String {
    let s = &s.attempted();
    let results = match s.build {
        Build::Failed => Results {
            version: 3,
            status: "error",
            message: Some(capped(
                s.build_errors
                    .as_deref()
                    .unwrap_or("the submission does not compile"),
                MESSAGE_CAP,
            )),
            tests: Vec::new(),
        },
        Build::Error => Results {
            version: 3,
            status: "error",
            message: Some(capped(
                &format!(
                    "error, needs review: {}",
                    s.review.as_deref().unwrap_or("grading could not finish")
                ),
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
        let status = step.status.as_clause();
        return vec![test(
            format!("{} {}", step.step, step.function),
            step.step.clone(),
            status,
            None,
            step,
            task_id,
        )];
    }
    step.clauses
        .iter()
        .map(|c| {
            let message = c.message.as_deref();
            test(
                c.name.clone(),
                c.key.clone(),
                c.status,
                message,
                step,
                task_id,
            )
        })
        .collect()
}

fn test(
    name: String,
    test_code: String,
    status: ClauseStatus,
    message: Option<&str>,
    step: &StepReport,
    task_id: Option<u32>,
) -> Test {
    let (status, message) = match status {
        ClauseStatus::Passed => ("pass", None),
        ClauseStatus::Failed => ("fail", Some(message.unwrap_or("failed").to_string())),
        ClauseStatus::NotImplemented => (
            "fail",
            Some(message.map(str::to_string).unwrap_or_else(|| {
                format!(
                    "Not implemented yet: `{}` still reaches todo!(). Fill it in to pass this test.",
                    step.function
                )
            })),
        ),
        ClauseStatus::NotAttempted => (
            "error",
            Some("not attempted (advanced bonus step)".to_string()),
        ),
        ClauseStatus::NotBuilt => (
            "error",
            Some(message.unwrap_or("does not compile").to_string()),
        ),
    };
    Test {
        name,
        test_code,
        status,
        message: message.map(|m| capped(&m, MESSAGE_CAP)),
        output: None,
        task_id,
    }
}

#[cfg(test)]
mod tests {
    use super::super::kit::test_support::{
        assert_capped, check_snapshot, class, long_message, long_submission, COMPILER_ERRORS, NASTY,
    };
    use super::*;
    use serde_json::Value;

    fn parsed(s: &SubmissionReport) -> Value {
        serde_json::from_str(&results_json(s)).unwrap()
    }

    #[test]
    fn matches_the_snapshots() {
        let c = class();
        let out: Vec<String> = c.submissions.iter().map(results_json).collect();
        check_snapshot(
            "exercism-alice.json",
            include_str!("snapshots/exercism-alice.json"),
            &out[0],
        );
        check_snapshot(
            "exercism-bob.json",
            include_str!("snapshots/exercism-bob.json"),
            &out[1],
        );
        check_snapshot(
            "exercism-carol.json",
            include_str!("snapshots/exercism-carol.json"),
            &out[2],
        );
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
                assert!(t["output"].is_null());
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
        assert_eq!(tests[3]["message"], NASTY);
        assert_eq!(tests[3]["test_code"], "02/post-with-key-is-safe");
        assert!(tests[4]["message"].as_str().unwrap().contains("todo!()"));

        let carol = parsed(&c.submissions[2]);
        assert_eq!(carol["status"], "error");
        assert_eq!(carol["message"], COMPILER_ERRORS);
        assert_eq!(carol["tests"], Value::Array(Vec::new()));
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
