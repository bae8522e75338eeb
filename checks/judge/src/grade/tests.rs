//! Unit tests of `grade`: the class's rows and reports in every format,
//! its folders and shards, the watchdog, and each submission's notes.

use super::table::row;
use super::verdicts::extra_dependencies_note;
use super::verdicts::review_line;
use super::verdicts::scrub;
use super::*;
use crate::compile;
use crate::report::{AdvancedBuild, Build};
use crate::suites;
use std::time::Duration;

#[test]
fn a_submissions_own_crates_are_named_beside_its_compiler_errors() {
    let dir = tempfile::tempdir().unwrap();
    let lib = dir.path().join("alice/src/lib.rs");
    std::fs::create_dir_all(lib.parent().unwrap()).unwrap();
    std::fs::write(&lib, "use itoa;").unwrap();
    let manifest = dir.path().join("alice/Cargo.toml");
    assert_eq!(extra_dependencies_note(&lib), "", "no manifest");
    std::fs::write(
        &manifest,
        "[package]\nname = \"student\"\n\n[dependencies]\nlab-api.workspace = true\nitoa = \"1\"\n",
    )
    .unwrap();
    let note = extra_dependencies_note(&lib);
    assert!(note.contains("itoa") && note.contains("lab_api"), "{note}");
    assert!(note.ends_with("\n\n"), "{note:?}");
    // A manifest that is not TOML is told as that, in one line.
    std::fs::write(&manifest, "[dependencies]\nitoa = \n").unwrap();
    let note = extra_dependencies_note(&lib);
    assert!(note.contains("not valid TOML (line 2"), "{note}");
    assert_eq!(note.trim_end().lines().count(), 1, "{note}");
    // A lib.rs uploaded alone has no manifest of its own.
    let alone = dir.path().join("alice/lib.rs");
    std::fs::write(&alone, "").unwrap();
    assert_eq!(extra_dependencies_note(&alone), "");
    // A manifest that is a link is not read.
    std::fs::rename(&manifest, dir.path().join("elsewhere.toml")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("elsewhere.toml"), &manifest).unwrap();
    assert_eq!(extra_dependencies_note(&lib), "");
}

#[test]
fn rows_line_up_by_display_width() {
    let alice = crate::report::test_support::class().submissions[0].clone();
    let mut wang = alice.clone();
    wang.name = "王小明".into();
    let (a, w) = (row(&alice), row(&wang));
    assert!(
        a.starts_with(&format!("alice{}  30/30 ", " ".repeat(23))),
        "{a:?}"
    );
    assert!(
        w.starts_with(&format!("王小明{}  30/30 ", " ".repeat(22))),
        "{w:?}"
    );
    // Past the name, both rows are the same, column for column.
    let width = |r: &str, at: &str| crate::render::display_width(&r[..r.find(at).unwrap()]);
    assert_eq!(width(&a, "30/30"), width(&w, "30/30"));
    assert_eq!(a[a.find("30/30").unwrap()..], w[w.find("30/30").unwrap()..]);
    // A name wider than its column is shown whole.
    let mut long = alice.clone();
    long.name = "名".repeat(15);
    assert!(row(&long).starts_with(&format!("{}  30/30", long.name)));
    // The English row reads as it always has.
    assert_eq!(
        a,
        format!(
            "alice{}  30/30  pass pass pass  built  (1.5 s)",
            " ".repeat(23)
        )
    );
    let mut bob = crate::report::test_support::class().submissions[1].clone();
    bob.advanced_build = AdvancedBuild::Ok;
    bob.bonus = 2;
    assert!(row(&bob).ends_with(" 10/30  pass FAIL todo  built  +2 bonus  (2.2 s)"));
}

