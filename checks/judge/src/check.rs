//! `lab.sh check`: build the runner with the learner's crate (or a subject
//! file in a slot), run the selected steps, print the libtest report.

use crate::catalog::{t, tr};
use crate::compile;
use crate::console::Console;
use crate::limits::Limits;
use crate::status;
use crate::suites::is_advanced;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone)]
pub struct CheckArgs {
    /// The steps named, or the core steps when none were (see `steps_given`).
    pub steps: Vec<&'static str>,
    /// Whether steps were named; when not, the advanced steps are added
    /// for a learner who has an advanced.rs.
    pub steps_given: bool,
    pub seed: Option<u64>,
    pub limits: Limits,
    pub subject: Option<PathBuf>,
    /// The subject's advanced.rs, when it is not in the subject's folder.
    pub advanced: Option<PathBuf>,
    /// How the trials are printed (watch prints passes as dots).
    pub console: Console,
    /// `--message-format`: the human report, or JSON events (`events.rs`).
    pub format: crate::stdout::Format,
    /// `--github` (or `GITHUB_ACTIONS=true`): annotations and a step
    /// summary for GitHub Actions (`github.rs`).
    pub github: bool,
}

/// Records each checked step's verdict for `lab.sh status`.
fn remember(root: &Path, results: &[crate::evaluate::StepResult]) {
    let mut st = crate::state::load(root);
    let lib = crate::state::source_hash(&root.join("student/src/lib.rs"));
    let advanced = crate::state::source_hash(&root.join("student/src/advanced.rs"));
    for r in results {
        if r.could_not_run() {
            continue;
        }
        let hash = if is_advanced(r.suite.step) {
            &advanced
        } else {
            &lib
        };
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
    rerun_in(crate::catalog::active(), args, seed)
}

/// The command that repeats a check in `lang`: a language other than
/// English is named, so that the rerun reads as this run did.
fn rerun_in(lang: crate::catalog::Lang, args: &CheckArgs, seed: u64) -> String {
    let mut cmd = String::from("./lab.sh");
    if lang != crate::catalog::Lang::En {
        cmd += &format!(" --lang {}", crate::catalog::code(lang));
    }
    cmd += " check";
    if args.steps_given {
        for s in &args.steps {
            cmd += &format!(" {s}");
        }
    }
    if let Some(subject) = &args.subject {
        cmd += &format!(" --subject {}", subject.display());
    }
    if let Some(advanced) = &args.advanced {
        cmd += &format!(" --advanced {}", advanced.display());
    }
    cmd + &format!(" --seed {seed}")
}

/// The run's last line, in the learner's language: `N passed, M failed`
/// (and how many steps were not started) in English.
fn closing(passed: u64, failed: u64, not_started: u64) -> String {
    if not_started == 0 {
        return tr("run.closing", &[("passed", &passed), ("failed", &failed)]);
    }
    let steps = tr("run.not_started", &[("count", &not_started)]);
    tr(
        "run.closing_not_started",
        &[
            ("passed", &passed),
            ("failed", &failed),
            ("not_started", &steps),
        ],
    )
}

/// The subject's files, read; `None` for the kit's own `student/`.
fn sources(args: &CheckArgs) -> Result<Option<compile::Sources>, String> {
    let Some(subject) = &args.subject else {
        return Ok(None);
    };
    let read = |p: &Path| compile::read_source(p);
    let lib = read(&compile::subject_lib(subject)?)?;
    let advanced = match &args.advanced {
        Some(path) if !path.is_file() => {
            return Err(tr("error.missing_folder", &[("path", &path.display())]))
        }
        Some(path) => Some(path.clone()),
        None => compile::subject_advanced(subject),
    };
    let advanced = advanced.map(|p| read(&p)).transpose()?;
    Ok(Some(compile::Sources { lib, advanced }))
}

/// The learner's files as the locators name them, with their text (at
/// most [`crate::locate::SCAN_BYTES`]).
struct Places {
    lib: (String, String),
    advanced: (String, String),
}

impl Places {
    fn read(root: &Path, args: &CheckArgs, sources: Option<&compile::Sources>) -> Places {
        let text = |bytes: &[u8]| {
            let cut = bytes.len().min(crate::locate::SCAN_BYTES);
            String::from_utf8_lossy(&bytes[..cut]).into_owned()
        };
        let lib_path = args
            .subject
            .as_ref()
            .and_then(|s| compile::subject_lib(s).ok())
            .map_or("student/src/lib.rs".into(), |p| p.display().to_string());
        let (lib, advanced) = match sources {
            Some(s) => (
                text(&s.lib),
                s.advanced.as_deref().map(text).unwrap_or_default(),
            ),
            None => (
                crate::locate::read_bounded(&root.join("student/src/lib.rs")),
                crate::locate::read_bounded(&root.join("student/src/advanced.rs")),
            ),
        };
        Places {
            lib: (lib_path, lib),
            advanced: (advanced_path(args), advanced),
        }
    }

    fn at(&self, step: &str) -> crate::locate::Locator {
        let (file, text) = if is_advanced(step) {
            &self.advanced
        } else {
            &self.lib
        };
        crate::locate::locate(file, text, crate::suites::function_of(step))
    }
}

/// The path learners see for the advanced file being checked.
fn advanced_path(args: &CheckArgs) -> String {
    match (&args.advanced, &args.subject) {
        (Some(path), _) => path.display().to_string(),
        (None, Some(subject)) => compile::subject_advanced(subject).map_or_else(
            || subject.display().to_string(),
            |p| p.display().to_string(),
        ),
        (None, None) => "student/src/advanced.rs".into(),
    }
}

pub fn run(root: &Path, args: &CheckArgs) -> u8 {
    crate::stdout::set_format(args.format);
    let github = args.github || crate::github::wanted();
    if github {
        crate::github::stop_commands();
    }
    let code = run_checked(root, args);
    crate::github::resume_commands();
    crate::events::finished(code);
    code
}

fn run_checked(root: &Path, args: &CheckArgs) -> u8 {
    crate::session::tell_time_outs();
    let _ = crate::platform::enter(&args.limits, false, &crate::compile::target_dir(root));
    let seed = args.seed.unwrap_or_else(crate::rng::fresh_seed);
    let sources = match sources(args) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("lab: {e}");
            crate::events::started(seed, &rerun_command(args, seed), &args.steps);
            crate::events::error(&e);
            return status::USAGE;
        }
    };
    let has_advanced = match &sources {
        None => root.join("student/src/advanced.rs").is_file(),
        Some(s) => s.advanced.is_some(),
    };
    let mut args = args.clone();
    if !args.steps_given && has_advanced {
        args.steps.extend(crate::suites::advanced_ids());
    }
    let args = &args;
    let rerun = rerun_command(args, seed);
    crate::events::started(seed, &rerun, &args.steps);
    let seed_line = tr("run.seed", &[("seed", &seed), ("command", &rerun)]);
    crate::say!("{seed_line}");
    if args.seed.is_none() {
        // Passing under one drawn seed is no promise under grade's own.
        crate::say!("{}", crate::catalog::t("run.fresh_seed"));
    }
    if sources.is_none() {
        let manifest =
            compile::read_manifest(&root.join("student/Cargo.toml"), true).unwrap_or_default();
        let refused = match compile::extra_dependencies(&manifest) {
            Ok(extra) if extra.is_empty() => None,
            Ok(extra) => Some(tr(
                "run.extra_dependencies",
                &[("names", &extra.join(", "))],
            )),
            // Cargo could not read it either.
            Err(not_toml) => Some(not_toml.message()),
        };
        if let Some(why) = refused {
            // Nothing is built: cargo would only fail on the lock file, or
            // wait for a registry that the kit never asks.
            crate::say!("{why}\n");
            crate::events::build_failed("student/Cargo.toml", &args.steps, &why);
            crate::say!("{seed_line}");
            crate::events::counts(0, args.steps.len() as u64, 0);
            crate::say!("{}", closing(0, args.steps.len() as u64, 0));
            return status::DOES_NOT_COMPILE;
        }
    }
    // The suites are built while cargo compiles the runners.
    let steps = args.steps.clone();
    let started = std::time::Instant::now();
    let preparing = std::thread::Builder::new()
        .name("prepare".into())
        .spawn(move || {
            let p = crate::evaluate::prepare(&steps, seed);
            crate::timing::phase("suites prepared", started);
            p
        });
    let core_wanted = args.steps.iter().any(|s| !is_advanced(s));
    let advanced_wanted = args.steps.iter().any(|s| is_advanced(s));
    // Holds the slot's lock (if any) until the run is over.
    let runners = match compile::runners(
        root,
        &args.limits,
        sources.as_ref().map(|s| ("check", s)),
        core_wanted,
        advanced_wanted,
    ) {
        Ok(r) => r,
        Err(what) => {
            let what = tr("error.kit", &[("what", &what)]);
            eprintln!("lab: {what}");
            crate::events::error(&what);
            return status::KIT_ERROR;
        }
    };
    let core = match &runners.core {
        Some(Err(errors)) => {
            let path = args
                .subject
                .as_ref()
                .map_or("student/src/lib.rs".into(), |p| p.display().to_string());
            // A crate that compiles, with a declaration the checker cannot
            // call, is told as that, not as a crate that does not compile.
            let heading = if runners.core_declarations_differ {
                "run.declaration_differs"
            } else {
                "run.build_failed"
            };
            let heading = tr(heading, &[("path", &path)]);
            crate::say!("{heading}\n\n{errors}\n");
            let core: Vec<&str> = args
                .steps
                .iter()
                .copied()
                .filter(|s| !is_advanced(s))
                .collect();
            crate::events::build_failed(&path, &core, &format!("{heading}\n\n{errors}"));
            crate::say!("{seed_line}");
            crate::events::counts(0, args.steps.len() as u64, 0);
            crate::say!("{}", closing(0, args.steps.len() as u64, 0));
            return status::DOES_NOT_COMPILE;
        }
        Some(Ok(path)) => Some(path.as_path()),
        None => None,
    };
    if let compile::Advanced::DoesNotCompile(errors) = &runners.advanced {
        let heading = crate::suites::tr_steps(
            "run.advanced_build_failed",
            &[("path", &advanced_path(args))],
        );
        crate::say!("{heading}\n\n{errors}\n");
        let advanced: Vec<&str> = args
            .steps
            .iter()
            .copied()
            .filter(|s| is_advanced(s))
            .collect();
        crate::events::build_failed(
            &advanced_path(args),
            &advanced,
            &format!("{heading}\n\n{errors}"),
        );
    }
    let prepared = match preparing
        .map_err(|e| e.to_string())
        .and_then(|t| t.join().map_err(|_| "suite building panicked".to_string()))
    {
        Ok(p) => p,
        Err(e) => {
            let what = tr("error.kit", &[("what", &e)]);
            eprintln!("lab: {what}");
            crate::events::error(&what);
            return status::KIT_ERROR;
        }
    };
    let parallel = std::thread::available_parallelism().map_or(1, |n| n.get());
    let results =
        match crate::evaluate::run_with(core, &runners.advanced, prepared, args.limits, parallel) {
            Ok(r) => r,
            Err(e) => {
                let what = tr("error.kit", &[("what", &e)]);
                eprintln!("lab: {what}");
                crate::events::error(&what);
                return status::KIT_ERROR;
            }
        };
    crate::timing::phase("suites run", started);
    let advanced_broken = matches!(runners.advanced, compile::Advanced::DoesNotCompile(_));
    drop(runners);
    if args.subject.is_none() {
        remember(root, &results);
    }
    let places = Places::read(root, args, sources.as_ref());
    let at = |step: &str| places.at(step);
    crate::events::steps(&results, &args.limits, &at);
    let (passed, failed, not_started) =
        crate::console::report(&results, &args.limits, args.console, &at);
    crate::events::counts(passed, failed, not_started);
    crate::say!();
    let first_open = results.iter().find(|r| {
        !r.verdicts
            .iter()
            .all(crate::verdict::ClauseVerdict::is_pass)
    });
    let advice = match first_open {
        None => t("run.all_passed"),
        Some(r) if r.not_started() => {
            let n = r.suite.step.trim_start_matches('0');
            let file = crate::suites::file_of(r.suite.step);
            tr(
                "run.start_step",
                &[("step", &r.suite.step), ("n", &n), ("file", &file)],
            )
        }
        Some(_) => t("run.next_step"),
    };
    crate::say!("{advice}");
    let core_done = crate::suites::core_ids()
        .iter()
        .all(|s| args.steps.contains(s));
    if first_open.is_none() && core_done && !has_advanced {
        crate::say!("{}", crate::suites::tr_steps("run.advanced_invite", &[]));
    }
    crate::say!("{seed_line}");
    crate::say!("{}", closing(passed, failed, not_started));
    if args.github || crate::github::wanted() {
        // Commands are read again from here.
        crate::github::report(&results, &args.limits, &at);
    }
    if advanced_broken {
        status::DOES_NOT_COMPILE
    } else if failed == 0 && not_started == 0 {
        status::PASSED
    } else {
        status::FAILED
    }
}

