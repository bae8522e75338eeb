//! Unit tests of `merge`: shards joined into the summaries of one class,
//! as if it had been graded whole, and refused when a summary points
//! outside its folder.

use super::super::tests::{read, subs};
use super::super::*;

/// A shard folder as `grade --out` leaves it: each submission's folder
/// with a result.json, and summary.json.
fn write_shard(dir: &Path, names: &[&str], seed: u64) {
    let weights = weights(Path::new("/nonexistent")).unwrap();
    let folders = crate::folders::folders(names.iter().copied());
    let reports: Vec<SubmissionReport> = subs(names)
        .iter()
        .map(|s| needs_review(s, "stand-in", &weights, seed))
        .collect();
    for r in &reports {
        write_submission(
            dir,
            &folders[&r.name],
            r,
            &seed.to_string(),
            &super::super::write::Formats::PLAIN,
        )
        .unwrap();
    }
    let class = ClassReport {
        schema: report::GRADE_SCHEMA.into(),
        seed: seed.to_string(),
        submissions: reports,
    };
    write_summaries(dir, &summary_with_folders(&class, &folders)).unwrap();
}

fn merge_into(out: &Path, shards: &[PathBuf]) -> u8 {
    merge(shards, out)
}

#[test]
fn a_missing_shard_is_named_and_the_others_are_merged() {
    let dir = tempfile::tempdir().unwrap();
    let shards: Vec<PathBuf> = (1..=3)
        .map(|i| dir.path().join(format!("shard-{i}")))
        .collect();
    write_shard(&shards[0], &["王小明", "bob"], 4);
    write_shard(&shards[2], &["carol"], 4);
    // shards[1] never arrived.
    let out = dir.path().join("class");
    assert_eq!(merge_into(&out, &shards), status::NEEDS_REVIEW);
    let summary: serde_json::Value =
        serde_json::from_str(&read(&out.join("summary.json"))).unwrap();
    let names: Vec<&str> = summary["submissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["bob", "carol", "王小明"]);
    for s in summary["submissions"].as_array().unwrap() {
        let folder = s["folder"].as_str().unwrap();
        let result = read(&out.join(folder).join("result.json"));
        assert!(result.contains(s["name"].as_str().unwrap()), "{result}");
    }
    // Every shard there: a clean merge.
    write_shard(&shards[1], &["dave"], 4);
    let again = dir.path().join("again");
    assert_eq!(merge_into(&again, &shards), status::PASSED);
    // None there: nothing to merge, nothing written.
    let none = dir.path().join("none");
    let nowhere = [dir.path().join("x"), dir.path().join("y")];
    assert_eq!(merge_into(&none, &nowhere), status::USAGE);
    assert!(!none.join("summary.json").exists());
}

/// Marks a step of a shard's first submission failed, with failed
/// clauses and a known mistake, as grading would have written them.
fn with_failures(dir: &Path) {
    let path = dir.join("summary.json");
    let mut file = report::summary::read_summary(&read(&path)).unwrap();
    let step = &mut file.submissions[0].steps[1];
    step.status = report::StepStatus::Failed;
    step.failed = vec!["02/safe-methods".into(), "02/random".into()];
    step.mistake = Some("02-head-forgotten".into());
    write_summaries(dir, &file).unwrap();
}

/// Shards merged give the summaries, summary.html included, of the
/// class written whole with the same seed, byte for byte, failed
/// clauses and known mistakes kept.
#[test]
fn merged_shards_give_the_summaries_of_one_run() {
    let dir = tempfile::tempdir().unwrap();
    let names = ["alice", "bob", "carol", "dave", "erin"];
    let whole = dir.path().join("whole");
    write_shard(&whole, &names, 6);
    with_failures(&whole);
    let shards: Vec<PathBuf> = (1..=2)
        .map(|i| dir.path().join(format!("shard-{i}")))
        .collect();
    write_shard(&shards[0], &names[..2], 6);
    with_failures(&shards[0]);
    write_shard(&shards[1], &names[2..], 6);
    let out = dir.path().join("class");
    assert_eq!(merge_into(&out, &shards), status::PASSED);
    for file in ["summary.json", "summary.csv", "summary.md", "summary.html"] {
        assert_eq!(read(&out.join(file)), read(&whole.join(file)), "{file}");
    }
    let html = read(&out.join("summary.html"));
    assert!(html.contains("data-clause=\"02/safe-methods\" data-count=\"1\""));
    assert!(html.contains("data-mistake=\"02-head-forgotten\" data-count=\"1\""));
    let json = read(&out.join("summary.json"));
    assert!(
        json.contains("\"mistake\": \"02-head-forgotten\""),
        "{json}"
    );
}

#[test]
fn merge_refuses_a_summary_that_points_outside_its_folder() {
    let dir = tempfile::tempdir().unwrap();
    let shard = dir.path().join("shard-1");
    write_shard(&shard, &["alice"], 4);
    let path = shard.join("summary.json");
    let text = read(&path).replace("\"folder\": \"alice\"", "\"folder\": \"../../etc\"");
    assert!(text.contains("../../etc"), "{text}");
    std::fs::write(&path, text).unwrap();
    assert_eq!(
        merge_into(&dir.path().join("class"), std::slice::from_ref(&shard)),
        status::USAGE
    );
    assert!(!dir.path().join("etc").exists());
    // A summary written before folders: the name is the folder, and
    // must be one plain component.
    let legacy = read(&path).replace("      \"folder\": \"../../etc\",\n", "");
    assert!(!legacy.contains("\"folder\""), "{legacy}");
    std::fs::write(&path, &legacy).unwrap();
    assert_eq!(
        merge_into(&dir.path().join("old"), std::slice::from_ref(&shard)),
        status::PASSED
    );
    assert!(dir.path().join("old/alice/result.json").is_file());
    let outside = legacy.replace("\"name\": \"alice\"", "\"name\": \"../alice\"");
    std::fs::write(&path, outside).unwrap();
    assert_eq!(merge_into(&dir.path().join("bad"), &[shard]), status::USAGE);
}

/// Each shard's submissions without a roster row are joined; the roster's
/// students without a submission (the whole class's, in every shard) are
/// listed once.
#[test]
fn merged_shards_join_their_roster_lists() {
    let dir = tempfile::tempdir().unwrap();
    let mut shards = Vec::new();
    for (i, (names, no_row)) in [(["a", "b"], "b"), (["c", "d"], "d")].iter().enumerate() {
        let shard = dir.path().join(format!("s{i}"));
        write_shard(&shard, names, 3);
        let path = shard.join("summary.json");
        let mut v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        v["roster"] = serde_json::json!({"no_roster_row": [no_row], "no_submission": ["erin"]});
        std::fs::write(&path, v.to_string()).unwrap();
        shards.push(shard);
    }
    let out = dir.path().join("class");
    assert_eq!(merge_into(&out, &shards), status::PASSED);
    let merged = report::summary::read_summary(&read(&out.join("summary.json"))).unwrap();
    let roster = merged.roster.expect("the roster's lists");
    assert_eq!(roster.no_roster_row, ["b", "d"]);
    assert_eq!(roster.no_submission, ["erin"]);
}
