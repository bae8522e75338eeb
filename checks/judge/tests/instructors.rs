//! End-to-end tests of what instructors choose for a class: PrairieLearn's
//! question and its entrypoint, each step's visibility and failure detail
//! in every learner-facing format, credit by rules, and a class folder given
//! where its submissions were meant. They drive lab.sh on copies of the kit
//! in temporary folders, each run under an outer time limit, with the
//! builds of `target/e2e` (shared with the other end-to-end tests).

use std::path::{Path, PathBuf};
use std::time::Duration;

use lab_judge::sections;
use lab_judge::suites;

mod common;
use common::{kit_root, Run};

#[path = "../src/report/schema_check.rs"]
#[allow(dead_code)]
mod schema_check;

const BUILD: Duration = Duration::from_secs(900);
const QUICK: Duration = Duration::from_secs(120);

/// A copy of the kit as a clone would be, its build fresh in target/e2e.
fn kit() -> tempfile::TempDir {
    static BUILT: std::sync::Once = std::sync::Once::new();
    BUILT.call_once(|| {
        common::seed_e2e();
        let r = run(&kit_root(), "lab.sh", &["--help"], BUILD, &[]);
        assert_eq!(r.code, 0, "lab.sh --help: {}{}", r.stdout, r.stderr);
    });
    let dir = tempfile::tempdir().unwrap();
    lab_judge::files::copy_tree(&kit_root(), dir.path(), &lab_judge::files::not_in_a_clone)
        .unwrap();
    dir
}

fn run(dir: &Path, script: &str, args: &[&str], limit: Duration, env: &[(&str, &str)]) -> Run {
    let mut all = vec![script];
    all.extend_from_slice(args);
    common::run_program(dir, "bash", &all, "e2e", env, limit)
}

fn json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn schema() -> serde_json::Value {
    json(&kit_root().join("fixtures/prairielearn/results.schema.json"))
}

/// Holds PrairieLearn's schema, and what the schema cannot say: a gradable
/// result has a score and tests, one that is not has format errors.
fn assert_prairielearn(path: &Path) -> serde_json::Value {
    let size = std::fs::metadata(path).unwrap().len();
    assert!(size <= 1024 * 1024, "{}: {size} bytes", path.display());
    let v = json(path);
    let wrong = schema_check::violations(&schema(), &v);
    assert!(wrong.is_empty(), "{}: {wrong:?}\n{v:#}", path.display());
    if v["gradable"] == true {
        assert!(v["score"].is_number() && v["tests"].is_array(), "{v:#}");
        assert!(v.get("format_errors").is_none(), "{v:#}");
    } else {
        let errors = v["format_errors"].as_array().unwrap();
        assert!(!errors.is_empty(), "{v:#}");
    }
    v
}

/// The reference lib.rs with mutant `id`'s items spliced in.
fn mutant_lib(kit: &Path, id: &str) -> String {
    let reference = std::fs::read_to_string(kit.join("solutions/src/lib.rs")).unwrap();
    let folder = suites::entry(&id[..2]).dir();
    let part = std::fs::read_to_string(kit.join(folder).join(format!("mutants/{id}.rs"))).unwrap();
    sections::splice_items(&reference, &part).unwrap()
}

