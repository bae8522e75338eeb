//! Rosters, the CSV reader under them, matching, and regrade comparison.

use super::super::csv_read::records;
use super::super::regrade::{compare, verdicts, Previous};
use super::super::roster::{matched, read};
use crate::report::lms::RunInfo;
use crate::report::summary::summary_of;
use crate::report::test_support::class;
use std::collections::BTreeMap;
use std::path::Path;

fn roster_file(text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("roster.csv");
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

#[test]
fn csv_fields_quoted_or_not_and_their_lines() {
    let text = "a,\"b, \"\"c\"\"\"\r\n\r\n\"multi\nline\",x\ny,\n";
    let recs = records(Path::new("f.csv"), text).unwrap();
    assert_eq!(
        recs,
        [
            (1, vec!["a".to_string(), "b, \"c\"".to_string()]),
            (3, vec!["multi\nline".to_string(), "x".to_string()]),
            (5, vec!["y".to_string(), String::new()]),
        ]
    );
    for (bad, line) in [("a,b\nc\"d,e\n", 2), ("a\n\"open,b\n", 2), ("\"a\"b\n", 1)] {
        let e = records(Path::new("f.csv"), bad).unwrap_err();
        assert!(
            e.starts_with(&format!("f.csv, line {line}: ")),
            "{bad:?}: {e}"
        );
    }
}

#[test]
fn a_canvas_export_with_a_folder_column_is_a_roster() {
    let (_d, path) = roster_file(
        "\u{feff}Student,ID,SIS User ID,SIS Login ID,Section,Retry lab (1),Folder\r\n\
         \x20   Points Possible,,,,,8,\r\n\
         \"Doe, Jane\",101,S101,jdoe,A,,alice\r\n\
         王小明,102,S102,wang,B,,bob\r\n\
         Absent Al,103,S103,al,A,,\r\n",
    );
    let r = read(&path).unwrap();
    assert!(r.canvas);
    assert_eq!(r.moodle, None);
    assert_eq!(r.students.len(), 3);
    assert_eq!(r.students[0].name, "Doe, Jane");
    assert_eq!(r.students[1].sis_login_id, "wang");
    let class: BTreeMap<String, u32> = [("alice".to_string(), 8), ("zed".to_string(), 2)].into();
    let whole = vec!["alice".to_string(), "zed".to_string()];
    let m = matched(&r, &class, &whole);
    assert_eq!(m.rows.len(), 1);
    assert_eq!((m.rows[0].id.as_str(), m.rows[0].points), ("101", 8));
    assert_eq!(m.no_roster_row, ["zed"]);
    assert_eq!(m.no_submission, ["bob", "Absent Al"]);
    // In a shard, a classmate graded elsewhere is not missing.
    let whole = vec!["alice".to_string(), "bob".to_string(), "zed".to_string()];
    assert_eq!(matched(&r, &class, &whole).no_submission, ["Absent Al"]);
}

#[test]
fn a_moodle_roster_picks_its_identifier() {
    let (_d, path) = roster_file("folder,username,email\nalice,jdoe,j@x.org\n");
    let r = read(&path).unwrap();
    assert!(!r.canvas);
    assert_eq!(r.moodle, Some("email"));
    let class: BTreeMap<String, u32> = [("alice".to_string(), 5)].into();
    let m = matched(&r, &class, &["alice".to_string()]);
    assert_eq!(m.rows[0].moodle_id, "j@x.org");
    let (_d, path) = roster_file("folder,idnumber\nalice,007\n");
    assert_eq!(read(&path).unwrap().moodle, Some("idnumber"));
}

#[test]
fn a_malformed_roster_is_one_line_naming_file_and_line() {
    for (text, want) in [
        ("", "roster.csv, line 1: the roster is empty"),
        (
            "name,id\nx,1\n",
            "roster.csv, line 1: the header has no folder column",
        ),
        (
            "folder,name\na,b\n",
            "roster.csv, line 1: the header has no identity column",
        ),
        (
            "folder,id,ID\n",
            "roster.csv, line 1: the column id appears twice",
        ),
        (
            "folder,id\na,1\nb,2,3\n",
            "roster.csv, line 3: 3 fields where the header has 2",
        ),
        (
            "folder,id\na,1\na,2\n",
            "roster.csv, line 3: folder \"a\" is already on line 2",
        ),
        (
            "folder,id\n\"a,1\n",
            "roster.csv, line 2: a quoted field that never ends",
        ),
    ] {
        let (_d, path) = roster_file(text);
        let e = read(&path).unwrap_err();
        assert!(e.ends_with(want) || e.contains(want), "{text:?}: {e}");
        assert!(!e.contains('\n'), "{e}");
    }
    let (_d, path) = roster_file("folder,id\n");
    std::fs::write(&path, b"folder,id\n\xff,1\n").unwrap();
    assert!(read(&path).unwrap_err().contains("not UTF-8"));
    assert!(read(&path.with_file_name("none.csv")).is_err());
}

#[test]
fn a_regrade_lists_changed_verdicts_added_and_removed() {
    let before = class();
    let mut now = class();
    // bob's second step now passes; carol is gone; dave is new.
    let bob = &mut now.submissions[1];
    let step = &mut bob.steps[1];
    let failed = step
        .clauses
        .iter()
        .position(|c| c.status == crate::report::ClauseStatus::Failed)
        .unwrap();
    let key = step.clauses[failed].key.clone();
    let old_word = serde_json::to_value(step.clauses[failed].status).unwrap();
    let step_key = step.step.clone();
    step.clauses
        .iter_mut()
        .for_each(|c| c.status = crate::report::ClauseStatus::Passed);
    step.status = crate::report::StepStatus::Passed;
    step.passed = true;
    step.score = step.weight;
    bob.score += step.weight;
    now.submissions.pop();
    let mut dave = now.submissions[0].clone();
    dave.name = "dave".into();
    now.submissions.push(dave);

    let dir = tempfile::tempdir().unwrap();
    let mut prev = Previous {
        dir: dir.path().to_path_buf(),
        summary: summary_of(&before),
    };
    let run = RunInfo {
        kit: "9.9.9".into(),
        toolchain: "rustc 1.0".into(),
    };
    let whole: Vec<String> = now.submissions.iter().map(|s| s.name.clone()).collect();
    let r = compare(&prev, &now.submissions, "7", &run, &whole);
    assert_eq!(r.added, ["dave"]);
    assert_eq!(r.removed, ["carol"]);
    assert_eq!(r.changed.len(), 1);
    let c = &r.changed[0];
    assert_eq!((c.old_score, c.new_score), (10, 20));
    // No result.json in DIR: step by step, as the summaries tell it.
    let rule = c.rules.iter().find(|x| x.rule == step_key).unwrap();
    assert_eq!((rule.old.as_str(), rule.new.as_str()), ("failed", "passed"));
    let rule = c.rules.iter().find(|x| x.rule == key).unwrap();
    assert_eq!(
        (rule.old.as_str(), rule.new.as_str()),
        ("failed", "not failed")
    );
    assert_eq!(r.previous.seed, before.seed);
    assert_eq!(r.current.kit.as_deref(), Some("9.9.9"));
    assert_eq!(r.previous.kit, None);

    // With the earlier result.json there, its clause verdicts are used.
    prev.summary.submissions[1].folder = Some("bob".into());
    let folder = dir.path().join("bob");
    std::fs::create_dir(&folder).unwrap();
    std::fs::write(
        folder.join("result.json"),
        crate::report::kit::result_json(&before.submissions[1], "1"),
    )
    .unwrap();
    let r2 = compare(&prev, &now.submissions, "7", &run, &whole);
    let rule = r2.changed[0].rules.iter().find(|x| x.rule == key).unwrap();
    assert_eq!(serde_json::Value::from(rule.old.clone()), old_word);
    assert_eq!(rule.new, "passed");
    let all_old = verdicts(&before.submissions[1]);
    for rule in &r2.changed[0].rules {
        assert_eq!(all_old.get(&rule.rule), Some(&rule.old), "{}", rule.rule);
    }
}
