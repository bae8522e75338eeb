//! A submission's verdicts told as its report: steps, clauses, faults, and
//! the "needs review" report of one that could not be graded to the end.

use super::discovery::Submission;
use crate::catalog::tr;
use crate::compile;
use crate::console;
use crate::evaluate::StepResult;
use crate::limits::Limits;
use crate::report::{
    self, AdvancedBuild, Build, ClauseReport, ClauseStatus, StepReport, StepStatus,
    SubmissionReport,
};
use crate::status;
use crate::suites::{self, Track};
use crate::verdict::{ClauseVerdict, Fault};
use std::collections::BTreeMap;
use std::path::Path;

pub(super) fn fault_kind(fault: &Fault) -> report::FaultKind {
    use report::FaultKind as K;
    match fault {
        Fault::Wrong(_) => K::Wrong,
        Fault::NotImplemented => K::NotImplemented,
        Fault::Panicked(..) => K::Panicked,
        Fault::Runaway(..) => K::Runaway,
        Fault::TimedOut(_) | Fault::CutShort => K::TimedOut,
        Fault::Crashed { .. } => K::Crashed,
        Fault::Flooded => K::Flooded,
        Fault::Forged(_) => K::Forged,
        Fault::NotRun => K::NotRun,
    }
}

pub(super) fn clause_reports(result: &StepResult, limits: &Limits) -> Vec<ClauseReport> {
    let suite = &result.suite;
    suite
        .clauses
        .iter()
        .zip(&result.verdicts)
        .enumerate()
        .map(|(i, (clause, verdict))| {
            let failing = match verdict {
                ClauseVerdict::Failed { faults, .. } => faults.first(),
                _ => None,
            };
            // The input the clause is shown by: its first failing one, else its first.
            let shown = failing
                .map(|(k, _)| *k)
                .or((!clause.checks.is_empty()).then_some(0));
            let printed = result.run.output.get(i).map(Vec::as_slice).unwrap_or(&[]);
            let output = failing
                .and_then(|(k, _)| printed.get(*k).cloned().flatten())
                .or_else(|| printed.iter().flatten().next().cloned());
            let spent = result.run.spent.get(i).copied().unwrap_or_default();
            ClauseReport {
                key: clause.key.clone(),
                name: console::trial_name(suite.step, suite.function, &clause.key),
                status: match verdict {
                    ClauseVerdict::Passed { .. } => ClauseStatus::Passed,
                    ClauseVerdict::NotImplemented => ClauseStatus::NotImplemented,
                    ClauseVerdict::Failed { .. } => ClauseStatus::Failed,
                    ClauseVerdict::NotAttempted => ClauseStatus::NotAttempted,
                    ClauseVerdict::NotBuilt => ClauseStatus::NotBuilt,
                },
                message: console::failure_text(result, i, limits)
                    .map(|m| report::capped(&m, report::MESSAGE_CAP)),
                fault: failing.map(|(_, f)| fault_kind(f)),
                call: shown.map(|k| crate::render::call(suite.step, &clause.checks[k].call)),
                output,
                seconds: report::milliseconds(spent.as_secs_f64()),
            }
        })
        .collect()
}

pub(super) fn step_report(result: &StepResult, weight: u32, limits: &Limits) -> StepReport {
    let mut clauses = clause_reports(result, limits);
    let mistake = crate::mistakes::matched(result);
    // Said after the step's first failure, as `check` says it.
    if let Some(id) = mistake {
        let lead = clauses
            .iter_mut()
            .find(|c| c.status == ClauseStatus::Failed)
            .and_then(|c| c.message.as_mut());
        if let Some(message) = lead {
            *message += &format!("\n\n{}", crate::mistakes::line(id));
        }
    }
    let passed = clauses.iter().all(|c| c.status == ClauseStatus::Passed);
    let status = if passed {
        StepStatus::Passed
    } else if clauses
        .iter()
        .all(|c| c.status == ClauseStatus::NotAttempted)
    {
        StepStatus::NotAttempted
    } else if clauses.iter().all(|c| c.status == ClauseStatus::NotBuilt) {
        StepStatus::NotBuilt
    } else if result.not_started() {
        StepStatus::NotStarted
    } else {
        StepStatus::Failed
    };
    StepReport {
        step: result.suite.step.to_string(),
        function: result.suite.function.to_string(),
        passed,
        status,
        weight,
        score: if passed { weight } else { 0 },
        bonus: suites::is_advanced(result.suite.step),
        clauses,
        mistake: mistake.map(str::to_string),
        seconds: report::milliseconds(result.elapsed.as_secs_f64()),
    }
}

pub(super) fn not_built_steps(weights: &BTreeMap<String, u32>, seed: u64) -> Vec<StepReport> {
    suites::track(Track::Core)
        .map(|(step, function)| {
            let suite = suites::build(step, seed);
            StepReport {
                step: step.to_string(),
                function: function.to_string(),
                passed: false,
                status: StepStatus::NotBuilt,
                weight: weights[step],
                score: 0,
                bonus: false,
                clauses: suite
                    .clauses
                    .iter()
                    .map(|c| ClauseReport {
                        key: c.key.clone(),
                        name: console::trial_name(step, function, &c.key),
                        status: ClauseStatus::NotBuilt,
                        message: None,
                        fault: None,
                        call: None,
                        output: None,
                        seconds: 0.0,
                    })
                    .collect(),
                mistake: None,
                seconds: 0.0,
            }
        })
        .collect()
}

