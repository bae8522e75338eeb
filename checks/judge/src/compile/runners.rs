//! One cargo build of the runners a run needs, in the kit or in a slot,
//! read back from cargo's JSON messages: each runner's executable, or the
//! compiler's words when the learner's code does not compile.
//!
//! Cargo alone decides what to compile and how: the kit's manifests and
//! profiles, the build script of the advanced runner, the features. The
//! judge writes no compiler flag of its own.

use super::blame::{self, Unit};
use super::{BuildError, Runner};
use crate::catalog::tr;
use crate::limits::Limits;
use crate::platform::Exit;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// Most bytes of cargo's standard output read: its JSON messages, each
/// diagnostic with its rendered text, its explanation and its places.
const STDOUT_CAP: usize = 4 << 20;

/// What cargo says about one target it built (or could not build).
#[derive(Debug, Deserialize)]
struct Message {
    reason: String,
    #[serde(default)]
    package_id: String,
    target: Option<Target>,
    /// An executable's path, in a `compiler-artifact`.
    executable: Option<PathBuf>,
    /// rustc's diagnostic, in a `compiler-message`, kept as it came.
    message: Option<serde_json::Value>,
}

#[derive(Debug, Deserialize)]
struct Target {
    name: String,
    kind: Vec<String>,
}

/// Which of the units built from the learner's code a message is about:
/// the learner's crate, or one of the two runners' binaries. Cargo names a
/// workspace package in `package_id` as `…#name@version` (or `…/name#…`).
fn unit_of(m: &Message) -> Option<Unit> {
    let target = m.target.as_ref()?;
    let package = m.package_id.rsplit_once('#').map_or("", |(before, after)| {
        let name = after.split('@').next().unwrap_or("");
        // `path+file:///…/student#0.1.0` names the package by its folder.
        if name.chars().next().is_some_and(|c| c.is_ascii_digit()) {
            before.rsplit('/').next().unwrap_or("")
        } else {
            name
        }
    });
    let bin = target.kind.iter().any(|k| k == "bin");
    match (package, target.name.as_str(), bin) {
        ("student", _, false) => Some(Unit::Student),
        ("lab-runner", "lab-runner", true) => Some(Unit::CoreMain),
        ("lab-runner-advanced", "lab-runner-advanced", true) => Some(Unit::Advanced),
        _ => None,
    }
}

/// What one build said, by unit.
#[derive(Debug, Default)]
struct Said {
    executables: Vec<(Unit, PathBuf)>,
    /// rustc's diagnostics about each unit, one JSON object a line.
    diagnostics: Vec<(Unit, String)>,
}

fn read_messages(stdout: &str) -> Said {
    let mut said = Said::default();
    for line in stdout.lines() {
        let Ok(m) = serde_json::from_str::<Message>(line) else {
            continue;
        };
        let Some(unit) = unit_of(&m) else {
            continue;
        };
        match m.reason.as_str() {
            "compiler-artifact" => {
                if let Some(exe) = m.executable {
                    said.executables.push((unit, exe));
                }
            }
            "compiler-message" => {
                if let Some(d) = m.message {
                    let mut text = d.to_string();
                    text.push('\n');
                    match said.diagnostics.iter_mut().find(|(u, _)| *u == unit) {
                        Some((_, all)) => all.push_str(&text),
                        None => said.diagnostics.push((unit, text)),
                    }
                }
            }
            _ => {}
        }
    }
    said
}

/// The cargo command that builds `runners`; with `lab-deps` when the
/// workspace has it (`deps`), whose features are the judge's: cargo then
/// resolves the same features as for lab.sh's build of the judge and
/// compiles none of the libraries again (without it, a first check
/// compiled serde, syn and the kit's libraries a second time: 7.9 s).
pub(super) fn args(runners: &[Runner], deps: bool) -> Vec<&'static str> {
    let mut args = vec!["build", "--message-format=json", "--color", "never"];
    if deps {
        args.extend(["-p", "lab-deps"]);
    }
    for runner in runners {
        args.extend([
            "-p",
            match runner {
                Runner::Core => "lab-runner",
                Runner::Advanced => "lab-runner-advanced",
            },
        ]);
    }
    if runners.len() > 1 || deps {
        // A broken advanced.rs never keeps the core runner from being built.
        args.push("--keep-going");
    }
    args
}

