//! One submission graded in a worker's slot, and the whole class on a few
//! workers: each builds every step's suite once and reuses it.

use super::discovery::Submission;
use super::verdicts::{extra_dependencies_note, needs_review, not_built_steps, scrub, step_report};
use crate::catalog::tr;
use crate::compile;
use crate::evaluate::{Prepared, StepResult};
use crate::limits::Limits;
use crate::report::{self, AdvancedBuild, Build, StepReport, SubmissionReport};
use crate::suites::{self};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

/// The suites of every step, built once by a grading worker for all the
/// submissions it grades (they share one seed): each is handed out again
/// per submission (see [`crate::evaluate::Prepared::again`]).
#[derive(Default)]
pub(super) struct Suites {
    core: Option<Vec<Prepared>>,
    advanced: Option<Vec<Prepared>>,
}

impl Suites {
    fn get(cache: &mut Option<Vec<Prepared>>, steps: &[&'static str], seed: u64) -> Vec<Prepared> {
        cache
            .get_or_insert_with(|| crate::evaluate::prepare(steps, seed))
            .iter()
            .map(Prepared::again)
            .collect()
    }
}

/// How many of one submission's suites a worker runs at once. Two, not
/// one: while one runner starts or ends, the other runs, so the processor
/// does not wait (grading the bench's twenty with `--jobs 2`: 3.61 s with
/// one at a time, 3.38 s with two, medians of 9). Time limits count each
/// runner's own processor time, so they hold however many run.
const SUITES_AT_ONCE: usize = 2;

pub(super) fn grade_one(
    root: &Path,
    slot: &str,
    sub: &Submission,
    seed: u64,
    limits: Limits,
    weights: &BTreeMap<String, u32>,
    suites: &mut Suites,
) -> Result<SubmissionReport, String> {
    let start = Instant::now();
    let Some(lib) = &sub.lib else {
        return Err(tr("grade.missing_lib", &[]));
    };
    let read = |p: &Path| compile::read_source(p);
    let sources = compile::Sources {
        lib: read(lib)?,
        advanced: sub.advanced.as_deref().map(read).transpose()?,
    };
    let runners = compile::runners(root, &limits, Some((slot, &sources)), true, true)?;
    crate::timing::phase("runners built", start);
    let core: Vec<&'static str> = suites::core_ids();
    let advanced: Vec<&'static str> = suites::advanced_ids();
    let max_score = core.iter().map(|s| weights[*s]).sum();
    let mut printed_bytes = 0;
    let mut report = |results: Vec<StepResult>| -> Vec<StepReport> {
        printed_bytes += results.iter().map(|r| r.run.printed).sum::<u64>();
        results
            .iter()
            .map(|r| step_report(r, weights[r.suite.step], &limits))
            .collect()
    };
    let (build, build_errors, mut steps) = match &runners.core {
        Some(Ok(runner)) => {
            let prepared = Suites::get(&mut suites.core, &core, seed);
            let results = crate::evaluate::run_prepared(runner, prepared, limits, SUITES_AT_ONCE)
                .map_err(|e| e.to_string())?;
            (Build::Ok, None, report(results))
        }
        Some(Err(errors)) => (
            Build::Failed,
            Some(report::capped(
                &(extra_dependencies_note(lib) + errors),
                report::MESSAGE_CAP,
            )),
            not_built_steps(weights, seed),
        ),
        None => return Err("the core runner was not built".into()),
    };
    // Suites are built and run only for an advanced file that compiled.
    let results = match crate::evaluate::unavailable_verdict(&runners.advanced) {
        None => {
            let prepared = Suites::get(&mut suites.advanced, &advanced, seed);
            crate::evaluate::run_with(None, &runners.advanced, prepared, limits, SUITES_AT_ONCE)
                .map_err(|e| e.to_string())?
        }
        Some(verdict) => advanced
            .iter()
            .map(|s| StepResult::unavailable(s, seed, verdict.clone()))
            .collect(),
    };
    steps.extend(report(results));
    let (advanced_build, advanced_build_errors) = match &runners.advanced {
        compile::Advanced::Built(_) => (AdvancedBuild::Ok, None),
        compile::Advanced::DoesNotCompile(errors) => (
            AdvancedBuild::Failed,
            Some(report::capped(errors, report::MESSAGE_CAP)),
        ),
        compile::Advanced::Absent | compile::Advanced::NotAsked => (AdvancedBuild::Absent, None),
    };
    drop(runners);
    crate::timing::phase("submission graded", start);
    for clause in steps.iter_mut().flat_map(|s| s.clauses.iter_mut()) {
        let texts = [&mut clause.message, &mut clause.output, &mut clause.call];
        for text in texts.into_iter().flatten() {
            *text = scrub(text, root);
        }
    }
    let build_errors = build_errors.map(|e| scrub(&e, root));
    let advanced_build_errors = advanced_build_errors.map(|e| scrub(&e, root));
    let score = steps.iter().filter(|s| !s.bonus).map(|s| s.score).sum();
    let bonus = steps.iter().filter(|s| s.bonus).map(|s| s.score).sum();
    Ok(SubmissionReport {
        name: sub.name.clone(),
        build,
        build_errors,
        review: None,
        score,
        max_score,
        bonus,
        advanced_build,
        advanced_build_errors,
        steps,
        seconds: (start.elapsed().as_secs_f64() * 1000.0).round() / 1000.0,
        printed_bytes,
        late: None,
    })
}

/// Grades submissions in `jobs` parallel slots; `on_done` sees each report
/// as it is finished (in finishing order). Reports come back in name order.
pub fn grade_class(
    root: &Path,
    submissions: Vec<Submission>,
    seed: u64,
    jobs: usize,
    limits: Limits,
    weights: &BTreeMap<String, u32>,
    mut on_done: impl FnMut(&SubmissionReport) -> Result<(), String>,
) -> Result<Vec<SubmissionReport>, String> {
    let mut reports = Vec::new();
    let suites: Vec<std::sync::Mutex<Suites>> =
        (0..jobs.max(1)).map(|_| Default::default()).collect();
    crate::pool::run(
        "grade",
        jobs,
        submissions,
        |j, sub: Submission| {
            // Only worker j takes its own lock.
            let mut suites = suites[j].lock().unwrap_or_else(|e| e.into_inner());
            grade_one(
                root,
                &format!("grade-{j}"),
                &sub,
                seed,
                limits,
                weights,
                &mut suites,
            )
            .unwrap_or_else(|why| needs_review(&sub, &scrub(&why, root), weights, seed))
        },
        |report| {
            on_done(&report)?;
            reports.push(report);
            Ok(())
        },
    )?;
    reports.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(reports)
}