#[test]
fn the_prairielearn_entrypoint_always_leaves_a_valid_result() {
    let kit = kit();
    let question = kit.path().join("question");
    let q = question.display().to_string();
    let r = run(kit.path(), "lab.sh", &["prairielearn", &q], QUICK, &[]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let info = json(&question.join("info.json"));
    assert_eq!(info["externalGradingOptions"]["enableNetworking"], false);
    let entry = question.join("image/grade.sh");
    let entry = entry.display().to_string();

    let jobs = tempfile::tempdir().unwrap();
    let kit_dir = kit.path().display().to_string();
    let job = |name: &str, files: &[(&str, String)], kit_dir: &str| {
        let root = jobs.path().join(name);
        std::fs::create_dir_all(root.join("student")).unwrap();
        for (file, text) in files {
            let path = root.join("student").join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let root_text = root.display().to_string();
        let env = [
            ("RETRY_LAB_GRADE_ROOT", root_text.as_str()),
            ("RETRY_LAB_KIT", kit_dir),
        ];
        let r = run(kit.path(), &entry, &[], BUILD, &env);
        assert_eq!(r.code, 0, "{name}: {}{}", r.stdout, r.stderr);
        assert_prairielearn(&root.join("results/results.json"))
    };
    let solution = std::fs::read_to_string(kit.path().join("solutions/src/lib.rs")).unwrap();
    let core = suites::core_ids().len() as f64;

    // An uploaded lib.rs (as pl-file-upload places it), one step wrong.
    let v = job(
        "mutant",
        &[("lib.rs", mutant_lib(kit.path(), "01-429-forgotten"))],
        &kit_dir,
    );
    assert_eq!(v["gradable"], true);
    let tests = v["tests"].as_array().unwrap();
    assert_eq!(tests.len(), suites::core_ids().len());
    // Step 01 fails, and step 08 with it (execute retries by retryable).
    let zero: Vec<&str> = tests
        .iter()
        .filter(|t| t["points"] == 0)
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(zero, ["Step 01: retryable", "Step 08: execute"], "{v:#}");
    assert!(
        (v["score"].as_f64().unwrap() - (core - 2.0) / core).abs() < 1e-9,
        "{v:#}"
    );

    // A repository's layout is graded as it is.
    let v = job(
        "repository",
        &[("student/src/lib.rs", solution.clone())],
        &kit_dir,
    );
    assert_eq!(v["score"], 1.0, "{v:#}");

    // Does not compile: not gradable (the default), the compiler's words.
    let broken = solution.replacen("-> bool {", "-> bool { 1 +", 1);
    let v = job("broken", &[("lib.rs", broken)], &kit_dir);
    assert_eq!(v["gradable"], false);
    let errors = v["format_errors"][0].as_str().unwrap();
    assert!(errors.contains("error"), "{errors}");

    // Nothing uploaded: the kit refuses it, a result says so.
    let v = job("empty", &[], &kit_dir);
    assert_eq!(v["gradable"], false, "{v:#}");

    // No kit at all: the script's own fallback.
    let v = job("no-kit", &[("lib.rs", solution)], "/nonexistent/retry-lab");
    assert_eq!(v["gradable"], false, "{v:#}");
    assert!(v["message"].as_str().unwrap().contains("could not start"));
}

/// The texts a learner reads of step 01 in each learner-facing format of
/// one graded submission, whole file by whole file.
fn learner_files(dir: &Path) -> Vec<(&'static str, String)> {
    let read = |p: &str| std::fs::read_to_string(dir.join(p)).unwrap();
    vec![
        ("gradescope", read("gradescope/results.json")),
        ("prairielearn", read("prairielearn/results.json")),
        ("exercism", read("exercism/results.json")),
        ("junit", read("junit.xml")),
    ]
}

#[test]
fn a_withheld_detail_never_shows_the_expected_value_in_any_format() {
    let kit = kit();
    let subs = tempfile::tempdir().unwrap();
    // 01-429-forgotten answers retryable(429) with false; the case table
    // expects true, which a full failure shows as "expected: true".
    let sub = subs.path().join("mutant");
    std::fs::create_dir_all(sub.join("src")).unwrap();
    std::fs::write(
        sub.join("src/lib.rs"),
        mutant_lib(kit.path(), "01-429-forgotten"),
    )
    .unwrap();
    let expected = "expected: true";
    let call = "retryable(429)";
    let sub_text = sub.display().to_string();
    for (detail, extra) in [
        ("full", vec![]),
        ("input", vec![]),
        ("verdict", vec![]),
        // Hidden where the format cannot hide: told as a verdict.
        ("full", vec!["--visibility", "01=hidden"]),
    ] {
        let out = kit.path().join(format!("out-{detail}-{}", extra.len()));
        let out_text = out.display().to_string();
        let pair = format!("01={detail}");
        let mut args = vec![
            "grade", "--seed", "11", "--detail", &pair, "--out", &out_text,
        ];
        args.extend(extra.iter().copied());
        args.push(&sub_text);
        let r = run(kit.path(), "lab.sh", &args, BUILD, &[]);
        assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
        let dir = out.join("mutant");
        // The instructor's own file keeps every detail.
        let result = std::fs::read_to_string(dir.join("result.json")).unwrap();
        assert!(result.contains(expected), "{detail}: result.json");
        let hidden = !extra.is_empty();
        for (format, text) in learner_files(&dir) {
            let shows = text.contains(expected);
            let full = detail == "full" && !(hidden && format != "gradescope");
            assert_eq!(shows, full, "{detail} {extra:?}: {format}\n{text}");
            let with_call = text.contains(call);
            if detail == "input" {
                assert!(with_call, "input shows the call: {format}\n{text}");
            }
            if detail == "verdict" && format != "exercism" {
                assert!(!with_call, "verdict hides the call: {format}\n{text}");
            }
        }
        assert_prairielearn(&dir.join("prairielearn/results.json"));
        let gs = json(&dir.join("gradescope/results.json"));
        let want = if hidden { "hidden" } else { "visible" };
        assert_eq!(gs["tests"][0]["visibility"], want);
        assert_eq!(gs["tests"][1]["visibility"], "visible");
    }
}

/// Per test, the points of each format, against the submission's score
/// and bonus in summary.json and summary.csv.
fn assert_points_add_up(out: &Path, mode: &str) {
    let summary = json(&out.join("summary.json"));
    let csv = std::fs::read_to_string(out.join("summary.csv")).unwrap();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let column = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let html = std::fs::read_to_string(out.join("summary.html")).unwrap();
    let page = scraper::Html::parse_document(&html);
    let rows = scraper::Selector::parse("tr[data-name]").unwrap();
    let cells = scraper::Selector::parse("td[data-points]").unwrap();
    let submissions = summary["submissions"].as_array().unwrap();
    assert!(submissions.len() >= 10, "{mode}: {}", submissions.len());
    for s in submissions {
        let name = s["name"].as_str().unwrap();
        let what = format!("{mode}: {name}");
        let score = s["score"].as_u64().unwrap();
        let bonus = s["bonus"].as_u64().unwrap();
        let max = s["max_score"].as_u64().unwrap();
        // summary.json: its steps' points.
        let steps = s["steps"].as_array().unwrap();
        let core: u64 = steps
            .iter()
            .filter(|st| st.get("bonus").is_none())
            .map(|st| st["score"].as_u64().unwrap())
            .sum();
        let extra: u64 = steps
            .iter()
            .filter(|st| st.get("bonus").is_some())
            .map(|st| st["score"].as_u64().unwrap())
            .sum();
        assert_eq!((core, extra), (score, bonus), "{what}: summary.json steps");
        // summary.csv: the same score (names here are plain).
        let row: Vec<&str> = csv
            .lines()
            .find(|l| l.split(',').next() == Some(name))
            .unwrap()
            .split(',')
            .collect();
        assert_eq!(row[column("score")], score.to_string(), "{what}: csv");
        // summary.html: the row's points, and its step cells' points.
        let tr = page
            .select(&rows)
            .find(|r| r.value().attr("data-name") == Some(name))
            .unwrap();
        assert_eq!(tr.value().attr("data-points"), Some(&*score.to_string()));
        let cell_points: u64 = tr
            .select(&cells)
            .map(|c| {
                c.value()
                    .attr("data-points")
                    .unwrap()
                    .parse::<u64>()
                    .unwrap()
            })
            .sum();
        assert_eq!(cell_points, score + bonus, "{what}: html cells");

        let dir = out.join(s["folder"].as_str().unwrap());
        let sum = |v: &serde_json::Value, key: &str| -> u64 {
            v["tests"]
                .as_array()
                .map(|t| t.iter().map(|t| t[key].as_u64().unwrap()).sum())
                .unwrap_or(0)
        };
        let gs = json(&dir.join("gradescope/results.json"));
        assert_eq!(
            gs["score"].as_u64().unwrap(),
            score + bonus,
            "{what}: gradescope"
        );
        assert_eq!(sum(&gs, "score"), score + bonus, "{what}: gradescope tests");
        let pl = assert_prairielearn(&dir.join("prairielearn/results.json"));
        if pl["gradable"] == true {
            assert_eq!(sum(&pl, "points"), score + bonus, "{what}: prairielearn");
            assert_eq!(sum(&pl, "max_points"), max, "{what}: prairielearn max");
            let share = ((score + bonus) as f64 / max as f64).min(1.0);
            assert!(
                (pl["score"].as_f64().unwrap() - share).abs() < 1e-9,
                "{what}"
            );
        } else {
            assert_eq!(score + bonus, 0, "{what}: not gradable, no points");
        }
        // Exercism and JUnit carry no points: only pass or fail, which
        // these formats' own tests check.
    }
}

/// Grades the sample class of fixtures/submissions (every folder of it)
/// under both credit modes with one seed: in every format the points add
/// up to the score, and rules never give less than steps.
#[test]
fn points_add_up_in_every_format_under_both_credit_modes() {
    points_add_up_in("fixtures/submissions", true);
}

/// The same over the hostile class (fixtures/hostile), which takes some
/// four minutes a mode on two cores: run it with
/// `cargo test -p lab-judge --test instructors -- --ignored`.
#[test]
#[ignore = "grades the hostile class twice: minutes"]
fn points_add_up_over_the_hostile_class_under_both_credit_modes() {
    points_add_up_in("fixtures/hostile", false);
}

/// `compare`: the class's verdicts do not hang on the machine's load (the
/// hostile class's can: a hog or a bomb may cost a neighbour its time), so
/// the two runs can be compared: rules never give less than steps, and a
/// submission that passes only some rules of a step gets more.
fn points_add_up_in(class: &str, compare: bool) {
    let kit = kit();
    // Twelve points a step, so that a share of a step is a whole number of
    // points (with one point a step, every share rounds down to 0).
    let weights: serde_json::Map<String, serde_json::Value> = suites::REGISTRY
        .iter()
        .map(|e| (e.id.to_string(), 12.into()))
        .collect();
    std::fs::write(
        kit.path().join("fixtures/weights.json"),
        serde_json::Value::Object(weights).to_string(),
    )
    .unwrap();
    let class = kit.path().join(class);
    let mut folders: Vec<PathBuf> = std::fs::read_dir(&class)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    let mut scores = Vec::new();
    for mode in ["steps", "rules"] {
        let out = kit.path().join(format!("grades-{mode}"));
        let out_text = out.display().to_string();
        let mut args: Vec<String> = ["grade", "--jobs", "2", "--seed", "5", "--credit", mode]
            .map(String::from)
            .to_vec();
        args.extend(["--out".to_string(), out_text]);
        args.extend(folders.iter().map(|f| f.display().to_string()));
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let r = run(kit.path(), "lab.sh", &refs, BUILD, &[]);
        // 5: a submission needs review (no-lib-rs); the summary is whole.
        assert!([0, 5].contains(&r.code), "{}{}", r.stdout, r.stderr);
        // The rerun command repeats a credit that is not the default.
        let rerun = r.stdout.lines().last().unwrap();
        assert_eq!(rerun.contains("--credit rules"), mode == "rules", "{rerun}");
        assert_points_add_up(&out, mode);
        let summary = json(&out.join("summary.json"));
        scores.push(
            summary["submissions"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| (s["name"].clone(), s["score"].as_u64().unwrap()))
                .collect::<Vec<_>>(),
        );
    }
    if !compare {
        return;
    }
    let (steps, rules) = (&scores[0], &scores[1]);
    let mut more = 0;
    for (a, b) in steps.iter().zip(rules) {
        assert_eq!(a.0, b.0);
        assert!(b.1 >= a.1, "{}: rules {} < steps {}", a.0, b.1, a.1);
        more += usize::from(b.1 > a.1);
    }
    // Some submissions fail only some rules of a step (wrong-backoff).
    assert!(more > 0, "{steps:?}\n{rules:?}");
}

#[test]
fn a_class_folder_given_whole_is_one_line_showing_the_glob() {
    let kit = kit();
    let class = tempfile::tempdir().unwrap();
    for name in ["ann", "ben"] {
        let src = class.path().join(name).join("src");
        std::fs::create_dir_all(&src).unwrap();
        std::fs::copy(
            kit.path().join("fixtures/pristine/lib.rs"),
            src.join("lib.rs"),
        )
        .unwrap();
    }
    let folder = class.path().display().to_string();
    let out = kit.path().join("grades");
    let out_text = out.display().to_string();
    let r = run(
        kit.path(),
        "lab.sh",
        &["grade", "--out", &out_text, &folder],
        QUICK,
        &[],
    );
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    let line = r.stderr.trim_end();
    assert_eq!(line.lines().count(), 1, "{line}");
    assert!(line.contains("2 of its folders"), "{line}");
    assert!(line.contains(&format!("{folder}/*/")), "{line}");
    assert!(!out.join("summary.json").exists(), "nothing graded");
    // In Chinese too.
    let r = run(
        kit.path(),
        "lab.sh",
        &["--lang", "zh", "grade", "--out", &out_text, &folder],
        QUICK,
        &[],
    );
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("lib.rs") && r.stderr.contains(&format!("{folder}/*/")));
    assert!(r.stderr.contains("子文件夹"), "{}", r.stderr);
    // A folder without lib.rs and without submissions below it is still
    // graded as one "no lib.rs found".
    let lone = tempfile::tempdir().unwrap();
    std::fs::write(lone.path().join("README.md"), "notes\n").unwrap();
    let lone_text = lone.path().display().to_string();
    let r = run(
        kit.path(),
        "lab.sh",
        &["grade", "--out", &out_text, &lone_text],
        QUICK,
        &[],
    );
    assert_eq!(r.code, 5, "{}{}", r.stdout, r.stderr);
}

#[test]
fn check_says_that_grade_draws_its_own_seed() {
    let kit = kit();
    let r = run(kit.path(), "lab.sh", &["check", "01"], BUILD, &[]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    let note = lines
        .iter()
        .position(|l| l.contains("grading draws a seed of its own"));
    assert_eq!(note, Some(1), "{}", r.stdout);
    let r = run(
        kit.path(),
        "lab.sh",
        &["check", "01", "--seed", "3"],
        BUILD,
        &[],
    );
    assert!(!r.stdout.contains("seed of its own"), "{}", r.stdout);
    let r = run(
        kit.path(),
        "lab.sh",
        &["--lang", "zh", "check", "01"],
        BUILD,
        &[],
    );
    assert!(
        r.stdout.contains("评分时会另取一个随机种子"),
        "{}",
        r.stdout
    );
}

#[test]
fn a_bad_policy_is_one_line_and_exit_2() {
    let kit = kit();
    let sub = kit.path().join("fixtures/submissions/perfect");
    let sub = sub.display().to_string();
    for (args, names) in [
        (vec!["--credit", "points"], "points"),
        (vec!["--detail", "04"], "STEP=VALUE"),
        (vec!["--detail", "99=full"], "99"),
        (vec!["--visibility", "04=secret"], "secret"),
        (vec!["--prairielearn-ungradable", "maybe"], "maybe"),
    ] {
        let mut all = vec!["grade", "--out", "grades"];
        all.extend(args.iter().copied());
        all.push(&sub);
        let r = run(kit.path(), "lab.sh", &all, QUICK, &[]);
        assert_eq!(r.code, 2, "{args:?}: {}{}", r.stdout, r.stderr);
        let line = r.stderr.trim_end();
        assert_eq!(line.lines().count(), 1, "{line}");
        assert!(line.contains(names), "{line}");
    }
    std::fs::write(
        kit.path().join("fixtures/visibility.json"),
        r#"{"04": {"detail": "most"}}"#,
    )
    .unwrap();
    let r = run(
        kit.path(),
        "lab.sh",
        &["grade", "--out", "g", &sub],
        QUICK,
        &[],
    );
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.trim_end().lines().count() == 1 && r.stderr.contains("most"));
}
