//! `lab-judge selftest`: proves the checker against known answers, through
//! the same slot path a learner's submission takes. The reference solution
//! must pass every step under many seeds, the pristine stubs must fail every
//! step as "not implemented", every alternative must pass, and every mutant
//! must be caught by the clause its header names.

use crate::build::{self, BuildError};
use crate::cli::SelftestArgs;
use crate::evaluate::{evaluate, StepResult};
use crate::session::Limits;
use crate::status;
use crate::suites::STEPS;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone)]
enum Expectation {
    /// Passes every step under each of these seeds.
    PassAll(Vec<u64>),
    /// Every step fails with every clause "not implemented yet".
    NotStarted,
    /// Fails its step, and the named clause is among the failures.
    Caught { clause: String },
}

#[derive(Debug, Clone)]
struct Subject {
    kind: &'static str,
    name: String,
    lib: PathBuf,
    expect: Expectation,
}

/// What one subject (or one graded sample submission) came to.
struct Finding {
    kind: &'static str,
    name: String,
    /// For a mutant, the clause its header names.
    caught_by: Option<String>,
    ok: bool,
    detail: String,
}

impl Finding {
    fn of(subject: Subject, ok: bool, detail: String) -> Finding {
        let caught_by = match subject.expect {
            Expectation::Caught { clause } => Some(clause),
            Expectation::PassAll(_) | Expectation::NotStarted => None,
        };
        Finding {
            kind: subject.kind,
            name: subject.name,
            caught_by,
            ok,
            detail,
        }
    }
}

/// Reads `// caught-by: 04/attempt-above-30` from a mutant's header.
pub fn caught_by(source: &str) -> Option<String> {
    source
        .lines()
        .take_while(|l| l.starts_with("//"))
        .find_map(|l| l.strip_prefix("// caught-by:"))
        .map(|s| s.trim().to_string())
}

fn rs_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "rs"));
    files.sort();
    files
}

fn stem(p: &Path) -> String {
    p.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn subjects(root: &Path, args: &SelftestArgs, seed: u64) -> Vec<Subject> {
    let seeds: Vec<u64> = (0..u64::from(args.seeds))
        .map(|i| seed.wrapping_add(i))
        .collect();
    let mut out = vec![
        Subject {
            kind: "solutions",
            name: "solutions".into(),
            lib: root.join("solutions/src/lib.rs"),
            expect: Expectation::PassAll(seeds),
        },
        Subject {
            kind: "stubs",
            name: "pristine stubs".into(),
            lib: root.join("fixtures/pristine/lib.rs"),
            expect: Expectation::NotStarted,
        },
    ];
    for lib in rs_files(&root.join("fixtures/alternatives")) {
        let seeds = vec![seed, seed.wrapping_add(1), seed.wrapping_add(2)];
        out.push(Subject {
            kind: "alternative",
            name: stem(&lib),
            expect: Expectation::PassAll(seeds),
            lib,
        });
    }
    for lib in rs_files(&root.join("fixtures/mutants")) {
        let source = std::fs::read_to_string(&lib).unwrap_or_default();
        let clause = caught_by(&source).unwrap_or_default();
        out.push(Subject {
            kind: "mutant",
            name: stem(&lib),
            expect: Expectation::Caught { clause },
            lib,
        });
    }
    if let Some(only) = &args.only {
        out.retain(|s| s.kind.starts_with(only.as_str()) || s.name.contains(only.as_str()));
    }
    out
}

fn failed_clauses(results: &[StepResult]) -> Vec<String> {
    results
        .iter()
        .flat_map(|r| {
            r.suite
                .clauses
                .iter()
                .zip(&r.verdicts)
                .filter(|(_, v)| !v.is_pass())
                .map(|(c, _)| c.key.clone())
        })
        .collect()
}

fn all_steps() -> Vec<&'static str> {
    STEPS.iter().map(|(s, _)| *s).collect()
}

