//! The summary's JSON read back and written again, and what all three views
//! share: the snapshots, the advanced columns, an empty class.

use super::super::snapshot::compare;
use super::super::test_support::{class, HOSTILE, SEED};
use super::*;
use crate::report::{
    AdvancedBuild, ClauseReport, ClauseStatus, FaultKind, StepStatus, GRADE_SCHEMA,
};
use serde_json::Value;

#[test]
fn matches_the_snapshots() {
    let c = class();
    let json = summary_json(&c);
    compare("src/report/snapshots/summary.json", &json);
    let file = summary_of(&c);
    compare("src/report/snapshots/summary.csv", &summary_csv(&file));
    compare("src/report/snapshots/summary.md", &summary_md(&file));
}

#[test]
fn json_has_exactly_the_summary_fields() {
    let v: Value = serde_json::from_str(&summary_json(&class())).unwrap();
    let keys = |v: &Value| -> Vec<String> { v.as_object().unwrap().keys().cloned().collect() };
    assert_eq!(keys(&v), ["schema", "seed", "submissions"]);
    assert_eq!(v["schema"], GRADE_SCHEMA);
    assert_eq!(v["seed"], SEED);
    for s in v["submissions"].as_array().unwrap() {
        assert_eq!(
            keys(s),
            [
                "advanced_build",
                "bonus",
                "build",
                "max_score",
                "name",
                "score",
                "seconds",
                "steps"
            ]
        );
        assert!(["ok", "failed"].contains(&s["build"].as_str().unwrap()));
        for step in s["steps"].as_array().unwrap() {
            let advanced = crate::suites::is_advanced(step["step"].as_str().unwrap());
            let mut want = vec!["passed", "score", "status", "step", "weight"];
            if step["status"] == "failed" {
                want.insert(0, "failed");
            }
            if advanced {
                want.push("bonus");
            }
            // Only a failing step that matched a known mistake.
            if step.get("mistake").is_some() {
                assert_eq!(step["status"], "failed");
                want.push("mistake");
            }
            want.sort_unstable();
            assert_eq!(keys(step), want);
        }
    }
    let named: Vec<&Value> = v["submissions"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["steps"].as_array().unwrap())
        .filter_map(|step| step.get("mistake"))
        .collect();
    assert_eq!(named, ["02-post-exact-case"]);
    let back = read_summary(&summary_json(&class())).unwrap();
    assert_eq!(back, summary_of(&class()));
}

#[test]
fn attempted_advanced_steps_get_columns_and_a_bonus() {
    let mut c = class();
    let dave = &mut c.submissions[0];
    dave.steps[3].status = StepStatus::Passed;
    dave.steps[3].passed = true;
    dave.bonus = 10;
    dave.advanced_build = AdvancedBuild::Ok;
    let file = summary_of(&c);
    let csv = summary_csv(&file);
    let header = csv.lines().next().unwrap();
    assert_eq!(header, "name,build,score,max_score,01,02,03,09,bonus");
    assert!(csv.lines().nth(1).unwrap().ends_with(",pass,10"), "{csv}");
    assert!(csv.lines().nth(2).unwrap().ends_with(",n/a,0"), "{csv}");
    let md = summary_md(&file);
    assert!(md.contains("| 30/30 +10 |") && md.contains(" – |"), "{md}");
    // Without attempts the columns are exactly the core ones.
    let plain = summary_csv(&summary_of(&class()));
    assert!(plain.starts_with("name,build,score,max_score,01,02,03\r\n"));
}

#[test]
fn reads_back_and_writes_identically() {
    let mut c = class();
    c.submissions[0].seconds = 0.1 + 0.2;
    c.submissions[1].seconds = 1.0 / 3.0;
    c.submissions[2].seconds = f64::NAN;
    let text = summary_json(&c);
    let file = read_summary(&text).unwrap();
    assert_eq!(file, summary_of(&c));
    assert_eq!(summary_json_from(&file), text);
    assert_eq!(file.submissions[0].seconds, 0.3);
    assert_eq!(file.submissions[1].seconds, 0.333);
    assert_eq!(file.submissions[2].seconds, 0.0);

    let other = text.replace(GRADE_SCHEMA, "retry-lab.grade/0");
    assert!(read_summary(&other).unwrap_err().contains("schema"));
    let extra = text.replacen("\"seed\"", "\"clauses\": [],\n  \"seed\"", 1);
    assert!(read_summary(&extra).is_err());
    assert!(read_summary("not json").is_err());
}

