//! The learner's commands without bash: `cargo lab COMMAND ...` (the alias
//! in the kit's `.cargo/config.toml`) must say and end exactly as
//! `./lab.sh COMMAND ...` does, on a copy of the kit: the same standard
//! output, the same exit status, and the same standard error once cargo's
//! own status lines (`Compiling`, `Finished`, `Running`, `Blocking`) are
//! left out. Those are the one allowed difference: cargo prints them where
//! lab.sh runs the judge it built itself.

use std::path::Path;
use std::time::Duration;

mod common;
use common::{kit_root, Run};

const LIMIT: Duration = Duration::from_secs(600);

/// The kit's target folder these tests build in (the end-to-end tests').
const TARGET: &str = "e2e";

fn cargo() -> String {
    std::env::var("CARGO").unwrap_or_else(|_| "cargo".into())
}

/// Standard error without cargo's status lines (verb right-aligned in 12
/// columns, as cargo prints them when its output is not a terminal).
fn without_cargo_lines(stderr: &str) -> String {
    const VERBS: [&str; 4] = ["Compiling ", "Finished ", "Running ", "Blocking "];
    stderr
        .lines()
        .filter(|l| {
            let t = l.trim_start();
            !(l.len() - t.len() >= 2 && VERBS.iter().any(|v| t.starts_with(v)))
        })
        .map(|l| format!("{l}\n"))
        .collect()
}

fn lab_sh(dir: &Path, args: &[&str]) -> Run {
    let mut all = vec!["lab.sh"];
    all.extend_from_slice(args);
    common::run_program(dir, "bash", &all, TARGET, &[], LIMIT)
}

fn cargo_lab(dir: &Path, args: &[&str]) -> Run {
    let mut all = vec!["lab"];
    all.extend_from_slice(args);
    common::run_program(dir, &cargo(), &all, TARGET, &[], LIMIT)
}

/// `text` with the time a run took (`finished in 0.19s`, a passing step's
/// summary line) left out: it differs from run to run of either form.
fn untimed(text: &str) -> String {
    text.lines()
        .map(|l| match l.find("; finished in ") {
            Some(at) => format!("{}; finished in …\n", &l[..at]),
            None => format!("{l}\n"),
        })
        .collect()
}

/// Runs `args` both ways in `dir`; fails unless they agree. Returns the
/// status.
fn same(dir: &Path, args: &[&str]) -> i32 {
    let (mut sh, mut cargo) = (lab_sh(dir, args), cargo_lab(dir, args));
    sh.stdout = untimed(&sh.stdout);
    cargo.stdout = untimed(&cargo.stdout);
    let what = format!(
        "{args:?}\nlab.sh: {}{}\ncargo lab: {}{}",
        sh.stdout, sh.stderr, cargo.stdout, cargo.stderr
    );
    assert_eq!(sh.code, cargo.code, "{what}");
    assert_eq!(sh.stdout, cargo.stdout, "{what}");
    assert_eq!(sh.stderr, without_cargo_lines(&cargo.stderr), "{what}");
    sh.code
}

#[test]
fn cargo_status_lines_are_the_only_difference_left_out() {
    let cargo = "   Compiling lab-judge v0.1.0 (/k/checks/judge)\n    Finished `dev` profile [unoptimized] target(s) in 9.1s\n     Running `target/debug/lab-judge help`\n";
    assert_eq!(without_cargo_lines(cargo), "");
    // The judge's own lines stay, even when they start with such a word.
    let judge = "lab: unknown step 99\nRunning the checks\n";
    assert_eq!(without_cargo_lines(&format!("{cargo}{judge}")), judge);
    let summary = "test result: ok. 5 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 1.34s\n";
    let other = summary.replace("1.34", "0.19");
    assert_eq!(untimed(summary), untimed(&other));
    assert_ne!(
        untimed(summary),
        untimed(&other.replace("5 passed", "4 passed"))
    );
}

#[test]
fn cargo_lab_says_and_ends_as_lab_sh_does() {
    common::seed_e2e();
    // The judge built once in the kit itself (see e2e.rs, `built_once`):
    // the copy's cargo then finds it fresh.
    let r = lab_sh(&kit_root(), &["--help"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let kit = tempfile::tempdir().unwrap();
    lab_judge::files::copy_tree(&kit_root(), kit.path(), &lab_judge::files::not_in_a_clone)
        .unwrap();
    let dir = kit.path();
    assert_eq!(same(dir, &["help"]), 0);
    assert_eq!(same(dir, &["show", "3"]), 0);
    // An unknown step: a usage error, in both languages.
    assert_eq!(same(dir, &["check", "99"]), 2);
    assert_eq!(same(dir, &["--lang", "zh", "check", "99"]), 2);
    // A step that fails (the stubs), then one that passes.
    assert_eq!(same(dir, &["check", "3", "--seed", "7"]), 1);
    let solution = std::fs::read(dir.join("solutions/src/lib.rs")).unwrap();
    std::fs::write(dir.join("student/src/lib.rs"), solution).unwrap();
    assert_eq!(same(dir, &["check", "3", "--seed", "7"]), 0);
    // From a folder below the kit's root too (cargo finds the alias and the
    // judge its kit by walking up).
    let r = common::run_program(
        &dir.join("student/src"),
        &cargo(),
        &["lab", "show", "3"],
        TARGET,
        &[],
        LIMIT,
    );
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(r.stdout, lab_sh(dir, &["show", "3"]).stdout);
}
