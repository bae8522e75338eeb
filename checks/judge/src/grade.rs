//! `lab.sh grade`: grades a class of submission folders on top of pristine
//! copies of the kit, in parallel slots, and writes the reports; `--merge`
//! joins the summaries of shards into one.

use crate::build;
use crate::catalog::{t, tr};
use crate::console;
use crate::evaluate::{Prepared, StepResult};
use crate::files::write_atomically;
use crate::limits::Limits;
use crate::report::{
    self, AdvancedBuild, Build, ClassReport, ClauseReport, ClauseStatus, StepReport, StepStatus,
    SubmissionReport,
};
use crate::status;
use crate::suites::{self, Track};
use crate::verdict::{ClauseVerdict, Fault};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[derive(Debug, Clone)]
pub struct GradeArgs {
    pub out: PathBuf,
    pub seed: Option<u64>,
    pub jobs: usize,
    /// (I, N): grade the I-th of N stable slices, 1-based.
    pub shard: Option<(usize, usize)>,
    pub limits: Limits,
    pub submissions: Vec<PathBuf>,
    /// Shard output folders to join instead of grading.
    pub merge: Vec<PathBuf>,
}

/// A submission to grade: its name, its report folder, its lib.rs and its
/// advanced.rs (when it has one), nothing else.
#[derive(Debug, Clone)]
pub struct Submission {
    /// The submission folder's own name, as reports show it.
    pub name: String,
    /// Its report folder under `--out` (see [`crate::folders`]).
    pub folder: String,
    /// None: the folder holds no lib.rs; the submission is graded as
    /// "no lib.rs found" (needs review, 0 points).
    pub lib: Option<PathBuf>,
    pub advanced: Option<PathBuf>,
}

/// Points per step, from fixtures/weights.json (1 each when absent). The
/// advanced steps' points are bonus points.
pub fn weights(root: &Path) -> Result<BTreeMap<String, u32>, String> {
    let mut out: BTreeMap<String, u32> = suites::all_steps()
        .map(|(s, _)| (s.to_string(), 1))
        .collect();
    let path = root.join("fixtures/weights.json");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(out);
    };
    let given: BTreeMap<String, u32> =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    for (step, weight) in given {
        let Some(key) = out.get_mut(&step) else {
            return Err(tr(
                "error.weights_unknown_step",
                &[("path", &path.display()), ("step", &step)],
            ));
        };
        *key = weight;
    }
    Ok(out)
}

/// The class named on the command line, in name order, each with its report
/// folder (computed over the whole class, so every shard agrees).
///
/// A path that does not exist, is not a folder, has no name (`/`), or
/// repeats another's name is a bad command line: one line, exit 2, nothing
/// graded. A folder without a lib.rs is a submission like any other: it is
/// reported as "no lib.rs found" and the class goes on.
pub fn resolve(paths: &[PathBuf]) -> Result<Vec<Submission>, String> {
    let mut seen = BTreeMap::new();
    for path in paths {
        let shown = shown_path(path);
        if !path.exists() {
            return Err(tr("error.missing_folder", &[("path", &shown)]));
        }
        if !path.is_dir() {
            return Err(tr("error.not_a_folder", &[("path", &shown)]));
        }
        let name = path
            .canonicalize()
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_default();
        if name.is_empty() {
            return Err(tr("error.bad_submission_name", &[("path", &shown)]));
        }
        if seen
            .insert(
                name.clone(),
                Submission {
                    name: name.clone(),
                    folder: String::new(),
                    advanced: build::subject_advanced(path),
                    lib: build::subject_lib(path).ok(),
                },
            )
            .is_some()
        {
            return Err(tr("error.duplicate_submission", &[("name", &name)]));
        }
    }
    let folders = crate::folders::folders(seen.keys().map(String::as_str));
    Ok(seen
        .into_values()
        .map(|mut s| {
            s.folder = folders[&s.name].clone();
            s
        })
        .collect())
}

/// A path as the console shows it: one visible line (a submission folder's
/// name may hold any character; see [`crate::visible`]).
fn shown_path(path: &Path) -> String {
    crate::visible::line(&path.display().to_string()).into_owned()
}

/// The I-th of N slices of name-ordered submissions: the same set always
/// splits the same way, whoever runs it.
fn shard(all: Vec<Submission>, shard: Option<(usize, usize)>) -> Vec<Submission> {
    match shard {
        None => all,
        Some((i, n)) => all
            .into_iter()
            .enumerate()
            .filter(|(k, _)| k % n == i - 1)
            .map(|(_, s)| s)
            .collect(),
    }
}

fn fault_kind(fault: &Fault) -> report::FaultKind {
    use report::FaultKind as K;
    match fault {
        Fault::Wrong(_) => K::Wrong,
        Fault::NotImplemented => K::NotImplemented,
        Fault::Panicked(..) => K::Panicked,
        Fault::Runaway(_) => K::Runaway,
        Fault::TimedOut => K::TimedOut,
        Fault::Crashed { .. } => K::Crashed,
        Fault::Flooded => K::Flooded,
        Fault::Forged(_) => K::Forged,
        Fault::NotRun => K::NotRun,
    }
}

fn clause_reports(result: &StepResult, limits: &Limits) -> Vec<ClauseReport> {
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

fn step_report(result: &StepResult, weight: u32, limits: &Limits) -> StepReport {
    let clauses = clause_reports(result, limits);
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
        seconds: report::milliseconds(result.elapsed.as_secs_f64()),
    }
}

