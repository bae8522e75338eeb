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
use std::collections::{BTreeMap, BTreeSet};
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

fn cargo_build(dir: &Path, target: &Path, runner: Runner) -> Result<(), BuildError> {
    let mut results = cargo_build_all(dir, target, &[runner])?;
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
    runners: &[Runner],
) -> Result<Vec<Result<(), String>>, BuildError> {
    // A manifest the learner broke fails every runner, as their own fault.
    let every = |e: BuildError| match e {
        BuildError::DoesNotCompile(why) => Ok(runners.iter().map(|_| Err(why.clone())).collect()),
        kit => Err(kit),
    };
    if let Err(e) = warm(dir, target) {
        return every(e);
    }
    let packages: Vec<&str> = runners.iter().map(|r| r.package()).collect();
    let (exit, stderr) = cargo(dir, target, &packages, build_timeout())?;
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
fn warm(dir: &Path, target: &Path) -> Result<(), BuildError> {
    let marker = target.join("lab-warm");
    let lock = std::fs::read(dir.join("Cargo.lock"))?;
    if std::fs::read(&marker).ok().as_deref() == Some(&lock[..]) {
        return Ok(());
    }
    match cargo(dir, target, &["lab-harness"], WARM_LIMIT)? {
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

/// The dependencies `manifest` (a student/Cargo.toml) declares besides
/// `lab-api`, in `[dependencies]`, `[dev-dependencies]`,
/// `[build-dependencies]`, `[dependencies.NAME]` or a target's: the kit
/// builds the learner's code offline against its own lock file, and grading
/// with its own manifest, which have none of them.
pub fn extra_dependencies(manifest: &str) -> Vec<String> {
    let mut table = String::new();
    let mut out = Vec::new();
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            table = line.trim_matches(['[', ']']).replace(' ', "");
            let named = ["dependencies.", "dev-dependencies.", "build-dependencies."]
                .iter()
                .find_map(|kind| {
                    table.strip_prefix(kind).or_else(|| {
                        table
                            .strip_prefix("target.")
                            .and_then(|t| t.split_once(&format!(".{kind}")))
                            .map(|(_, n)| n)
                    })
                });
            if let Some(name) = named {
                out.push(name.trim_matches(['"', '\'']).to_string());
            }
            continue;
        }
        let in_deps = ["dependencies", "dev-dependencies", "build-dependencies"]
            .iter()
            .any(|kind| {
                table == *kind
                    || (table.starts_with("target.") && table.ends_with(&format!(".{kind}")))
            });
        if !in_deps || line.is_empty() || line.starts_with('#') {
            continue;
        }
        // A whole entry: `name = "1"`, `name = { … }` or `name.key = …`.
        // Anything else (`name = [` …) is left to cargo, which names the
        // broken manifest itself.
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let value = value.trim();
        let whole = value.starts_with(['"', '\''])
            || (value.starts_with('{') && value.ends_with('}'))
            || key.contains('.');
        if whole {
            let name = key.split('.').next().unwrap_or("").trim();
            out.push(name.trim_matches(['"', '\'']).to_string());
        }
    }
    out.retain(|name| name != "lab-api" && !name.is_empty());
    out.dedup();
    out
}

/// Builds the runner against the kit's own `student/`; returns its path.
pub fn runner_in_kit(root: &Path) -> Result<PathBuf, BuildError> {
    kit_runner(root, Runner::Core)
}

/// Builds one runner against the kit's own `student/`; returns its path.
pub fn kit_runner(root: &Path, runner: Runner) -> Result<PathBuf, BuildError> {
    let target = target_dir(root);
    cargo_build(root, &target, runner)?;
    Ok(target.join("debug").join(runner.package()))
}

/// Writes `bytes` to `path` unless it already holds them. An unchanged file
/// keeps its mtime, so cargo has nothing to do; a changed one is replaced
/// through a new file, never written through a link to another.
fn write_if_changed(path: &Path, bytes: &[u8]) -> io::Result<()> {
    if std::fs::read(path).ok().as_deref() == Some(bytes) {
        return Ok(());
    }
    crate::files::write_atomically(path, bytes)
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
    cargo_build(&slot, &target, Runner::Core)?;
    Ok(Slot {
        runner: target.join("debug").join(Runner::Core.package()),
        _lock: lock,
    })
}

/// The files of a slot's `kit/`, by path relative to it: the narrowed
/// manifest, the kit's `Cargo.lock` and `student/Cargo.toml`, the subject's
/// `lib_rs` (and `advanced`) under `student/src/`, and every regular file of
/// the runner crates. Nothing else belongs there.
fn slot_files(
    root: &Path,
    lib_rs: &[u8],
    advanced: Option<&[u8]>,
) -> io::Result<BTreeMap<PathBuf, Vec<u8>>> {
    let mut files = BTreeMap::new();
    files.insert("Cargo.toml".into(), slot_manifest(root)?.into_bytes());
    for file in ["Cargo.lock", "student/Cargo.toml"] {
        files.insert(file.into(), std::fs::read(root.join(file))?);
    }
    files.insert("student/src/lib.rs".into(), lib_rs.to_vec());
    if let Some(bytes) = advanced {
        files.insert("student/src/advanced.rs".into(), bytes.to_vec());
    }
    for krate in RUNNER_CRATES {
        let from = root.join(krate);
        crate::files::walk(&from, &|_| false, &mut |rel, folder| {
            if !folder {
                files.insert(Path::new(krate).join(rel), std::fs::read(from.join(rel))?);
            }
            Ok(())
        })?;
    }
    Ok(files)
}

/// Makes the tree at `dir` hold exactly `files` (paths relative to `dir`)
/// and the folders they are in. Anything else is removed first: other
/// files and folders, symbolic links (the links, never what they point
/// at), FIFOs, and a folder or link standing where a file belongs. Then
/// each file is written unless it already holds its bytes.
fn make_tree(dir: &Path, files: &BTreeMap<PathBuf, Vec<u8>>) -> io::Result<()> {
    let folders: BTreeSet<&Path> = files
        .keys()
        .flat_map(|f| f.ancestors().skip(1))
        .filter(|f| !f.as_os_str().is_empty())
        .collect();
    match std::fs::symlink_metadata(dir) {
        Ok(meta) if !meta.is_dir() => remove(dir)?,
        _ => {}
    }
    std::fs::create_dir_all(dir)?;
    prune(dir, Path::new(""), &|rel, folder| {
        if folder {
            folders.contains(rel)
        } else {
            files.contains_key(rel)
        }
    })?;
    for (rel, bytes) in files {
        write_if_changed(&dir.join(rel), bytes)?;
    }
    Ok(())
}

/// Removes from the folder `root/rel` every entry that is not a folder or
/// regular file `keep` says so of (by its path relative to `root`), and
/// descends into the folders kept. Links are removed, never followed.
fn prune(root: &Path, rel: &Path, keep: &dyn Fn(&Path, bool) -> bool) -> io::Result<()> {
    for entry in std::fs::read_dir(root.join(rel))? {
        let rel = rel.join(entry?.file_name());
        let meta = std::fs::symlink_metadata(root.join(&rel))?;
        if meta.is_dir() && keep(&rel, true) {
            prune(root, &rel, keep)?;
        } else if !(meta.is_file() && keep(&rel, false)) {
            remove(&root.join(&rel))?;
        }
    }
    Ok(())
}

/// Removes `path`: a folder with everything in it, anything else (a
/// symbolic link included, not what it points at) as itself.
fn remove(path: &Path) -> io::Result<()> {
    if std::fs::symlink_metadata(path)?.is_dir() {
        std::fs::remove_dir_all(path)
    } else {
        std::fs::remove_file(path)
    }
}

/// The packages built from the learner's code or linking it, by the names
/// cargo gives them (package names in `.fingerprint/` and `build/`, crate
/// names elsewhere).
const FROM_LEARNER: [&str; 5] = [
    "student",
    "lab-runner",
    "lab_runner",
    "lab-runner-advanced",
    "lab_runner_advanced",
];

/// Whether an entry of a profile folder (`debug/` and its `deps/`,
/// `.fingerprint/`, `incremental/` and `build/`) was built from the
/// learner's code: its name is one of theirs, with `lib` before it or not,
/// then, or not, `-` and a hash of letters and digits, then nothing or an
/// extension: `lab-runner`, `lab-runner.d`, `libstudent-<hash>.rlib`,
/// `student-<hash>`, `lab_runner-<hash>.<unit>.rcgu.o`, …
fn built_from_learner(name: &str) -> bool {
    let name = name.strip_prefix("lib").unwrap_or(name);
    FROM_LEARNER.iter().any(|krate| {
        let Some(rest) = name.strip_prefix(krate) else {
            return false;
        };
        let rest = match rest.strip_prefix('-') {
            Some(hashed) => {
                let end = hashed.find('.').unwrap_or(hashed.len());
                let hash = &hashed[..end];
                if hash.is_empty() || !hash.bytes().all(|b| b.is_ascii_alphanumeric()) {
                    return false;
                }
                &hashed[end..]
            }
            None => rest,
        };
        rest.is_empty() || rest.starts_with('.')
    })
}

/// Removes from a slot's target folder everything built from a learner's
/// code under a name a build could write out: the student crate's and both
/// runners' binaries, libraries, dependency files, fingerprints (which keep
/// the compiler's messages) and build-script folders, what a killed rustc left
/// half-written, and the build's temporary folder. What the kit's own
/// crates and the registry's compiled to stays, so the next build is warm.
fn clear_learner_outputs(target: &Path) -> io::Result<()> {
    match std::fs::symlink_metadata(target) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => return remove(target),
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    }
    let tmp = target.join("lab-tmp");
    if std::fs::symlink_metadata(&tmp).is_ok() {
        remove(&tmp)?;
    }
    let debug = target.join("debug");
    // `incremental/` stays: rustc names each session folder in it with 32
    // random bits and a timestamp, compile-time learner code can read only
    // a path it writes out literally (nothing at build time lists a
    // folder), and what rustc reuses from it is only ever what the new
    // sources would compile to anyway. Kept, it halves a slot's rebuild.
    for sub in ["", "deps", ".fingerprint", "build"] {
        let dir = debug.join(sub);
        match std::fs::symlink_metadata(&dir) {
            Ok(meta) if meta.is_dir() => {}
            Ok(_) => {
                remove(&dir)?;
                continue;
            }
            Err(_) => continue,
        }
        for entry in std::fs::read_dir(&dir)? {
            let name = entry?.file_name();
            let name = name.to_string_lossy();
            // rustc writes metadata into a folder `rmeta<random>` first.
            let half_written = sub == "deps" && name.starts_with("rmeta");
            if built_from_learner(&name) || half_written {
                remove(&dir.join(&*name))?;
            }
        }
    }
    Ok(())
}

