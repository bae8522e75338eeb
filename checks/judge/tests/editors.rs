//! What editors and CI read of `check`: its `--message-format json` events
//! (every line valid against `docs/events.schema.json`, with the validator
//! `lab_judge::events::validate`) on one mutant of every step (the first of
//! its folder by name, spliced into the reference as the selftest does) and
//! on a compile error, a hang, a crash and a panic of the sample class; and
//! the problem matcher of `.vscode/tasks.json`, whose regular expressions
//! (a small matcher of their subset below, no regex crate) must put a
//! failed rule of the human report at its function's line. The selftest's
//! mutant pass validates the events of every mutant of every step.

mod common;

use lab_judge::suites;
use serde_json::Value;
use std::path::PathBuf;
use std::time::Duration;

#[path = "editors/matcher.rs"]
mod matcher;

/// A check's limit on a loaded machine (it may build the judge first).
const LIMIT: Duration = Duration::from_secs(900);

fn root() -> PathBuf {
    common::kit_root()
}

/// Runs `lab.sh ARGS` in the kit with the end-to-end tests' build.
fn lab(args: &[&str]) -> common::Run {
    lab_env(args, &[])
}

fn lab_env(args: &[&str], env: &[(&str, &str)]) -> common::Run {
    common::seed_e2e();
    let mut all = vec!["lab.sh"];
    all.extend_from_slice(args);
    let mut env = env.to_vec();
    env.push(("NO_COLOR", "1"));
    common::run_program(&root(), "bash", &all, "e2e", &env, LIMIT)
}

/// The first mutant of `step`'s folder by name, spliced into the
/// reference under target/editors: the arguments of `check` after the
/// step, and the file the step's function is in.
fn subject(step: &str) -> (Vec<String>, PathBuf, String) {
    let dir = root().join(suites::entry(step).dir()).join("mutants");
    let mut names: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    names.sort();
    let mutant = &names[0];
    let part = std::fs::read_to_string(mutant).unwrap();
    let caught = part
        .lines()
        .find_map(|l| l.strip_prefix("// caught-by:"))
        .unwrap()
        .trim()
        .to_string();
    let out = root().join("target/editors");
    std::fs::create_dir_all(&out).unwrap();
    let file = out.join(mutant.file_name().unwrap());
    let rel = format!(
        "target/editors/{}",
        file.file_name().unwrap().to_string_lossy()
    );
    if suites::is_advanced(step) {
        let reference = std::fs::read_to_string(root().join("solutions/advanced.rs")).unwrap();
        std::fs::write(
            &file,
            lab_judge::sections::splice(&reference, &part).unwrap(),
        )
        .unwrap();
        let args = ["--subject", "solutions/src/lib.rs", "--advanced", &rel];
        (args.map(String::from).to_vec(), file, caught)
    } else {
        let reference = std::fs::read_to_string(root().join("solutions/src/lib.rs")).unwrap();
        std::fs::write(
            &file,
            lab_judge::sections::splice_items(&reference, &part).unwrap(),
        )
        .unwrap();
        (vec!["--subject".into(), rel], file, caught)
    }
}

/// Every line of `stdout`, each checked against the schema; the first must
/// be `run_started` (or `error`), the last `run_finished` with `code`.
fn events(stdout: &str, code: i32) -> Vec<Value> {
    let mut all = Vec::new();
    for line in stdout.lines() {
        if let Err(e) = lab_judge::events::validate::line(line) {
            panic!("{e}");
        }
        all.push(serde_json::from_str::<Value>(line).unwrap());
    }
    assert!(!all.is_empty(), "no events");
    assert_eq!(all[0]["event"], "run_started", "{stdout}");
    let last = all.last().unwrap();
    assert_eq!(last["event"], "run_finished", "{stdout}");
    assert_eq!(last["exit"], code, "{stdout}");
    all
}

fn with_event<'a>(all: &'a [Value], event: &str) -> Vec<&'a Value> {
    all.iter().filter(|e| e["event"] == event).collect()
}

#[test]
fn the_validator_takes_the_written_examples_and_refuses_the_broken_ones() {
    let dir = root().join("fixtures/events");
    let valid = std::fs::read_to_string(dir.join("valid.jsonl")).unwrap();
    for line in valid.lines() {
        lab_judge::events::validate::line(line).unwrap();
    }
    let invalid: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(dir.join("invalid.json")).unwrap()).unwrap();
    assert!(invalid.len() >= 10);
    for case in invalid {
        let line = case["line"].to_string();
        assert!(
            lab_judge::events::validate::line(&line).is_err(),
            "accepted, though {}: {line}",
            case["why"]
        );
    }
}