/// A step keeps the ids of the clauses it failed, in the suite's order,
/// and a known mistake when one is named; both read back and write
/// identically, and a summary without them reads as before.
#[test]
fn failed_clauses_and_mistakes_read_back_and_write_identically() {
    let mut c = class();
    c.submissions[1].steps[1].clauses[0].status = ClauseStatus::Failed;
    let mut file = summary_of(&c);
    let bob = &file.submissions[1];
    assert_eq!(
        bob.steps[1].failed,
        ["02/get-is-safe", "02/post-with-key-is-safe"]
    );
    assert!(bob.steps[2].failed.is_empty(), "not started is no failure");
    // The class report's one known mistake, and only it, is carried.
    assert_eq!(bob.steps[1].mistake.as_deref(), Some("02-post-exact-case"));
    let named = file
        .submissions
        .iter()
        .flat_map(|s| &s.steps)
        .filter(|x| x.mistake.is_some())
        .count();
    assert_eq!(named, 1);
    file.submissions[1].steps[1].mistake = Some("02-head-forgotten".into());
    let text = summary_json_from(&file);
    assert!(
        text.contains("\"mistake\": \"02-head-forgotten\""),
        "{text}"
    );
    assert_eq!(read_summary(&text).unwrap(), file);
    assert_eq!(summary_json_from(&read_summary(&text).unwrap()), text);
    let plain = summary_json(&class());
    assert_eq!(text.matches("\"failed\": [").count(), 1);
    assert_eq!(plain.matches("\"mistake\"").count(), 1, "{plain}");
    // A summary written before failed clauses were kept.
    let old = strip_failed(&text);
    assert!(
        !old.contains("\"failed\": [") && !old.contains("mistake"),
        "{old}"
    );
    let read = read_summary(&old).unwrap();
    assert!(read.submissions[1].steps[1].failed.is_empty());
    assert!(read.submissions[1].steps[1].mistake.is_none());
}

/// A step whose failed clause faulted (time-out, crash, flood, …) says
/// how; a wrong answer, a panic or a passing clause's fault does not.
#[test]
fn a_step_names_the_first_fault_among_its_failed_clauses() {
    let fault_of = |kinds: &[(ClauseStatus, Option<FaultKind>)]| {
        let mut c = class();
        let step = &mut c.submissions[1].steps[1];
        step.clauses.truncate(1);
        let template = step.clauses[0].clone();
        step.clauses = kinds
            .iter()
            .map(|(status, fault)| ClauseReport {
                status: *status,
                fault: *fault,
                ..template.clone()
            })
            .collect();
        summary_of(&c).submissions[1].steps[1].fault
    };
    let failed = ClauseStatus::Failed;
    assert_eq!(fault_of(&[(failed, Some(FaultKind::Wrong))]), None);
    assert_eq!(fault_of(&[(failed, Some(FaultKind::Panicked))]), None);
    assert_eq!(
        fault_of(&[
            (failed, Some(FaultKind::Wrong)),
            (failed, Some(FaultKind::TimedOut)),
            (failed, Some(FaultKind::Crashed)),
        ]),
        Some(FaultKind::TimedOut)
    );
    assert_eq!(
        fault_of(&[(ClauseStatus::Passed, Some(FaultKind::Flooded))]),
        None
    );
    for kind in [
        FaultKind::Runaway,
        FaultKind::Crashed,
        FaultKind::Flooded,
        FaultKind::Forged,
        FaultKind::NotRun,
    ] {
        assert_eq!(fault_of(&[(failed, Some(kind))]), Some(kind));
    }
    let mut c = class();
    c.submissions[1].steps[1].clauses[1].fault = Some(FaultKind::Flooded);
    let text = summary_json(&c);
    assert!(text.contains("\"fault\": \"flooded\""), "{text}");
    assert_eq!(summary_json_from(&read_summary(&text).unwrap()), text);
}

/// `text` without its steps' `failed` and `mistake` members.
fn strip_failed(text: &str) -> String {
    let mut v: Value = serde_json::from_str(text).unwrap();
    for s in v["submissions"].as_array_mut().unwrap() {
        for step in s["steps"].as_array_mut().unwrap() {
            step.as_object_mut().unwrap().remove("failed");
            step.as_object_mut().unwrap().remove("mistake");
        }
    }
    serde_json::to_string_pretty(&v).unwrap()
}

/// summary.json keeps a name exactly (the CSV and the Markdown show it
/// escaped: see their tests).
#[test]
fn names_stay_exact_in_json() {
    let mut c = class();
    c.submissions[2].name = HOSTILE.to_string();
    let json = summary_json(&c);
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["submissions"][2]["name"], HOSTILE);
    assert_eq!(read_summary(&json).unwrap().submissions[2].name, HOSTILE);
}

#[test]
fn an_empty_class_still_has_headers() {
    let mut c = class();
    c.submissions.clear();
    let file = summary_of(&c);
    assert_eq!(summary_csv(&file), "name,build,score,max_score\r\n");
    assert!(summary_md(&file).starts_with("| Submission | Build | Score |\n| --- | --- | ---: |\n"));
    assert_eq!(read_summary(&summary_json(&c)).unwrap(), file);
}