/// The console shows a submission's name as one visible line: its row
/// and the "needs review" line escape control and bidirectional
/// characters, and Chinese stays as it is.
#[test]
fn the_console_shows_names_escaped() {
    use crate::report::test_support::{raw_hidden, HOSTILE};
    let mut bob = crate::report::test_support::class().submissions[1].clone();
    bob.name = HOSTILE.to_string();
    let line = row(&bob);
    assert_eq!(raw_hidden(&line), [], "{line:?}");
    assert!(
        line.starts_with(
            "\\u{1b}[2J\\u{7}王小明\\u{202e}\\u{2066}\\u{85}evil  10/30  pass FAIL todo"
        ),
        "{line:?}"
    );
    // A short name is padded by the columns its escapes take.
    bob.name = "a\u{1b}b".to_string();
    assert!(row(&bob).starts_with(&format!("a\\u{{1b}}b{}  10/30", " ".repeat(20))));

    let weights = weights(Path::new("/nonexistent")).unwrap();
    let review: Vec<SubmissionReport> = subs(&[HOSTILE, "王小明\nx"])
        .iter()
        .map(|s| needs_review(s, "stand-in", &weights, 1))
        .collect();
    let said = review_line(&review).unwrap();
    assert_eq!(raw_hidden(&said), [], "{said:?}");
    assert!(
        said.ends_with(": \\u{1b}[2J\\u{7}王小明\\u{202e}\\u{2066}\\u{85}evil, 王小明\\nx"),
        "{said:?}"
    );
    assert_eq!(review_line(&[]), None);
    assert_eq!(review_status(&review), status::NEEDS_REVIEW);
}

pub(super) fn subs(names: &[&str]) -> Vec<Submission> {
    names
        .iter()
        .map(|n| Submission {
            name: n.to_string(),
            folder: n.to_string(),
            lib: Some(PathBuf::from("x")),
            advanced: None,
        })
        .collect()
}

#[test]
fn shards_partition_the_class_stably() {
    let names = ["a", "b", "c", "d", "e", "f", "g"];
    let mut seen = Vec::new();
    for i in 1..=3 {
        let part: Vec<String> = shard(subs(&names), Some((i, 3)))
            .into_iter()
            .map(|s| s.name)
            .collect();
        let again: Vec<String> = shard(subs(&names), Some((i, 3)))
            .into_iter()
            .map(|s| s.name)
            .collect();
        assert_eq!(part, again);
        seen.extend(part);
    }
    seen.sort();
    assert_eq!(seen, names);
}

#[test]
fn a_submission_that_needs_review_says_so_in_every_format_and_scores_nothing() {
    let weights = weights(Path::new("/nonexistent")).unwrap();
    let sub = &subs(&["mallory"])[0];
    let r = needs_review(sub, "the runner reported a fault of the kit", &weights, 7);
    assert_eq!((r.build, r.score, r.max_score), (Build::Error, 0, 8));
    assert!(r.steps.iter().all(|s| !s.passed));
    let summary = report::summary::summary_json_from(&report::summary::summary_of(&ClassReport {
        schema: report::GRADE_SCHEMA.into(),
        seed: "7".into(),
        submissions: vec![r.clone()],
    }));
    assert!(summary.contains("\"build\": \"error\""), "{summary}");
    let junit = report::junit::junit_xml(&r, "7");
    assert!(junit.contains("needs review") && junit.contains("fault of the kit"));
    let exercism: serde_json::Value =
        serde_json::from_str(&report::exercism::results_json(&r)).unwrap();
    assert_eq!(exercism["status"], "error");
    assert!(exercism["message"]
        .as_str()
        .unwrap()
        .contains("fault of the kit"));
    let gradescope = report::gradescope::results_json(&r, "7");
    assert!(gradescope.contains("needs review") && gradescope.contains("fault of the kit"));
    assert_eq!(review_status(&[r]), status::NEEDS_REVIEW);
}

/// A class folder with the given submissions; `with_lib` ones hold
/// src/lib.rs, the others only a README.
fn class_dir(names: &[(&str, bool)]) -> (tempfile::TempDir, Vec<PathBuf>) {
    let dir = tempfile::tempdir().unwrap();
    let mut paths = Vec::new();
    for (name, with_lib) in names {
        let sub = dir.path().join(name);
        std::fs::create_dir_all(sub.join("src")).unwrap();
        if *with_lib {
            std::fs::write(sub.join("src/lib.rs"), "pub fn f() {}\n").unwrap();
        } else {
            std::fs::write(sub.join("README.md"), "my crate is elsewhere\n").unwrap();
        }
        paths.push(sub);
    }
    (dir, paths)
}

