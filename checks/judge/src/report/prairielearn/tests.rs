//! Unit tests of PrairieLearn's `results.json`: the schema of
//! `fixtures/prairielearn/results.schema.json`, scores, the two ways of an
//! ungradable submission, caps, and withheld details.

use super::super::schema_check::violations;
use super::super::test_support::{class, hostile_submission, raw_hidden, COMPILER_ERRORS, SEED};
use super::super::visibility::{Detail, Shown, Visibility};
use super::*;
use serde_json::Value;

fn schema() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/prairielearn/results.schema.json"
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn parsed(s: &SubmissionReport, ungradable: Ungradable) -> Value {
    let text = results_json(s, SEED, &Shown::default(), ungradable);
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(violations(&schema(), &v), [] as [String; 0], "{text}");
    v
}

#[test]
fn every_submission_of_the_class_follows_the_schema_in_both_modes() {
    for s in class().submissions {
        for mode in [Ungradable::CompileError, Ungradable::Zero] {
            parsed(&s, mode);
        }
    }
    parsed(&hostile_submission(), Ungradable::Zero);
    let failed: Value = serde_json::from_str(&failed_json("the kit broke")).unwrap();
    assert!(violations(&schema(), &failed).is_empty());
    assert_eq!(failed["gradable"], false);
    assert_eq!(failed["format_errors"][0], "the kit broke");
}

#[test]
fn points_add_up_and_the_score_is_their_share() {
    let bob = class().submissions[1].clone();
    let v = parsed(&bob, Ungradable::CompileError);
    assert_eq!(v["gradable"], true);
    let tests = v["tests"].as_array().unwrap();
    let points: u64 = tests.iter().map(|t| t["points"].as_u64().unwrap()).sum();
    let max: u64 = tests
        .iter()
        .map(|t| t["max_points"].as_u64().unwrap())
        .sum();
    assert_eq!(points, u64::from(bob.score));
    assert_eq!(max, u64::from(bob.max_score));
    let want = f64::from(bob.score) / f64::from(bob.max_score);
    assert!((v["score"].as_f64().unwrap() - want).abs() < 1e-9);
    assert!(v.get("format_errors").is_none());
    let failed = &tests[1];
    assert_eq!(failed["points"], 0);
    assert!(failed["message"]
        .as_str()
        .unwrap()
        .contains("expected: true"));
}

#[test]
fn a_crate_that_does_not_compile_is_ungradable_or_zero_as_chosen() {
    let carol = class().submissions[2].clone();
    let v = parsed(&carol, Ungradable::CompileError);
    assert_eq!(v["gradable"], false);
    assert!(v.get("score").is_none() && v.get("tests").is_none());
    assert!(v["format_errors"][0]
        .as_str()
        .unwrap()
        .contains("error[E0308]"));
    assert!(COMPILER_ERRORS.contains("error[E0308]"));

    let v = parsed(&carol, Ungradable::Zero);
    assert_eq!(v["gradable"], true);
    assert_eq!(v["score"], 0.0);
    assert!(v.get("format_errors").is_none());
    assert!(v["tests"]
        .as_array()
        .unwrap()
        .iter()
        .all(|t| t["points"] == 0));
    assert!(v["message"].as_str().unwrap().contains("error[E0308]"));
}

#[test]
fn a_submission_that_needs_review_is_never_gradable() {
    let mut carol = class().submissions[2].clone();
    carol.build = Build::Error;
    carol.review = Some("no lib.rs found".into());
    for mode in [Ungradable::CompileError, Ungradable::Zero] {
        let v = parsed(&carol, mode);
        assert_eq!(v["gradable"], false);
        assert_eq!(v["format_errors"][0], "no lib.rs found");
    }
}

#[test]
fn whatever_the_code_printed_the_file_stays_under_a_megabyte() {
    let mut bob = class().submissions[1].clone();
    for step in &mut bob.steps {
        for c in &mut step.clauses {
            c.status = ClauseStatus::Failed;
            c.output = Some("x".repeat(3 * FILE_CAP));
            c.message = Some("y".repeat(3 * FILE_CAP));
        }
    }
    let text = results_json(&bob, SEED, &Shown::default(), Ungradable::Zero);
    assert!(text.len() <= FILE_CAP, "{}", text.len());
    let v: Value = serde_json::from_str(&text).unwrap();
    let output = v["tests"][1]["output"].as_str().unwrap();
    assert!(output.len() <= OUTPUT_CAP + 100, "{}", output.len());
    assert!(output.contains("cut"), "a cut text says so");
}

#[test]
fn learner_text_is_shown_visible() {
    let v = parsed(&hostile_submission(), Ungradable::Zero);
    for t in v["tests"].as_array().unwrap() {
        for key in ["name", "message", "output"] {
            let text = t[key].as_str().unwrap();
            assert_eq!(raw_hidden(text), [] as [char; 0], "{key}: {text:?}");
        }
    }
}

#[test]
fn a_withheld_detail_never_shows_the_expected_value() {
    let bob = class().submissions[1].clone();
    for detail in [Detail::Input, Detail::Verdict] {
        let mut shown = Shown::default();
        shown
            .steps
            .insert("02".into(), (Visibility::Visible, detail));
        let text = results_json(&bob, SEED, &shown, Ungradable::Zero);
        assert!(!text.contains("expected: true"), "{detail:?}: {text}");
    }
}

#[test]
fn a_late_penalty_lowers_the_score_and_is_said() {
    let mut alice = class().submissions[0].clone();
    alice.score = 24;
    alice.late = Some(crate::report::lms::Late {
        submitted_at: Some("2026-12-01T10:00:00Z".into()),
        source: "csv".into(),
        late_by: Some(7200),
        penalty: 6,
        score_before_penalty: 30,
    });
    let v = parsed(&alice, Ungradable::CompileError);
    assert!((v["score"].as_f64().unwrap() - 0.8).abs() < 1e-9, "{v:#}");
    assert!(v["message"].as_str().unwrap().contains("6 of 30"), "{v:#}");
    let points: u64 = v["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["points"].as_u64().unwrap())
        .sum();
    assert_eq!(points, 30, "the steps keep what they earned");
}
