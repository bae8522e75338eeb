//! Building the runners: against `student/` in the kit itself, or against
//! any other lib.rs in a subject slot — a copy of the pristine kit whose
//! `student/src/lib.rs` is that file, nothing else taken from the subject.
//!
//! The core runner (`lab-runner`) links the learner's crate. The advanced
//! runner (`lab-runner-advanced`) compiles only `student/src/advanced.rs`,
//! and is built only when that file exists and an advanced step is asked
//! for, in a cargo command of its own: a core submission builds exactly as
//! it always did, and a broken advanced file never stops the core steps.

use crate::catalog::{t, tr};
use crate::spawn::{self, Exit};
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Longest the kit's own part of a build may take: the dependencies of a
/// cold target, built before any learner code.
pub const WARM_LIMIT: Duration = Duration::from_secs(600);

/// Longest a build of learner code may take (`--build-timeout`); past it the
/// learner's code "did not compile in time" (a constant evaluation that
/// never ends, say).
static BUILD_TIMEOUT_MS: AtomicU64 = AtomicU64::new(120_000);

pub fn set_build_timeout(limit: Duration) {
    BUILD_TIMEOUT_MS.store(limit.as_millis() as u64, Ordering::SeqCst);
}

fn build_timeout() -> Duration {
    Duration::from_millis(BUILD_TIMEOUT_MS.load(Ordering::SeqCst))
}

// Every slot has a target directory of its own. Cargo names a workspace
// member's artifacts without its path, so two slots sharing one target
// directory would reuse each other's fingerprints and run a stale runner.

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

/// Whether a failed build is the learner's: their crate did not compile, or
/// the runner could not call it (signatures that differ from the contract).
/// Anything else — a broken runner or api — is the kit's fault, never a zero
/// for the learner.
pub fn learners_fault(stderr: &str) -> bool {
    stderr.contains("could not compile `student`")
        || (stderr.contains("could not compile `lab-runner`") && stderr.contains("student::"))
}

/// The same for the advanced runner: its failures are the learner's when
/// they are in their advanced.rs, or where the runner calls its items.
pub fn advanced_fault(stderr: &str) -> bool {
    stderr.contains("could not compile `lab-runner-advanced`")
        && (stderr.contains("advanced.rs") || stderr.contains("advanced::"))
}

/// The two runners.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Runner {
    Core,
    Advanced,
}

impl Runner {
    fn package(self) -> &'static str {
        match self {
            Runner::Core => "lab-runner",
            Runner::Advanced => "lab-runner-advanced",
        }
    }

    /// Whether cargo's messages say this runner (or the crate it links) failed.
    fn failed(self, stderr: &str) -> bool {
        match self {
            Runner::Core => {
                stderr.contains("could not compile `student`")
                    || stderr.contains("could not compile `lab-runner`")
            }
            Runner::Advanced => stderr.contains("could not compile `lab-runner-advanced`"),
        }
    }

    fn blames_learner(self, stderr: &str) -> bool {
        match self {
            Runner::Core => learners_fault(stderr),
            Runner::Advanced => advanced_fault(stderr),
        }
    }
}