#[test]
fn a_folder_without_lib_rs_is_a_submission_and_bad_paths_are_not() {
    let (dir, paths) = class_dir(&[("alice", true), ("empty", false)]);
    let class = resolve(&paths).unwrap();
    let names: Vec<&str> = class.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["alice", "empty"]);
    assert!(class[0].lib.is_some());
    assert!(
        class[1].lib.is_none(),
        "graded as no lib.rs found, not refused"
    );
    // What is no submission folder at all is still a bad command line.
    let nowhere = dir.path().join("nowhere");
    let err = resolve(&[paths[0].clone(), nowhere]).unwrap_err();
    assert!(err.contains("does not exist"), "{err}");
    let file = dir.path().join("alice/src/lib.rs");
    let err = resolve(&[file]).unwrap_err();
    assert!(err.contains("is not a folder"), "{err}");
    let err = resolve(&[PathBuf::from("/")]).unwrap_err();
    assert!(err.contains("cannot be a submission"), "{err}");
}

#[test]
fn every_submission_gets_a_portable_folder_from_the_whole_class() {
    let names = [
        "王小明",
        "Li \"Lee\" =cmd",
        "张 三,2 & <x>",
        ".dot",
        "summary.json",
        "ok",
    ];
    let (_dir, paths) = class_dir(&names.map(|n| (n, true)));
    let class = resolve(&paths).unwrap();
    for s in &class {
        assert!(crate::folders::is_safe_folder(&s.folder), "{s:?}");
        assert!(s.folder.len() <= 64);
    }
    let ok = class.iter().find(|s| s.name == "ok").unwrap();
    assert_eq!(ok.folder, "ok");
    // A shard's submissions keep the folders the whole class gave them.
    for i in 1..=3 {
        for s in shard(class.clone(), Some((i, 3))) {
            let whole = class.iter().find(|w| w.name == s.name).unwrap();
            assert_eq!(s.folder, whole.folder);
        }
    }
}

