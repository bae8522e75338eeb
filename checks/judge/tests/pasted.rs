//! Every input the checker shows a learner is Rust that compiles when pasted
//! into a `#[test]` of the learner's own (a `mod tests` with
//! `use super::*;`), as the learner's pages promise: the inputs of every
//! clause of every step, under two seeds, pasted into the reference answers
//! (lib.rs for steps 01–08, advanced.rs for 09–13) and compiled.

use lab_judge::{catalog, render, suites};
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// The inputs shown for `steps`: at most three per clause and seed, as the
/// failure text prints them.
fn shown(steps: &[&'static str]) -> Vec<(String, String)> {
    // The steps' words too: some inputs carry comments from the catalog.
    catalog::select(catalog::Lang::En, &suites::words(0));
    let mut out = Vec::new();
    for step in steps {
        for seed in [1, 2] {
            for clause in suites::build(step, seed).clauses {
                for check in clause.checks.iter().take(3) {
                    out.push((clause.key.clone(), render::call(step, &check.call)));
                }
            }
        }
    }
    out
}

/// A test module holding each input in a `#[test]` of its own.
fn module(inputs: &[(String, String)]) -> String {
    let mut text = String::from("\n#[cfg(test)]\nmod pasted {\n    use super::*;\n");
    for (i, (key, input)) in inputs.iter().enumerate() {
        text += &format!("\n    // {key}\n    #[test]\n    fn input_{i}() {{\n");
        for line in input.lines() {
            text += &format!("        {line}\n");
        }
        text += "        ;\n    }\n";
    }
    text + "}\n"
}

/// Compiles `source` (the reference plus the pasted tests) as a library
/// crate that depends on lab-api, tests included; the compiler's errors
/// when it fails.
fn compile(name: &str, source: &str) -> Result<(), String> {
    let dir = tempfile::tempdir().unwrap();
    let api = root().join("checks/api");
    std::fs::write(
        dir.path().join("Cargo.toml"),
        format!(
            "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
             [lib]\npath = \"lib.rs\"\n\n[dependencies]\nlab-api = {{ path = {:?} }}\n\n[workspace]\n",
            api.display().to_string()
        ),
    )
    .unwrap();
    std::fs::copy(root().join("Cargo.lock"), dir.path().join("Cargo.lock")).unwrap();
    std::fs::write(dir.path().join("lib.rs"), source).unwrap();
    let out = Command::new(env!("CARGO"))
        .args(["test", "--no-run", "--offline", "--quiet"])
        .current_dir(dir.path())
        .env("CARGO_TARGET_DIR", root().join("target/pasted"))
        .output()
        .unwrap();
    if out.status.success() {
        return Ok(());
    }
    let errors = String::from_utf8_lossy(&out.stderr);
    let head: Vec<&str> = errors.lines().take(80).collect();
    Err(head.join("\n"))
}

#[test]
fn every_input_shown_for_steps_01_to_08_compiles_in_a_learners_test() {
    let inputs = shown(&suites::core_ids());
    assert!(inputs.len() > 50, "{} inputs", inputs.len());
    let reference = std::fs::read_to_string(root().join("solutions/src/lib.rs")).unwrap();
    if let Err(errors) = compile("pasted-core", &(reference + &module(&inputs))) {
        panic!("pasted inputs of steps 01–08 do not compile:\n{errors}");
    }
}

#[test]
fn every_input_shown_for_steps_09_to_13_compiles_in_a_learners_test() {
    let inputs = shown(&suites::advanced_ids());
    assert!(inputs.len() > 50, "{} inputs", inputs.len());
    let reference = std::fs::read_to_string(root().join("solutions/advanced.rs")).unwrap();
    if let Err(errors) = compile("pasted-advanced", &(reference + &module(&inputs))) {
        panic!("pasted inputs of steps 09–13 do not compile:\n{errors}");
    }
}