#[test]
fn one_mutant_of_every_step_streams_valid_events_and_nothing_else() {
    for (step, items) in suites::all_steps() {
        let (args, file, caught) = subject(step);
        let mut words = vec!["check", step];
        words.extend(args.iter().map(String::as_str));
        words.extend(["--message-format", "json"]);
        let r = lab(&words);
        assert_eq!(r.code, 1, "{step}: {}{}", r.stdout, r.stderr);
        let all = events(&r.stdout, r.code);
        // The human report went to the standard error.
        assert!(r.stderr.contains("---- "), "{step}: {}", r.stderr);
        let rule = with_event(&all, "rule")
            .into_iter()
            .find(|e| e["key"] == caught.as_str())
            .unwrap_or_else(|| panic!("{step}: no rule {caught}: {}", r.stdout));
        assert_ne!(rule["outcome"], "passed", "{step}: {rule}");
        assert!(
            rule["input"].is_string() && rule["got"].is_string(),
            "{rule}"
        );
        // The locator names the subject file and a line that declares the
        // step's first item.
        let text = std::fs::read_to_string(&file).unwrap();
        let line = text
            .lines()
            .nth(rule["line"].as_u64().unwrap() as usize - 1)
            .unwrap();
        let name = items.split(',').next().unwrap().trim();
        assert!(
            line.contains(&format!("fn {name}")) || line.contains(&format!("struct {name}")),
            "{step}: line {} is {line:?}",
            rule["line"]
        );
        assert!(rule["file"].as_str().unwrap().ends_with(".rs"), "{rule}");
        let finished = with_event(&all, "step_finished");
        assert_eq!(finished.len(), 1, "{step}");
        assert_eq!(finished[0]["status"], "failing", "{step}");
    }
}

#[test]
fn a_compile_error_a_hang_a_crash_and_a_panic_are_events_too() {
    let sample = |name: &str| format!("fixtures/submissions/{name}");
    let r = lab(&[
        "check",
        "01",
        "--subject",
        &sample("does-not-compile"),
        "--message-format",
        "json",
    ]);
    let all = events(&r.stdout, r.code);
    assert_eq!(r.code, 3);
    let built = with_event(&all, "build_failed");
    assert_eq!(built.len(), 1, "{}", r.stdout);
    assert!(
        built[0]["message"].as_str().unwrap().contains("error"),
        "{}",
        r.stdout
    );
    for (name, step, fault) in [
        ("endless-loop", "07", "timed_out"),
        ("aborts", "03", "crashed"),
        ("panics", "01", "panicked"),
    ] {
        let r = lab(&[
            "check",
            step,
            "--subject",
            &sample(name),
            "--message-format",
            "json",
        ]);
        let all = events(&r.stdout, r.code);
        assert_eq!(r.code, 1, "{name}");
        let faults: Vec<&Value> = with_event(&all, "rule")
            .into_iter()
            .filter(|e| e["outcome"] == "faulted")
            .collect();
        assert!(
            faults.iter().any(|e| e["fault"] == fault),
            "{name}: no {fault}: {}",
            r.stdout
        );
    }
    // A missing subject: an error event, exit 2.
    let r = lab(&[
        "check",
        "01",
        "--subject",
        "no/such/dir",
        "--message-format",
        "json",
    ]);
    assert_eq!(r.code, 2);
    let all: Vec<Value> = r
        .stdout
        .lines()
        .map(|l| {
            lab_judge::events::validate::line(l).unwrap();
            serde_json::from_str(l).unwrap()
        })
        .collect();
    assert!(all.iter().any(|e| e["event"] == "error"), "{}", r.stdout);
}

/// `.vscode/tasks.json` without its comments.
fn tasks() -> Value {
    let text = std::fs::read_to_string(root().join(".vscode/tasks.json")).unwrap();
    serde_json::from_str(&matcher::strip_jsonc(&text)).unwrap()
}