#[cfg(test)]
mod tests {
    use super::{rerun_in, CheckArgs};
    use crate::catalog::Lang;
    use crate::cli::{parse, Command};

    fn args(words: &[&str]) -> CheckArgs {
        let words: Vec<String> = words.iter().map(|w| w.to_string()).collect();
        match parse(&words).map(|c| c.command) {
            Ok(Command::Check(a)) => a,
            other => panic!("not a check: {other:?}"),
        }
    }

    #[test]
    fn message_format_and_github_are_read_and_watch_refuses_json() {
        use crate::stdout::Format;
        assert_eq!(args(&["check", "03"]).format, Format::Human);
        let a = args(&["check", "03", "--message-format", "json", "--github"]);
        assert_eq!((a.format, a.github), (Format::Json, true));
        let words = |w: &[&str]| w.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(parse(&words(&["check", "--message-format", "xml"])).is_err());
        assert!(parse(&words(&["watch", "--message-format", "json"])).is_err());
        assert!(parse(&words(&["watch", "--message-format", "human"])).is_ok());
    }

    #[test]
    fn the_rerun_line_keeps_the_language_and_the_steps() {
        let a = args(&["check", "04", "--subject", "sub"]);
        assert_eq!(
            rerun_in(Lang::Zh, &a, 9),
            "./lab.sh --lang zh check 04 --subject sub --seed 9"
        );
        assert_eq!(
            rerun_in(Lang::En, &a, 9),
            "./lab.sh check 04 --subject sub --seed 9"
        );
    }
}
