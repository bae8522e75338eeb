//! Building the runners with rustc alone. Cargo builds the kit's own crates
//! once (the warm-up) and says in its JSON messages where each library
//! went; the judge keeps that, with the rustc cargo ran, as a recipe in the
//! target folder. Each build of learner code then starts rustc itself: the
//! learner's crate, then the core runner's one-file `main` that links it;
//! and, beside them, the advanced runner with the learner's advanced.rs
//! inside. No cargo start, manifest reading or fingerprints of sixty units
//! on the path a learner waits on at every save.
//!
//! A recipe holds while nothing it was made from changed: every file of the
//! kit's runner crates and its manifests (path, length, contents),
//! the variables that change how cargo builds, and the rustc it names.
//! Otherwise the next build warms again.

use super::{build_timeout, jail, BuildError, Runner};
use crate::catalog::tr;
use crate::spawn::{self, Exit};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The folder of a target where builds of learner code write: the student
/// crate, both runners and their incremental caches.
pub const OUT: &str = "lab-direct";

/// rustc's incremental caches, in [`OUT`].
pub const INCREMENTAL: &str = "incremental";

/// The recipe's file in a target folder.
const RECIPE: &str = "lab-recipe.json";

/// Changes whenever this module builds differently, so that an older
/// judge's recipe is never taken for this one's.
const FORMAT: &str = "lab recipe 1";

/// The edition of the learner's crate and both runners: the workspace's
/// (a unit test compares).
const EDITION: &str = "2021";

/// The libraries the builds here link, as rustc names them.
const LINKED: [&str; 6] = [
    "lab_api",
    "lab_wire",
    "lab_harness",
    "lab_runner_core",
    "serde",
    "serde_json",
];

/// What the learner's crate links: its manifest's one dependency.
const STUDENT_LINKS: [&str; 1] = ["lab_api"];

/// What the core runner's `main` links besides the learner's crate.
const CORE_LINKS: [&str; 1] = ["lab_runner_core"];

/// What the advanced runner links: its manifest's dependencies.
const ADVANCED_LINKS: [&str; 5] = ["lab_api", "lab_wire", "lab_harness", "serde", "serde_json"];

/// Files whose changes change what cargo builds, besides the runner crates.
const MANIFESTS: [&str; 6] = [
    "Cargo.toml",
    "Cargo.lock",
    "student/Cargo.toml",
    "checks/deps/Cargo.toml",
    ".cargo/config.toml",
    ".cargo/config",
];

/// How to build in one target folder without cargo.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Recipe {
    /// What it was made from: see [`stamp`].
    stamp: String,
    /// The rustc cargo runs, and its length and modification time.
    rustc: PathBuf,
    rustc_seen: Option<(u64, u128)>,
    /// Each of [`LINKED`], by crate name: its rlib, with its length and
    /// modification time.
    libs: BTreeMap<String, (PathBuf, Option<(u64, u128)>)>,
    /// Where their own dependencies are (`-L dependency=`).
    deps: PathBuf,
}

/// A file's length and modification time (in nanoseconds), if it exists.
fn seen(path: &Path) -> Option<(u64, u128)> {
    let meta = std::fs::metadata(path).ok()?;
    let mtime = meta.modified().ok()?;
    let nanos = mtime
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    Some((meta.len(), nanos))
}

/// A file's length and a hash of its bytes, as text; `None` when it
/// cannot be read.
fn contents(path: &Path) -> Option<String> {
    // A regular file only (through a link or not): reading a FIFO a source
    // names would wait for a writer.
    if !std::fs::metadata(path).ok()?.is_file() {
        return None;
    }
    let bytes = std::fs::read(path).ok()?;
    Some(format!("{} {}", bytes.len(), digest(&bytes)))
}

/// A file of the judge's own (a note, rustc's dependency file, the recipe)
/// as text: only when it is a regular file itself, never through a link.
fn own_file(path: &Path) -> Option<String> {
    std::fs::symlink_metadata(path)
        .ok()
        .filter(|m| m.is_file())
        .and_then(|_| std::fs::read_to_string(path).ok())
}

/// What a recipe for the kit or slot at `dir` is made from: this module's
/// format, the variables that change a cargo build, and the length and a
/// hash of the contents of the manifests and of every file of the runner
/// crates (about fifty files, 300 KB). Contents, not modification times:
/// cargo rewrites a slot's Cargo.lock, which the next subject's slot
/// puts back as it was.
fn stamp(dir: &Path) -> io::Result<String> {
    let mut out = format!("{FORMAT}\n");
    let mut vars: Vec<(String, String)> = std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.to_string_lossy().into_owned())))
        .filter(|(k, _)| {
            [
                "RUSTC",
                "RUSTC_WRAPPER",
                "RUSTC_WORKSPACE_WRAPPER",
                "RUSTFLAGS",
                "CARGO_ENCODED_RUSTFLAGS",
                "RUSTUP_TOOLCHAIN",
                "CARGO_INCREMENTAL",
            ]
            .contains(&k.as_str())
                || k.starts_with("CARGO_PROFILE_")
                || k.starts_with("CARGO_BUILD_")
        })
        .collect();
    vars.sort();
    for (k, v) in vars {
        out.push_str(&format!("{k}={v}\n"));
    }
    let mut line = |rel: &Path| {
        let shown = contents(&dir.join(rel)).unwrap_or_else(|| "-".into());
        out.push_str(&format!("{} {shown}\n", rel.display()));
    };
    for file in MANIFESTS {
        line(Path::new(file));
    }
    for krate in super::RUNNER_CRATES {
        let from = dir.join(krate);
        if !from.is_dir() {
            line(Path::new(krate));
            continue;
        }
        let mut files = Vec::new();
        crate::files::walk(&from, &|_| false, &mut |rel, folder| {
            if !folder {
                files.push(Path::new(krate).join(rel));
            }
            Ok(())
        })?;
        files.sort();
        for file in files {
            line(&file);
        }
    }
    Ok(out)
}