/// Locks slot `name` and makes it the pristine kit with `lib_rs`, and with
/// `advanced` as `student/src/advanced.rs` (absent when `None`), then clears
/// from its target what an earlier subject's build produced. Returns the
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
    // the slots folder only the judge's own files may stand (and `kit/` is
    // made exact below).
    for dir in [&slots, &slots.join(name)] {
        let config = dir.join(".cargo");
        if config.symlink_metadata().is_ok() {
            remove(&config)?;
        }
    }
    // The kit's files and nothing else, whatever was left or planted there.
    make_tree(&slot, &slot_files(root, lib_rs, advanced)?)?;
    // Nothing an earlier subject's build produced may be read by this one.
    // The same subject again (a check repeated, the same file graded
    // twice) may read its own: the judge's note of the last subject, kept
    // where no build or runner can write, skips the clearing then.
    let target = slots.join(name).join("target");
    clear_unless_same(
        &target,
        &slots.join(name).join("subject"),
        &subject_bytes(lib_rs, advanced),
    )?;
    Ok((slot, target, lock))
}

/// Clears `target` of an earlier subject's outputs unless `note` (the
/// judge's own file) says the last subject built there was `this` one.
fn clear_unless_same(target: &Path, note: &Path, this: &[u8]) -> io::Result<()> {
    let last = std::fs::symlink_metadata(note)
        .ok()
        .filter(|m| m.is_file())
        .and_then(|_| std::fs::read(note).ok());
    if last.as_deref() != Some(this) || !target.is_dir() {
        clear_learner_outputs(target)?;
        crate::files::write_atomically(note, this)?;
    }
    Ok(())
}