fn cargo_build(
    dir: &Path,
    target: &Path,
    log_dir: &Path,
    runner: Runner,
) -> Result<(), BuildError> {
    let mut results = cargo_build_all(dir, target, log_dir, &[runner])?;
    results.remove(0).map_err(BuildError::DoesNotCompile)
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

/// The part of a build's messages that concerns `runner`, when one cargo
/// command built both: a block naming the advanced file or runner is the
/// advanced runner's, any other the core runner's.
fn part_of(stderr: &str, runner: Runner, alone: bool) -> String {
    if alone {
        return stderr.to_string();
    }
    blocks(stderr)
        .into_iter()
        .filter(|b| {
            let advanced = b.contains("advanced.rs")
                || b.contains("runner-advanced")
                || b.contains("advanced::");
            advanced == (runner == Runner::Advanced)
        })
        .collect()
}

/// Builds `runners` in one cargo command — `--keep-going`, so one
/// package's failure never stops the other's build — and says, for each,
/// whether it built or the learner's code did not compile (its compiler
/// errors). The outer `Err` is the kit's fault.
fn cargo_build_all(
    dir: &Path,
    target: &Path,
    log_dir: &Path,
    runners: &[Runner],
) -> Result<Vec<Result<(), String>>, BuildError> {
    // A manifest the learner broke fails every runner, as their own fault.
    let every = |e: BuildError| match e {
        BuildError::DoesNotCompile(why) => Ok(runners.iter().map(|_| Err(why.clone())).collect()),
        kit => Err(kit),
    };
    if let Err(e) = warm(dir, target, log_dir) {
        return every(e);
    }
    let packages: Vec<&str> = runners.iter().map(|r| r.package()).collect();
    let (exit, stderr) = cargo(dir, target, log_dir, &packages, build_timeout())?;
    if stderr.contains("student/Cargo.toml") {
        return every(failed_build(&exit, &stderr));
    }
    let kit = |other: &Exit| failed_build(other, &stderr);
    match &exit {
        Exit::Success => return Ok(runners.iter().map(|_| Ok(())).collect()),
        Exit::Failure(_) => {}
        Exit::CaseTimeLimit | Exit::OverallTimeLimit => {
            let late = tr(
                "build.too_slow",
                &[("secs", &build_timeout().as_secs_f64())],
            );
            return Ok(runners.iter().map(|_| Err(late.clone())).collect());
        }
        other => return Err(kit(other)),
    }
    let alone = runners.len() == 1;
    let mut results = Vec::new();
    let mut any_failed = false;
    for &runner in runners {
        let part = part_of(&stderr, runner, alone);
        if !runner.failed(&stderr) {
            results.push(Ok(()));
        } else if runner.blames_learner(&part) {
            any_failed = true;
            results.push(Err(first_errors(&part, 40)));
        } else {
            return Err(kit(&exit));
        }
    }
    if !any_failed {
        // cargo failed, and not in a package the learner writes.
        return Err(kit(&exit));
    }
    Ok(results)
}

/// One confined `cargo build` of `packages` in the workspace `dir`: it may
/// read the toolchain, the registry and the workspace's sources, and write
/// only `target`. Returns how it ended and (the first 256 KiB of) its stderr.
fn cargo(
    dir: &Path,
    target: &Path,
    _log_dir: &Path,
    packages: &[&str],
    limit: Duration,
) -> Result<(Exit, String), BuildError> {
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cmd.current_dir(dir)
        .args(["build", "--quiet", "--keep-going", "--color", "never"]);
    for package in packages {
        cmd.args(["-p", package]);
    }
    if is_kit(dir) {
        // In the kit's own target folder: the judge's features (see
        // checks/deps), so nothing lab.sh's build of the judge compiled is
        // compiled again.
        cmd.args(["-p", "lab-deps"]);
    }
    let tmp = target.join("lab-tmp");
    std::fs::create_dir_all(&tmp)?;
    let (read, also) = sources(dir)?;
    let jail = crate::sandbox::build(&read, target, &tmp, &also)?;
    let (exit, captured) = spawn::run_tool(&mut cmd, limit, Some(jail))?;
    Ok((exit, spawn::excerpt(&captured.stderr, 256 << 10)))
}

/// What a build in workspace `dir` may read of it, and which of its files
/// it may write. A slot: read whole (it holds nothing else), and its
/// Cargo.lock, the judge's copy, which cargo narrows to the slot's members.
/// The kit: its manifests and the crates a runner is built from — not
/// `solutions/`, `fixtures/` or the judge — and nothing written.
fn sources(dir: &Path) -> io::Result<(Vec<PathBuf>, Vec<PathBuf>)> {
    if !is_kit(dir) {
        return Ok((vec![dir.to_path_buf()], vec![dir.join("Cargo.lock")]));
    }
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml"))?;
    let mut out: Vec<PathBuf> = ["Cargo.toml", "Cargo.lock", ".cargo"]
        .iter()
        .map(|f| dir.join(f))
        .collect();
    for member in crate::files::members(&manifest) {
        out.push(dir.join(member).join("Cargo.toml"));
    }
    for crate_dir in RUNNER_CRATES.iter().chain(&["student", "checks/deps"]) {
        out.push(dir.join(crate_dir));
    }
    Ok((out, Vec::new()))
}

/// Whether `dir` is the kit itself (its target folder is the one lab.sh
/// builds the judge in), not a slot.
fn is_kit(dir: &Path) -> bool {
    dir.join("lab.sh").is_file()
}

/// The kit's crates a runner is built from, besides the learner's.
const RUNNER_CRATES: [&str; 5] = [
    "checks/api",
    "checks/wire",
    "checks/harness",
    "checks/runner",
    "checks/runner-advanced",
];

/// Builds the runners' dependencies (the kit's code only) once per target
/// and Cargo.lock, under the long limit, so that the build timeout measures
/// the learner's crate and not a cold start.
fn warm(dir: &Path, target: &Path, log_dir: &Path) -> Result<(), BuildError> {
    let marker = target.join("lab-warm");
    let lock = std::fs::read(dir.join("Cargo.lock"))?;
    if std::fs::read(&marker).ok().as_deref() == Some(&lock[..]) {
        return Ok(());
    }
    match cargo(dir, target, log_dir, &["lab-harness"], WARM_LIMIT)? {
        (Exit::Success, _) => {
            std::fs::write(&marker, &lock)?;
            Ok(())
        }
        (exit, stderr) => Err(failed_build(&exit, &stderr)),
    }
}

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

/// A runner ready to run; for a subject, its slot stays locked while this lives.
pub struct Built {
    pub runner: PathBuf,
    _slot: Option<Slot>,
}

/// Builds the runner for the kit's own `student/` (no subject), or for a
/// subject — a lib.rs, or a folder holding `student/src/lib.rs` or
/// `src/lib.rs` — in slot `slot`. The outer `Err` is bad input, in one line.
pub fn runner_for(
    root: &Path,
    subject: Option<&Path>,
    slot: &str,
) -> Result<Result<Built, BuildError>, String> {
    let Some(subject) = subject else {
        return Ok(runner_in_kit(root).map(|runner| Built {
            runner,
            _slot: None,
        }));
    };
    let lib = subject_lib(subject)?;
    let bytes = read_source(&lib)?;
    Ok(runner_in_slot(root, slot, &bytes).map(|s| Built {
        runner: s.runner.clone(),
        _slot: Some(s),
    }))
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

/// Builds the runner against the kit's own `student/`; returns its path.
pub fn runner_in_kit(root: &Path) -> Result<PathBuf, BuildError> {
    kit_runner(root, Runner::Core)
}

/// Builds one runner against the kit's own `student/`; returns its path.
pub fn kit_runner(root: &Path, runner: Runner) -> Result<PathBuf, BuildError> {
    let logs = tempfile::tempdir()?;
    let target = target_dir(root);
    cargo_build(root, &target, logs.path(), runner)?;
    Ok(target.join("debug").join(runner.package()))
}

fn write_if_changed(path: &Path, bytes: &[u8]) -> io::Result<()> {
    if std::fs::read(path).ok().as_deref() == Some(bytes) {
        return Ok(()); // unchanged: keep the mtime, so cargo has nothing to do
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(path, bytes)
}

/// The slot's workspace manifest: the kit's own, narrowed to the learner's
/// crate and the runners (lab-api and lab-harness are copied into the slot,
/// so a build there reads nothing outside it).
fn slot_manifest(root: &Path) -> io::Result<String> {
    let text = std::fs::read_to_string(root.join("Cargo.toml"))?;
    let text = crate::files::with_members(
        &text,
        &["student", "checks/runner", "checks/runner-advanced"],
    );
    Ok(text
        .lines()
        .filter(|line| !line.starts_with("default-members"))
        .map(|line| format!("{line}\n"))
        .collect())
}

/// A built slot, locked against other processes until dropped.
pub struct Slot {
    pub runner: PathBuf,
    _lock: std::fs::File,
}

/// Waits for exclusive use of a slot (another `lab.sh` may hold it).
fn lock(dir: &Path) -> io::Result<std::fs::File> {
    use std::os::unix::io::AsRawFd;
    std::fs::create_dir_all(dir)?;
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join("lock"))?;
    // SAFETY: flock on a file descriptor we own; released when `file` closes.
    if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(file)
}

/// Builds the core runner against `lib_rs` in slot `name`. The slot stays
/// locked while the returned [`Slot`] lives, so its runner cannot change under it.
pub fn runner_in_slot(root: &Path, name: &str, lib_rs: &[u8]) -> Result<Slot, BuildError> {
    let (slot, target, lock) = fill_slot(root, name, lib_rs, None)?;
    cargo_build(&slot, &target, slot.parent().unwrap_or(&slot), Runner::Core)?;
    Ok(Slot {
        runner: target.join("debug").join(Runner::Core.package()),
        _lock: lock,
    })
}

/// Copies `from` into `to` file by file (folders too), rewriting only what changed.
fn mirror(from: &Path, to: &Path) -> io::Result<()> {
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let dest = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            mirror(&entry.path(), &dest)?;
        } else {
            write_if_changed(&dest, &std::fs::read(entry.path())?)?;
        }
    }
    Ok(())
}