fn not_built_steps(weights: &BTreeMap<String, u32>, seed: u64) -> Vec<StepReport> {
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
                seconds: 0.0,
            }
        })
        .collect()
}

/// The report of a submission whose grading could not finish: "error —
/// needs review", with the reason. Its core steps count as not built; it
/// scores nothing until a person has looked.
fn needs_review(
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
    }
}

/// `text` with the kit's own location replaced by `<kit>` and its target
/// folder (which may live elsewhere) by `<target>`: a student's report
/// never shows where the kit and its slots live.
fn scrub(text: &str, root: &Path) -> String {
    let target = build::target_dir(root).display().to_string();
    let root = root.display().to_string();
    let mut text = text.to_string();
    for (place, name) in [(target, "<target>"), (root, "<kit>")] {
        if place.len() > 1 {
            text = text.replace(&place, name);
        }
    }
    text
}

/// Why a submission's crate may not compile, when its own manifest (the
/// `Cargo.toml` beside the `src/` of its `lib.rs`) names crates that
/// grading, with the kit's manifest, does not have: the learner's words
/// from `check`, then a blank line; else nothing. A link is not read.
fn extra_dependencies_note(lib: &Path) -> String {
    let Some(manifest) = lib
        .parent()
        .filter(|src| src.file_name().is_some_and(|n| n == "src"))
        .and_then(Path::parent)
        .map(|d| d.join("Cargo.toml"))
    else {
        return String::new();
    };
    let regular = std::fs::symlink_metadata(&manifest).is_ok_and(|m| m.is_file());
    let text = if regular {
        std::fs::read_to_string(&manifest).unwrap_or_default()
    } else {
        String::new()
    };
    let extra = build::extra_dependencies(&text);
    if extra.is_empty() {
        return String::new();
    }
    tr("run.extra_dependencies", &[("names", &extra.join(", "))]) + "\n\n"
}

/// The suites of every step, built once by a grading worker for all the
/// submissions it grades (they share one seed): each is handed out again
/// per submission (see [`crate::evaluate::Prepared::again`]).
#[derive(Default)]
struct Suites {
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

fn grade_one(
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
    let read = |p: &Path| build::read_source(p);
    let sources = build::Sources {
        lib: read(lib)?,
        advanced: sub.advanced.as_deref().map(read).transpose()?,
    };
    let runners = build::runners(root, Some((slot, &sources)), true, true)?;
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
            let results = crate::evaluate::run_prepared(runner, prepared, limits, 1)
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
            crate::evaluate::run_with(None, &runners.advanced, prepared, limits, 1)
                .map_err(|e| e.to_string())?
        }
        Some(verdict) => advanced
            .iter()
            .map(|s| StepResult::unavailable(s, seed, verdict.clone()))
            .collect(),
    };
    steps.extend(report(results));
    let (advanced_build, advanced_build_errors) = match &runners.advanced {
        build::Advanced::Built(_) => (AdvancedBuild::Ok, None),
        build::Advanced::DoesNotCompile(errors) => (
            AdvancedBuild::Failed,
            Some(report::capped(errors, report::MESSAGE_CAP)),
        ),
        build::Advanced::Absent | build::Advanced::NotAsked => (AdvancedBuild::Absent, None),
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
    })
}

/// Writes one submission's reports into `out/folder` (its portable folder;
/// the reports inside carry its real name).
fn write_submission(
    out: &Path,
    folder: &str,
    s: &SubmissionReport,
    seed: &str,
) -> std::io::Result<()> {
    let dir = out.join(folder);
    write_atomically(&dir.join("result.json"), report::kit::result_json(s, seed))?;
    write_atomically(&dir.join("junit.xml"), report::junit::junit_xml(s, seed))?;
    write_atomically(
        &dir.join("gradescope/results.json"),
        report::gradescope::results_json(s, seed),
    )?;
    write_atomically(
        &dir.join("exercism/results.json"),
        report::exercism::results_json(s),
    )
}

/// The summary of a class, each submission with its report folder.
fn summary_with_folders(
    class: &ClassReport,
    folders: &BTreeMap<String, String>,
) -> report::summary::SummaryFile {
    let mut summary = report::summary::summary_of(class);
    for s in &mut summary.submissions {
        s.folder = folders.get(&s.name).cloned();
    }
    summary
}

fn write_summaries(out: &Path, summary: &report::summary::SummaryFile) -> std::io::Result<()> {
    write_atomically(
        &out.join("summary.csv"),
        report::summary::summary_csv(summary),
    )?;
    write_atomically(
        &out.join("summary.md"),
        report::summary::summary_md(summary),
    )?;
    // Last: its presence means the folder is complete.
    write_atomically(
        &out.join("summary.json"),
        report::summary::summary_json_from(summary),
    )
}

/// Columns of a submission's name in a row, and of a step's mark.
const NAME_COLUMNS: usize = 28;
const MARK_COLUMNS: usize = 4;

/// A step's mark in a row, right-aligned in its columns.
fn mark(s: StepStatus) -> String {
    let key = match s {
        StepStatus::Passed => "grade.row.passed",
        StepStatus::Failed => "grade.row.failed",
        StepStatus::NotStarted => "grade.row.not_started",
        StepStatus::NotBuilt => return "-".repeat(MARK_COLUMNS),
        StepStatus::NotAttempted => "grade.row.not_attempted",
    };
    crate::render::right_aligned(&t(key), MARK_COLUMNS)
}

