//! One command line, from the language chosen to the exit status: parses
//! it with `cli` and hands it to the command it names.

use crate::{
    autograder, bench, catalog, check, cli, grade, handout, learner, live, scaffold, selftest,
    status, suites,
};
use std::path::{Path, PathBuf};

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
    select_catalog(cli::language(args));
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
        cli::Command::NewStep(args) => scaffold::run(&root, &args),
        cli::Command::Show(step) => learner::show(&root, step),
        cli::Command::Hint { step, all } => learner::hint(&root, step, all, false),
        cli::Command::Status => learner::status(&root),
        cli::Command::Try(args) => live::run(&root, &args),
        cli::Command::Watch { check, max_checks } => learner::watch(&root, &check, max_checks),
        cli::Command::Reset(step) => learner::reset(&root, step),
        cli::Command::ResetAdvanced { force } => learner::reset_advanced(&root, force),
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
