//! `lab.sh check`: build the runner with the learner's crate (or a subject
//! file in a slot), run the selected steps, print the libtest report.

use crate::build::{self, BuildError};
use crate::catalog::{t, tr};
use crate::cli::CheckArgs;
use crate::status;
use std::path::Path;

/// Records each checked step's verdict for `lab.sh status`.
fn remember(root: &Path, results: &[crate::evaluate::StepResult]) {
    let mut st = crate::state::load(root);
    let hash = crate::state::source_hash(&root.join("student/src/lib.rs"));
    for r in results {
        let e = st.steps.entry(r.suite.step.to_string()).or_default();
        let passed = r
            .verdicts
            .iter()
            .all(crate::verdict::ClauseVerdict::is_pass);
        e.last = Some(
            if passed {
                "passed"
            } else if r.not_started() {
                "not-started"
            } else {
                "failing"
            }
            .into(),
        );
        e.checked_at = Some(crate::state::now());
        e.source_hash = Some(hash.clone());
    }
    let _ = crate::state::save(root, &st);
}

pub fn rerun_command(args: &CheckArgs, seed: u64) -> String {
    let mut cmd = String::from("./lab.sh check");
    if args.steps.len() < crate::suites::STEPS.len() {
        for s in &args.steps {
            cmd += &format!(" {s}");
        }
    }
    if let Some(subject) = &args.subject {
        cmd += &format!(" --subject {}", subject.display());
    }
    cmd + &format!(" --seed {seed}")
}

pub fn run(root: &Path, args: &CheckArgs) -> u8 {
    let seed = args.seed.unwrap_or_else(crate::rng::fresh_seed);
    let seed_line = tr(
        "run.seed",
        &[("seed", &seed), ("command", &rerun_command(args, seed))],
    );
    println!("{seed_line}");
    // The suites are built while cargo compiles the runner.
    let steps = args.steps.clone();
    let started = std::time::Instant::now();
    let preparing = std::thread::Builder::new()
        .name("prepare".into())
        .spawn(move || {
            let p = crate::evaluate::prepare(&steps, seed);
            crate::timing("suites prepared", started);
            p
        });
    // Holds the slot's lock (if any) until the run is over.
    let built = match build::runner_for(root, args.subject.as_deref(), "check") {
        Ok(b) => b,
        Err(e) => {
            eprintln!("lab: {e}");
            return status::USAGE;
        }
    };
    let built = match built {
        Ok(b) => b,
        Err(BuildError::DoesNotCompile(errors)) => {
            let path = args
                .subject
                .as_ref()
                .map_or("student/src/lib.rs".into(), |p| p.display().to_string());
            println!(
                "{}\n\n{errors}\n",
                tr("run.build_failed", &[("path", &path)])
            );
            println!("{seed_line}");
            println!("0 passed, {} failed", args.steps.len());
            return status::DOES_NOT_COMPILE;
        }
        Err(BuildError::Kit(what)) => {
            eprintln!("lab: {}", tr("error.kit", &[("what", &what)]));
            return status::KIT_ERROR;
        }
    };
    let prepared = match preparing
        .map_err(|e| e.to_string())
        .and_then(|t| t.join().map_err(|_| "suite building panicked".to_string()))
    {
        Ok(p) => p,
        Err(e) => {
            eprintln!("lab: {}", tr("error.kit", &[("what", &e)]));
            return status::KIT_ERROR;
        }
    };
    let parallel = std::thread::available_parallelism().map_or(1, |n| n.get());
    let results =
        match crate::evaluate::run_prepared(&built.runner, prepared, args.limits, parallel) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("lab: {}", tr("error.kit", &[("what", &e)]));
                return status::KIT_ERROR;
            }
        };
    crate::timing("suites run", started);
    drop(built);
    if args.subject.is_none() {
        remember(root, &results);
    }
    let (passed, failed) = crate::console::report(&results, &args.limits);
    println!();
    let first_open = results.iter().find(|r| {
        !r.verdicts
            .iter()
            .all(crate::verdict::ClauseVerdict::is_pass)
    });
    let advice = match first_open {
        None => t("run.all_passed"),
        Some(r) if r.not_started() => {
            let n = r.suite.step.trim_start_matches('0');
            tr("run.start_step", &[("step", &r.suite.step), ("n", &n)])
        }
        Some(_) => t("run.next_step"),
    };
    println!("{advice}");
    println!("{seed_line}");
    println!("{passed} passed, {failed} failed");
    if failed == 0 {
        status::PASSED
    } else {
        status::FAILED
    }
}