/// The console's line for one graded submission.
fn row(s: &SubmissionReport) -> String {
    let shown = s.attempted();
    let steps: Vec<String> = shown.steps.iter().map(|st| mark(st.status)).collect();
    let build = t(match s.build {
        Build::Ok => "grade.row.built",
        Build::Failed => "grade.row.not_built",
        Build::Error => "grade.row.needs_review",
    });
    let bonus = match s.advanced_build {
        AdvancedBuild::Absent => String::new(),
        AdvancedBuild::Ok => format!("  {}", tr("grade.row.bonus", &[("bonus", &s.bonus)])),
        AdvancedBuild::Failed => format!("  {}", t("grade.row.advanced_not_built")),
    };
    let seconds = tr(
        "grade.row.seconds",
        &[("secs", &format!("{:.1}", s.seconds))],
    );
    format!(
        "{} {:>3}/{:<3} {}  {build}{bonus}  {seconds}",
        crate::render::padded(&s.name, NAME_COLUMNS),
        s.score,
        s.max_score,
        steps.join(" "),
    )
}

fn print_row(s: &SubmissionReport) {
    println!("{}", row(s));
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

pub fn run(root: &Path, args: &GradeArgs) -> u8 {
    if !args.merge.is_empty() {
        return merge(args);
    }
    run_with(root, args, true)
}

/// Grades `args.submissions`. With `strict`, a kernel that cannot confine
/// learner code whole is refused (unless `--unsandboxed`); without it
/// (Gradescope's container, where the container is the boundary), learner
/// code gets what confinement there is.
pub fn run_with(root: &Path, args: &GradeArgs, strict: bool) -> u8 {
    crate::build::set_build_timeout(args.limits.build);
    if let Err(refused) =
        crate::sandbox::enter(&args.limits, strict, &crate::build::target_dir(root))
    {
        eprintln!("lab: {refused}");
        return status::USAGE;
    }
    let weights = match weights(root) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("lab: {e}");
            return status::USAGE;
        }
    };
    let all = match resolve(&args.submissions) {
        Ok(all) => all,
        Err(e) => {
            eprintln!("lab: {e}");
            return status::USAGE;
        }
    };
    let mine = shard(all, args.shard);
    let folders: BTreeMap<String, String> = mine
        .iter()
        .map(|s| (s.name.clone(), s.folder.clone()))
        .collect();
    let seed = args.seed.unwrap_or_else(crate::rng::fresh_seed);
    let mut rerun = format!("./lab.sh grade --seed {seed}");
    if let Some((i, n)) = args.shard {
        rerun += &format!(" --shard {i}/{n}");
    }
    rerun += &format!(" --out {} SUBMISSION...", shown_path(&args.out));
    println!(
        "{}",
        tr(
            "grade.started",
            &[("count", &mine.len()), ("seed", &seed), ("command", &rerun)]
        )
    );
    let started = Instant::now();
    let seed_text = seed.to_string();
    let out = args.out.clone();
    // The watchdog: past its bound, whatever has not finished is "needs
    // review" and the summary is written all the same.
    let done: Arc<Mutex<Vec<SubmissionReport>>> = Arc::default();
    let bound = watchdog_bound(&args.limits, mine.len(), args.jobs);
    watchdog(bound, &mine, Arc::clone(&done), &args.out, seed, &weights);
    let on_done = |report: &SubmissionReport| {
        print_row(report);
        let folder = folders
            .get(&report.name)
            .cloned()
            .unwrap_or_else(|| crate::folders::mapped(&report.name));
        write_submission(&out, &folder, report, &seed_text).map_err(|e| e.to_string())?;
        if let Ok(mut d) = done.lock() {
            d.push(report.clone());
        }
        Ok(())
    };
    let reports = match grade_class(root, mine, seed, args.jobs, args.limits, &weights, on_done) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("lab: {}", tr("error.kit", &[("what", &e)]));
            return status::KIT_ERROR;
        }
    };
    let class = ClassReport {
        schema: report::GRADE_SCHEMA.into(),
        seed: seed.to_string(),
        submissions: reports,
    };
    if let Err(e) = write_summaries(&args.out, &summary_with_folders(&class, &folders)) {
        eprintln!("lab: {}", tr("error.kit", &[("what", &e)]));
        return status::KIT_ERROR;
    }
    let full = class
        .submissions
        .iter()
        .filter(|s| s.score == s.max_score)
        .count();
    println!(
        "{}",
        tr(
            "grade.done",
            &[
                ("count", &class.submissions.len()),
                ("secs", &format!("{:.1}", started.elapsed().as_secs_f64())),
                ("full", &full),
                ("out", &shown_path(&args.out)),
            ]
        )
    );
    println!(
        "{}",
        tr("grade.seed", &[("seed", &seed), ("command", &rerun)])
    );
    review_status(&class.submissions)
}