/// A subject's sources, whole, as the slot's note keeps them: the lengths
/// of its lib.rs and advanced.rs (`-` when it has none), then their bytes.
fn subject_bytes(lib_rs: &[u8], advanced: Option<&[u8]>) -> Vec<u8> {
    let mut bytes = format!(
        "{} {}\n",
        lib_rs.len(),
        advanced.map_or("-".to_string(), |a| a.len().to_string())
    )
    .into_bytes();
    bytes.extend_from_slice(lib_rs);
    bytes.extend_from_slice(advanced.unwrap_or_default());
    bytes
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
    let (dir, target, lock, has_advanced) = match sources {
        None => {
            let has = root.join("student/src/advanced.rs").is_file();
            (root.to_path_buf(), target_dir(root), None, has)
        }
        Some((slot, s)) => {
            let (dir, target, lock) = fill_slot(root, slot, &s.lib, s.advanced.as_deref())
                .map_err(|e| match e {
                    BuildError::Kit(what) | BuildError::DoesNotCompile(what) => what,
                })?;
            (dir, target, Some(lock), s.advanced.is_some())
        }
    };
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
        cargo_build_all(&dir, &target, &wanted).map_err(|e| match e {
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

    /// Every entry under `dir`, links not followed, in name order: a
    /// folder as `path/`, a file as `path = bytes`, anything else (a link,
    /// a FIFO) as `path ?`.
    fn listing(dir: &Path) -> Vec<String> {
        fn below(dir: &Path, rel: &Path, out: &mut Vec<String>) {
            let mut names: Vec<_> = std::fs::read_dir(dir.join(rel))
                .unwrap()
                .map(|e| e.unwrap().file_name())
                .collect();
            names.sort();
            for name in names {
                let rel = rel.join(name);
                let meta = std::fs::symlink_metadata(dir.join(&rel)).unwrap();
                if meta.is_dir() {
                    out.push(format!("{}/", rel.display()));
                    below(dir, &rel, out);
                } else if meta.is_file() {
                    let bytes = std::fs::read(dir.join(&rel)).unwrap();
                    out.push(format!(
                        "{} = {}",
                        rel.display(),
                        String::from_utf8_lossy(&bytes)
                    ));
                } else {
                    out.push(format!("{} ?", rel.display()));
                }
            }
        }
        let mut out = Vec::new();
        below(dir, Path::new(""), &mut out);
        out
    }

    fn put(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn dependencies_grading_will_not_have_are_named() {
        let kit = "[package]\nname = \"student\"\n\n[dependencies]\nlab-api.workspace = true\n";
        assert!(extra_dependencies(kit).is_empty());
        let more = format!(
            "{kit}rand = \"0.8\"\nserde = {{ version = \"1\" }}\n# a comment\n\n\
             [dev-dependencies]\nproptest = \"1\"\n\n[dependencies.regex]\nversion = \"1\"\n\n\
             [target.'cfg(unix)'.dependencies]\nlibc = \"0.2\"\n"
        );
        assert_eq!(
            extra_dependencies(&more),
            ["rand", "serde", "proptest", "regex", "libc"]
        );
        let build = format!(
            "{kit}\n[build-dependencies]\ncc = \"1\"\n\n[dev-dependencies.quickcheck]\nversion = \"1\"\n\n[target.'cfg(unix)'.dev-dependencies]\nnix = \"0.29\"\n"
        );
        assert_eq!(extra_dependencies(&build), ["cc", "quickcheck", "nix"]);
        // Other tables whose names hold the word are not dependencies.
        let other = format!(
            "{kit}\n[package.metadata.dependencies-note]\ntext = \"x\"\n\n[package.metadata.dependencies]\ny = 1\n"
        );
        assert!(extra_dependencies(&other).is_empty(), "{other}");
        // A broken line is cargo's to name, not a dependency.
        assert!(extra_dependencies(&format!("{kit}oops = [\n")).is_empty());
    }

    #[test]
    fn the_same_subject_again_keeps_its_outputs_and_another_clears_them() {
        let work = tempfile::tempdir().unwrap();
        let (target, note) = (work.path().join("target"), work.path().join("subject"));
        let runner = target.join("debug/lab-runner");
        let a = subject_bytes(b"fn a() {}", None);
        let b = subject_bytes(b"fn a() {}", Some(b""));
        assert_ne!(a, b, "no advanced.rs is not an empty one");
        put(&runner, "built from a");
        clear_unless_same(&target, &note, &a).unwrap();
        assert!(!runner.exists(), "no note yet: cleared");
        put(&runner, "built from a");
        clear_unless_same(&target, &note, &a).unwrap();
        assert!(runner.exists(), "the same subject: kept");
        clear_unless_same(&target, &note, &b).unwrap();
        assert!(!runner.exists(), "another subject: cleared");
        // A note that is a link is no note.
        put(&runner, "built from b");
        std::fs::remove_file(&note).unwrap();
        let elsewhere = work.path().join("elsewhere");
        put(&elsewhere, std::str::from_utf8(&b).unwrap());
        std::os::unix::fs::symlink(&elsewhere, &note).unwrap();
        clear_unless_same(&target, &note, &b).unwrap();
        assert!(!runner.exists(), "a linked note: cleared");
    }

    #[test]
    fn a_filled_slot_holds_exactly_the_kits_files_whatever_was_planted_there() {
        use std::os::unix::fs::symlink;
        let work = tempfile::tempdir().unwrap();
        let (root, slot, outside) = (
            work.path().join("kit"),
            work.path().join("slot/kit"),
            work.path().join("outside"),
        );
        put(
            &root.join("Cargo.toml"),
            "[workspace]\nmembers = [\"student\", \"checks/judge\"]\n",
        );
        put(&root.join("Cargo.lock"), "lock");
        put(&root.join("student/Cargo.toml"), "student manifest");
        put(&root.join("student/src/lib.rs"), "the kit's own stubs");
        for krate in RUNNER_CRATES {
            put(&root.join(krate).join("Cargo.toml"), krate);
        }
        put(&root.join("checks/api/src/lib.rs"), "api");
        put(&root.join("checks/runner/src/main.rs"), "runner");
        put(&root.join("checks/runner-advanced/build.rs"), "script");
        put(&outside.join("secret.rs"), "outside file");
        put(&outside.join("folder/inner.rs"), "outside folder");
        let fill = |advanced: Option<&[u8]>| {
            make_tree(&slot, &slot_files(&root, b"learner", advanced).unwrap()).unwrap()
        };
        fill(Some(b"advanced"));

        // Planted: a build script cargo would run, a folder, a FIFO, links
        // where a kit file and a kit folder belong, a link to a folder
        // outside, and a folder where a kit file belongs.
        put(&slot.join("checks/runner/build.rs"), "fn main() {}");
        put(&slot.join("checks/harness/extra/more.rs"), "extra");
        let fifo = std::ffi::CString::new(slot.join("checks/wire/pipe").to_str().unwrap()).unwrap();
        // SAFETY: mkfifo with a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
        std::fs::remove_file(slot.join("checks/api/src/lib.rs")).unwrap();
        symlink(
            outside.join("secret.rs"),
            slot.join("checks/api/src/lib.rs"),
        )
        .unwrap();
        std::fs::remove_dir_all(slot.join("checks/runner/src")).unwrap();
        symlink(outside.join("folder"), slot.join("checks/runner/src")).unwrap();
        symlink(&outside, slot.join("student/outside")).unwrap();
        std::fs::remove_file(slot.join("checks/wire/Cargo.toml")).unwrap();
        put(&slot.join("checks/wire/Cargo.toml/x"), "folder");
        // An unchanged file keeps its mtime.
        let old = std::time::SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
        let file = std::fs::File::options()
            .write(true)
            .open(slot.join("checks/harness/Cargo.toml"))
            .unwrap();
        file.set_modified(old).unwrap();
        drop(file);

        fill(None);
        let want = [
            "Cargo.lock = lock",
            "Cargo.toml = [workspace]\nmembers = [\n    \"student\",\n    \"checks/runner\",\n    \"checks/runner-advanced\",\n]\n",
            "checks/",
            "checks/api/",
            "checks/api/Cargo.toml = checks/api",
            "checks/api/src/",
            "checks/api/src/lib.rs = api",
            "checks/harness/",
            "checks/harness/Cargo.toml = checks/harness",
            "checks/runner/",
            "checks/runner/Cargo.toml = checks/runner",
            "checks/runner/src/",
            "checks/runner/src/main.rs = runner",
            "checks/runner-advanced/",
            "checks/runner-advanced/Cargo.toml = checks/runner-advanced",
            "checks/runner-advanced/build.rs = script",
            "checks/wire/",
            "checks/wire/Cargo.toml = checks/wire",
            "student/",
            "student/Cargo.toml = student manifest",
            "student/src/",
            "student/src/lib.rs = learner",
        ];
        assert_eq!(listing(&slot), want);
        assert_eq!(
            listing(&outside),
            [
                "folder/",
                "folder/inner.rs = outside folder",
                "secret.rs = outside file"
            ]
        );
        let mtime = std::fs::metadata(slot.join("checks/harness/Cargo.toml"))
            .unwrap()
            .modified()
            .unwrap();
        assert_eq!(mtime, old);
    }

    #[test]
    fn what_was_built_from_a_learner_leaves_the_target_and_the_rest_stays() {
        let work = tempfile::tempdir().unwrap();
        let (target, outside) = (work.path().join("target"), work.path().join("outside"));
        put(&outside.join("lab_runner-keep"), "outside");
        let gone = [
            "debug/lab-runner",
            "debug/lab-runner.d",
            "debug/lab-runner-advanced",
            "debug/lab-runner-advanced.d",
            "debug/libstudent.rlib",
            "debug/deps/libstudent-0a1b2c3d4e5f6071.rlib",
            "debug/deps/libstudent-0a1b2c3d4e5f6071.rmeta",
            "debug/deps/student-0a1b2c3d4e5f6071.d",
            "debug/deps/lab_runner-1111222233334444",
            "debug/deps/lab_runner-1111222233334444.d",
            "debug/deps/lab_runner-1111222233334444.lab_runner.abc12-cgu.0.rcgu.o",
            "debug/deps/lab_runner_advanced-5555666677778888",
            "debug/deps/rmetaXy12Ab/full.rmeta",
            "debug/.fingerprint/student-0a1b2c3d4e5f6071/output-lib-student",
            "debug/.fingerprint/lab-runner-1111222233334444/bin-lab-runner",
            "debug/.fingerprint/lab-runner-advanced-9999aaaabbbbcccc/run-build-script-build-script-build",
            "debug/build/lab-runner-advanced-9999aaaabbbbcccc/output",
            "lab-tmp/rustcAbCdEf/x.o",
        ];
        let kept = [
            "debug/.cargo-lock = x",
            "debug/build/",
            "debug/build/serde-0123456789abcdef/",
            "debug/build/serde-0123456789abcdef/output = x",
            "debug/deps/",
            "debug/deps/lab_api-0123456789abcdef.d = x",
            "debug/deps/liblab_harness-0123456789abcdef.rlib = x",
            "debug/deps/liblab_wire-0123456789abcdef.rmeta = x",
            "debug/deps/libserde-abc.rlib = x",
            "debug/deps/libserde-abcdef0123456789.rlib = x",
            "debug/deps/libstudent_records-0123456789abcdef.rlib = x",
            "debug/deps/student-records-0123456789abcdef.d = x",
            "debug/.fingerprint/",
            "debug/.fingerprint/lab-harness-0123456789abcdef/",
            "debug/.fingerprint/lab-harness-0123456789abcdef/lib-lab-harness = x",
            "debug/incremental/",
            "debug/incremental/lab_harness-1a2b3c4d5e6f/",
            "debug/incremental/lab_harness-1a2b3c4d5e6f/s = x",
            // rustc's session folders have random names: kept (see
            // `clear_learner_outputs`).
            "debug/incremental/student-3k1x9z0q2w7e/",
            "debug/incremental/student-3k1x9z0q2w7e/s-h1-abc-xyz/",
            "debug/incremental/student-3k1x9z0q2w7e/s-h1-abc-xyz/query-cache.bin = x",
            "lab-warm = x",
        ];
        for path in gone {
            put(&target.join(path), "x");
        }
        for entry in kept {
            if let Some((path, _)) = entry.split_once(" = ") {
                put(&target.join(path), "x");
            }
        }
        // A link named like a runner, to a file outside: the link goes.
        std::os::unix::fs::symlink(
            outside.join("lab_runner-keep"),
            target.join("debug/deps/lab_runner-7777777777777777"),
        )
        .unwrap();

        clear_learner_outputs(&target).unwrap();
        let mut want: Vec<String> = kept.iter().map(|s| s.to_string()).collect();
        want.push("debug/".into());
        want.sort();
        let mut left = listing(&target);
        left.sort();
        assert_eq!(left, want);
        assert_eq!(listing(&outside), ["lab_runner-keep = outside"]);
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