#[test]
fn the_problem_matcher_puts_a_failed_rule_at_its_function() {
    let tasks = tasks();
    let labels: Vec<&str> = tasks["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["check this step", "check all", "watch"]);
    let (args, file, _) = subject("03");
    let mut words = vec!["check", "03"];
    words.extend(args.iter().map(String::as_str));
    let source = std::fs::read_to_string(&file).unwrap();
    // The line of `fn remaining`, counted here by hand.
    let line = source
        .lines()
        .position(|l| l.contains("pub fn remaining("))
        .unwrap()
        + 1;
    // In both languages: the headings and the locator line keep their
    // shape, the closing lines differ.
    for lang in ["en", "zh"] {
        let mut all = vec!["--lang", lang];
        all.extend(words.iter().copied());
        let r = lab(&all);
        assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
        let prefix = "03 remaining :: ";
        for task in tasks["tasks"].as_array().unwrap() {
            let pm = &task["problemMatcher"];
            assert_eq!(pm["fileLocation"][0], "relative");
            let patterns = pm["pattern"].as_array().unwrap();
            let found = matcher::problems(patterns, &r.stdout);
            assert!(
                !found.is_empty(),
                "{}: nothing matched in\n{}",
                task["label"],
                r.stdout
            );
            for p in &found {
                assert!(p.file.starts_with("target/editors/03-"), "{p:?}");
                assert!(root().join(&p.file).is_file(), "{p:?}");
                assert_eq!(p.line, line, "{p:?}");
                assert!(
                    p.message.starts_with(prefix) && p.message.len() > prefix.len(),
                    "{p:?}"
                );
            }
            // One problem per failure told under its heading.
            assert_eq!(found.len(), r.stdout.matches("\n---- 03 remaining").count());
            if let Some(bg) = pm.get("background") {
                let begins = matcher::Regex::new(bg["beginsPattern"].as_str().unwrap());
                let ends = matcher::Regex::new(bg["endsPattern"].as_str().unwrap());
                assert!(
                    r.stdout.lines().any(|l| begins.captures(l).is_some()),
                    "begins"
                );
                assert!(r.stdout.lines().any(|l| ends.captures(l).is_some()), "ends");
            }
        }
    }
}

#[test]
fn the_small_matcher_reads_its_subset_as_regular_expressions_do() {
    let r = matcher::Regex::new(r"^\s+--> (.+):(\d+):(\d+)$");
    let caps = r.captures("  --> a:b.rs:12:8").unwrap();
    assert_eq!(caps, ["a:b.rs", "12", "8"]);
    assert!(r.captures("--> a.rs:1:2").is_none());
    assert!(r.captures("  --> a.rs:x:2").is_none());
    let alt = matcher::Regex::new(r"^(running \d+ tests?|运行 \d+ 项检查)$");
    assert!(alt.captures("running 1 test").is_some());
    assert!(alt.captures("运行 5 项检查").is_some());
    assert!(alt.captures("running tests").is_none());
    assert_eq!(
        matcher::strip_jsonc("// a\n{\"a\": \"//b\", /* c */ \"d\": 1}"),
        "\n{\"a\": \"//b\",  \"d\": 1}"
    );
}

#[test]
fn on_github_a_hostile_panic_is_one_annotation_and_a_summary_row() {
    let reference = std::fs::read_to_string(root().join("solutions/src/lib.rs")).unwrap();
    let part = "pub fn remaining(deadline: f64, now: f64) -> f64 {\n    \
        let _ = (deadline, now);\n    \
        panic!(\"boom\\n::add-mask::secret\\r\\n::set-output name=x::y %0A, a: b\")\n}\n";
    let text = lab_judge::sections::splice_items(&reference, part).unwrap();
    let dir = root().join("target/editors");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("hostile-panic.rs"), &text).unwrap();
    let line = text
        .lines()
        .position(|l| l.contains("pub fn remaining("))
        .unwrap()
        + 1;
    let out = tempfile::tempdir().unwrap();
    let summary = out.path().join("summary.md");
    let summary_env = summary.display().to_string();
    let r = lab_env(
        &[
            "check",
            "03",
            "--subject",
            "target/editors/hostile-panic.rs",
        ],
        &[
            ("GITHUB_ACTIONS", "true"),
            ("GITHUB_STEP_SUMMARY", &summary_env),
        ],
    );
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    // The report, which shows the learner's text as it is, is between
    // `::stop-commands::TOKEN` and `::TOKEN::`: GitHub reads no command in
    // it. After it, the one annotation.
    let lines: Vec<&str> = r.stdout.lines().collect();
    let token = lines[0]
        .strip_prefix("::stop-commands::")
        .unwrap_or_else(|| panic!("{}", r.stdout));
    assert!(
        token.len() >= 32 && token.chars().all(|c| c.is_ascii_hexdigit()),
        "{token}"
    );
    let resume = format!("::{token}::");
    let at = lines
        .iter()
        .position(|l| *l == resume)
        .unwrap_or_else(|| panic!("{}", r.stdout));
    assert!(!r.stdout[..r.stdout.find(&resume).unwrap()].contains(&format!("{token}::")));
    let commands: Vec<&str> = lines[at + 1..]
        .iter()
        .copied()
        .filter(|l| l.starts_with("::"))
        .collect();
    assert_eq!(commands.len(), 1, "{}", r.stdout);
    let want = format!(
        "::error file=target/editors/hostile-panic.rs,line={line},col=8,title=03 remaining %3A%3A "
    );
    assert!(commands[0].starts_with(&want), "{}", commands[0]);
    assert!(
        commands[0].contains("%0A::add-mask::secret"),
        "{}",
        commands[0]
    );
    assert!(commands[0].contains("y %250A, a: b"), "{}", commands[0]);
    let table = std::fs::read_to_string(&summary).unwrap();
    assert!(
        table.contains("| 03 | `remaining` | ❌ failing | 0/5 |")
            || table.contains("| 03 | `remaining` | ❌ failing |"),
        "{table}"
    );
    // Without GitHub, nothing of it.
    let r = lab(&[
        "check",
        "03",
        "--subject",
        "target/editors/hostile-panic.rs",
    ]);
    assert!(!r.stdout.contains("::error"), "{}", r.stdout);
}
