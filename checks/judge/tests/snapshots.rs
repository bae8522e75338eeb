//! Snapshots of what a learner reads, in both languages: each failing
//! clause of one mutant per step in a file of its own (`check-NN/KEY.txt`,
//! step 08's with their timelines), the rest of that output (`frame.txt`),
//! and status, hint and show. Reviewed by hand; refresh with
//! UPDATE_SNAPSHOTS=1 and read the diff before committing.

mod common;

use std::path::{Path, PathBuf};

/// The kit's one snapshot comparison, shared with the report tests.
#[path = "../src/report/snapshot.rs"]
mod snapshot;
use std::process::{Command, Stdio};

/// The judge's own splice rules (a core mutant is items of `lib.rs`, an
/// advanced one a section of `advanced.rs`), its registry and its words.
use lab_judge::catalog::{self, Lang};
use lab_judge::{sections, suites};

/// The mutant whose failures each step's snapshots show: a core mutant is
/// put into the reference lib.rs, an advanced one into advanced.rs. At
/// most one per registered step, in order (checked below); its number is
/// the name's first two characters. A step not named here shows the first
/// mutant of its folder by name (see [`shown`]), so a new step needs no
/// line here.
const SHOWN: &[&str] = &[
    "01-429-forgotten",
    "02-unicode-uppercase-method",
    "03-nan-passes-through",
    "04-attempt-31-accepted",
    "05-nan-fraction-accepted",
    "06-parse-u64-accepts-plus",
    "07-budget-ge-wait",
    "08-budget-from-pre-send-reading",
    "09-lazy-start",
    "10-weekday-ignored",
    "11-closed-after-sleep",
    "12-trusts-the-sleeper",
    "13-slot-held-during-pause",
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

fn lab(args: &[&str], lang: &str, state_root: &Path) -> String {
    common::seed_e2e();
    let out = Command::new("bash")
        // A check run under GitHub Actions would add its annotations.
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .arg(root().join("lab.sh"))
        .args(["--lang", lang])
        .args(args)
        .current_dir(root())
        // Status and hints are kept per kit; give each test a fresh one.
        .env("LAB_STATE_DIR", state_root)
        // The end-to-end tests' build of the kit: its judge and its
        // libraries are those of these sources, so nothing is built again.
        .env("CARGO_TARGET_DIR", root().join("target/e2e"))
        .env_remove("LAB_ROOT")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    // Wall-clock figures are the only thing allowed to vary.
    text.lines()
        .filter(|l| !l.contains("finished in") && !l.contains("用时"))
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

/// Compares with (or, with UPDATE_SNAPSHOTS=1, writes) the snapshot
/// `tests/snapshots/NAME`.
fn compare(name: &str, got: &str) {
    snapshot::compare(&format!("tests/snapshots/{name}"), got);
}

/// A mutant's file, in its step's folder.
fn mutant_file(mutant: &str) -> std::path::PathBuf {
    let folder = suites::entry(&mutant[..2]).dir();
    root().join(folder).join(format!("mutants/{mutant}.rs"))
}

/// The subject files of one mutant, under target/snapshots: the
/// arguments of `check` after the step.
fn subject(mutant: &str) -> Vec<String> {
    let step = &mutant[..2];
    let dir = root().join("target/snapshots");
    std::fs::create_dir_all(&dir).unwrap();
    let file = format!("target/snapshots/{mutant}.rs");
    if suites::is_advanced(step) {
        let reference = std::fs::read_to_string(root().join("solutions/advanced.rs")).unwrap();
        let part = std::fs::read_to_string(mutant_file(mutant)).unwrap();
        let text = sections::splice(&reference, &part).unwrap();
        std::fs::write(root().join(&file), text).unwrap();
        ["--subject", "solutions/src/lib.rs", "--advanced", &file]
            .map(String::from)
            .to_vec()
    } else {
        let reference = std::fs::read_to_string(root().join("solutions/src/lib.rs")).unwrap();
        let part = std::fs::read_to_string(mutant_file(mutant)).unwrap();
        let text = sections::splice_items(&reference, &part).unwrap();
        std::fs::write(root().join(&file), text).unwrap();
        ["--subject", &file].map(String::from).to_vec()
    }
}

/// A check's output cut into its frame (everything but the failures'
/// bodies) and one block per failing clause, keyed by the clause's key.
fn by_clause(step: &str, lang: &str, out: &str) -> (String, Vec<(String, String)>) {
    let lang = if lang == "zh" { Lang::Zh } else { Lang::En };
    let words = catalog::whole(lang, &suites::words(catalog::index(lang)));
    let items = suites::function_of(step);
    let title_of = |key: &str| words[&format!("clause.{key}")].clone();
    let keys: Vec<String> = suites::build(step, 1)
        .clauses
        .into_iter()
        .map(|c| c.key)
        .collect();
    let mut frame = Vec::new();
    let mut blocks: Vec<(String, Vec<&str>)> = Vec::new();
    for line in out.lines() {
        let header = keys
            .iter()
            .find(|k| line == format!("---- {step} {items} :: {} ----", title_of(k)));
        if let Some(key) = header {
            blocks.push((key.clone(), vec![line]));
        } else if line == words["frame.failures"] && !blocks.is_empty() {
            frame.push(line);
            blocks.push((String::new(), Vec::new()));
        } else {
            match blocks.last_mut() {
                Some((key, body)) if !key.is_empty() => body.push(line),
                _ => frame.push(line),
            }
        }
    }
    let blocks = blocks
        .into_iter()
        .filter(|(key, _)| !key.is_empty())
        .map(|(key, body)| (key, body.join("\n").trim_end().to_string() + "\n"))
        .collect();
    (frame.join("\n") + "\n", blocks)
}

/// The mutant each registered step shows, in order: the one [`SHOWN`]
/// names, else the first of the step's `mutants/` by name.
fn shown() -> Vec<String> {
    suites::REGISTRY
        .iter()
        .map(|e| {
            if let Some(named) = SHOWN.iter().find(|m| m.starts_with(e.id)) {
                return named.to_string();
            }
            let dir = root().join(e.dir()).join("mutants");
            let mut names: Vec<String> = std::fs::read_dir(&dir)
                .unwrap_or_else(|err| panic!("{}: {err}", dir.display()))
                .flatten()
                .filter_map(|f| {
                    f.file_name()
                        .to_str()?
                        .strip_suffix(".rs")
                        .map(String::from)
                })
                .collect();
            names.sort();
            names.into_iter().next().expect("every step has mutants")
        })
        .collect()
}

#[test]
fn every_registered_step_shows_one_mutant() {
    let steps: Vec<&str> = SHOWN.iter().map(|m| &m[..2]).collect();
    let registered: Vec<&str> = suites::REGISTRY.iter().map(|e| e.id).collect();
    // Each named one is a mutant of its step, at most one per step, in the
    // registry's order.
    let mut at = registered.iter();
    for step in &steps {
        assert!(
            at.any(|r| r == step),
            "SHOWN: {step} out of order, twice or unregistered"
        );
    }
    for mutant in SHOWN {
        assert!(mutant_file(mutant).is_file(), "{mutant}");
    }
    let all = shown();
    assert_eq!(all.len(), registered.len());
    assert!(all.iter().zip(&registered).all(|(m, r)| m.starts_with(*r)));
}

#[test]
fn a_failing_clause_of_every_step_in_both_languages() {
    let state = tempfile::tempdir().unwrap();
    let mut written = Vec::new();
    for mutant in &shown() {
        let step = &mutant[..2];
        let files = subject(mutant);
        for lang in ["en", "zh"] {
            let mut args = vec!["check", step];
            args.extend(files.iter().map(String::as_str));
            args.extend(["--seed", "1"]);
            let out = lab(&args, lang, state.path());
            let (frame, blocks) = by_clause(step, lang, &out);
            assert!(!blocks.is_empty(), "{mutant} failed no clause:\n{out}");
            let dir = format!("{lang}/check-{step}");
            compare(&format!("{dir}/frame.txt"), &frame);
            written.push(format!("{dir}/frame.txt"));
            for (key, block) in blocks {
                let name = format!("{dir}/{}.txt", &key[3..]);
                compare(&name, &block);
                written.push(name);
            }
        }
    }
    // A snapshot no clause produced any more is stale.
    for lang in ["en", "zh"] {
        let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots");
        for dir in std::fs::read_dir(base.join(lang)).unwrap().flatten() {
            if !dir.path().is_dir() {
                continue;
            }
            for file in std::fs::read_dir(dir.path()).unwrap().flatten() {
                let name = file
                    .path()
                    .strip_prefix(&base)
                    .unwrap()
                    .display()
                    .to_string();
                if written.contains(&name) {
                    continue;
                }
                if snapshot::updating() {
                    std::fs::remove_file(file.path()).unwrap();
                } else {
                    panic!("stale snapshot {name}: no clause produced it");
                }
            }
        }
    }
}

#[test]
fn status_hint_and_show_in_both_languages() {
    for lang in ["en", "zh"] {
        let state = tempfile::tempdir().unwrap();
        compare(
            &format!("{lang}/status-fresh.txt"),
            &lab(&["status"], lang, state.path()),
        );
        compare(
            &format!("{lang}/hint-04-first.txt"),
            &lab(&["hint", "4"], lang, state.path()),
        );
        compare(
            &format!("{lang}/hint-04-second.txt"),
            &lab(&["hint", "4"], lang, state.path()),
        );
        compare(
            &format!("{lang}/show-08.txt"),
            &lab(&["show", "8"], lang, state.path()),
        );
    }
}

/// A known mistake is named after the step's first failure; answers that
/// are no known mistake's on every table case get no such line. The
/// unknown one makes two known mistakes at once (HEAD forgotten, PATCH
/// taken as safe), which is neither of them. Whole outputs, both languages.
#[test]
fn a_known_mistake_is_named_and_an_unknown_one_is_not() {
    let state = tempfile::tempdir().unwrap();
    let known = subject("02-head-forgotten");
    let reference = std::fs::read_to_string(root().join("solutions/src/lib.rs")).unwrap();
    let two = "pub fn replay_safe(method: &str, key: Option<&str>) -> bool {\n    \
               let is = |name: &str| method.eq_ignore_ascii_case(name);\n    \
               if is(\"GET\") || is(\"PUT\") || is(\"DELETE\") || is(\"PATCH\") {\n        \
               return true;\n    }\n    \
               is(\"POST\") && key.is_some_and(|k| !k.trim().is_empty())\n}\n";
    let file = "target/snapshots/02-two-mistakes.rs";
    std::fs::write(
        root().join(file),
        sections::splice_items(&reference, two).unwrap(),
    )
    .unwrap();
    let unknown = ["--subject".to_string(), file.to_string()];
    for lang in ["en", "zh"] {
        let lead = catalog::whole(if lang == "zh" { Lang::Zh } else { Lang::En }, &[])
            ["mistake.known"]
            .replace("{description}", "");
        let check = |files: &[String]| {
            let mut args = vec!["check", "02"];
            args.extend(files.iter().map(String::as_str));
            args.extend(["--seed", "1"]);
            lab(&args, lang, state.path())
        };
        let named = check(&known);
        assert_eq!(named.matches(&lead).count(), 1, "{named}");
        compare(&format!("{lang}/mistake-known.txt"), &named);
        let not_named = check(&unknown);
        assert!(not_named.contains("---- 02 "), "it fails: {not_named}");
        assert!(!not_named.contains(&lead), "{not_named}");
        compare(&format!("{lang}/mistake-unknown.txt"), &not_named);
    }
}
