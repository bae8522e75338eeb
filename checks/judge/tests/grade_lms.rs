//! End-to-end: `lab.sh grade` with `--roster`, a late policy and
//! `--previous`, on a small class in a temporary copy of the kit, each run
//! under an outer time limit. Expected scores, columns and lists are worked
//! out by hand from the fixture submissions (fixtures/submissions/expected.json)
//! and the LMS columns in fixtures/gradebook/.

use std::path::{Path, PathBuf};
use std::time::Duration;

mod common;
use common::{kit_root, Run};

const GRADE: Duration = Duration::from_secs(900);
const QUICK: Duration = Duration::from_secs(120);

fn copy_of_kit() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    lab_judge::files::copy_tree(&kit_root(), dir.path(), &lab_judge::files::not_in_a_clone)
        .unwrap();
    built_once();
    dir
}

/// Builds the judge once in the kit itself (as the e2e tests do), so that
/// no test's stderr holds the build's progress.
fn built_once() {
    static BUILT: std::sync::Once = std::sync::Once::new();
    BUILT.call_once(|| {
        common::seed_e2e();
        let r = lab(&kit_root(), &["--help"], GRADE);
        assert_eq!(r.code, 0, "lab.sh --help: {}{}", r.stdout, r.stderr);
    });
}

fn lab(dir: &Path, args: &[&str], limit: Duration) -> Run {
    let mut all = vec!["lab.sh"];
    all.extend_from_slice(args);
    common::run_program(dir, "bash", &all, "e2e", &[], limit)
}

fn json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

/// A submission folder `name` holding fixture `from`'s lib.rs.
fn submission(kit: &Path, class: &Path, name: &str, from: &str) -> PathBuf {
    let dir = class.join(name);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::copy(
        kit.join("fixtures/submissions")
            .join(from)
            .join("src/lib.rs"),
        dir.join("src/lib.rs"),
    )
    .unwrap();
    dir
}

fn git(dir: &Path, args: &[&str], date: &str) {
    let ok = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_COMMITTER_DATE", date)
        .env("GIT_AUTHOR_DATE", date)
        .env("GIT_AUTHOR_NAME", "s")
        .env("GIT_AUTHOR_EMAIL", "s@example.org")
        .env("GIT_COMMITTER_NAME", "s")
        .env("GIT_COMMITTER_EMAIL", "s@example.org")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "git {args:?}");
}

/// Records of an RFC 4180 text (CRLF record ends, quoted fields).
fn csv(text: &str) -> Vec<Vec<String>> {
    assert!(text.ends_with("\r\n"));
    let (mut records, mut record, mut field) = (Vec::new(), Vec::new(), String::new());
    let (mut quoted, mut chars) = (false, text.chars().peekable());
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => field.push(c),
            (false, '"') => quoted = true,
            (false, ',') => record.push(std::mem::take(&mut field)),
            (false, '\r') => {
                assert_eq!(chars.next(), Some('\n'));
                record.push(std::mem::take(&mut field));
                records.push(std::mem::take(&mut record));
            }
            (false, c) => field.push(c),
        }
    }
    records
}

const DUE: &str = "2026-03-01T00:00:00Z";
const LATE: &str = "linear:10%/day,cap:40%,grace:2h";

