//! lab-judge, the retry lab's checker. It never links learner code: it builds
//! the runner, feeds it cases through files, and judges what comes back.
//!
//! Map: `cli` parses, `suites` (with `oracle` and fixtures/cases) says what to
//! expect, `session` drives runners through `spawn` (the one place that starts
//! processes), `verdict` judges, `render` and `catalog` word it, `console`
//! prints it, `build` compiles runners, `grade` grades a class (each
//! submission's report folder named by `folders`) and `report` writes its
//! machine formats, `handout` exports the learner's kit,
//! `selftest` proves the checker; `visible` makes names and the learner's
//! text safe to show.
//!
//! The binary (`main.rs`) sets up the process and hands its arguments
//! to [`run`]. The end-to-end and snapshot tests use the library directly.

pub mod audit;
pub mod autograder;
pub mod bench;
pub mod build;
pub mod catalog;
pub mod check;
pub mod cli;
pub mod console;
pub mod evaluate;
pub mod files;
pub mod folders;
pub mod grade;
pub mod handout;
pub mod keys;
pub mod learner;
pub mod limits;
pub mod live;
pub mod oracle;
pub mod pool;
pub mod render;
pub mod report;
pub mod rng;
pub mod sandbox;
pub mod screen;
pub mod sections;
pub mod selftest;
pub mod session;
pub mod show;
pub mod shrink;
pub mod signature;
pub mod simpler;
pub mod spawn;
pub mod state;
pub mod suites;
pub mod verdict;
pub mod visible;

use std::path::{Path, PathBuf};

/// Exit statuses, documented in the README.
pub mod status {
    pub const PASSED: u8 = 0;
    pub const FAILED: u8 = 1;
    pub const USAGE: u8 = 2;
    pub const DOES_NOT_COMPILE: u8 = 3;
    pub const KIT_ERROR: u8 = 4;
    /// grade: every submission was graded, but some need a person's review.
    pub const NEEDS_REVIEW: u8 = 5;
}

/// With LAB_TIMING set, says on stderr how long a phase took (for bench work).
pub fn timing(what: &str, since: std::time::Instant) {
    if std::env::var_os("LAB_TIMING").is_some() {
        eprintln!("timing: {what}: {:.3} s", since.elapsed().as_secs_f64());
    }
}

/// The kit's root: LAB_ROOT (set by lab.sh), else the nearest folder upwards
/// that holds lab.sh.
fn find_root() -> Option<PathBuf> {
    if let Some(root) = std::env::var_os("LAB_ROOT") {
        return Path::new(&root).canonicalize().ok();
    }
    let mut dir = std::env::current_dir().ok()?;
    loop {
        if dir.join("lab.sh").is_file() && dir.join("Cargo.toml").is_file() {
            return Some(dir);
        }
        if !dir.pop() {
            return None;
        }
    }
}

/// Runs one command line (without the program name) and returns the exit status.
pub fn run(args: &[String]) -> u8 {
    // Chosen before parsing, so that a usage error already speaks the
    // language asked for.
    select_catalog(cli::lang_asked(args).unwrap_or_else(catalog::lang_from_env));
    let cli = match cli::parse(args) {
        Ok(cli) => cli,
        Err(e) => {
            eprintln!("lab: {e}");
            return status::USAGE;
        }
    };
    let Some(root) = find_root() else {
        eprintln!("lab: {}", catalog::t("error.no_root"));
        return status::USAGE;
    };
    let code = match cli.command {
        cli::Command::Help => {
            print!("{}", usage());
            status::PASSED
        }
        cli::Command::HelpFor(text) => {
            print!("{text}");
            status::PASSED
        }
        cli::Command::Check(args) => check::run(&root, &args),
        cli::Command::Selftest(args) => selftest::run(&root, &args),
        cli::Command::Grade(args) => grade::run(&root, &args),
        cli::Command::Handout(dir) => handout::run(&root, &dir),
        cli::Command::Gradescope(zip) => autograder::package(&root, &zip),
        cli::Command::Autograde(dir) => autograder::run(&root, &dir),
        cli::Command::Bench(args) => bench::run(&root, &args),
        cli::Command::Show(step) => learner::show(&root, step),
        cli::Command::Hint { step, all } => learner::hint(&root, step, all, false),
        cli::Command::Status => learner::status(&root),
        cli::Command::Try(args) => live::run(&root, &args),
        cli::Command::Watch { check, max_checks } => learner::watch(&root, &check, max_checks),
        cli::Command::Reset(step) => learner::reset(&root, step),
        cli::Command::ResetAdvanced => learner::reset_advanced(&root),
    };
    report_peak_memory();
    code
}

/// Chooses the learner's language: the catalog's main file and every
/// registered step's words.
pub fn select_catalog(lang: catalog::Lang) {
    catalog::select(lang, &suites::words(catalog::index(lang)));
}

/// The usage text, with the registry's step ranges filled in.
pub fn usage() -> String {
    let mut text = match catalog::active() {
        catalog::Lang::En => include_str!("usage.txt"),
        catalog::Lang::Zh => include_str!("usage.zh.txt"),
    }
    .to_string();
    for (name, value) in suites::figures() {
        text = text.replace(&format!("{{{name}}}"), &value.replace('–', "-"));
    }
    text
}

/// For `lab.sh bench`: the judge's own peak resident memory, in KiB, written
/// to LAB_PEAK_FILE when that is set.
fn report_peak_memory() {
    let Some(path) = std::env::var_os("LAB_PEAK_FILE") else {
        return;
    };
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok());
    if let Some(kib) = kib {
        let _ = std::fs::write(path, kib.to_string());
    }
}