fn examine(
    root: &Path,
    slot: &str,
    subject: &Subject,
    seed: u64,
) -> Result<(bool, String), String> {
    let source =
        std::fs::read(&subject.lib).map_err(|e| format!("{}: {e}", subject.lib.display()))?;
    let slot = match build::runner_in_slot(root, slot, &source) {
        Ok(s) => s,
        Err(BuildError::DoesNotCompile(e)) => {
            return Ok((false, format!("does not compile:\n{e}")))
        }
        Err(BuildError::Kit(e)) => return Err(e),
    };
    let limits = Limits::default();
    let run = |steps: &[&'static str], seed: u64| {
        evaluate(&slot.runner, steps, seed, limits).map_err(|e| e.to_string())
    };
    match &subject.expect {
        Expectation::PassAll(seeds) => {
            for &s in seeds {
                let failed = failed_clauses(&run(&all_steps(), s)?);
                if !failed.is_empty() {
                    return Ok((
                        false,
                        format!("rejected under seed {s}: {}", failed.join(", ")),
                    ));
                }
            }
            Ok((
                true,
                format!("passes all 8 steps under {} seeds", seeds.len()),
            ))
        }
        Expectation::NotStarted => {
            let results = run(&all_steps(), seed)?;
            let started: Vec<&str> = results
                .iter()
                .filter(|r| !r.not_started())
                .map(|r| r.suite.step)
                .collect();
            if started.is_empty() {
                Ok((true, "all 8 steps fail as not implemented yet".into()))
            } else {
                Ok((
                    false,
                    format!(
                        "steps {} do not read as not implemented",
                        started.join(", ")
                    ),
                ))
            }
        }
        Expectation::Caught { clause } => {
            let Some(step) = crate::suites::parse_step(clause.split('/').next().unwrap_or(""))
            else {
                return Ok((
                    false,
                    "header has no valid `// caught-by: NN/clause` line".into(),
                ));
            };
            let failed = failed_clauses(&run(&[step], seed)?);
            if failed.is_empty() {
                Ok((false, format!("SURVIVED step {step}")))
            } else if failed.contains(clause) {
                let others = failed.len() - 1;
                Ok((
                    true,
                    format!(
                        "caught by {clause}{}",
                        if others > 0 {
                            format!(" (+{others} more)")
                        } else {
                            String::new()
                        }
                    ),
                ))
            } else {
                Ok((
                    false,
                    format!("caught, but not by {clause}: {}", failed.join(", ")),
                ))
            }
        }
    }
}

pub fn run(root: &Path, args: &SelftestArgs) -> u8 {
    let seed = args.seed.unwrap_or_else(crate::rng::fresh_seed);
    let rerun = format!("./lab.sh selftest --seed {seed}");
    println!("selftest seed {seed} — rerun exactly with: {rerun}");
    let subjects = subjects(root, args, seed);
    let total = subjects.len();
    let mut findings = Vec::new();
    let work = |j: usize, subject: Subject| {
        examine(root, &format!("selftest-{j}"), &subject, seed)
            .map(|(ok, detail)| Finding::of(subject, ok, detail))
    };
    let pooled = crate::pool::run("selftest", args.jobs, subjects, work, |result| {
        let f = result?;
        print_finding(&f);
        findings.push(f);
        Ok(())
    });
    if let Err(e) = pooled {
        eprintln!("lab: the kit itself failed: {e}");
        return status::KIT_ERROR;
    }
    if args.only.as_deref().is_none_or(|o| "class".starts_with(o)) {
        match grade_sample_class(root, seed) {
            Ok(class) => {
                for f in class {
                    print_finding(&f);
                    findings.push(f);
                }
            }
            Err(e) => {
                eprintln!("lab: the kit itself failed: {e}");
                return status::KIT_ERROR;
            }
        }
    }
    print_scores(&findings);
    let passed = findings.iter().filter(|f| f.ok).count();
    let failed = findings.len() - passed;
    println!("selftest seed {seed} — rerun exactly with: {rerun}");
    println!("{passed} passed, {failed} failed");
    if failed == 0 && findings.len() >= total {
        status::PASSED
    } else {
        status::FAILED
    }
}

