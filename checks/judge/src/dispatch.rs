//! One command line, from the language chosen to the exit status: parses
//! it with `cli` and hands it to the command it names. The maintainers'
//! commands (`cli::Tool`) go to the `tools` given to [`run_with`]: lab-dev
//! (checks/dev) passes its own; the checker alone ([`run`]) refuses them.

use crate::cli::Tool;
use crate::{autograder, catalog, check, cli, grade, handout, learner, live, status, suites};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// What answers the maintainers' commands, in the kit at the given root.
pub type Tools = fn(&Path, &Tool) -> u8;

/// A binary's whole life: sets up the process, runs its command line with
/// `tools` and returns its exit status. lab-judge's `main` and lab-dev's.
pub fn main_with(tools: Tools) -> ExitCode {
    // Like other command-line tools, end quietly when a reader such as
    // `head` closes the pipe, instead of panicking on the next print.
    // SAFETY: restoring the default action of a signal at start-up.
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    crate::frame::mark_start();
    crate::platform::bounded_heap();
    crate::platform::start_up();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let code = run_with(&args, tools);
    crate::platform::shut_down();
    ExitCode::from(code)
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

/// Runs one command line (without the program name) and returns the exit
/// status; a maintainers' command is refused (see [`no_tools`]).
pub fn run(args: &[String]) -> u8 {
    run_with(args, no_tools)
}

/// The checker's answer to a maintainers' command given to it directly:
/// their code is lab-dev's, which `./lab.sh COMMAND` builds and runs.
pub fn no_tools(_root: &Path, tool: &Tool) -> u8 {
    eprintln!(
        "lab: {}",
        catalog::tr("error.maintainers_tool", &[("command", &tool.name())])
    );
    status::USAGE
}

/// [`run`], with `tools` answering the maintainers' commands.
pub fn run_with(args: &[String], tools: Tools) -> u8 {
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
        cli::Command::Grade(args) => grade::run(&root, &args),
        cli::Command::Handout(dir) => handout::run(&root, &dir),
        cli::Command::Gradescope(zip) => autograder::package(&root, &zip),
        cli::Command::Autograde(dir) => autograder::run(&root, &dir),
        cli::Command::PrairieLearn(args) => crate::prairielearn::question(&root, &args),
        cli::Command::PrairieLearnGrade { root: dir, policy } => {
            crate::prairielearn::grade(&root, &dir, &policy)
        }
        cli::Command::Tool(tool) => tools(&root, &tool),
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