#[test]
fn a_class_grades_into_gradebooks_with_late_penalties_and_a_regrade() {
    let kit = copy_of_kit();
    let k = kit.path();
    let class = k.join("class");
    // alice: perfect (8), its submitted_at 26 h late: 24 h charged, 10%
    // of 8 = 0.8, one point off. bob: partial (4), a git repository whose
    // last commit is on time. carol: does not compile (0), no time. dave:
    // perfect, its own file says ten days late but the CSV, which comes
    // first, says on time; dave has no roster row.
    let alice = submission(k, &class, "alice", "perfect");
    std::fs::write(alice.join("submitted_at"), "2026-03-02T02:00:00Z\n").unwrap();
    let bob = submission(k, &class, "bob", "partial");
    git(&bob, &["init", "-q"], DUE);
    git(&bob, &["add", "."], DUE);
    git(
        &bob,
        &["commit", "-qm", "work"],
        "2026-02-28T23:00:00+00:00",
    );
    submission(k, &class, "carol", "does-not-compile");
    let dave = submission(k, &class, "dave", "perfect");
    std::fs::write(dave.join("submitted_at"), "2026-03-11T00:00:00Z").unwrap();
    let times = k.join("times.csv");
    std::fs::write(
        &times,
        "folder,submitted_at\ndave,2026-02-28T12:00:00+01:00\n",
    )
    .unwrap();
    let roster = k.join("roster.csv");
    std::fs::write(
        &roster,
        "folder,name,id,sis_user_id,sis_login_id,section,email\r\n\
         alice,\"Doe, Jane \"\"JJ\"\"\",101,S101,jdoe,A,jane@example.edu\r\n\
         bob,=cmd|' /C calc'!A0,102,S102,bob,B,bob@example.edu\r\n\
         carol,王小明,103,S103,wang,A,wang@example.edu\r\n\
         erin,Erin Absent,104,S104,erin,B,erin@example.edu\r\n",
    )
    .unwrap();

    let out1 = k.join("out1");
    let path = |p: &Path| p.display().to_string();
    let (roster_s, times_s, out1_s) = (path(&roster), path(&times), path(&out1));
    let subs: Vec<String> = ["alice", "bob", "carol", "dave"]
        .iter()
        .map(|n| path(&class.join(n)))
        .collect();
    let mut args = vec![
        "grade",
        "--seed",
        "5",
        "--out",
        &out1_s,
        "--roster",
        &roster_s,
        "--assignment",
        "Retry lab (12345)",
        "--due",
        DUE,
        "--late",
        LATE,
        "--submitted-at",
        &times_s,
    ];
    args.extend(subs.iter().map(String::as_str));
    let r = lab(k, &args, GRADE);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    // Unmatched on both sides, and the unknown time, told on the console.
    assert!(
        r.stdout
            .contains("1 submission has no roster row (not in the gradebook): dave"),
        "{}",
        r.stdout
    );
    assert!(r
        .stdout
        .contains("1 roster student has no submission (not in the gradebook): erin"));
    assert!(r
        .stdout
        .contains("no submission time known for 1 submission (no penalty): carol"));
    assert!(r
        .stdout
        .contains("late policy: 1 submission was late, 1 lost points"));
    // The rerun command keeps what changes scores.
    let rerun = format!(
        "./lab.sh grade --seed 5 --due 2026-03-01T00:00:00Z --late '{LATE}' \
         --submitted-at {times_s} --out {out1_s} SUBMISSION..."
    );
    assert!(r.stdout.contains(&rerun), "{rerun}\n{}", r.stdout);

    // Canvas: the columns of fixtures/gradebook/canvas.json, in order.
    let want: serde_json::Value = json(&k.join("fixtures/gradebook/canvas.json"));
    let mut header: Vec<String> = want["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_string())
        .collect();
    header.push("Retry lab (12345)".into());
    let canvas = csv(&std::fs::read_to_string(out1.join("gradebook/canvas.csv")).unwrap());
    assert_eq!(canvas[0], header);
    assert_eq!(canvas[1], ["    Points Possible", "", "", "", "", "8"]);
    assert_eq!(
        canvas[2],
        ["Doe, Jane \"JJ\"", "101", "S101", "jdoe", "A", "7"]
    );
    assert_eq!(
        canvas[3],
        ["'=cmd|' /C calc'!A0", "102", "S102", "bob", "B", "4"]
    );
    assert_eq!(canvas[4], ["王小明", "103", "S103", "wang", "A", "0"]);
    assert_eq!(canvas.len(), 5);
    // Moodle: the email identifier and the grade.
    let moodle = csv(&std::fs::read_to_string(out1.join("gradebook/moodle.csv")).unwrap());
    assert_eq!(
        moodle,
        [
            ["email", "Retry lab (12345)"],
            ["jane@example.edu", "7"],
            ["bob@example.edu", "4"],
            ["wang@example.edu", "0"],
        ]
    );

    // The summary: penalties, the roster's lists, the run.
    let summary = json(&out1.join("summary.json"));
    assert_eq!(
        summary["roster"]["no_roster_row"],
        serde_json::json!(["dave"])
    );
    assert_eq!(
        summary["roster"]["no_submission"],
        serde_json::json!(["erin"])
    );
    assert!(summary["run"]["kit"].is_string());
    assert!(summary["run"]["toolchain"]
        .as_str()
        .unwrap()
        .starts_with("rustc "));
    let by_name = |n: &str| {
        summary["submissions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == n)
            .unwrap()
            .clone()
    };
    let expect = [
        ("alice", 7, 1, Some(26 * 3600), "file"),
        ("bob", 4, 0, Some(0), "git"),
        ("carol", 0, 0, None, "unknown"),
        ("dave", 8, 0, Some(0), "csv"),
    ];
    for (name, score, penalty, late_by, source) in expect {
        let s = by_name(name);
        assert_eq!(s["score"], score, "{name}");
        assert_eq!(s["late"]["penalty"], penalty, "{name}");
        assert_eq!(s["late"]["late_by"].as_i64(), late_by, "{name}");
        assert_eq!(s["late"]["source"], source, "{name}");
        let earned: u64 = s["steps"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|x| x["passed"] == true && x["bonus"] != true)
            .map(|x| x["weight"].as_u64().unwrap())
            .sum();
        assert_eq!(earned - penalty, score, "{name}: steps minus penalty");
        // result.json and Gradescope agree with it.
        let result = json(&out1.join(name).join("result.json"));
        assert_eq!(result["score"], score, "{name}");
        assert_eq!(result["late"], s["late"], "{name}");
        let gs = json(&out1.join(name).join("gradescope/results.json"));
        let sum: i64 = gs["tests"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["score"].as_i64().unwrap())
            .sum();
        assert_eq!(gs["score"], score, "{name}");
        assert_eq!(sum, score as i64, "{name}: Gradescope's tests add up");
    }
    let summary_csv = std::fs::read_to_string(out1.join("summary.csv")).unwrap();
    let rows = csv(&summary_csv);
    assert_eq!(
        rows[0][rows[0].len() - 3..],
        ["score_before_penalty", "penalty", "late_by"]
    );
    assert_eq!(rows[1][0], "alice");
    assert_eq!(rows[1][2], "7");
    assert_eq!(rows[1][rows[1].len() - 3..], ["8", "1", "93600"]);

    // A regrade: bob now perfect, dave gone, frank new.
    std::fs::copy(
        k.join("fixtures/submissions/perfect/src/lib.rs"),
        bob.join("src/lib.rs"),
    )
    .unwrap();
    submission(k, &class, "frank", "partial");
    let out2 = k.join("out2");
    let out2_s = path(&out2);
    let subs: Vec<String> = ["alice", "bob", "carol", "frank"]
        .iter()
        .map(|n| path(&class.join(n)))
        .collect();
    let mut args = vec![
        "grade",
        "--seed",
        "6",
        "--out",
        &out2_s,
        "--previous",
        &out1_s,
        "--due",
        DUE,
        "--late",
        LATE,
        "--submitted-at",
        &times_s,
    ];
    args.extend(subs.iter().map(String::as_str));
    let r = lab(k, &args, GRADE);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("regrade: 1 student's verdicts changed"),
        "{}",
        r.stdout
    );
    assert!(r
        .stdout
        .contains("regrade: new since the previous run: frank"));
    assert!(r
        .stdout
        .contains("regrade: gone since the previous run: dave"));
    let regrade = json(&out2.join("regrade.json"));
    assert_eq!(regrade["schema"], "retry-lab.regrade/1");
    assert_eq!(regrade["previous"]["seed"], "5");
    assert_eq!(regrade["current"]["seed"], "6");
    assert_eq!(regrade["previous"]["kit"], regrade["current"]["kit"]);
    assert!(regrade["previous"]["toolchain"].is_string());
    assert_eq!(regrade["added"], serde_json::json!(["frank"]));
    assert_eq!(regrade["removed"], serde_json::json!(["dave"]));
    let changed = regrade["changed"].as_array().unwrap();
    assert_eq!(changed.len(), 1, "{changed:?}");
    assert_eq!(changed[0]["name"], "bob");
    assert_eq!(
        (
            changed[0]["old_score"].as_u64(),
            changed[0]["new_score"].as_u64()
        ),
        (Some(4), Some(8))
    );
    let rules = changed[0]["rules"].as_array().unwrap();
    // partial leaves steps 05-08 at todo!(): every rule of theirs changed
    // from not-implemented to passed, and no rule of 01-04.
    assert!(!rules.is_empty());
    for rule in rules {
        let key = rule["rule"].as_str().unwrap();
        assert!(["05", "06", "07", "08"].contains(&&key[..2]), "{rule}");
        assert_eq!(rule["old"], "not-implemented", "{rule}");
        assert_eq!(rule["new"], "passed", "{rule}");
    }
}

#[test]
fn bad_lms_input_is_one_line_and_exit_2() {
    let kit = copy_of_kit();
    let k = kit.path();
    let class = k.join("class");
    let sub = submission(k, &class, "alice", "perfect");
    let sub_s = sub.display().to_string();
    std::fs::write(
        k.join("bad-roster.csv"),
        "folder,id\nalice,1\nbob,2,extra\n",
    )
    .unwrap();
    std::fs::write(k.join("no-id.csv"), "folder,name\nalice,A\n").unwrap();
    std::fs::create_dir(k.join("not-grades")).unwrap();
    std::fs::write(k.join("policy.json"), r#"{"linear": "10%/fortnight"}"#).unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["--roster", "bad-roster.csv"],
            "bad-roster.csv, line 3: 3 fields where the header has 2",
        ),
        (
            vec!["--roster", "no-id.csv"],
            "no-id.csv, line 1: the header has no identity column",
        ),
        (vec!["--roster", "missing.csv"], "missing.csv: "),
        (
            vec!["--previous", "nowhere"],
            "--previous nowhere: no such folder",
        ),
        (
            vec!["--previous", "not-grades"],
            "--previous not-grades is not a grade output folder",
        ),
        (vec!["--due", "soon"], "bad time \"soon\" for --due"),
        (
            vec!["--due", DUE, "--late", "linear:10%"],
            "bad late policy \"linear:10%\"",
        ),
        (vec!["--late", LATE], "need a due time"),
        (
            vec!["--due", DUE, "--late-policy", "policy.json"],
            "policy.json: ",
        ),
    ];
    for (extra, want) in cases {
        let mut args = vec!["grade", "--out", "o"];
        args.extend(extra.iter().copied());
        args.push(&sub_s);
        let r = lab(k, &args, QUICK);
        assert_eq!(r.code, 2, "{extra:?}: {}{}", r.stdout, r.stderr);
        assert_eq!(
            r.stderr.trim_end().lines().count(),
            1,
            "{extra:?}: {}",
            r.stderr
        );
        assert!(r.stderr.contains(want), "{extra:?}: {}", r.stderr);
        assert!(!k.join("o/summary.json").exists(), "{extra:?} graded");
    }
    // --merge joins summaries: these options are for grading.
    let r = lab(
        k,
        &["grade", "--merge", "x", "--roster", "roster.csv"],
        QUICK,
    );
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("not with --merge"), "{}", r.stderr);
    // A malformed submitted_at in a submission names the file.
    std::fs::write(sub.join("submitted_at"), "last tuesday").unwrap();
    let r = lab(k, &["grade", "--out", "o", "--due", DUE, &sub_s], QUICK);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains("submitted_at: not an RFC 3339 time"),
        "{}",
        r.stderr
    );
    assert_eq!(r.stderr.trim_end().lines().count(), 1, "{}", r.stderr);
}
