//! Building the runners: against `student/` in the kit itself, or against
//! any other lib.rs in a subject slot (see `slot`).
//!
//! The core runner (`lab-runner`) links the learner's crate. The advanced
//! runner (`lab-runner-advanced`) compiles only `student/src/advanced.rs`,
//! and is built only when that file exists and an advanced step is asked
//! for: a core submission builds exactly as it always did, and a broken
//! advanced file never stops the core steps. Every runner is built by one
//! cargo command (see `runners`); `blame` reads what the compiler said;
//! `manifest` reads the learner's student/Cargo.toml.

mod blame;
mod manifest;
mod reads;
mod runners;
use reads::{cargo_configs, cargo_home, sources};
mod slot;

pub use manifest::{extra_dependencies, read_manifest};

use crate::catalog::{t, tr};
use crate::limits::{Confinement, Limits};
use crate::platform::{self, Exit};
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// Longest the kit's own part of a build may take: the dependencies of a
/// cold target, built before any learner code.
pub const WARM_LIMIT: Duration = Duration::from_secs(600);

/// Why there is no runner.
#[derive(Debug)]
pub enum BuildError {
    /// The learner's code does not compile; the compiler's first errors.
    DoesNotCompile(String),
    /// The kit could not be built for another reason.
    Kit(String),
}

impl From<io::Error> for BuildError {
    fn from(e: io::Error) -> Self {
        BuildError::Kit(e.to_string())
    }
}

pub fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from)
}

/// The compiler's error blocks, at most `lines` lines of them.
pub fn first_errors(stderr: &str, lines: usize) -> String {
    let mut out = Vec::new();
    let mut in_error = false;
    for line in stderr.lines() {
        if line.starts_with("error") {
            in_error = !line.starts_with("error: could not compile");
        } else if line.starts_with("warning") {
            in_error = false;
        }
        if in_error {
            out.push(line);
        }
        if out.len() >= lines {
            break;
        }
    }
    if out.is_empty() {
        return stderr
            .lines()
            .rev()
            .take(lines)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect::<Vec<_>>()
            .join("\n");
    }
    out.join("\n")
}

/// The two runners.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Runner {
    Core,
    Advanced,
}

/// The compiler's messages split into blocks, each starting at a line that
/// starts with `error` or `warning`.
fn blocks(stderr: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in stderr.lines() {
        if out.is_empty() || line.starts_with("error") || line.starts_with("warning") {
            out.push(String::new());
        }
        if let Some(last) = out.last_mut() {
            last.push_str(line);
            last.push('\n');
        }
    }
    out
}

/// One confined cargo command with `args` in the workspace `dir`: it may
/// read the toolchain, the registry and the workspace's sources, and write
/// only `target`. Returns how it ended, its stdout (the first 64 MiB) and
/// its stderr (the first 256 KiB).
fn cargo(
    dir: &Path,
    target: &Path,
    args: &[&str],
    limit: Duration,
    confinement: Confinement,
) -> Result<(Exit, String, String), BuildError> {
    cargo_with(dir, target, args, limit, confinement, &[], &[])
}

/// [`cargo`], also reading `more` (the kit's folders a slot links to) and
/// with the variables `env`.
fn cargo_with(
    dir: &Path,
    target: &Path,
    args: &[&str],
    limit: Duration,
    confinement: Confinement,
    more: &[&Path],
    env: &[(&str, &str)],
) -> Result<(Exit, String, String), BuildError> {
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cmd.current_dir(dir).args(args);
    let mut jail = jail_reading(dir, target, more, confinement)?;
    for (name, value) in env {
        jail = jail.env(name, *value);
    }
    let (exit, captured) = platform::run_tool(&mut cmd, limit, Some(jail))?;
    Ok((
        exit,
        platform::excerpt(&captured.stdout, 64 << 20),
        platform::excerpt(&captured.stderr, 256 << 10),
    ))
}

/// At most the first `cap` bytes of `text`, cut at a line's end.
fn clip(text: &str, cap: usize) -> &str {
    if text.len() <= cap {
        return text;
    }
    let cut = text.as_bytes()[..cap]
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    &text[..cut]
}

/// Opens the lock file at `path` (made when missing) and waits for a lock
/// on it, exclusive or shared. The file is never written, and only a
/// regular file is taken: not through a link, and a FIFO planted there
/// neither blocks the open nor serves as a lock.
fn lock_file(path: &Path, exclusive: bool) -> io::Result<std::fs::File> {
    let file = crate::platform::fs::open_lock(path)?;
    if !file.metadata()?.is_file() {
        return Err(io::Error::other(format!(
            "{} is not a regular file",
            path.display()
        )));
    }
    relock(&file, exclusive)?;
    Ok(file)
}

