//! Every input the checker shows a learner is Rust that compiles when pasted
//! into a `#[test]` of the learner's own (a `mod tests` with
//! `use super::*;`), as the learner's pages promise: the inputs of every
//! clause of every step, under two seeds, pasted into the reference answers
//! (lib.rs for steps 01–08, advanced.rs for 09–13) and compiled. The
//! scripted worlds of steps 11 and 12 are also run: each prints (with
//! `dbg!`) the result the checker expects of the reference.

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
    module_ending(inputs, "")
}

/// As [`module`], each test ending with `end` after its input.
fn module_ending(inputs: &[(String, String)], end: &str) -> String {
    let mut text = String::from("\n#[cfg(test)]\nmod pasted {\n    use super::*;\n");
    for (i, (key, input)) in inputs.iter().enumerate() {
        text += &format!("\n    // {key}\n    #[test]\n    fn input_{i}() {{\n");
        for line in input.lines() {
            text += &format!("        {line}\n");
        }
        // An input that is an expression becomes a statement.
        if !input.trim_end().ends_with(';') {
            text += "        ;\n";
        }
        if !end.is_empty() {
            text += &format!("        {end}\n");
        }
        text += "    }\n";
    }
    text + "}\n"
}

/// Compiles `source` (the reference plus the pasted tests) as a library
/// crate that depends on lab-api, tests included; the compiler's errors
/// when it fails.
fn compile(name: &str, source: &str) -> Result<(), String> {
    let out = cargo_test(name, source, &["--no-run"]);
    if out.status.success() {
        return Ok(());
    }
    let errors = String::from_utf8_lossy(&out.stderr);
    // The errors, not the warnings before them.
    let head: Vec<&str> = errors
        .lines()
        .skip_while(|l| !l.starts_with("error"))
        .take(80)
        .collect();
    Err(head.join("\n"))
}

/// `cargo test ARGS` on `source` as a library crate that depends on lab-api.
fn cargo_test(name: &str, source: &str, args: &[&str]) -> std::process::Output {
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
    Command::new(env!("CARGO"))
        .args(["test", "--offline", "--quiet"])
        .args(args)
        .current_dir(dir.path())
        .env("CARGO_TARGET_DIR", root().join("target/pasted"))
        .env("RUST_BACKTRACE", "0")
        .output()
        .unwrap()
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

/// What a pasted world prints when it runs in the reference.
enum Printed {
    /// This value, as `dbg!` prints it.
    Value(String),
    /// Output holding this text: `Err(InvalidArgument(`, whatever the
    /// error's words, or the scripted sleeper's panic message.
    Holding(&'static str),
}

/// What a correct answer prints for a shown input of step 11 or 12 (`None`
/// for an input without `dbg!`, such as an `admit` call).
fn expected_print(step: &str, check: &suites::Check) -> Option<Printed> {
    // The scripts hold lab_api's own Stop and sleep_at_least result.
    use lab_api::advanced::{Finish, HttpResponse};
    use lab_scripts::{s11, s12};
    let response = |h: &s11::Handed| {
        HttpResponse::new(
            h.status,
            h.retry_after.clone(),
            h.received_at,
            h.body.clone(),
        )
    };
    let finish = |e: &s11::Ending| match e {
        s11::Ending::InvalidArgument => Printed::Holding("Err(InvalidArgument("),
        s11::Ending::Panicked => Printed::Holding("non-zero sleep number"),
        s11::Ending::Answer { response: h } => {
            Printed::Value(format!("{:#?}", Ok::<_, ()>(Finish::Answer(response(h)))))
        }
        s11::Ending::Stopped { reason, last } => Printed::Value(format!(
            "{:#?}",
            Ok::<_, ()>(Finish::Stopped {
                reason: *reason,
                last: last.as_ref().map(response),
            })
        )),
    };
    let suites::Expect::Script(expected) = &check.expect else {
        return None;
    };
    let any = expected.as_any();
    match step {
        "11" => match any.downcast_ref::<s11::Observed>()? {
            s11::Observed::Execute { ending, .. } => Some(finish(ending)),
            s11::Observed::Admit { .. } => None,
        },
        "12" => match any.downcast_ref::<s12::Observed>()? {
            s12::Observed::SleepAtLeast(seen) => {
                Some(Printed::Value(format!("{:#?}", seen.result)))
            }
            s12::Observed::GuardedRead(seen) => Some(finish(&seen.ending)),
        },
        _ => None,
    }
}

#[test]
fn every_world_shown_for_steps_11_and_12_runs_in_the_reference_as_checked() {
    catalog::select(catalog::Lang::En, &suites::words(0));
    let mut inputs = Vec::new();
    let mut expected = Vec::new();
    for step in ["11", "12"] {
        for seed in [1, 2] {
            for clause in suites::build(step, seed).clauses {
                for check in clause.checks.iter().take(3) {
                    if let Some(want) = expected_print(step, check) {
                        inputs.push((clause.key.clone(), render::call(step, &check.call)));
                        expected.push(want);
                    }
                }
            }
        }
    }
    assert!(inputs.len() > 50, "{} inputs", inputs.len());
    // Every test fails after its input, so that the harness shows its output.
    let source = std::fs::read_to_string(root().join("solutions/advanced.rs")).unwrap()
        + &module_ending(&inputs, "panic!(\"the end of the input\");");
    let out = cargo_test("pasted-worlds", &source, &["--", "--test-threads=1"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    // `dbg!` pretty-prints: compared without whitespace and trailing commas.
    let squeeze = |s: &str| -> String {
        let s: String = s.chars().filter(|c| !c.is_whitespace()).collect();
        s.replace(",)", ")").replace(",}", "}").replace(",]", "]")
    };
    let mut wrong = Vec::new();
    for (i, ((key, input), want)) in inputs.iter().zip(&expected).enumerate() {
        let head = format!("---- pasted::input_{i} stdout ----\n");
        let printed = stdout.find(&head).map_or("", |at| {
            let rest = &stdout[at + head.len()..];
            &rest[..rest.find("\n---- ").unwrap_or(rest.len())]
        });
        // `[lib.rs:L:C] call(…) = VALUE`, then the closing panic.
        let value = printed
            .split_once(") = ")
            .map_or("", |(_, v)| v.split("\nthread '").next().unwrap_or(v));
        let (same, want) = match want {
            Printed::Value(v) => (squeeze(value) == squeeze(v), v.as_str()),
            Printed::Holding(h) => (squeeze(printed).contains(&squeeze(h)), *h),
        };
        if !same {
            wrong.push(format!(
                "{key}:\n{input}\nexpected: {want}\nprinted: {printed}"
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} pasted worlds do not run as checked; the first:\n{}",
        wrong.len(),
        inputs.len(),
        wrong[0]
    );
}