pub(super) fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn no_lib_rs_is_that_submissions_result_in_every_format() {
    let name = "Li \"Lee\" =cmd";
    let (dir, paths) = class_dir(&[(name, false), ("empty", false)]);
    let class = resolve(&paths).unwrap();
    let folders: BTreeMap<String, String> = class
        .iter()
        .map(|s| (s.name.clone(), s.folder.clone()))
        .collect();
    let weights = weights(Path::new("/nonexistent")).unwrap();
    let reports = grade_class(dir.path(), class, 3, 2, Limits::default(), &weights, |_| {
        Ok(())
    })
    .unwrap();
    assert_eq!(reports.len(), 2, "the class goes on");
    let out = dir.path().join("grades");
    for r in &reports {
        assert_eq!((r.build, r.score, r.max_score), (Build::Error, 0, 8));
        assert!(r.review.as_deref().unwrap().contains("no lib.rs found"));
        write_submission(
            &out,
            &folders[&r.name],
            r,
            "3",
            &super::write::Formats::PLAIN,
        )
        .unwrap();
    }
    let class = ClassReport {
        schema: report::GRADE_SCHEMA.into(),
        seed: "3".into(),
        submissions: reports.clone(),
    };
    write_summaries(&out, &summary_with_folders(&class, &folders)).unwrap();
    assert_eq!(review_status(&reports), status::NEEDS_REVIEW);

    let folder = out.join(&folders[name]);
    assert_ne!(folders[name], name);
    let result: serde_json::Value =
        serde_json::from_str(&read(&folder.join("result.json"))).unwrap();
    assert_eq!(result["name"], name, "reports carry the real name");
    assert_eq!(result["build"], "error");
    assert!(result["review"]
        .as_str()
        .unwrap()
        .contains("no lib.rs found"));
    for file in [
        "junit.xml",
        "gradescope/results.json",
        "exercism/results.json",
    ] {
        let text = read(&folder.join(file));
        assert!(text.contains("no lib.rs found"), "{file}: {text}");
    }
    assert!(read(&folder.join("junit.xml")).contains("Li &quot;Lee&quot; =cmd"));
    let summary: serde_json::Value =
        serde_json::from_str(&read(&out.join("summary.json"))).unwrap();
    let row = summary["submissions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap();
    assert_eq!(row["folder"].as_str(), Some(folders[name].as_str()));
    assert_eq!(
        (row["build"].as_str(), row["score"].as_u64()),
        (Some("error"), Some(0))
    );
    assert!(row["review"].as_str().unwrap().contains("no lib.rs found"));
    assert!(read(&out.join("summary.csv")).contains("\"Li \"\"Lee\"\" =cmd\",error,0,8"));
}

/// A folder named with ESC, BEL and bidirectional controls, graded and
/// written as `grade` writes it: every human-readable file shows the
/// name escaped, result.json and summary.json keep it exactly.
#[test]
fn a_hostile_folder_name_is_shown_escaped_and_kept_exactly_in_json() {
    use crate::report::test_support::{raw_hidden, HOSTILE, HOSTILE_SHOWN};
    let (dir, paths) = class_dir(&[(HOSTILE, false)]);
    let class = resolve(&paths).unwrap();
    assert_eq!(class[0].name, HOSTILE);
    assert!(crate::folders::is_safe_folder(&class[0].folder));
    let folders: BTreeMap<String, String> = class
        .iter()
        .map(|s| (s.name.clone(), s.folder.clone()))
        .collect();
    let weights = weights(Path::new("/nonexistent")).unwrap();
    let reports = grade_class(dir.path(), class, 3, 1, Limits::default(), &weights, |_| {
        Ok(())
    })
    .unwrap();
    let out = dir.path().join("grades");
    write_submission(
        &out,
        &folders[HOSTILE],
        &reports[0],
        "3",
        &super::write::Formats::PLAIN,
    )
    .unwrap();
    let class = ClassReport {
        schema: report::GRADE_SCHEMA.into(),
        seed: "3".into(),
        submissions: reports,
    };
    write_summaries(&out, &summary_with_folders(&class, &folders)).unwrap();

    let folder = out.join(&folders[HOSTILE]);
    for file in [
        out.join("summary.csv"),
        out.join("summary.md"),
        folder.join("junit.xml"),
    ] {
        let text = read(&file);
        assert_eq!(raw_hidden(&text), [], "{}: {text:?}", file.display());
    }
    assert!(read(&out.join("summary.csv")).contains(&format!("\r\n{HOSTILE_SHOWN},error,0,8")));
    assert!(read(&out.join("summary.md"))
        .contains("| \\\\u{1b}\\[2J\\\\u{7}王小明\\\\u{202e}\\\\u{2066}\\\\u{85}evil | "));
    assert!(read(&folder.join("junit.xml")).contains(&format!("value=\"{HOSTILE_SHOWN}\"")));
    let result: serde_json::Value =
        serde_json::from_str(&read(&folder.join("result.json"))).unwrap();
    assert_eq!(result["name"], HOSTILE);
    let summary: serde_json::Value =
        serde_json::from_str(&read(&out.join("summary.json"))).unwrap();
    assert_eq!(summary["submissions"][0]["name"], HOSTILE);
}

#[test]
fn a_report_never_shows_where_the_kit_lives() {
    let root = Path::new("/home/teacher/retry-lab");
    let text = "panicked: /home/teacher/retry-lab/src and /home/teacher/retry-lab/target/x";
    let want = match std::env::var_os("CARGO_TARGET_DIR") {
        None => "panicked: <kit>/src and <target>/x",
        Some(_) => "panicked: <kit>/src and <kit>/target/x",
    };
    assert_eq!(scrub(text, root), want);
    // The grader's home, CARGO_HOME and RUSTUP_HOME, most specific
    // first, whatever a submission compiled in.
    let grader = vec![
        ("/home/g/.cargo".to_string(), "<cargo-home>"),
        ("/opt/rustup".to_string(), "<rustup-home>"),
        ("/home/g".to_string(), "<home>"),
    ];
    assert_eq!(
            verdicts::scrub_places(
                "PATH \"/home/g/.cargo/bin:/home/g/.pyenv/shims\" CARGO \"/opt/rustup/toolchains/x/bin/cargo\"",
                Path::new("/k"),
                grader
            ),
            "PATH \"<cargo-home>/bin:<home>/.pyenv/shims\" CARGO \"<rustup-home>/toolchains/x/bin/cargo\""
        );
    // Only whole path components: a neighbour whose name merely starts
    // with the kit's, or a path that ends with it, is left alone.
    let root = Path::new("/tmp/kit");
    assert_eq!(
        scrub(
            "at /tmp/kit-tmp/x, /tmp/kit.old, /a/tmp/kit and \"/tmp/kit\"",
            root
        ),
        "at /tmp/kit-tmp/x, /tmp/kit.old, /a/tmp/kit and \"<kit>\""
    );
    assert_eq!(scrub("/tmp/kit/src/lib.rs:3", root), "<kit>/src/lib.rs:3");
}

#[test]
fn the_watchdog_allows_every_submission_its_worst_case() {
    let limits = Limits::default();
    let one = watchdog_bound(&limits, 1, 2);
    let steps = suites::REGISTRY.len() as u32;
    assert!(one > compile::WARM_LIMIT + limits.build + limits.suite * steps);
    assert_eq!(
        watchdog_bound(&limits, 4, 2),
        (one - Duration::from_secs(60)) * 2 + Duration::from_secs(60)
    );
}

/// A report as grading would make it; the reason tells them apart.
fn report_for(sub: &Submission, why: &str) -> SubmissionReport {
    let weights = suites::all_steps()
        .map(|(s, _)| (s.to_string(), 1))
        .collect();
    needs_review(sub, why, &weights, 1)
}

#[test]
fn a_class_that_finishes_in_time_hands_every_report_over_sorted() {
    let all = subs(&["bob", "alice"]);
    let sent = all.clone();
    let mut seen = Vec::new();
    let reports = within(
        Duration::from_secs(60),
        &all,
        move |tx: &dyn Fn(SubmissionReport) -> Result<(), String>| {
            sent.iter().try_for_each(|s| tx(report_for(s, "graded")))
        },
        |_| panic!("nothing is late"),
        |r| {
            seen.push(r.name.clone());
            Ok(())
        },
        || panic!("nothing is stopped"),
    )
    .unwrap();
    assert_eq!(seen, ["bob", "alice"], "handed over as they finish");
    let names: Vec<&str> = reports.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["alice", "bob"]);
}