impl Recipe {
    /// Whether it still describes `dir`'s kit with `stamp` built in
    /// `target`: the same stamp, the same rustc, every library where it was
    /// and inside `target` (a target folder copied or moved elsewhere keeps
    /// a recipe that names the old one, which a build's jail cannot read).
    fn holds(&self, stamp: &str, target: &Path) -> bool {
        self.stamp == stamp
            && self.deps.starts_with(target)
            && self.libs.values().all(|(lib, _)| lib.starts_with(target))
            && seen(&self.rustc) == self.rustc_seen
            && self
                .libs
                .values()
                .all(|(lib, when)| when.is_some() && seen(lib) == *when)
    }

    fn lib(&self, name: &str) -> Result<&Path, BuildError> {
        self.libs
            .get(name)
            .map(|(lib, _)| lib.as_path())
            .ok_or_else(|| BuildError::Kit(format!("the build recipe has no {name}")))
    }
}

/// The recipe for building in `target` from the kit or slot at `dir`:
/// the one kept there if it still holds, else a new one, after cargo built
/// the kit's crates (under the long limit, so that the build timeout
/// measures the learner's code and not a cold start).
pub fn recipe(dir: &Path, target: &Path) -> Result<Recipe, BuildError> {
    let stamp = stamp(dir)?;
    let file = target.join(RECIPE);
    let kept = own_file(&file).and_then(|text| serde_json::from_str::<Recipe>(&text).ok());
    if let Some(recipe) = kept.filter(|r| r.holds(&stamp, target)) {
        return Ok(recipe);
    }
    let mut packages = vec!["lab-runner-core"];
    if super::is_kit(dir) {
        // The judge's features (see checks/deps), so that nothing lab.sh's
        // build of the judge compiled is compiled again.
        packages.push("lab-deps");
    }
    let mut args = vec![
        "build",
        "--quiet",
        "--message-format=json",
        "--color",
        "never",
    ];
    for package in &packages {
        args.extend(["-p", package]);
    }
    let (exit, stdout, stderr) = super::cargo(dir, target, &args, super::WARM_LIMIT)?;
    if exit != Exit::Success {
        return Err(super::failed_build(&exit, &stderr));
    }
    let libs: BTreeMap<_, _> = libraries(&stdout)
        .into_iter()
        .map(|(name, lib)| {
            let lib = hashed(&lib);
            let when = seen(&lib);
            (name, (lib, when))
        })
        .collect();
    let deps = match libs.get("lab_api").and_then(|(p, _)| p.parent()) {
        Some(deps) => deps.to_path_buf(),
        None => {
            return Err(BuildError::Kit(format!(
                "cargo named no lab_api library: {stderr}"
            )))
        }
    };
    if let Some(missing) = LINKED.iter().find(|name| !libs.contains_key(**name)) {
        return Err(BuildError::Kit(format!("cargo named no {missing} library")));
    }
    let rustc = rustc(dir, target)?;
    let recipe = Recipe {
        stamp,
        rustc_seen: seen(&rustc),
        rustc,
        libs,
        deps,
    };
    let json = serde_json::to_vec_pretty(&recipe).map_err(|e| BuildError::Kit(e.to_string()))?;
    crate::files::write_atomically(&file, &json)?;
    Ok(recipe)
}

/// The rlib of each of [`LINKED`] in cargo's JSON messages.
fn libraries(json: &str) -> BTreeMap<String, PathBuf> {
    #[derive(Deserialize)]
    struct Target {
        name: String,
        kind: Vec<String>,
    }
    #[derive(Deserialize)]
    struct Message {
        reason: String,
        target: Option<Target>,
        #[serde(default)]
        filenames: Vec<PathBuf>,
    }
    let mut libs = BTreeMap::new();
    for line in json.lines() {
        let Ok(m) = serde_json::from_str::<Message>(line) else {
            continue;
        };
        let Some(target) = m.target.filter(|_| m.reason == "compiler-artifact") else {
            continue;
        };
        let name = target.name.replace('-', "_");
        let is_lib = target.kind.iter().any(|k| k == "lib" || k == "rlib");
        let rlib = m
            .filenames
            .into_iter()
            .find(|f| f.extension().is_some_and(|e| e == "rlib"));
        if let (true, Some(rlib), true) = (is_lib, rlib, LINKED.contains(&name.as_str())) {
            libs.insert(name, rlib);
        }
    }
    libs
}