/// Locks slot `name` and makes it the pristine kit with `lib_rs`, and with
/// `advanced` as `student/src/advanced.rs` (removed when `None`). Returns the
/// slot's kit folder, its target folder and the lock.
fn fill_slot(
    root: &Path,
    name: &str,
    lib_rs: &[u8],
    advanced: Option<&[u8]>,
) -> Result<(PathBuf, PathBuf, std::fs::File), BuildError> {
    // Slots of kits before confinement existed may hold state a runner
    // wrote; this name starts them afresh.
    let slots = target_dir(root).join("lab-slots-2");
    let lock = lock(&slots.join(name))?;
    let slot = slots.join(name).join("kit");
    // Cargo reads configuration from every folder above the slot; within
    // the slots folder only the judge's own files may stand.
    for dir in [&slots, &slots.join(name), &slot] {
        let config = dir.join(".cargo");
        if config.symlink_metadata().is_ok() {
            std::fs::remove_dir_all(&config).or_else(|_| std::fs::remove_file(&config))?;
        }
    }
    write_if_changed(&slot.join("Cargo.toml"), slot_manifest(root)?.as_bytes())?;
    write_if_changed(
        &slot.join("Cargo.lock"),
        &std::fs::read(root.join("Cargo.lock"))?,
    )?;
    write_if_changed(
        &slot.join("student/Cargo.toml"),
        &std::fs::read(root.join("student/Cargo.toml"))?,
    )?;
    write_if_changed(&slot.join("student/src/lib.rs"), lib_rs)?;
    let advanced_rs = slot.join("student/src/advanced.rs");
    match advanced {
        Some(bytes) => write_if_changed(&advanced_rs, bytes)?,
        None if advanced_rs.exists() => std::fs::remove_file(&advanced_rs)?,
        None => {}
    }
    for krate in RUNNER_CRATES {
        mirror(&root.join(krate), &slot.join(krate))?;
    }
    Ok((slot, slots.join(name).join("target"), lock))
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

/// The runners of one evaluation; a slot stays locked while this lives.
pub struct Runners {
    /// `None` when no core step was asked for; `Err` holds the compiler's
    /// first errors when the learner's crate does not compile.
    pub core: Option<Result<PathBuf, String>>,
    pub advanced: Advanced,
    _lock: Option<std::fs::File>,
}

/// A subject's files, read: its lib.rs and, when it has one, its advanced.rs.
pub struct Sources {
    pub lib: Vec<u8>,
    pub advanced: Option<Vec<u8>>,
}

/// Builds the runners a run needs: the core one when `core`, the advanced
/// one when `advanced` and the subject has an advanced.rs. `sources` is
/// `None` for the kit's own `student/`, else the subject's files, built in
/// slot `slot`. The `Err` is a kit error.
pub fn runners(
    root: &Path,
    sources: Option<(&str, &Sources)>,
    core: bool,
    advanced: bool,
) -> Result<Runners, String> {
    let (dir, target, logs, lock, has_advanced) = match sources {
        None => {
            let has = root.join("student/src/advanced.rs").is_file();
            (root.to_path_buf(), target_dir(root), None, None, has)
        }
        Some((slot, s)) => {
            let (dir, target, lock) = fill_slot(root, slot, &s.lib, s.advanced.as_deref())
                .map_err(|e| match e {
                    BuildError::Kit(what) | BuildError::DoesNotCompile(what) => what,
                })?;
            let logs = dir.parent().map(Path::to_path_buf);
            (dir, target, logs, Some(lock), s.advanced.is_some())
        }
    };
    let temp = tempfile::tempdir().map_err(|e| e.to_string())?;
    let logs = logs.unwrap_or_else(|| temp.path().to_path_buf());
    // Both runners in one cargo command: one start-up, one dependency check.
    let mut wanted = Vec::new();
    if core {
        wanted.push(Runner::Core);
    }
    if advanced && has_advanced {
        wanted.push(Runner::Advanced);
    }
    let built = if wanted.is_empty() {
        Vec::new()
    } else {
        cargo_build_all(&dir, &target, &logs, &wanted).map_err(|e| match e {
            BuildError::Kit(what) | BuildError::DoesNotCompile(what) => what,
        })?
    };
    let result_of = |runner: Runner| {
        wanted
            .iter()
            .zip(&built)
            .find(|(r, _)| **r == runner)
            .map(|(_, b)| {
                b.clone()
                    .map(|()| target.join("debug").join(runner.package()))
                    .map_err(|errors| signatures_first(root, &dir, runner, errors))
            })
    };
    let core = result_of(Runner::Core);
    let advanced = match (advanced, has_advanced, result_of(Runner::Advanced)) {
        (false, _, _) => Advanced::NotAsked,
        (true, false, _) | (true, true, None) => Advanced::Absent,
        (true, true, Some(Ok(path))) => Advanced::Built(path),
        (true, true, Some(Err(errors))) => Advanced::DoesNotCompile(errors),
    };
    Ok(Runners {
        core,
        advanced,
        _lock: lock,
    })
}

/// When the checker's own calls fail to compile because the learner changed
/// a declaration, says which function, on which line, and what the contract
/// fixes, and leaves out the compiler's messages about the checker's code
/// (whose suggestions would be to edit the checker).
fn signatures_first(root: &Path, dir: &Path, runner: Runner, errors: String) -> String {
    if !errors.contains("--> checks/") {
        return errors;
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
        return errors;
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
    text.extend(
        blocks(&errors)
            .into_iter()
            .filter(|b| b.starts_with("error") && !b.contains("--> checks/")),
    );
    text.join("\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The registry crates a manifest's `[dependencies]` names.
    fn registry_dependencies(manifest: &str) -> Vec<String> {
        let mut names: Vec<String> = manifest
            .split("[dependencies]")
            .nth(1)
            .unwrap_or("")
            .lines()
            .take_while(|l| !l.starts_with('['))
            .filter_map(|l| l.split(['.', ' ', '=']).next())
            .filter(|n| !n.is_empty() && !n.starts_with('#') && !n.starts_with("lab-"))
            .map(str::to_string)
            .collect();
        names.sort();
        names
    }

    #[test]
    fn the_deps_crate_names_exactly_the_judges_registry_dependencies() {
        let read = |p: &str| {
            std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(p)).unwrap()
        };
        let judge = registry_dependencies(&read("Cargo.toml"));
        let deps = registry_dependencies(&read("../deps/Cargo.toml"));
        assert!(judge.contains(&"serde".to_string()), "{judge:?}");
        assert_eq!(deps, judge);
    }

    #[test]
    fn only_the_learners_crate_or_its_signatures_make_a_build_their_fault() {
        assert!(learners_fault(
            "error[E0308]\nerror: could not compile `student` (lib)"
        ));
        let signature = "error[E0308]: mismatched types\n  --> checks/runner/src/call.rs:7:44\n   |  student::retryable(status)\nerror: could not compile `lab-runner`";
        assert!(learners_fault(signature));
        let kit = "error[E0063]: missing field `times`\n --> checks/runner/src/world.rs\nerror: could not compile `lab-runner`";
        assert!(!learners_fault(kit));
        assert!(!learners_fault("error: failed to load manifest"));
    }

    #[test]
    fn one_build_of_both_runners_tells_their_failures_apart() {
        let stderr = "error[E0425]: cannot find value `x`\n --> student/src/advanced.rs:3:5\n\
                      error: could not compile `lab-runner-advanced` (bin)\n\
                      error[E0308]: mismatched types\n --> student/src/lib.rs:9:1\n\
                      error: could not compile `student` (lib)\n";
        assert!(Runner::Core.failed(stderr) && Runner::Advanced.failed(stderr));
        let core = part_of(stderr, Runner::Core, false);
        let advanced = part_of(stderr, Runner::Advanced, false);
        assert!(core.contains("lib.rs:9") && !core.contains("advanced.rs"));
        assert!(advanced.contains("advanced.rs:3") && !advanced.contains("lib.rs"));
        assert!(learners_fault(&core) && advanced_fault(&advanced));
        let only_advanced = "error[E0425]\n --> student/src/advanced.rs:3:5\n\
                             error: could not compile `lab-runner-advanced` (bin)\n";
        assert!(!Runner::Core.failed(only_advanced));
        // Alone, a runner's part is everything cargo said.
        assert_eq!(part_of(stderr, Runner::Core, true), stderr);
    }

    #[test]
    fn first_errors_keeps_error_blocks_and_drops_warnings() {
        let stderr = "warning: unused variable\n  --> a.rs\nerror[E0308]: mismatched types\n  --> src/lib.rs:3:5\nerror: could not compile `student`\n";
        let text = first_errors(stderr, 10);
        assert!(text.contains("E0308") && text.contains("src/lib.rs:3:5"));
        assert!(!text.contains("unused variable") && !text.contains("could not compile"));
    }

    #[test]
    fn the_slot_manifest_keeps_versions_and_points_at_the_api_copied_into_the_slot() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let text = slot_manifest(&root).unwrap();
        assert!(text.contains(
            "members = [\n    \"student\",\n    \"checks/runner\",\n    \"checks/runner-advanced\",\n]\n"
        ));
        assert!(!text.contains("\"checks/judge\""));
        assert!(text.contains("lab-harness = { path = \"checks/harness\" }"));
        assert!(text.contains("lab-api = { path = \"checks/api\" }"));
        assert!(text.contains("lab-wire = { path = \"checks/wire\" }"));
        assert!(text.contains("serde_json = "));
        assert!(!text.contains("default-members"));
    }
}
