//! Snapshots of what a learner reads, in both languages: a failing clause of
//! every step (step 08 with its timeline), status, hint and show. Reviewed by
//! hand; refresh with UPDATE_SNAPSHOTS=1 and read the diff before committing.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The judge's own splice rules (a core mutant is items of `lib.rs`, an
/// advanced one a section of `advanced.rs`).
use lab_judge::sections;

/// One mutant per step, whose failure the snapshot shows (its items put
/// into the reference lib.rs).
const FAILING: [(&str, &str); 8] = [
    ("01", "01-429-forgotten"),
    ("02", "02-unicode-uppercase-method"),
    ("03", "03-nan-passes-through"),
    ("04", "04-attempt-31-accepted"),
    ("05", "05-nan-fraction-accepted"),
    ("06", "06-parse-u64-accepts-plus"),
    ("07", "07-budget-ge-wait"),
    ("08", "08-budget-from-pre-send-reading"),
];

/// One advanced mutant per advanced step (a section of the reference).
const FAILING_ADVANCED: [(&str, &str); 5] = [
    ("09", "09-lazy-start"),
    ("10", "10-weekday-ignored"),
    ("11", "11-closed-after-sleep"),
    ("12", "12-trusts-the-sleeper"),
    ("13", "13-slot-held-during-pause"),
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

fn lab(args: &[&str], lang: &str, state_root: &Path) -> String {
    let out = Command::new("bash")
        .arg(root().join("lab.sh"))
        .args(["--lang", lang])
        .args(args)
        .current_dir(root())
        // Status and hints are kept per kit; give each test a fresh one.
        .env("LAB_STATE_DIR", state_root)
        .env("CARGO_TARGET_DIR", root().join("target/snapshots"))
        .env_remove("LAB_ROOT")
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    // Wall-clock figures are the only thing allowed to vary.
    text.lines()
        .filter(|l| !l.contains("finished in"))
        .collect::<Vec<_>>()
        .join("\n")
        + "\n"
}

fn compare(name: &str, got: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/snapshots")
        .join(name);
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("missing snapshot {}", path.display()));
    if want != got {
        panic!("snapshot {name} differs.\n--- want\n{want}\n--- got\n{got}");
    }
}

#[test]
fn a_failing_clause_of_every_advanced_step_in_both_languages() {
    let state = tempfile::tempdir().unwrap();
    let reference = std::fs::read_to_string(root().join("solutions/advanced.rs")).unwrap();
    let dir = root().join("target/snapshots");
    std::fs::create_dir_all(&dir).unwrap();
    for (step, mutant) in FAILING_ADVANCED {
        let part =
            std::fs::read_to_string(root().join(format!("fixtures/mutants/advanced/{mutant}.rs")))
                .unwrap();
        let file = format!("target/snapshots/{mutant}.rs");
        std::fs::write(
            root().join(&file),
            sections::splice(&reference, &part).unwrap(),
        )
        .unwrap();
        for lang in ["en", "zh"] {
            let out = lab(
                &[
                    "check",
                    step,
                    "--subject",
                    "solutions/src/lib.rs",
                    "--advanced",
                    &file,
                    "--seed",
                    "1",
                ],
                lang,
                state.path(),
            );
            compare(&format!("{lang}/check-{step}.txt"), &out);
        }
    }
}

#[test]
fn a_failing_clause_of_every_step_in_both_languages() {
    let state = tempfile::tempdir().unwrap();
    let reference = std::fs::read_to_string(root().join("solutions/src/lib.rs")).unwrap();
    std::fs::create_dir_all(root().join("target/snapshots")).unwrap();
    for (_, mutant) in FAILING {
        let part =
            std::fs::read_to_string(root().join(format!("fixtures/mutants/{mutant}.rs"))).unwrap();
        let lib = sections::splice_items(&reference, &part).unwrap();
        std::fs::write(root().join(format!("target/snapshots/{mutant}.rs")), lib).unwrap();
    }
    for lang in ["en", "zh"] {
        for (step, mutant) in FAILING {
            let subject = format!("target/snapshots/{mutant}.rs");
            let out = lab(
                &["check", step, "--subject", &subject, "--seed", "1"],
                lang,
                state.path(),
            );
            compare(&format!("{lang}/check-{step}.txt"), &out);
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