/// The library `rlib` in cargo's `deps/` folder, under its hashed name.
/// Cargo names a library it was asked for by its copy beside `deps/`
/// (`debug/liblab_runner_core.rlib`), which a build of the same crate
/// with other features (`cargo test`, say) replaces; the hashed file in
/// `deps/` that is the same file (a hard link) stays what it is.
fn hashed(rlib: &Path) -> PathBuf {
    use std::os::unix::fs::MetadataExt;
    let (Some(dir), Some(name), Ok(meta)) = (
        rlib.parent(),
        rlib.file_stem().and_then(|s| s.to_str()),
        std::fs::metadata(rlib),
    ) else {
        return rlib.to_path_buf();
    };
    let prefix = format!("{name}-");
    let same = std::fs::read_dir(dir.join("deps"))
        .ok()
        .and_then(|entries| {
            entries.flatten().map(|e| e.path()).find(|p| {
                p.extension().is_some_and(|e| e == "rlib")
                    && p.file_stem()
                        .and_then(|s| s.to_str())
                        .is_some_and(|s| s.starts_with(&prefix))
                    && std::fs::metadata(p)
                        .is_ok_and(|m| m.dev() == meta.dev() && m.ino() == meta.ino())
            })
        });
    same.unwrap_or_else(|| rlib.to_path_buf())
}

/// The rustc cargo runs in `dir`: `RUSTC` when set, else the one in the
/// sysroot that `rustc` on PATH (rustup's proxy, which picks the toolchain
/// as it does for cargo) names; asked once, when the recipe is made.
fn rustc(dir: &Path, target: &Path) -> Result<PathBuf, BuildError> {
    if let Some(rustc) = std::env::var_os("RUSTC") {
        return Ok(PathBuf::from(rustc));
    }
    let mut cmd = Command::new("rustc");
    cmd.current_dir(dir).args(["--print", "sysroot"]);
    let (exit, captured) =
        spawn::run_tool(&mut cmd, Duration::from_secs(60), Some(jail(dir, target)?))?;
    let sysroot = spawn::excerpt(&captured.stdout, 4096);
    let real = Path::new(sysroot.trim()).join("bin/rustc");
    if exit == Exit::Success && real.is_file() {
        Ok(real)
    } else {
        Ok(PathBuf::from("rustc"))
    }
}

/// One of the compiler runs a build makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit {
    /// The learner's crate, `student/src/lib.rs`.
    Student,
    /// The core runner's `main`, linking the learner's crate.
    CoreMain,
    /// The advanced runner, with the learner's advanced.rs inside.
    Advanced,
}