/// PASSED, or NEEDS_REVIEW (with a line naming them) when some submissions
/// could not be graded to the end.
fn review_status(submissions: &[SubmissionReport]) -> u8 {
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
fn review_line(submissions: &[SubmissionReport]) -> Option<String> {
    let review: Vec<std::borrow::Cow<str>> = submissions
        .iter()
        .filter(|s| s.build == Build::Error)
        .map(|s| crate::visible::line(&s.name))
        .collect();
    (!review.is_empty()).then(|| tr("grade.needs_review", &[("names", &review.join(", "))]))
}

/// How long a whole grade may take: every submission at its worst (the
/// kit's warm-up build, the learner's build, every suite at its limit),
/// `jobs` at a time, and a minute to spare.
fn watchdog_bound(limits: &Limits, count: usize, jobs: usize) -> Duration {
    let suites = suites::all_steps().count() as u32;
    let one = (build::WARM_LIMIT + limits.build * 2) * crate::spawn::TOOL_WALL_FACTOR
        + limits.suite * suites;
    one * count.div_ceil(jobs.max(1)).max(1) as u32 + Duration::from_secs(60)
}

/// Starts the watchdog thread: if grading is still running after `bound`,
/// it writes the summary with every finished report and the rest marked
/// "needs review", kills every runner and build, and ends the judge with
/// NEEDS_REVIEW.
fn watchdog(
    bound: Duration,
    all: &[Submission],
    done: Arc<Mutex<Vec<SubmissionReport>>>,
    out: &Path,
    seed: u64,
    weights: &BTreeMap<String, u32>,
) {
    let (all, out, weights) = (all.to_vec(), out.to_path_buf(), weights.clone());
    let _ = std::thread::Builder::new()
        .name("grade-watchdog".into())
        .spawn(move || {
            std::thread::sleep(bound);
            let mut reports = done.lock().map(|d| d.clone()).unwrap_or_default();
            let why = tr("grade.watchdog", &[("secs", &bound.as_secs())]);
            for sub in &all {
                if !reports.iter().any(|r| r.name == sub.name) {
                    let report = needs_review(sub, &why, &weights, seed);
                    let _ = write_submission(&out, &sub.folder, &report, &seed.to_string());
                    reports.push(report);
                }
            }
            let folders: BTreeMap<String, String> = all
                .iter()
                .map(|s| (s.name.clone(), s.folder.clone()))
                .collect();
            reports.sort_by(|a, b| a.name.cmp(&b.name));
            let class = ClassReport {
                schema: report::GRADE_SCHEMA.into(),
                seed: seed.to_string(),
                submissions: reports,
            };
            let _ = write_summaries(&out, &summary_with_folders(&class, &folders));
            crate::spawn::kill_all();
            std::process::exit(review_status(&class.submissions).into());
        });
}

/// Joins shard folders written by `grade --out` into `args.out`: the
/// summaries (checked for one seed and no submission twice) and every
/// submission's report folder. A shard folder without a summary.json (its
/// grading job failed, or its artifact never arrived) is named on stderr and
/// left out; the others are merged all the same and the status is
/// NEEDS_REVIEW. With no shard at all to merge, it is a bad command line.
fn merge(args: &GradeArgs) -> u8 {
    let mut merged: Option<report::summary::SummaryFile> = None;
    let mut missing: Vec<String> = Vec::new();
    for dir in &args.merge {
        let path = dir.join("summary.json");
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(_) => {
                eprintln!(
                    "lab: {}",
                    tr("grade.missing_shard", &[("path", &shown_path(dir))])
                );
                missing.push(shown_path(dir));
                continue;
            }
        };
        let file = match report::summary::read_summary(&text) {
            Ok(f) => f,
            Err(e) => {
                eprintln!("lab: {}: {}", shown_path(&path), crate::visible::line(&e));
                return status::USAGE;
            }
        };
        for s in &file.submissions {
            let folder = s.folder.as_deref().unwrap_or(&s.name);
            // A summary from before report folders names none: its folders
            // are the names, which need only be one plain path component.
            let safe = match &s.folder {
                Some(f) => crate::folders::is_safe_folder(f),
                None => {
                    let mut parts = Path::new(&s.name).components();
                    matches!(parts.next(), Some(std::path::Component::Normal(_)))
                        && parts.next().is_none()
                }
            };
            if !safe {
                eprintln!(
                    "lab: {}",
                    tr(
                        "error.bad_folder",
                        &[("path", &shown_path(&path)), ("folder", &folder)]
                    )
                );
                return status::USAGE;
            }
        }
        let same_dir = dir.canonicalize().ok() == args.out.canonicalize().ok();
        for s in &file.submissions {
            let folder = s.folder.as_deref().unwrap_or(&s.name);
            let from = dir.join(folder);
            if !same_dir && from.is_dir() {
                if let Err(e) = crate::files::copy_tree(&from, &args.out.join(folder), &|_| false) {
                    eprintln!("lab: {}", tr("error.kit", &[("what", &e)]));
                    return status::KIT_ERROR;
                }
            }
        }
        merged = Some(match merged {
            None => file,
            Some(mut acc) => {
                if acc.seed != file.seed {
                    eprintln!(
                        "lab: {}",
                        tr(
                            "error.merge_seeds",
                            &[
                                ("a", &crate::visible::line(&acc.seed)),
                                ("b", &crate::visible::line(&file.seed))
                            ]
                        )
                    );
                    return status::USAGE;
                }
                let folder = |x: &report::summary::SummarySubmission| {
                    x.folder.as_deref().unwrap_or(&x.name).to_ascii_lowercase()
                };
                for s in file.submissions {
                    if acc.submissions.iter().any(|t| t.name == s.name) {
                        eprintln!(
                            "lab: {}",
                            tr("error.duplicate_submission", &[("name", &s.name)])
                        );
                        return status::USAGE;
                    }
                    if let Some(t) = acc.submissions.iter().find(|t| folder(t) == folder(&s)) {
                        eprintln!(
                            "lab: {}",
                            tr(
                                "error.merge_folder",
                                &[("folder", &folder(&s)), ("a", &t.name), ("b", &s.name)]
                            )
                        );
                        return status::USAGE;
                    }
                    acc.submissions.push(s);
                }
                acc
            }
        });
    }
    let Some(mut merged) = merged else {
        eprintln!("lab: {}", tr("error.merge_nothing", &[]));
        return status::USAGE;
    };
    merged.submissions.sort_by(|a, b| a.name.cmp(&b.name));
    if let Err(e) = write_summaries(&args.out, &merged) {
        eprintln!("lab: {}", tr("error.kit", &[("what", &e)]));
        return status::KIT_ERROR;
    }
    println!(
        "{}",
        tr(
            "grade.merged",
            &[
                ("count", &merged.submissions.len()),
                ("found", &(args.merge.len() - missing.len())),
                ("total", &args.merge.len()),
                ("out", &shown_path(&args.out)),
            ]
        )
    );
    if missing.is_empty() {
        return status::PASSED;
    }
    eprintln!(
        "lab: {}",
        tr(
            "grade.merge_incomplete",
            &[
                ("count", &missing.len()),
                ("total", &args.merge.len()),
                ("paths", &missing.join(", ")),
            ]
        )
    );
    status::NEEDS_REVIEW
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_submissions_own_crates_are_named_beside_its_compiler_errors() {
        let dir = tempfile::tempdir().unwrap();
        let lib = dir.path().join("alice/src/lib.rs");
        std::fs::create_dir_all(lib.parent().unwrap()).unwrap();
        std::fs::write(&lib, "use itoa;").unwrap();
        let manifest = dir.path().join("alice/Cargo.toml");
        assert_eq!(extra_dependencies_note(&lib), "", "no manifest");
        std::fs::write(
            &manifest,
            "[package]\nname = \"student\"\n\n[dependencies]\nlab-api.workspace = true\nitoa = \"1\"\n",
        )
        .unwrap();
        let note = extra_dependencies_note(&lib);
        assert!(note.contains("itoa") && note.contains("lab_api"), "{note}");
        assert!(note.ends_with("\n\n"), "{note:?}");
        // A lib.rs uploaded alone has no manifest of its own.
        let alone = dir.path().join("alice/lib.rs");
        std::fs::write(&alone, "").unwrap();
        assert_eq!(extra_dependencies_note(&alone), "");
        // A manifest that is a link is not read.
        std::fs::rename(&manifest, dir.path().join("elsewhere.toml")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("elsewhere.toml"), &manifest).unwrap();
        assert_eq!(extra_dependencies_note(&lib), "");
    }

    #[test]
    fn rows_line_up_by_display_width() {
        let alice = crate::report::kit::test_support::class().submissions[0].clone();
        let mut wang = alice.clone();
        wang.name = "王小明".into();
        let (a, w) = (row(&alice), row(&wang));
        assert!(
            a.starts_with(&format!("alice{}  30/30 ", " ".repeat(23))),
            "{a:?}"
        );
        assert!(
            w.starts_with(&format!("王小明{}  30/30 ", " ".repeat(22))),
            "{w:?}"
        );
        // Past the name, both rows are the same, column for column.
        let width = |r: &str, at: &str| crate::render::display_width(&r[..r.find(at).unwrap()]);
        assert_eq!(width(&a, "30/30"), width(&w, "30/30"));
        assert_eq!(a[a.find("30/30").unwrap()..], w[w.find("30/30").unwrap()..]);
        // A name wider than its column is shown whole.
        let mut long = alice.clone();
        long.name = "名".repeat(15);
        assert!(row(&long).starts_with(&format!("{}  30/30", long.name)));
        // The English row reads as it always has.
        assert_eq!(
            a,
            format!(
                "alice{}  30/30  pass pass pass  built  (1.5 s)",
                " ".repeat(23)
            )
        );
        let mut bob = crate::report::kit::test_support::class().submissions[1].clone();
        bob.advanced_build = AdvancedBuild::Ok;
        bob.bonus = 2;
        assert!(row(&bob).ends_with(" 10/30  pass FAIL todo  built  +2 bonus  (2.2 s)"));
    }

    /// The console shows a submission's name as one visible line: its row
    /// and the "needs review" line escape control and bidirectional
    /// characters, and Chinese stays as it is.
    #[test]
    fn the_console_shows_names_escaped() {
        use crate::report::kit::test_support::{raw_hidden, HOSTILE};
        let mut bob = crate::report::kit::test_support::class().submissions[1].clone();
        bob.name = HOSTILE.to_string();
        let line = row(&bob);
        assert_eq!(raw_hidden(&line), [], "{line:?}");
        assert!(
            line.starts_with(
                "\\u{1b}[2J\\u{7}王小明\\u{202e}\\u{2066}\\u{85}evil  10/30  pass FAIL todo"
            ),
            "{line:?}"
        );
        // A short name is padded by the columns its escapes take.
        bob.name = "a\u{1b}b".to_string();
        assert!(row(&bob).starts_with(&format!("a\\u{{1b}}b{}  10/30", " ".repeat(20))));

        let weights = weights(Path::new("/nonexistent")).unwrap();
        let review: Vec<SubmissionReport> = subs(&[HOSTILE, "王小明\nx"])
            .iter()
            .map(|s| needs_review(s, "stand-in", &weights, 1))
            .collect();
        let said = review_line(&review).unwrap();
        assert_eq!(raw_hidden(&said), [], "{said:?}");
        assert!(
            said.ends_with(": \\u{1b}[2J\\u{7}王小明\\u{202e}\\u{2066}\\u{85}evil, 王小明\\nx"),
            "{said:?}"
        );
        assert_eq!(review_line(&[]), None);
        assert_eq!(review_status(&review), status::NEEDS_REVIEW);
    }

    fn subs(names: &[&str]) -> Vec<Submission> {
        names
            .iter()
            .map(|n| Submission {
                name: n.to_string(),
                folder: n.to_string(),
                lib: Some(PathBuf::from("x")),
                advanced: None,
            })
            .collect()
    }

    #[test]
    fn shards_partition_the_class_stably() {
        let names = ["a", "b", "c", "d", "e", "f", "g"];
        let mut seen = Vec::new();
        for i in 1..=3 {
            let part: Vec<String> = shard(subs(&names), Some((i, 3)))
                .into_iter()
                .map(|s| s.name)
                .collect();
            let again: Vec<String> = shard(subs(&names), Some((i, 3)))
                .into_iter()
                .map(|s| s.name)
                .collect();
            assert_eq!(part, again);
            seen.extend(part);
        }
        seen.sort();
        assert_eq!(seen, names);
    }

    #[test]
    fn a_submission_that_needs_review_says_so_in_every_format_and_scores_nothing() {
        let weights = weights(Path::new("/nonexistent")).unwrap();
        let sub = &subs(&["mallory"])[0];
        let r = needs_review(sub, "the runner reported a fault of the kit", &weights, 7);
        assert_eq!((r.build, r.score, r.max_score), (Build::Error, 0, 8));
        assert!(r.steps.iter().all(|s| !s.passed));
        let summary =
            report::summary::summary_json_from(&report::summary::summary_of(&ClassReport {
                schema: report::GRADE_SCHEMA.into(),
                seed: "7".into(),
                submissions: vec![r.clone()],
            }));
        assert!(summary.contains("\"build\": \"error\""), "{summary}");
        let junit = report::junit::junit_xml(&r, "7");
        assert!(junit.contains("needs review") && junit.contains("fault of the kit"));
        let exercism: serde_json::Value =
            serde_json::from_str(&report::exercism::results_json(&r)).unwrap();
        assert_eq!(exercism["status"], "error");
        assert!(exercism["message"]
            .as_str()
            .unwrap()
            .contains("fault of the kit"));
        let gradescope = report::gradescope::results_json(&r, "7");
        assert!(gradescope.contains("needs review") && gradescope.contains("fault of the kit"));
        assert_eq!(review_status(&[r]), status::NEEDS_REVIEW);
    }

    /// A class folder with the given submissions; `with_lib` ones hold
    /// src/lib.rs, the others only a README.
    fn class_dir(names: &[(&str, bool)]) -> (tempfile::TempDir, Vec<PathBuf>) {
        let dir = tempfile::tempdir().unwrap();
        let mut paths = Vec::new();
        for (name, with_lib) in names {
            let sub = dir.path().join(name);
            std::fs::create_dir_all(sub.join("src")).unwrap();
            if *with_lib {
                std::fs::write(sub.join("src/lib.rs"), "pub fn f() {}\n").unwrap();
            } else {
                std::fs::write(sub.join("README.md"), "my crate is elsewhere\n").unwrap();
            }
            paths.push(sub);
        }
        (dir, paths)
    }

    #[test]
    fn a_folder_without_lib_rs_is_a_submission_and_bad_paths_are_not() {
        let (dir, paths) = class_dir(&[("alice", true), ("empty", false)]);
        let class = resolve(&paths).unwrap();
        let names: Vec<&str> = class.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["alice", "empty"]);
        assert!(class[0].lib.is_some());
        assert!(
            class[1].lib.is_none(),
            "graded as no lib.rs found, not refused"
        );
        // What is no submission folder at all is still a bad command line.
        let nowhere = dir.path().join("nowhere");
        let err = resolve(&[paths[0].clone(), nowhere]).unwrap_err();
        assert!(err.contains("does not exist"), "{err}");
        let file = dir.path().join("alice/src/lib.rs");
        let err = resolve(&[file]).unwrap_err();
        assert!(err.contains("is not a folder"), "{err}");
        let err = resolve(&[PathBuf::from("/")]).unwrap_err();
        assert!(err.contains("cannot be a submission"), "{err}");
    }

    #[test]
    fn every_submission_gets_a_portable_folder_from_the_whole_class() {
        let names = [
            "王小明",
            "Li \"Lee\" =cmd",
            "张 三,2 & <x>",
            ".dot",
            "summary.json",
            "ok",
        ];
        let (_dir, paths) = class_dir(&names.map(|n| (n, true)));
        let class = resolve(&paths).unwrap();
        for s in &class {
            assert!(crate::folders::is_safe_folder(&s.folder), "{s:?}");
            assert!(s.folder.len() <= 64);
        }
        let ok = class.iter().find(|s| s.name == "ok").unwrap();
        assert_eq!(ok.folder, "ok");
        // A shard's submissions keep the folders the whole class gave them.
        for i in 1..=3 {
            for s in shard(class.clone(), Some((i, 3))) {
                let whole = class.iter().find(|w| w.name == s.name).unwrap();
                assert_eq!(s.folder, whole.folder);
            }
        }
    }

    fn read(path: &Path) -> String {
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    #[test]
    fn no_lib_rs_is_that_submissions_result_in_every_format() {
        let name = "Li \"Lee\" =cmd";
        let (dir, paths) = class_dir(&[(name, false), ("empty", false)]);
        let class = resolve(&paths).unwrap();
        let folders: BTreeMap<String, String> = class
            .iter()
            .map(|s| (s.name.clone(), s.folder.clone()))
            .collect();
        let weights = weights(Path::new("/nonexistent")).unwrap();
        let reports = grade_class(dir.path(), class, 3, 2, Limits::default(), &weights, |_| {
            Ok(())
        })
        .unwrap();
        assert_eq!(reports.len(), 2, "the class goes on");
        let out = dir.path().join("grades");
        for r in &reports {
            assert_eq!((r.build, r.score, r.max_score), (Build::Error, 0, 8));
            assert!(r.review.as_deref().unwrap().contains("no lib.rs found"));
            write_submission(&out, &folders[&r.name], r, "3").unwrap();
        }
        let class = ClassReport {
            schema: report::GRADE_SCHEMA.into(),
            seed: "3".into(),
            submissions: reports.clone(),
        };
        write_summaries(&out, &summary_with_folders(&class, &folders)).unwrap();
        assert_eq!(review_status(&reports), status::NEEDS_REVIEW);

        let folder = out.join(&folders[name]);
        assert_ne!(folders[name], name);
        let result: serde_json::Value =
            serde_json::from_str(&read(&folder.join("result.json"))).unwrap();
        assert_eq!(result["name"], name, "reports carry the real name");
        assert_eq!(result["build"], "error");
        assert!(result["review"]
            .as_str()
            .unwrap()
            .contains("no lib.rs found"));
        for file in [
            "junit.xml",
            "gradescope/results.json",
            "exercism/results.json",
        ] {
            let text = read(&folder.join(file));
            assert!(text.contains("no lib.rs found"), "{file}: {text}");
        }
        assert!(read(&folder.join("junit.xml")).contains("Li &quot;Lee&quot; =cmd"));
        let summary: serde_json::Value =
            serde_json::from_str(&read(&out.join("summary.json"))).unwrap();
        let row = summary["submissions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap();
        assert_eq!(row["folder"].as_str(), Some(folders[name].as_str()));
        assert_eq!(
            (row["build"].as_str(), row["score"].as_u64()),
            (Some("error"), Some(0))
        );
        assert!(row["review"].as_str().unwrap().contains("no lib.rs found"));
        assert!(read(&out.join("summary.csv")).contains("\"Li \"\"Lee\"\" =cmd\",error,0,8"));
    }

    /// A folder named with ESC, BEL and bidirectional controls, graded and
    /// written as `grade` writes it: every human-readable file shows the
    /// name escaped, result.json and summary.json keep it exactly.
    #[test]
    fn a_hostile_folder_name_is_shown_escaped_and_kept_exactly_in_json() {
        use crate::report::kit::test_support::{raw_hidden, HOSTILE, HOSTILE_SHOWN};
        let (dir, paths) = class_dir(&[(HOSTILE, false)]);
        let class = resolve(&paths).unwrap();
        assert_eq!(class[0].name, HOSTILE);
        assert!(crate::folders::is_safe_folder(&class[0].folder));
        let folders: BTreeMap<String, String> = class
            .iter()
            .map(|s| (s.name.clone(), s.folder.clone()))
            .collect();
        let weights = weights(Path::new("/nonexistent")).unwrap();
        let reports = grade_class(dir.path(), class, 3, 1, Limits::default(), &weights, |_| {
            Ok(())
        })
        .unwrap();
        let out = dir.path().join("grades");
        write_submission(&out, &folders[HOSTILE], &reports[0], "3").unwrap();
        let class = ClassReport {
            schema: report::GRADE_SCHEMA.into(),
            seed: "3".into(),
            submissions: reports,
        };
        write_summaries(&out, &summary_with_folders(&class, &folders)).unwrap();

        let folder = out.join(&folders[HOSTILE]);
        for file in [
            out.join("summary.csv"),
            out.join("summary.md"),
            folder.join("junit.xml"),
        ] {
            let text = read(&file);
            assert_eq!(raw_hidden(&text), [], "{}: {text:?}", file.display());
        }
        assert!(read(&out.join("summary.csv")).contains(&format!("\r\n{HOSTILE_SHOWN},error,0,8")));
        assert!(read(&out.join("summary.md"))
            .contains("| \\\\u{1b}\\[2J\\\\u{7}王小明\\\\u{202e}\\\\u{2066}\\\\u{85}evil | "));
        assert!(read(&folder.join("junit.xml")).contains(&format!("value=\"{HOSTILE_SHOWN}\"")));
        let result: serde_json::Value =
            serde_json::from_str(&read(&folder.join("result.json"))).unwrap();
        assert_eq!(result["name"], HOSTILE);
        let summary: serde_json::Value =
            serde_json::from_str(&read(&out.join("summary.json"))).unwrap();
        assert_eq!(summary["submissions"][0]["name"], HOSTILE);
    }

    /// A shard folder as `grade --out` leaves it: each submission's folder
    /// with a result.json, and summary.json.
    fn write_shard(dir: &Path, names: &[&str], seed: u64) {
        let weights = weights(Path::new("/nonexistent")).unwrap();
        let folders = crate::folders::folders(names.iter().copied());
        let reports: Vec<SubmissionReport> = subs(names)
            .iter()
            .map(|s| needs_review(s, "stand-in", &weights, seed))
            .collect();
        for r in &reports {
            write_submission(dir, &folders[&r.name], r, &seed.to_string()).unwrap();
        }
        let class = ClassReport {
            schema: report::GRADE_SCHEMA.into(),
            seed: seed.to_string(),
            submissions: reports,
        };
        write_summaries(dir, &summary_with_folders(&class, &folders)).unwrap();
    }

    fn merge_into(out: &Path, shards: &[PathBuf]) -> u8 {
        merge(&GradeArgs {
            out: out.to_path_buf(),
            seed: None,
            jobs: 1,
            shard: None,
            limits: Limits::default(),
            submissions: Vec::new(),
            merge: shards.to_vec(),
        })
    }

    #[test]
    fn a_missing_shard_is_named_and_the_others_are_merged() {
        let dir = tempfile::tempdir().unwrap();
        let shards: Vec<PathBuf> = (1..=3)
            .map(|i| dir.path().join(format!("shard-{i}")))
            .collect();
        write_shard(&shards[0], &["王小明", "bob"], 4);
        write_shard(&shards[2], &["carol"], 4);
        // shards[1] never arrived.
        let out = dir.path().join("class");
        assert_eq!(merge_into(&out, &shards), status::NEEDS_REVIEW);
        let summary: serde_json::Value =
            serde_json::from_str(&read(&out.join("summary.json"))).unwrap();
        let names: Vec<&str> = summary["submissions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["bob", "carol", "王小明"]);
        for s in summary["submissions"].as_array().unwrap() {
            let folder = s["folder"].as_str().unwrap();
            let result = read(&out.join(folder).join("result.json"));
            assert!(result.contains(s["name"].as_str().unwrap()), "{result}");
        }
        // Every shard there: a clean merge.
        write_shard(&shards[1], &["dave"], 4);
        let again = dir.path().join("again");
        assert_eq!(merge_into(&again, &shards), status::PASSED);
        // None there: nothing to merge, nothing written.
        let none = dir.path().join("none");
        let nowhere = [dir.path().join("x"), dir.path().join("y")];
        assert_eq!(merge_into(&none, &nowhere), status::USAGE);
        assert!(!none.join("summary.json").exists());
    }

    #[test]
    fn merge_refuses_a_summary_that_points_outside_its_folder() {
        let dir = tempfile::tempdir().unwrap();
        let shard = dir.path().join("shard-1");
        write_shard(&shard, &["alice"], 4);
        let path = shard.join("summary.json");
        let text = read(&path).replace("\"folder\": \"alice\"", "\"folder\": \"../../etc\"");
        assert!(text.contains("../../etc"), "{text}");
        std::fs::write(&path, text).unwrap();
        assert_eq!(
            merge_into(&dir.path().join("class"), std::slice::from_ref(&shard)),
            status::USAGE
        );
        assert!(!dir.path().join("etc").exists());
        // A summary written before folders: the name is the folder, and
        // must be one plain component.
        let legacy = read(&path).replace("      \"folder\": \"../../etc\",\n", "");
        assert!(!legacy.contains("\"folder\""), "{legacy}");
        std::fs::write(&path, &legacy).unwrap();
        assert_eq!(
            merge_into(&dir.path().join("old"), std::slice::from_ref(&shard)),
            status::PASSED
        );
        assert!(dir.path().join("old/alice/result.json").is_file());
        let outside = legacy.replace("\"name\": \"alice\"", "\"name\": \"../alice\"");
        std::fs::write(&path, outside).unwrap();
        assert_eq!(merge_into(&dir.path().join("bad"), &[shard]), status::USAGE);
    }

    #[test]
    fn a_report_never_shows_where_the_kit_lives() {
        let root = Path::new("/home/teacher/retry-lab");
        let text = "panicked: /home/teacher/retry-lab/src and /home/teacher/retry-lab/target/x";
        let want = match std::env::var_os("CARGO_TARGET_DIR") {
            None => "panicked: <kit>/src and <target>/x",
            Some(_) => "panicked: <kit>/src and <kit>/target/x",
        };
        assert_eq!(scrub(text, root), want);
    }

    #[test]
    fn the_watchdog_allows_every_submission_its_worst_case() {
        let limits = Limits::default();
        let one = watchdog_bound(&limits, 1, 2);
        let steps = suites::REGISTRY.len() as u32;
        assert!(one > build::WARM_LIMIT + limits.build + limits.suite * steps);
        assert_eq!(
            watchdog_bound(&limits, 4, 2),
            (one - Duration::from_secs(60)) * 2 + Duration::from_secs(60)
        );
    }

    #[test]
    fn default_weights_are_one_per_step_and_the_file_overrides_them() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(
            weights(dir.path()).unwrap().values().sum::<u32>() as usize,
            suites::REGISTRY.len()
        );
        std::fs::create_dir_all(dir.path().join("fixtures")).unwrap();
        std::fs::write(dir.path().join("fixtures/weights.json"), r#"{"08": 3}"#).unwrap();
        assert_eq!(weights(dir.path()).unwrap()["08"], 3);
        std::fs::write(dir.path().join("fixtures/weights.json"), r#"{"14": 3}"#).unwrap();
        assert!(weights(dir.path()).is_err());
    }
}