/// Waits for `file`'s lock to become exclusive or shared. Changing it is
/// not atomic: another process may take the lock in between.
fn relock(file: &std::fs::File, exclusive: bool) -> io::Result<()> {
    crate::platform::fs::lock(file, exclusive)
}

/// The jail of one build command (cargo) in `dir`: it reads the toolchain
/// and `dir`'s sources, and writes only `target` (its `lab-tmp/` is
/// TMPDIR); Landlock only when `confinement` says so. It also reads `more` (a slot's build reads the kit's libraries
/// in the kit's target folder).
fn jail_reading(
    dir: &Path,
    target: &Path,
    more: &[&Path],
    confinement: Confinement,
) -> Result<crate::platform::Jail, BuildError> {
    let tmp = target.join("lab-tmp");
    std::fs::create_dir_all(&tmp)?;
    let (mut read, also) = sources(dir)?;
    read.extend(more.iter().map(|p| p.to_path_buf()));
    read.extend(cargo_configs(dir, cargo_home().as_deref()));
    Ok(crate::platform::build(
        &read,
        target,
        &tmp,
        &also,
        confinement,
    )?)
}

/// The kit's crates a runner is built from, besides the learner's.
const RUNNER_CRATES: [&str; 7] = [
    "checks/api",
    "checks/wire",
    "checks/scripts",
    "checks/harness",
    "checks/runner-core",
    "checks/runner",
    "checks/runner-advanced",
];

/// A cargo build that failed outside the compiler's judgement of the
/// learner's code: the kit's fault, unless cargo could not read the
/// learner's own `student/Cargo.toml` (a change of theirs).
fn failed_build(exit: &Exit, stderr: &str) -> BuildError {
    if stderr.contains("student/Cargo.toml") {
        return BuildError::DoesNotCompile(format!(
            "{}\n{}",
            t("build.student_manifest"),
            first_errors(stderr, 20)
        ));
    }
    BuildError::Kit(format!(
        "cargo build ended with {exit:?}: {}",
        first_errors(stderr, 20)
    ))
}

/// The core runner, ready to run; the kit's or the slot's build folder
/// stays locked while this lives.
pub struct Built {
    pub runner: PathBuf,
    _runners: Runners,
}

/// Builds the core runner for the kit's own `student/` (no subject), or
/// for a subject — a lib.rs, or a folder holding `student/src/lib.rs` or
/// `src/lib.rs` — in slot `slot`, under `limits`. The outer `Err` is bad
/// input, in one line.
pub fn runner_for(
    root: &Path,
    limits: &Limits,
    subject: Option<&Path>,
    slot: &str,
) -> Result<Result<Built, BuildError>, String> {
    let sources = match subject {
        Some(subject) => Some(Sources {
            lib: read_source(&subject_lib(subject)?)?,
            advanced: None,
        }),
        None => None,
    };
    let runners = match runners(
        root,
        limits,
        sources.as_ref().map(|s| (slot, s)),
        true,
        false,
    ) {
        Ok(r) => r,
        Err(kit) => return Ok(Err(BuildError::Kit(kit))),
    };
    Ok(match runners.core.clone() {
        Some(Ok(runner)) => Ok(Built {
            runner,
            _runners: runners,
        }),
        Some(Err(errors)) => Err(BuildError::DoesNotCompile(errors)),
        None => Err(BuildError::Kit("no core runner was built".into())),
    })
}

/// The advanced file of a subject folder: `student/src/advanced.rs` or
/// `src/advanced.rs`, next to its lib.rs; `None` for a file subject.
pub fn subject_advanced(path: &Path) -> Option<PathBuf> {
    if !path.is_dir() {
        return None;
    }
    ["student/src/advanced.rs", "src/advanced.rs"]
        .iter()
        .map(|p| path.join(p))
        .find(|p| p.is_file())
}