impl Unit {
    /// The package and target cargo would name in "could not compile".
    fn cargo_name(self) -> &'static str {
        match self {
            Unit::Student => "`student` (lib)",
            Unit::CoreMain => "`lab-runner` (bin \"lab-runner\")",
            Unit::Advanced => "`lab-runner-advanced` (bin \"lab-runner-advanced\")",
        }
    }

    /// Whether its compiler errors are the learner's: always in their
    /// crate; in a runner, when they concern the learner's items (a
    /// signature that differs from the contract) or file. Never when rustc
    /// could not use one of the kit's prebuilt libraries (unreadable,
    /// invalid, or built by another rustc): no code of a learner's causes that.
    fn blames_learner(self, errors: &str) -> bool {
        if ["E0786", "E0514", "E0460", "E0461", "E0462"]
            .iter()
            .any(|code| errors.contains(&format!("error[{code}]")))
        {
            return false;
        }
        match self {
            Unit::Student => true,
            Unit::CoreMain => errors.contains("student::"),
            Unit::Advanced => errors.contains("advanced.rs") || errors.contains("advanced::"),
        }
    }

    /// Whether rustc keeps an incremental cache for it. The advanced runner
    /// does: its glue, most of what it compiles, is the same from one
    /// build to the next. The learner's crate does in the kit, where one
    /// save changes a little of it; not in a slot, where each subject is
    /// another file and keeping the cache cost more than it saved (eight
    /// different submissions: 0.94 s of processor time with it, 0.78 s
    /// without). The one-file core main compiles in a moment.
    fn incremental(self, in_kit: bool) -> bool {
        match self {
            Unit::Student => in_kit,
            Unit::CoreMain => false,
            Unit::Advanced => true,
        }
    }

    /// rustc's arguments for this unit, built from `recipe` into `out`,
    /// for the kit itself (`in_kit`) or a slot.
    fn args(self, recipe: &Recipe, out: &Path, in_kit: bool) -> Result<Vec<String>, BuildError> {
        let (name, root, kind, links): (&str, &str, &str, &[&str]) = match self {
            Unit::Student => ("student", "student/src/lib.rs", "lib", &STUDENT_LINKS),
            Unit::CoreMain => (
                "lab_runner",
                "checks/runner/src/main.rs",
                "bin",
                &CORE_LINKS,
            ),
            Unit::Advanced => (
                "lab_runner_advanced",
                "checks/runner-advanced/src/main.rs",
                "bin",
                &ADVANCED_LINKS,
            ),
        };
        let mut args: Vec<String> = [
            "--crate-name",
            name,
            &format!("--edition={EDITION}"),
            root,
            "--crate-type",
            kind,
            "--emit=link,dep-info",
            "--color",
            "never",
            // Learner code runs unoptimised, with overflow checks on, as
            // in the dev profile.
            "-C",
            "opt-level=0",
            "-C",
            "debug-assertions=on",
            "-C",
            "overflow-checks=on",
            "-C",
            "embed-bitcode=no",
            // Nothing reads a runner's debug information (a panic's place
            // is compiled in), and linking without it is faster.
            "-C",
            "debuginfo=0",
            "--check-cfg",
            "cfg(docsrs,test)",
            "--check-cfg",
            "cfg(feature, values())",
            "-L",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        args.push(format!("dependency={}", recipe.deps.display()));
        for link in links {
            args.push("--extern".into());
            args.push(format!("{link}={}", recipe.lib(link)?.display()));
        }
        let out_s = out.display();
        match self {
            Unit::Student => {
                args.extend(["--out-dir".into(), out_s.to_string()]);
            }
            Unit::CoreMain => {
                args.push("--extern".into());
                args.push(format!("student={out_s}/libstudent.rlib"));
            }
            Unit::Advanced => {
                args.extend(["--cfg".into(), "lab_advanced".into()]);
                args.extend([
                    "--check-cfg".into(),
                    "cfg(lab_advanced, lab_reference)".into(),
                ]);
            }
        }
        if self.incremental(in_kit) {
            args.extend(["-C".into(), format!("incremental={out_s}/{INCREMENTAL}")]);
        }
        if self != Unit::Student {
            args.extend(["-C".into(), "strip=debuginfo".into()]);
            let (binary, _) = self.outputs(out);
            args.extend(["-o".into(), binary.display().to_string()]);
        }
        Ok(args)
    }

    /// The file it makes, in the build folder `out`, and the file where
    /// rustc lists the sources it read for it.
    fn outputs(self, out: &Path) -> (PathBuf, PathBuf) {
        match self {
            Unit::Student => (out.join("libstudent.rlib"), out.join("student.d")),
            Unit::CoreMain => (out.join("lab-runner"), out.join("lab-runner.d")),
            Unit::Advanced => (
                out.join("lab-runner-advanced"),
                out.join("lab-runner-advanced.d"),
            ),
        }
    }
}

/// What a unit's last build was made from, as its note keeps it: the
/// recipe, rustc's arguments, its output as written (length and time), every source rustc
/// read (length and hash of its bytes) and, for the core main, the
/// learner's crate it linked. `None` when a file cannot be read.
fn made_from(unit: Unit, recipe: &Recipe, dir: &Path, out: &Path) -> Option<String> {
    let (output, depinfo) = unit.outputs(out);
    let (len, mtime) = seen(&output)?;
    // The arguments too: a judge that compiles differently builds again.
    let args = unit.args(recipe, out, super::is_kit(dir)).ok()?.join(" ");
    let mut note = format!(
        "recipe {}\nargs {}\nout {len} {mtime}\n",
        digest(recipe.stamp.as_bytes()),
        digest(args.as_bytes())
    );
    if unit == Unit::CoreMain {
        let (len, mtime) = seen(&Unit::Student.outputs(out).0)?;
        note.push_str(&format!("lib {len} {mtime}\n"));
    }
    for source in sources_read(&own_file(&depinfo)?) {
        let at = dir.join(&source);
        note.push_str(&format!("src {} {}\n", source.display(), contents(&at)?));
    }
    Some(note)
}

/// A hash of `bytes`, as text.
fn digest(bytes: &[u8]) -> String {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::hash::DefaultHasher::new();
    bytes.hash(&mut hasher);
    format!("{:016x}", hasher.finish())
}

/// The sources a rustc dependency file lists for its first target (paths
/// as rustc wrote them; a space in a path is written `\ `).
fn sources_read(depinfo: &str) -> Vec<PathBuf> {
    let Some(first) = depinfo.lines().find(|l| !l.is_empty()) else {
        return Vec::new();
    };
    let Some((_, list)) = first.split_once(": ") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut current = String::new();
    let mut chars = list.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.peek() == Some(&' ') => {
                current.push(' ');
                chars.next();
            }
            ' ' => {
                if !current.is_empty() {
                    out.push(PathBuf::from(std::mem::take(&mut current)));
                }
            }
            c => current.push(c),
        }
    }
    if !current.is_empty() {
        out.push(PathBuf::from(current));
    }
    out
}

/// The note of a unit's last good build, beside its output.
fn note_path(unit: Unit, out: &Path) -> PathBuf {
    let (output, _) = unit.outputs(out);
    output.with_extension("built")
}