/// The report of a submission whose grading could not finish: "error —
/// needs review", with the reason. Its core steps count as not built; it
/// scores nothing until a person has looked.
pub(super) fn needs_review(
    sub: &Submission,
    reason: &str,
    weights: &BTreeMap<String, u32>,
    seed: u64,
) -> SubmissionReport {
    let mut steps = not_built_steps(weights, seed);
    for step in suites::advanced_ids() {
        steps.push(step_report(
            &StepResult::unavailable(step, seed, ClauseVerdict::NotAttempted),
            weights[step],
            &Limits::default(),
        ));
    }
    SubmissionReport {
        name: sub.name.clone(),
        build: Build::Error,
        build_errors: None,
        review: Some(report::capped(reason, report::MESSAGE_CAP)),
        score: 0,
        max_score: suites::core_ids().iter().map(|s| weights[*s]).sum(),
        bonus: 0,
        advanced_build: AdvancedBuild::Absent,
        advanced_build_errors: None,
        steps,
        seconds: 0.0,
        printed_bytes: 0,
        late: None,
    }
}

/// The grader's own folders a build or a runner may see (through the
/// variables cargo passes to the compiler, or the toolchain's paths), with
/// the names reports show instead, most specific first.
fn grader_places() -> Vec<(String, &'static str)> {
    let var = |name: &str| std::env::var_os(name).map(std::path::PathBuf::from);
    let home = var("HOME");
    let cargo_home = var("CARGO_HOME").or_else(|| home.as_ref().map(|h| h.join(".cargo")));
    let rustup_home = var("RUSTUP_HOME").or_else(|| home.as_ref().map(|h| h.join(".rustup")));
    [
        (cargo_home, "<cargo-home>"),
        (rustup_home, "<rustup-home>"),
        (home, "<home>"),
    ]
    .into_iter()
    .filter_map(|(p, name)| Some((p?.display().to_string(), name)))
    .collect()
}

/// `text` with the kit's own location replaced by `<kit>`, its target
/// folder (which may live elsewhere) by `<target>`, and the grader's home,
/// `CARGO_HOME` and `RUSTUP_HOME` by `<home>`, `<cargo-home>` and
/// `<rustup-home>`: a student's report never shows where the kit and its
/// slots live, nor the grader's own layout, whatever the submission
/// compiled in.
pub(super) fn scrub(text: &str, root: &Path) -> String {
    scrub_places(text, root, grader_places())
}

/// [`scrub`], with the grader's folders `grader`.
pub(super) fn scrub_places(text: &str, root: &Path, grader: Vec<(String, &str)>) -> String {
    let target = compile::target_dir(root).display().to_string();
    let root = root.display().to_string();
    let mut text = text.to_string();
    let mut places = vec![(target, "<target>"), (root, "<kit>")];
    places.extend(grader);
    for (place, name) in places {
        if place.len() > 1 {
            text = replace_path(&text, place.trim_end_matches('/'), name);
        }
    }
    text
}

/// `text` with every mention of the path `place` as whole components
/// replaced by `name`: `/tmp/kit/src` and `/tmp/kit` are, `/tmp/kit-tmp`,
/// `/tmp/kit.old` and `/x/tmp/kit` are not.
fn replace_path(text: &str, place: &str, name: &str) -> String {
    // Characters that continue a file name (a space or a quote ends one).
    let in_name = |c: char| c.is_alphanumeric() || "-_.~+@%,=".contains(c);
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(place) {
        let after = &rest[at + place.len()..];
        let starts = rest[..at]
            .chars()
            .next_back()
            .is_none_or(|c| !in_name(c) && c != '/');
        let ends = after.chars().next().is_none_or(|c| !in_name(c));
        out.push_str(&rest[..at]);
        out.push_str(if starts && ends { name } else { place });
        rest = after;
    }
    out.push_str(rest);
    out
}

/// Why a submission's crate may not compile, when its own manifest (the
/// `Cargo.toml` beside the `src/` of its `lib.rs`) names crates that
/// grading, with the kit's manifest, does not have: the learner's words
/// from `check`, then a blank line; the same of a manifest that is not
/// TOML (it names no crate anyone can tell); else nothing. A link, a FIFO
/// or a manifest past the cap is not read (`compile::read_manifest`).
pub(super) fn extra_dependencies_note(lib: &Path) -> String {
    let Some(manifest) = lib
        .parent()
        .filter(|src| src.file_name().is_some_and(|n| n == "src"))
        .and_then(Path::parent)
        .map(|d| d.join("Cargo.toml"))
    else {
        return String::new();
    };
    let text = compile::read_manifest(&manifest, false).unwrap_or_default();
    match compile::extra_dependencies(&text) {
        Ok(extra) if extra.is_empty() => String::new(),
        Ok(extra) => tr("run.extra_dependencies", &[("names", &extra.join(", "))]) + "\n\n",
        Err(not_toml) => not_toml.message() + "\n\n",
    }
}

/// PASSED, or NEEDS_REVIEW (with a line naming them) when some submissions
/// could not be graded to the end.
pub(super) fn review_status(submissions: &[SubmissionReport]) -> u8 {
    match review_line(submissions) {
        None => status::PASSED,
        Some(line) => {
            eprintln!("lab: {line}");
            status::NEEDS_REVIEW
        }
    }
}

/// The line naming the submissions that need review (each name as one
/// visible line), if any do.
pub(super) fn review_line(submissions: &[SubmissionReport]) -> Option<String> {
    let review: Vec<std::borrow::Cow<str>> = submissions
        .iter()
        .filter(|s| s.build == Build::Error)
        .map(|s| crate::visible::line(&s.name))
        .collect();
    (!review.is_empty()).then(|| tr("grade.needs_review", &[("names", &review.join(", "))]))
}
