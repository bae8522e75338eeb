//! `lab.sh grade`: grades a class of submission folders on top of pristine
//! copies of the kit, in parallel slots, and writes the reports; `--merge`
//! joins the summaries of shards into one; `--roster`, `--due`/`--late`
//! and `--previous` add gradebooks, late penalties and a regrade report
//! ([`extras`]).

mod csv_read;
mod discovery;
pub mod extras;
pub(crate) mod late;
mod merge;
pub mod policy;
mod regrade;
mod roster;
mod similarity;
mod table;
mod verdicts;
mod watchdog;
mod worker;
mod write;

use crate::catalog::tr;
use crate::limits::Limits;
use crate::report::{self, ClassReport, SubmissionReport};
use crate::status;
pub use discovery::{resolve, weights, Submission};
use discovery::{shard, shown_path};
use merge::merge;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;
use table::print_row;
use verdicts::{needs_review, review_status};
use watchdog::{watchdog_bound, within};
pub use worker::grade_class;
#[cfg(all(test, unix))]
use write::write_summaries;
use write::{summary_with_folders, write_submission, write_summaries_with};

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
    /// Credit, visibility and detail, PrairieLearn's ungradable
    /// submissions (see [`policy`]); boxed, as it is rarely set.
    pub policy: Box<policy::Policy>,
    /// `--roster`, `--due`, `--late`, `--previous` and their kin.
    pub extras: extras::GradeExtras,
    /// The similarity stage's options; none: `--no-similarity`.
    pub similarity: Option<crate::similarity::Options>,
}

pub fn run(root: &Path, args: &GradeArgs) -> u8 {
    if !args.merge.is_empty() {
        if args.extras.any() {
            eprintln!("lab: {}", crate::catalog::t("error.extras_with_merge"));
            return status::USAGE;
        }
        return merge(&args.merge, &args.out);
    }
    // Only here: an autograder's one submission is graded as it is.
    if let Err(e) = discovery::class_folder(&args.submissions, &args.out) {
        eprintln!("lab: {e}");
        return status::USAGE;
    }
    run_with(root, args, true)
}

/// Grades `args.submissions`. With `strict`, a kernel that cannot confine
/// learner code whole is refused (unless `--unsandboxed`); without it
/// (Gradescope's container, where the container is the boundary), learner
/// code gets what confinement there is.
pub fn run_with(root: &Path, args: &GradeArgs, strict: bool) -> u8 {
    if let Err(refused) =
        crate::platform::enter(&args.limits, strict, &crate::compile::target_dir(root))
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
    let shown = match policy::shown(root, &args.policy) {
        Ok(s) => s,
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
    let prepared = match extras::prepare(&args.extras, &args.submissions, &all) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("lab: {e}");
            return status::USAGE;
        }
    };
    let similar = args
        .similarity
        .map(|opts| similarity::start(root, all.clone(), opts));
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
    for word in args.policy.words() {
        rerun += &format!(" {word}");
    }
    rerun += &args.extras.rerun_words();
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
    let bound = watchdog_bound(&args.limits, mine.len(), args.jobs);
    let late = |sub: &Submission| {
        let why = tr("grade.watchdog", &[("secs", &bound.as_secs())]);
        needs_review(sub, &why, &weights, seed)
    };
    let on_done = |report: &SubmissionReport| {
        let report = &prepared.apply(report);
        print_row(report);
        let folder = folders
            .get(&report.name)
            .cloned()
            .unwrap_or_else(|| crate::folders::mapped(&report.name));
        let formats = write::Formats {
            shown: &shown,
            ungradable: args.policy.ungradable,
        };
        write_submission(&args.out, &folder, report, &seed_text, &formats)
            .map_err(|e| e.to_string())
    };
    let (root_dir, class_weights, limits, jobs, credit) = (
        root.to_path_buf(),
        weights.clone(),
        args.limits,
        args.jobs,
        args.policy.credit,
    );
    let class_subs = mine.clone();
    let grading = move |tx: &dyn Fn(SubmissionReport) -> Result<(), String>| {
        grade_class(
            &root_dir,
            class_subs,
            seed,
            jobs,
            limits,
            &class_weights,
            |r| {
                let mut r = r.clone();
                policy::apply_credit(&mut r, credit);
                tx(r)
            },
        )
        .map(|_| ())
    };
    let reports = match within(
        bound,
        &mine,
        grading,
        late,
        on_done,
        crate::platform::kill_all,
    ) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("lab: {}", tr("error.kit", &[("what", &e)]));
            return status::KIT_ERROR;
        }
    };
    let class = ClassReport {
        schema: report::GRADE_SCHEMA.into(),
        seed: seed.to_string(),
        submissions: reports.iter().map(|r| prepared.apply(r)).collect(),
    };
    let mut summary = summary_with_folders(&class, &folders);
    let similar = similar.and_then(similarity::finish);
    let written = prepared
        .finish(
            &args.out,
            &mut summary,
            &class.submissions,
            &extras::run_info(),
        )
        .and_then(|()| write_summaries_with(&args.out, &summary, similar.as_ref()));
    if let Err(e) = written {
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
    crate::timing::peak_memory();
    review_status(&class.submissions)
}

#[cfg(all(test, unix))]
mod tests;