/// Whether `unit` needs no build: its note says it was made from what
/// is there now (the same recipe, sources of the same bytes, its output
/// untouched). A learner who saves without a change, or a class with the
/// same file twice in a row in one slot, compiles nothing.
fn up_to_date(unit: Unit, recipe: &Recipe, dir: &Path, out: &Path) -> bool {
    let note = own_file(&note_path(unit, out));
    note.is_some() && note == made_from(unit, recipe, dir, out)
}

/// One compiler run in `dir`, jailed: `Ok(Ok(()))` when it compiled,
/// `Ok(Err(errors))` when the learner's code did not.
fn compile(
    unit: Unit,
    recipe: &Recipe,
    dir: &Path,
    target: &Path,
) -> Result<Result<(), String>, BuildError> {
    let out = target.join(OUT);
    if up_to_date(unit, recipe, dir, &out) {
        return Ok(Ok(()));
    }
    let note = note_path(unit, &out);
    if std::fs::symlink_metadata(&note).is_ok() {
        std::fs::remove_file(&note)?;
    }
    let mut cmd = Command::new(&recipe.rustc);
    cmd.current_dir(dir)
        .args(unit.args(recipe, &out, super::is_kit(dir))?);
    let mut jail = jail(dir, target)?;
    if unit == Unit::Student {
        // What cargo tells a crate about itself, for `env!`.
        for (name, value) in [
            ("CARGO_PKG_NAME", "student".into()),
            ("CARGO_CRATE_NAME", "student".into()),
            ("CARGO_MANIFEST_DIR", dir.join("student").into_os_string()),
        ] {
            jail = jail.env(name, value);
        }
    }
    let started = std::time::Instant::now();
    let (exit, captured) = spawn::run_tool(&mut cmd, build_timeout(), Some(jail))?;
    crate::timing::phase(&format!("rustc {unit:?}"), started);
    let stderr = spawn::excerpt(&captured.stderr, 256 << 10);
    match exit {
        Exit::Success => {
            if let Some(made) = made_from(unit, recipe, dir, &out) {
                crate::files::write_atomically(&note, made.as_bytes())?;
            }
            Ok(Ok(()))
        }
        Exit::CaseTimeLimit | Exit::OverallTimeLimit => Ok(Err(tr(
            "build.too_slow",
            &[("secs", &build_timeout().as_secs_f64())],
        ))),
        Exit::Failure(_) | Exit::Signalled(_) => {
            let said = as_cargo_says(&stderr, unit);
            if unit.blames_learner(&said) {
                Ok(Err(super::first_errors(&said, 40)))
            } else {
                Err(BuildError::Kit(format!(
                    "rustc ended with {exit:?}: {}",
                    super::first_errors(&said, 20)
                )))
            }
        }
        other => Err(BuildError::Kit(format!(
            "rustc ended with {other:?}: {}",
            super::first_errors(&stderr, 20)
        ))),
    }
}