/// The bytes of a subject's source file, which must be a regular file: a
/// symbolic link is refused (it could point at the kit's own answers).
pub fn read_source(path: &Path) -> Result<Vec<u8>, String> {
    let meta = std::fs::symlink_metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if meta.file_type().is_symlink() {
        return Err(tr("error.symlink_source", &[("path", &path.display())]));
    }
    std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// Finds the lib.rs of a subject: a lib.rs file, or a folder holding
/// `student/src/lib.rs` or `src/lib.rs`.
pub fn subject_lib(path: &Path) -> Result<PathBuf, String> {
    if !path.exists() {
        return Err(tr("error.missing_folder", &[("path", &path.display())]));
    }
    if path.is_file() {
        return Ok(path.to_path_buf());
    }
    ["student/src/lib.rs", "src/lib.rs"]
        .iter()
        .map(|p| path.join(p))
        .find(|p| p.is_file())
        .ok_or_else(|| tr("error.missing_lib", &[("path", &path.display())]))
}

/// The advanced runner of one evaluation.
#[derive(Debug)]
pub enum Advanced {
    /// No advanced step was asked for.
    NotAsked,
    /// The subject has no advanced.rs: the advanced steps are not attempted.
    Absent,
    Built(PathBuf),
    /// Its advanced.rs does not compile; the compiler's first errors.
    DoesNotCompile(String),
}

/// The runners of one evaluation; the kit's or the slot's build folder
/// stays locked while this lives, so its runners cannot change under it.
pub struct Runners {
    /// `None` when no core step was asked for; `Err` holds the compiler's
    /// first errors when the learner's crate does not compile.
    pub core: Option<Result<PathBuf, String>>,
    /// The learner's crate compiles, but a declaration differs from the
    /// contract's, so the core runner's calls do not (the `Err` of `core`
    /// says which).
    pub core_declarations_differ: bool,
    pub advanced: Advanced,
    _lock: std::fs::File,
}

/// A subject's files, read: its lib.rs and, when it has one, its advanced.rs.
pub struct Sources {
    pub lib: Vec<u8>,
    pub advanced: Option<Vec<u8>>,
}

/// The kit's folders a slot's build reads through the slot's links: the
/// libraries the runners are built from, whole (cargo reads their sources
/// to see that the kit's build of them is fresh), and of every other
/// linked member only its manifests.
fn slot_reads(root: &Path) -> std::io::Result<Vec<PathBuf>> {
    let manifest = std::fs::read_to_string(root.join("Cargo.toml"))?;
    let members = crate::files::members(&manifest);
    let mut out = Vec::new();
    for linked in slot::linked_members(root)? {
        let whole = RUNNER_CRATES.iter().any(|c| linked == Path::new(c))
            || linked == Path::new("checks/deps");
        if whole {
            out.push(root.join(&linked));
            continue;
        }
        for member in &members {
            if Path::new(member).starts_with(&linked) {
                out.push(root.join(member).join("Cargo.toml"));
            }
        }
    }
    Ok(out)
}

/// The kit's own libraries the runners link, built by cargo in the kit's
/// target folder before any slot is seeded from it; once per judge, under
/// the long limit (so that the build limit measures the learner's code,
/// not a cold start).
fn warm_kit(root: &Path, limits: &Limits) -> Result<(), String> {
    static WARM: std::sync::Mutex<Option<PathBuf>> = std::sync::Mutex::new(None);
    let mut warmed = WARM.lock().unwrap_or_else(|e| e.into_inner());
    if warmed.as_deref() == Some(root) {
        return Ok(());
    }
    let mut args = vec![
        "build",
        "--message-format=json",
        "--color",
        "never",
        "-p",
        "lab-runner-core",
        "-p",
        "lab-scripts",
        "-p",
        "lab-harness",
    ];
    if root.join("checks/deps/Cargo.toml").is_file() {
        // The judge's features (see checks/deps), so that nothing lab.sh's
        // build of the judge compiled is compiled again.
        args.extend(["-p", "lab-deps"]);
    }
    let target = target_dir(root);
    let (exit, _, stderr) =
        cargo(root, &target, &args, WARM_LIMIT, limits.confinement).map_err(|e| match e {
            BuildError::Kit(what) | BuildError::DoesNotCompile(what) => what,
        })?;
    if exit != Exit::Success {
        return Err(match failed_build(&exit, &stderr) {
            BuildError::Kit(what) | BuildError::DoesNotCompile(what) => what,
        });
    }
    *warmed = Some(root.to_path_buf());
    Ok(())
}

/// Builds the runners a run needs: the core one when `core`, the advanced
/// one when `advanced` and the subject has an advanced.rs. `sources` is
/// `None` for the kit's own `student/`, else the subject's files, built in
/// slot `slot`. The `Err` is a kit error.
pub fn runners(
    root: &Path,
    limits: &Limits,
    sources: Option<(&str, &Sources)>,
    core: bool,
    advanced: bool,
) -> Result<Runners, String> {
    let mut wanted = Vec::new();
    let has_advanced = match sources {
        None => root.join("student/src/advanced.rs").is_file(),
        Some((_, s)) => s.advanced.is_some(),
    };
    if core {
        wanted.push(Runner::Core);
    }
    if advanced && has_advanced {
        wanted.push(Runner::Advanced);
    }
    let kit_error = |e: BuildError| match e {
        BuildError::Kit(what) | BuildError::DoesNotCompile(what) => what,
    };
    let (dir, target, lock, reads, env) = match sources {
        None => {
            let target = target_dir(root);
            // Another check of the same kit waits: its build would replace
            // this one's runners while they run.
            let lock = slot::lock(&target.join("lab-build")).map_err(|e| e.to_string())?;
            slot::clear_unless_kit_same(root, &target, &target.join("lab-build/subject"))
                .map_err(|e| e.to_string())?;
            (root.to_path_buf(), target, lock, Vec::new(), Vec::new())
        }
        Some((slot, s)) => {
            let started = std::time::Instant::now();
            if !wanted.is_empty() {
                warm_kit(root, limits)?;
            }
            let filled = slot::fill_slot(
                root,
                &target_dir(root).join("debug"),
                slot,
                &s.lib,
                s.advanced.as_deref(),
            )
            .map_err(kit_error)?;
            crate::timing::phase("slot filled", started);
            let reads = slot_reads(root).map_err(|e| e.to_string())?;
            // Each subject's crate compiles from nothing: no incremental
            // cache of another's.
            let env = vec![("CARGO_INCREMENTAL", "0")];
            (filled.dir, filled.target, filled.lock, reads, env)
        }
    };
    let built = if wanted.is_empty() {
        Vec::new()
    } else {
        runners::build(&dir, &target, &wanted, limits, &reads, &env).map_err(kit_error)?
    };
    // Each runner's binary, or the errors and whether a declaration differs.
    let result_of = |runner: Runner| {
        wanted
            .iter()
            .zip(&built)
            .find(|(r, _)| **r == runner)
            .map(|(_, b)| match b {
                Ok(path) => (Ok(path.clone()), false),
                Err(errors) => {
                    let (text, differ) = signatures_first(root, &dir, runner, errors.clone());
                    (Err(text), differ)
                }
            })
    };
    let (core, core_declarations_differ) = match result_of(Runner::Core) {
        Some((result, differ)) => (Some(result), differ),
        None => (None, false),
    };
    let advanced = match (
        advanced,
        has_advanced,
        result_of(Runner::Advanced).map(|(r, _)| r),
    ) {
        (false, _, _) => Advanced::NotAsked,
        (true, false, _) | (true, true, None) => Advanced::Absent,
        (true, true, Some(Ok(path))) => Advanced::Built(path),
        (true, true, Some(Err(errors))) => Advanced::DoesNotCompile(errors),
    };
    Ok(Runners {
        core,
        core_declarations_differ,
        advanced,
        _lock: lock,
    })
}

/// When the checker's own calls fail to compile because the learner changed
/// a declaration, says which function, on which line, and what the contract
/// fixes, and leaves out the compiler's messages about the checker's code
/// (whose suggestions would be to edit the checker).
/// The text, and whether a declaration differs.
fn signatures_first(root: &Path, dir: &Path, runner: Runner, errors: String) -> (String, bool) {
    if !errors.contains("--> checks/") {
        return (errors, false);
    }
    let file = match runner {
        Runner::Core => "lib.rs",
        Runner::Advanced => "advanced.rs",
    };
    let read = |p: PathBuf| std::fs::read_to_string(p).unwrap_or_default();
    let learner = read(dir.join("student/src").join(file));
    let stubs = read(root.join("fixtures/pristine").join(file));
    let found = crate::signature::mismatches(&learner, &stubs);
    if found.is_empty() {
        return (errors, false);
    }
    let mut text: Vec<String> = found
        .iter()
        .map(|m| {
            tr(
                "build.signature",
                &[
                    ("function", &m.function),
                    ("file", &format!("student/src/{file}")),
                    ("line", &m.line),
                    ("got", &m.got),
                    ("want", &m.want),
                ],
            )
        })
        .collect();
    let blocks = blocks(&errors);
    // The compiler's own words about the checker's call: its heading and
    // what it expected and found, without the source lines and
    // suggestions, which point into the checker.
    let said: Vec<&str> = blocks
        .iter()
        .filter(|b| b.starts_with("error") && b.contains("--> checks/"))
        .flat_map(|b| {
            b.lines().enumerate().filter_map(|(i, line)| {
                let trimmed = line.trim_start_matches([' ', '|', '=']).trim_start();
                let kept = i == 0
                    || trimmed.starts_with("note: expected")
                    || trimmed.starts_with("expected ")
                    || trimmed.starts_with("found ");
                kept.then_some(line)
            })
        })
        .collect();
    if !said.is_empty() {
        text.push(said.join("\n"));
    }
    text.extend(
        blocks
            .into_iter()
            .filter(|b| b.starts_with("error") && !b.contains("--> checks/")),
    );
    (text.join("\n\n"), true)
}

#[cfg(all(test, unix))]
mod tests;