/// Builds `runners` with one cargo command in the workspace `dir` (the kit
/// or a slot), into `target`: for each, its binary, or the compiler's first
/// errors when the learner's code does not compile. The `Err` is the kit's
/// fault. `slot_reads` are the kit's folders a slot's build reads through
/// its links; `env` more variables for cargo.
pub(super) fn build(
    dir: &Path,
    target: &Path,
    runners: &[Runner],
    limits: &Limits,
    slot_reads: &[PathBuf],
    env: &[(&str, &str)],
) -> Result<Vec<Result<PathBuf, String>>, BuildError> {
    let started = std::time::Instant::now();
    let reads: Vec<&Path> = slot_reads.iter().map(PathBuf::as_path).collect();
    let (exit, stdout, stderr) = super::cargo_with(
        dir,
        target,
        &args(runners, dir.join("checks/deps/Cargo.toml").is_file()),
        limits.build,
        limits.confinement,
        &reads,
        env,
    )?;
    crate::timing::phase("cargo build of the runners", started);
    let stdout = super::clip(&stdout, STDOUT_CAP);
    let said = read_messages(stdout);
    let timed_out = matches!(exit, Exit::CaseTimeLimit | Exit::OverallTimeLimit);
    runners
        .iter()
        .map(|&runner| {
            let (last, units): (Unit, &[Unit]) = match runner {
                Runner::Core => (Unit::CoreMain, &[Unit::Student, Unit::CoreMain]),
                Runner::Advanced => (Unit::Advanced, &[Unit::Advanced]),
            };
            if let Some((_, exe)) = said.executables.iter().find(|(u, _)| *u == last) {
                return Ok(Ok(exe.clone()));
            }
            if timed_out {
                return Ok(Err(tr(
                    "build.too_slow",
                    &[("secs", &limits.build.as_secs_f64())],
                )));
            }
            for &unit in units {
                let Some((_, json)) = said.diagnostics.iter().find(|(u, _)| *u == unit) else {
                    continue;
                };
                let read = blame::read(json, unit);
                if !read.has_errors {
                    continue;
                }
                if read.learners {
                    return Ok(Err(super::first_errors(&read.as_cargo, 40)));
                }
                return Err(BuildError::Kit(format!(
                    "cargo ended with {exit:?}: {}",
                    super::first_errors(&read.as_cargo, 20)
                )));
            }
            match super::failed_build(&exit, &stderr) {
                // A student/Cargo.toml the learner broke is theirs.
                BuildError::DoesNotCompile(why) => Ok(Err(why)),
                kit => Err(kit),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const MESSAGES: &str = r#"{"reason":"compiler-artifact","package_id":"path+file:///k/checks/api#lab-api@0.1.0","target":{"kind":["lib"],"crate_types":["lib"],"name":"lab_api","src_path":"/k/checks/api/src/lib.rs"},"filenames":["/t/debug/deps/liblab_api-0a.rlib"],"executable":null,"fresh":true}
{"reason":"compiler-message","package_id":"path+file:///k/student#0.1.0","target":{"kind":["lib"],"crate_types":["lib"],"name":"student","src_path":"/k/student/src/lib.rs"},"message":{"$message_type":"diagnostic","message":"unused variable: `x`","code":{"code":"unused_variables","explanation":null},"level":"warning","spans":[],"children":[],"rendered":"warning: unused variable: `x`\n"}}
{"reason":"compiler-artifact","package_id":"path+file:///k/student#0.1.0","target":{"kind":["lib"],"name":"student"},"filenames":["/t/debug/deps/libstudent-1b.rlib"],"executable":null,"fresh":false}
{"reason":"compiler-message","package_id":"path+file:///k/checks/runner-advanced#lab-runner-advanced@0.1.0","target":{"kind":["bin"],"name":"lab-runner-advanced"},"message":{"$message_type":"diagnostic","message":"cannot find value `x` in this scope","code":{"code":"E0425","explanation":null},"level":"error","spans":[{"file_name":"checks/runner-advanced/src/../../../student/src/advanced.rs","line_start":3,"column_start":5,"label":null,"text":[],"expansion":null}],"children":[],"rendered":"error[E0425]: cannot find value `x` in this scope\n"}}
{"reason":"compiler-artifact","package_id":"path+file:///k/checks/runner#lab-runner@0.1.0","target":{"kind":["bin"],"name":"lab-runner"},"filenames":["/t/debug/lab-runner"],"executable":"/t/debug/lab-runner","fresh":false}
not json
{"reason":"build-finished","success":false}"#;

    #[test]
    fn cargo_s_messages_give_each_runner_and_each_unit_s_diagnostics() {
        let said = read_messages(MESSAGES);
        assert_eq!(
            said.executables,
            [(Unit::CoreMain, PathBuf::from("/t/debug/lab-runner"))]
        );
        let units: Vec<Unit> = said.diagnostics.iter().map(|(u, _)| *u).collect();
        assert_eq!(units, [Unit::Student, Unit::Advanced]);
        let advanced = blame::read(&said.diagnostics[1].1, Unit::Advanced);
        assert!(advanced.has_errors && advanced.learners);
        let student = blame::read(&said.diagnostics[0].1, Unit::Student);
        assert!(!student.has_errors);
    }

    #[test]
    fn only_the_learners_units_are_read() {
        // A library of the kit, or a test target of the student crate, is
        // none of the units a runner is built from.
        let other = r#"{"reason":"compiler-message","package_id":"path+file:///k/checks/api#lab-api@0.1.0","target":{"kind":["lib"],"name":"lab_api"},"message":{"level":"error"}}
{"reason":"compiler-artifact","package_id":"path+file:///k/checks/judge#lab-judge@0.1.0","target":{"kind":["bin"],"name":"lab-runner"},"executable":"/t/debug/x"}
{"reason":"compiler-artifact","package_id":"path+file:///k/student#student@0.1.0","target":{"kind":["bin"],"name":"student"},"executable":"/t/debug/student"}"#;
        let said = read_messages(other);
        assert!(said.executables.is_empty() && said.diagnostics.is_empty());
    }

    #[test]
    fn the_command_names_each_runner_and_keeps_going_past_a_broken_one() {
        assert_eq!(
            args(&[Runner::Core], false).join(" "),
            "build --message-format=json --color never -p lab-runner"
        );
        assert_eq!(
            args(&[Runner::Core, Runner::Advanced], false).join(" "),
            "build --message-format=json --color never -p lab-runner -p lab-runner-advanced --keep-going"
        );
        assert_eq!(
            args(&[Runner::Advanced], true).join(" "),
            "build --message-format=json --color never -p lab-deps -p lab-runner-advanced --keep-going"
        );
    }
}