#[test]
fn past_the_bound_the_rest_need_review_and_the_judge_goes_on() {
    let all = subs(&["alice", "bob", "carol"]);
    let first = all[1].clone();
    let started = std::time::Instant::now();
    let stopped = std::cell::Cell::new(0);
    let mut seen = Vec::new();
    let reports = within(
        Duration::from_millis(300),
        &all,
        move |tx: &dyn Fn(SubmissionReport) -> Result<(), String>| {
            tx(report_for(&first, "graded"))?;
            // A grading that never ends: the thread is left behind.
            std::thread::park();
            Ok(())
        },
        |s| report_for(s, "late"),
        |r| {
            seen.push(r.name.clone());
            Ok(())
        },
        || stopped.set(stopped.get() + 1),
    )
    .unwrap();
    assert_eq!(stopped.get(), 1, "runners and builds stopped once");
    assert!(started.elapsed() < Duration::from_secs(30));
    assert_eq!(seen, ["bob", "alice", "carol"]);
    let whys: Vec<(&str, &str)> = reports
        .iter()
        .map(|r| (r.name.as_str(), r.review.as_deref().unwrap_or("")))
        .collect();
    assert_eq!(
        whys,
        [("alice", "late"), ("bob", "graded"), ("carol", "late")]
    );
}

#[test]
fn a_grading_that_fails_is_a_kit_error() {
    let all = subs(&["alice"]);
    let stopped = std::cell::Cell::new(false);
    let out = within(
        Duration::from_secs(60),
        &all,
        |_: &dyn Fn(SubmissionReport) -> Result<(), String>| Err("slot broke".to_string()),
        |_| panic!("nothing is late"),
        |_| Ok(()),
        || stopped.set(true),
    );
    assert_eq!(out.unwrap_err(), "slot broke");
    assert!(stopped.get(), "what still runs is stopped");
}

#[test]
fn default_weights_are_one_per_step_and_the_file_overrides_them() {
    let dir = tempfile::tempdir().unwrap();
    assert_eq!(
        weights(dir.path()).unwrap().values().sum::<u32>() as usize,
        suites::REGISTRY.len()
    );
    std::fs::create_dir_all(dir.path().join("fixtures")).unwrap();
    std::fs::write(dir.path().join("fixtures/weights.json"), r#"{"08": 3}"#).unwrap();
    assert_eq!(weights(dir.path()).unwrap()["08"], 3);
    std::fs::write(dir.path().join("fixtures/weights.json"), r#"{"14": 3}"#).unwrap();
    assert!(weights(dir.path()).is_err());
}