/// rustc's messages as cargo shows them: its closing tally ("aborting due
/// to …") becomes cargo's line naming what could not be compiled, and a
/// count of warnings alone is left out.
fn as_cargo_says(stderr: &str, unit: Unit) -> String {
    let mut out = String::new();
    for line in stderr.lines() {
        if let Some(rest) = line.strip_prefix("error: aborting due to ") {
            out.push_str(&format!(
                "error: could not compile {} due to {rest}\n",
                unit.cargo_name()
            ));
        } else if line.starts_with("warning: ") && line.ends_with(" emitted") {
            continue;
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// Builds `runners` from the kit or slot at `dir` into `target`: for
/// each, its binary, or the compiler's first errors when the learner's code
/// does not compile. The two runners build side by side; the core one is
/// the learner's crate, then its `main`. The `Err` is the kit's fault.
pub fn build(
    dir: &Path,
    target: &Path,
    runners: &[Runner],
) -> Result<Vec<Result<PathBuf, String>>, BuildError> {
    let started = std::time::Instant::now();
    let recipe = recipe(dir, target);
    crate::timing::phase("recipe", started);
    let recipe = match recipe {
        Ok(recipe) => recipe,
        // A student/Cargo.toml the learner broke fails every runner, as
        // their own mistake.
        Err(BuildError::DoesNotCompile(why)) => {
            return Ok(runners.iter().map(|_| Err(why.clone())).collect())
        }
        Err(kit) => return Err(kit),
    };
    let out = target.join(OUT);
    std::fs::create_dir_all(&out)?;
    let one = |runner: Runner| -> Result<Result<PathBuf, String>, BuildError> {
        let units: &[Unit] = match runner {
            Runner::Core => &[Unit::Student, Unit::CoreMain],
            Runner::Advanced => &[Unit::Advanced],
        };
        for &unit in units {
            if let Err(errors) = compile(unit, &recipe, dir, target)? {
                return Ok(Err(errors));
            }
        }
        let last = match runner {
            Runner::Core => Unit::CoreMain,
            Runner::Advanced => Unit::Advanced,
        };
        Ok(Ok(last.outputs(&out).0))
    };
    let results: Vec<_> = std::thread::scope(|scope| {
        let started: Vec<_> = runners
            .iter()
            .map(|&runner| scope.spawn(move || one(runner)))
            .collect();
        started
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(BuildError::Kit("a build thread panicked".into())))
            })
            .collect()
    });
    results.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The crates a manifest's `[dependencies]` names, as rustc names them.
    fn dependencies(manifest: &str) -> Vec<String> {
        let mut names: Vec<String> = super::super::dependency_names(manifest)
            .iter()
            .map(|n| n.replace('-', "_"))
            .collect();
        names.sort();
        names
    }

    fn read(path: &str) -> String {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        std::fs::read_to_string(root.join(path)).unwrap()
    }

    #[test]
    fn each_unit_links_what_its_manifest_names_in_the_workspaces_edition() {
        let sorted = |links: &[&str]| {
            let mut v: Vec<String> = links.iter().map(|s| s.to_string()).collect();
            v.sort();
            v
        };
        assert_eq!(
            dependencies(&read("student/Cargo.toml")),
            sorted(&STUDENT_LINKS)
        );
        let mut core = sorted(&CORE_LINKS);
        core.push("student".into());
        core.sort();
        assert_eq!(dependencies(&read("checks/runner/Cargo.toml")), core);
        assert_eq!(
            dependencies(&read("checks/runner-advanced/Cargo.toml")),
            sorted(&ADVANCED_LINKS)
        );
        for link in STUDENT_LINKS
            .iter()
            .chain(&CORE_LINKS)
            .chain(&ADVANCED_LINKS)
        {
            assert!(LINKED.contains(link), "{link}");
        }
        assert!(read("Cargo.toml").contains(&format!("edition = \"{EDITION}\"")));
        assert!(read("student/Cargo.toml").contains("edition.workspace = true"));
    }

    #[test]
    fn cargo_s_messages_name_each_library_s_rlib() {
        let json = r#"{"reason":"compiler-artifact","package_id":"path+file:///k/checks/api#lab-api@0.1.0","target":{"kind":["lib"],"crate_types":["lib"],"name":"lab_api","src_path":"/k/checks/api/src/lib.rs"},"filenames":["/t/debug/deps/liblab_api-0a.rlib","/t/debug/deps/liblab_api-0a.rmeta"],"fresh":true}
{"reason":"compiler-artifact","target":{"kind":["proc-macro"],"name":"serde_derive"},"filenames":["/t/debug/deps/libserde_derive-1b.so"]}
{"reason":"build-script-executed","package_id":"x"}
not json
{"reason":"compiler-artifact","target":{"kind":["lib"],"name":"serde_json"},"filenames":["/t/debug/deps/libserde_json-2c.rmeta","/t/debug/deps/libserde_json-2c.rlib"]}
{"reason":"compiler-artifact","target":{"kind":["lib"],"name":"clap"},"filenames":["/t/debug/deps/libclap-3d.rlib"]}
{"reason":"build-finished","success":true}"#;
        let libs = libraries(json);
        assert_eq!(
            libs.into_iter().collect::<Vec<_>>(),
            [
                (
                    "lab_api".to_string(),
                    PathBuf::from("/t/debug/deps/liblab_api-0a.rlib")
                ),
                (
                    "serde_json".to_string(),
                    PathBuf::from("/t/debug/deps/libserde_json-2c.rlib")
                ),
            ]
        );
    }

    #[test]
    fn rustc_s_tally_becomes_cargo_s_line() {
        let stderr = "error[E0308]: mismatched types\n --> student/src/lib.rs:3:5\n\nerror: aborting due to 1 previous error; 1 warning emitted\n\nFor more information about this error, try `rustc --explain E0308`.\n";
        let said = as_cargo_says(stderr, Unit::Student);
        assert_eq!(
            said,
            "error[E0308]: mismatched types\n --> student/src/lib.rs:3:5\n\nerror: could not compile `student` (lib) due to 1 previous error; 1 warning emitted\n\nFor more information about this error, try `rustc --explain E0308`.\n"
        );
        assert_eq!(
            as_cargo_says("warning: 2 warnings emitted\n", Unit::Advanced),
            ""
        );
    }

    #[test]
    fn only_the_learners_code_or_its_signatures_make_a_build_their_fault() {
        assert!(Unit::Student.blames_learner("error[E0599]: anything"));
        let signature = "error[E0308]: mismatched types\n --> checks/runner/src/main.rs:8:20\n  |  retryable: student::retryable,";
        assert!(Unit::CoreMain.blames_learner(signature));
        let kit = "error[E0063]: missing field `execute`\n --> checks/runner/src/main.rs:7:5";
        assert!(!Unit::CoreMain.blames_learner(kit));
        assert!(Unit::Advanced.blames_learner(
            "error\n --> checks/runner-advanced/src/../../../student/src/advanced.rs:3:5"
        ));
        assert!(!Unit::Advanced
            .blames_learner("error\n --> checks/runner-advanced/src/glue/s09.rs:3:5"));
        // The kit's own libraries, unreadable or from another compiler.
        let unreadable = "error[E0786]: found invalid metadata files for crate `lab_api`\n --> student/src/lib.rs:1:9";
        assert!(!Unit::Student.blames_learner(unreadable));
        let other = "error[E0514]: found crate `lab_runner_core` compiled by an incompatible version of rustc\n student::x";
        assert!(!Unit::CoreMain.blames_learner(other));
    }

    #[test]
    fn each_unit_s_arguments_link_what_it_needs_and_keep_a_cache_where_it_pays() {
        let libs = LINKED
            .iter()
            .map(|name| {
                (
                    name.to_string(),
                    (PathBuf::from(format!("/d/lib{name}.rlib")), None),
                )
            })
            .collect();
        let recipe = Recipe {
            stamp: String::new(),
            rustc: "rustc".into(),
            rustc_seen: None,
            libs,
            deps: "/d".into(),
        };
        let out = Path::new("/t/lab-direct");
        let args = |unit: Unit, in_kit: bool| unit.args(&recipe, out, in_kit).unwrap().join(" ");
        let cached = "-C incremental=/t/lab-direct/incremental";
        assert!(args(Unit::Student, true).contains(cached));
        assert!(!args(Unit::Student, false).contains(cached));
        assert!(!args(Unit::CoreMain, true).contains(cached));
        assert!(args(Unit::Advanced, false).contains(cached));
        let student = args(Unit::Student, false);
        assert!(student.contains("--extern lab_api=/d/liblab_api.rlib"));
        assert!(student.contains("--out-dir /t/lab-direct") && !student.contains("strip"));
        let main = args(Unit::CoreMain, false);
        assert!(main.contains("--extern student=/t/lab-direct/libstudent.rlib"));
        assert!(main.contains("-o /t/lab-direct/lab-runner") && main.contains("strip=debuginfo"));
        let advanced = args(Unit::Advanced, true);
        assert!(advanced.contains("--cfg lab_advanced") && !advanced.contains("student="));
        for unit in [Unit::Student, Unit::CoreMain, Unit::Advanced] {
            let all = args(unit, true);
            assert!(
                all.contains("opt-level=0") && all.contains("overflow-checks=on"),
                "{all}"
            );
        }
    }

    #[test]
    fn a_dependency_file_names_the_sources_read() {
        let d = "/o/lab-runner-advanced.d: checks/runner-advanced/src/main.rs /k/my\\ dir/advanced.rs\n\nchecks/runner-advanced/src/main.rs:\n";
        assert_eq!(
            sources_read(d),
            [
                PathBuf::from("checks/runner-advanced/src/main.rs"),
                PathBuf::from("/k/my dir/advanced.rs")
            ]
        );
        assert!(sources_read("").is_empty());
    }

    #[test]
    fn a_unit_is_built_again_only_when_what_it_was_made_from_changed() {
        let work = tempfile::tempdir().unwrap();
        let (dir, out) = (work.path().join("kit"), work.path().join("out"));
        let put = |path: &Path, text: &str| {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        let recipe = Recipe {
            stamp: "made from".into(),
            rustc: "rustc".into(),
            rustc_seen: None,
            libs: LINKED
                .iter()
                .map(|n| {
                    (
                        n.to_string(),
                        (PathBuf::from(format!("/d/lib{n}.rlib")), None),
                    )
                })
                .collect(),
            deps: "deps".into(),
        };
        put(&dir.join("student/src/lib.rs"), "pub fn a() {}");
        put(&dir.join("student/src/more.rs"), "pub fn b() {}");
        put(&out.join("libstudent.rlib"), "built");
        let depinfo = format!(
            "{}: student/src/lib.rs student/src/more.rs\n",
            out.join("libstudent.rlib").display()
        );
        put(&out.join("student.d"), &depinfo);
        put(&out.join("lab-runner"), "linked");
        put(&out.join("lab-runner.d"), "x: checks/runner/src/main.rs\n");
        put(&dir.join("checks/runner/src/main.rs"), "fn main() {}");
        let note = |unit: Unit| {
            let made = made_from(unit, &recipe, &dir, &out).unwrap();
            std::fs::write(note_path(unit, &out), made).unwrap();
        };
        let fresh = |unit: Unit, recipe: &Recipe| up_to_date(unit, recipe, &dir, &out);
        assert!(!fresh(Unit::Student, &recipe), "no note yet");
        note(Unit::Student);
        note(Unit::CoreMain);
        assert!(fresh(Unit::Student, &recipe) && fresh(Unit::CoreMain, &recipe));
        // Saved with the same bytes: nothing to build.
        put(&dir.join("student/src/more.rs"), "pub fn b() {}");
        assert!(fresh(Unit::Student, &recipe));
        // Any source rustc read, changed.
        put(&dir.join("student/src/more.rs"), "pub fn c() {}");
        assert!(!fresh(Unit::Student, &recipe));
        put(&dir.join("student/src/more.rs"), "pub fn b() {}");
        // Other arguments: here, the folder becomes the kit itself, where
        // the learner's crate keeps an incremental cache.
        put(&dir.join("lab.sh"), "");
        assert!(!fresh(Unit::Student, &recipe));
        std::fs::remove_file(dir.join("lab.sh")).unwrap();
        assert!(fresh(Unit::Student, &recipe));
        // Another recipe.
        let other = Recipe {
            stamp: "made from else".into(),
            ..recipe.clone()
        };
        assert!(!fresh(Unit::Student, &other));
        // The learner's crate built again: the main links it again.
        put(&out.join("libstudent.rlib"), "built again");
        assert!(!fresh(Unit::CoreMain, &recipe));
        // An output changed or gone.
        note(Unit::CoreMain);
        put(&out.join("lab-runner"), "replaced");
        assert!(!fresh(Unit::CoreMain, &recipe));
        std::fs::remove_file(out.join("lab-runner")).unwrap();
        assert!(!fresh(Unit::CoreMain, &recipe));
        // A note that is a link is no note; a source that became a FIFO is
        // not read (that would wait for a writer): the unit is built again.
        note(Unit::Student);
        assert!(fresh(Unit::Student, &recipe));
        let note = note_path(Unit::Student, &out);
        let moved = work.path().join("moved-note");
        std::fs::rename(&note, &moved).unwrap();
        std::os::unix::fs::symlink(&moved, &note).unwrap();
        assert!(!fresh(Unit::Student, &recipe));
        std::fs::remove_file(&note).unwrap();
        std::fs::rename(&moved, &note).unwrap();
        assert!(fresh(Unit::Student, &recipe));
        let more = dir.join("student/src/more.rs");
        std::fs::remove_file(&more).unwrap();
        let fifo = std::ffi::CString::new(more.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo with a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
        assert!(!fresh(Unit::Student, &recipe));
    }

    #[test]
    fn a_recipe_holds_until_what_it_was_made_from_changes() {
        let work = tempfile::tempdir().unwrap();
        let dir = work.path();
        let put = |rel: &str, text: &str| {
            let path = dir.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        put("Cargo.toml", "[workspace]");
        put("Cargo.lock", "");
        put("checks/harness/src/lib.rs", "fn a() {}");
        put("rustc", "a compiler");
        put("deps/liblab_api.rlib", "lib");
        // The library as it is now.
        let libs = || -> BTreeMap<String, (PathBuf, Option<(u64, u128)>)> {
            let lib = dir.join("deps/liblab_api.rlib");
            let when = seen(&lib);
            [("lab_api".to_string(), (lib, when))].into()
        };
        let recipe = Recipe {
            stamp: stamp(dir).unwrap(),
            rustc: dir.join("rustc"),
            rustc_seen: seen(&dir.join("rustc")),
            libs: libs(),
            deps: dir.join("deps"),
        };
        assert!(recipe.holds(&stamp(dir).unwrap(), dir));
        // A file written again with the same bytes (as a slot's Cargo.lock
        // is, after cargo rewrote it) changes nothing.
        put("Cargo.lock", "narrowed by cargo");
        put("Cargo.lock", "");
        assert!(recipe.holds(&stamp(dir).unwrap(), dir));
        // A runner crate's file changes, even at the same length.
        put("checks/harness/src/lib.rs", "fn b() {}");
        assert!(!recipe.holds(&stamp(dir).unwrap(), dir));
        // A new file in a runner crate, or a cargo configuration.
        let recipe = Recipe {
            stamp: stamp(dir).unwrap(),
            ..recipe
        };
        put("checks/runner-core/src/more.rs", "");
        assert!(!recipe.holds(&stamp(dir).unwrap(), dir));
        let recipe = Recipe {
            stamp: stamp(dir).unwrap(),
            ..recipe
        };
        put(".cargo/config.toml", "[build]");
        assert!(!recipe.holds(&stamp(dir).unwrap(), dir));
        let recipe = Recipe {
            stamp: stamp(dir).unwrap(),
            ..recipe
        };
        assert!(recipe.holds(&stamp(dir).unwrap(), dir));
        // Another compiler at the same path, or a library gone.
        put("rustc", "another compiler");
        assert!(!recipe.holds(&stamp(dir).unwrap(), dir));
        let recipe = Recipe {
            rustc_seen: seen(&dir.join("rustc")),
            ..recipe
        };
        assert!(recipe.holds(&stamp(dir).unwrap(), dir));
        // A library rebuilt in place, or gone.
        put("deps/liblab_api.rlib", "other lib");
        assert!(!recipe.holds(&stamp(dir).unwrap(), dir));
        std::fs::remove_file(dir.join("deps/liblab_api.rlib")).unwrap();
        assert!(!recipe.holds(&stamp(dir).unwrap(), dir));
        // A recipe whose libraries lie outside its target folder (the
        // folder was copied or moved).
        put("deps/liblab_api.rlib", "lib");
        let recipe = Recipe {
            rustc_seen: seen(&dir.join("rustc")),
            libs: libs(),
            ..recipe
        };
        assert!(recipe.holds(&stamp(dir).unwrap(), dir));
        assert!(!recipe.holds(&stamp(dir).unwrap(), &dir.join("elsewhere")));
    }
}