/// Grades fixtures/submissions through the instructors' path and compares
/// every submission's build and step statuses with the hand-written
/// fixtures/submissions/expected.json.
fn grade_sample_class(root: &Path, seed: u64) -> Result<Vec<Finding>, String> {
    let dir = root.join("fixtures/submissions");
    let text = std::fs::read_to_string(dir.join("expected.json"))
        .map_err(|e| format!("expected.json: {e}"))?;
    let expected: BTreeMap<String, serde_json::Value> =
        serde_json::from_str(&text).map_err(|e| format!("expected.json: {e}"))?;
    let folders: Vec<PathBuf> = expected.keys().map(|name| dir.join(name)).collect();
    let subs = crate::grade::resolve(&folders)?;
    let weights = crate::grade::weights(root)?;
    let reports =
        crate::grade::grade_class(root, subs, seed, 2, Limits::default(), &weights, |_| Ok(()))?;
    let status_name = |s: &crate::report::StepReport| {
        serde_json::to_value(s.status)
            .ok()
            .and_then(|v| v.as_str().map(String::from))
    };
    Ok(reports
        .into_iter()
        .map(|r| {
            let want = &expected[&r.name];
            let mut wrong = Vec::new();
            let build = serde_json::to_value(r.build)
                .ok()
                .and_then(|v| v.as_str().map(String::from));
            if build.as_deref() != want["build"].as_str() {
                wrong.push(format!("build {build:?}, expected {}", want["build"]));
            }
            for step in &r.steps {
                let got = status_name(step);
                if got.as_deref() != want["steps"][&step.step].as_str() {
                    wrong.push(format!(
                        "step {} {got:?}, expected {}",
                        step.step, want["steps"][&step.step]
                    ));
                }
            }
            let detail = if wrong.is_empty() {
                format!(
                    "graded as expected: {}/{} ({:.1} s)",
                    r.score, r.max_score, r.seconds
                )
            } else {
                wrong.join("; ")
            };
            Finding {
                kind: "class",
                name: r.name.clone(),
                caught_by: None,
                ok: wrong.is_empty(),
                detail,
            }
        })
        .collect())
}

fn print_finding(f: &Finding) {
    let mark = if f.ok { "ok  " } else { "FAIL" };
    println!("{mark} {:<12} {:<44} {}", f.kind, f.name, f.detail);
}

fn print_scores(findings: &[Finding]) {
    let mut per_step: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    for f in findings {
        if let Some(clause) = &f.caught_by {
            let step = clause.split('/').next().unwrap_or("??").to_string();
            let entry = per_step.entry(step).or_default();
            entry.1 += 1;
            entry.0 += usize::from(f.ok);
        }
    }
    if per_step.is_empty() {
        return;
    }
    println!("\nmutation score (mutants caught by their named clause):");
    let (mut caught, mut all) = (0, 0);
    for (step, (c, n)) in &per_step {
        println!(
            "  step {step}: {c}/{n} ({:.0} %)",
            100.0 * *c as f64 / *n as f64
        );
        caught += c;
        all += n;
    }
    println!(
        "  total:   {caught}/{all} ({:.0} %)\n",
        100.0 * caught as f64 / all as f64
    );
    let alternatives: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.kind == "alternative")
        .collect();
    if !alternatives.is_empty() {
        let ok = alternatives.iter().filter(|f| f.ok).count();
        println!("alternatives accepted: {ok}/{}\n", alternatives.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_caught_by_header_is_read_from_the_leading_comments_only() {
        let src = "// mutant: x\n// caught-by: 04/attempt-above-30\npub use lab_api::*;\n// caught-by: 01/nope\n";
        assert_eq!(caught_by(src).as_deref(), Some("04/attempt-above-30"));
        assert_eq!(caught_by("pub use lab_api::*;\n// caught-by: 01/x"), None);
    }

    #[test]
    fn the_pristine_stubs_are_the_students_starting_point() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let pristine = std::fs::read(root.join("fixtures/pristine/lib.rs")).unwrap();
        let student = std::fs::read(root.join("student/src/lib.rs")).unwrap();
        assert!(
            pristine == student,
            "student/src/lib.rs differs from fixtures/pristine/lib.rs"
        );
    }
}
