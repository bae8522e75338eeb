//! `lab-dev new-step` on a copy of the kit: right after it runs, the
//! copy formats clean, builds and lints (the glue against the reference
//! answers), its registry check finds nothing missing or stray, and the new
//! step fails on the reference, named, as "not started". The copy builds in
//! its own target folder, `target/scaffold`, so the judge it builds never
//! stands in for the kit's own in `target/` or `target/e2e`; that folder
//! starts from `target/e2e`'s cargo state when it has none. Every
//! command runs under an outer time limit.

// The judge's end-to-end tests' helpers, shared.
#[path = "../../judge/tests/common/mod.rs"]
mod common;
use common::{kit_root, Run};
use std::path::Path;
use std::time::Duration;

/// Runs `program args…` in `dir` (builds in `target/scaffold`), killed and
/// the test failed if it outlives `limit`.
fn run(dir: &Path, program: &str, args: &[&str], env: &[(&str, &str)], limit: Duration) -> Run {
    common::run_program(dir, program, args, "scaffold", env, limit)
}

fn ok(what: &str, r: &Run) {
    assert_eq!(r.code, 0, "{what}:\n{}\n{}", r.stdout, r.stderr);
}

const BUILD: Duration = Duration::from_secs(900);
const QUICK: Duration = Duration::from_secs(60);

#[test]
fn a_new_step_builds_and_fails_on_the_reference_until_it_is_written() {
    let copy = tempfile::tempdir().unwrap();
    let root = kit_root();
    lab_judge::files::copy_tree(&root, copy.path(), &lab_judge::files::not_in_a_clone).unwrap();
    // Starts from the end-to-end tests' build (the same registry crates,
    // built the same way): cargo builds again only what the new step
    // changes.
    common::seed_target(&root.join("target/e2e/debug"), "scaffold");
    let kit = copy.path();
    let step = lab_dev::scaffold::next_step();
    let dev = env!("CARGO_BIN_EXE_lab-dev");
    let root_env = kit.to_str().unwrap();

    let new_step = || {
        run(
            kit,
            dev,
            &["new-step", &step, "echo_back"],
            &[("LAB_ROOT", root_env)],
            QUICK,
        )
    };
    let added = new_step();
    ok("new-step", &added);
    let said = format!("step {step} (echo_back) added");
    assert!(added.stdout.contains(&said), "{}", added.stdout);
    // Run again, it refuses: the files are there.
    let again = new_step();
    assert_eq!(again.code, 2, "{}", again.stderr);
    assert!(again.stderr.contains("already exists"), "{}", again.stderr);

    ok(
        "fmt",
        &run(kit, "cargo", &["fmt", "--all", "--", "--check"], &[], QUICK),
    );
    let folders = format!("checks/judge/src/suites/s{step}/mod.rs");
    let rustfmt = ["--edition", "2021", "--check", &folders];
    ok("rustfmt", &run(kit, "rustfmt", &rustfmt, &[], QUICK));
    ok(
        "build",
        &run(
            kit,
            "cargo",
            &["build", "-p", "lab-judge", "-p", "lab-dev"],
            &[],
            BUILD,
        ),
    );
    let clippy = [
        "clippy",
        "-p",
        "lab-runner-advanced",
        "--all-targets",
        "--",
        "-D",
        "warnings",
    ];
    let reference = [("LAB_ADVANCED_REFERENCE", "1")];
    ok("clippy", &run(kit, "cargo", &clippy, &reference, BUILD));

    // The copy's own tools: its registry check, and no subject (no subject
    // is named registry-check-only).
    let built = root.join("target/scaffold/debug/lab-dev");
    let audit = run(
        kit,
        built.to_str().unwrap(),
        &["selftest", "--only", "registry-check-only", "--seed", "1"],
        &[("LAB_ROOT", root_env)],
        QUICK,
    );
    ok("registry check", &audit);
    assert!(
        audit
            .stdout
            .contains("registry check: every registered step has its files"),
        "{}",
        audit.stdout
    );

    let check = run(
        kit,
        "bash",
        &[
            "lab.sh",
            "check",
            &step,
            "--subject",
            "solutions/src/lib.rs",
            "--advanced",
            "solutions/advanced.rs",
            "--seed",
            "1",
        ],
        &[],
        BUILD,
    );
    assert_eq!(check.code, 1, "{}\n{}", check.stdout, check.stderr);
    assert!(
        check
            .stdout
            .contains(&format!("{step} echo_back :: not started")),
        "{}",
        check.stdout
    );
}
