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
//!
//! `recipe.rs` makes and keeps the recipe, `unit.rs` names the compiler
//! runs and their arguments, `note.rs` says whether a unit is up to date,
//! `blame.rs` reads rustc's diagnostics (whose fault, and what the learner
//! reads) and `files.rs` is what all of them read of a file.

mod blame;
mod files;
mod note;
mod recipe;
mod relink;
mod unit;

use super::{jail_reading, BuildError, Runner};
use crate::catalog::tr;
use crate::limits::Limits;
use crate::spawn::{self, Exit};
use note::{made_from, note_path, up_to_date};
use recipe::{recipe, Recipe};
use std::path::{Path, PathBuf};
use std::process::Command;
use unit::Unit;

/// The folder of a target where builds of learner code write: the student
/// crate, both runners and their incremental caches.
pub const OUT: &str = "lab-direct";

/// rustc's incremental caches, in [`OUT`].
pub const INCREMENTAL: &str = "incremental";

/// Clears the build folder `out` of a slot for its next subject: all the
/// builds wrote but the incremental caches and the core runner's kept link
/// (see relink.rs), which holds none of the learner's code.
pub fn clear(out: &Path) -> std::io::Result<()> {
    // Incremental caches stay: rustc names each session folder in them
    // with 32 random bits and a timestamp, compile-time learner code can
    // read only a path it writes out literally (nothing at build time lists
    // a folder), and what rustc reuses from them is only ever what the new
    // sources would compile to anyway. Kept, they halve a slot's rebuild.
    let remove = super::remove;
    match std::fs::symlink_metadata(out) {
        Ok(meta) if meta.is_dir() => {
            for entry in std::fs::read_dir(out)? {
                let entry = entry?;
                let folder = entry.file_type().is_ok_and(|t| t.is_dir());
                if folder && entry.file_name() == INCREMENTAL {
                    continue;
                }
                if folder && entry.file_name() == unit::CORE {
                    relink::clear(&entry.path())?;
                    continue;
                }
                remove(&entry.path())?;
            }
        }
        Ok(_) => remove(out)?,
        Err(_) => {}
    }
    Ok(())
}

/// Most bytes of rustc's stderr read: its JSON lines, each diagnostic with
/// its rendered text, its explanation and its places, several times the
/// length of the text they render.
const STDERR_CAP: usize = 1 << 20;

/// One compiler run in `dir`, jailed: `Ok(Ok(()))` when it compiled,
/// `Ok(Err(errors))` when the learner's code did not.
fn compile(
    unit: Unit,
    recipe: &Recipe,
    dir: &Path,
    target: &Path,
    limits: &Limits,
) -> Result<Result<(), String>, BuildError> {
    let out = target.join(OUT);
    if up_to_date(unit, recipe, dir, &out) {
        return Ok(Ok(()));
    }
    let note = note_path(unit, &out);
    if std::fs::symlink_metadata(&note).is_ok() {
        std::fs::remove_file(&note)?;
    }
    let args = unit.args(recipe, &out, super::is_kit(dir))?;
    let (output, _) = unit.outputs(&out);
    // After a good build: what it was made from, for the next one.
    let write_note = || -> std::io::Result<()> {
        match made_from(unit, recipe, dir, &out) {
            Some(made) => crate::files::write_atomically(&note, made.as_bytes()),
            None => Ok(()),
        }
    };
    // The core runner is linked without rustc when a kept link fits.
    let relink_key = (unit == Unit::CoreMain).then(|| relink::key(recipe, &args));
    if let Some(key) = &relink_key {
        if let Some(folder) = output.parent() {
            std::fs::create_dir_all(folder)?;
        }
        if relink::relink(key, recipe, dir, target, &out, limits)? {
            write_note()?;
            return Ok(Ok(()));
        }
    }
    let mut cmd = Command::new(&recipe.rustc);
    cmd.current_dir(dir).args(&args);
    // A slot's build reads the kit's libraries, in the kit's target folder.
    let mut jail = jail_reading(dir, target, &[&recipe.deps], limits.confinement)?;
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
    let (exit, captured) = spawn::run_tool(&mut cmd, limits.build, Some(jail))?;
    crate::timing::phase(&format!("rustc {unit:?}"), started);
    let said = blame::read(&spawn::excerpt(&captured.stderr, STDERR_CAP), unit);
    if let Some(key) = relink_key {
        if exit == Exit::Success {
            let printed = spawn::excerpt(&captured.stdout, STDERR_CAP);
            relink::keep(key, &printed, dir, &out);
        } else {
            relink::tidy(&output);
        }
    }
    match exit {
        Exit::Success => {
            write_note()?;
            Ok(Ok(()))
        }
        Exit::CaseTimeLimit | Exit::OverallTimeLimit => Ok(Err(tr(
            "build.too_slow",
            &[("secs", &limits.build.as_secs_f64())],
        ))),
        Exit::Failure(_) | Exit::Signalled(_) => {
            if said.learners {
                Ok(Err(super::first_errors(&said.as_cargo, 40)))
            } else {
                Err(BuildError::Kit(format!(
                    "rustc ended with {exit:?}: {}",
                    super::first_errors(&said.as_cargo, 20)
                )))
            }
        }
        other => Err(BuildError::Kit(format!(
            "rustc ended with {other:?}: {}",
            super::first_errors(&said.as_rustc, 20)
        ))),
    }
}

/// Builds `runners` from the kit or slot at `dir` into `target`: for
/// each, its binary, or the compiler's first errors when the learner's code
/// does not compile. The kit's own crates are those of the kit at `root`,
/// built once in its target folder (see [`recipe`]). The two runners build
/// side by side; the core one is the learner's crate, then its `main`;
/// each within `limits.build`. The `Err` is the kit's fault.
pub fn build(
    root: &Path,
    dir: &Path,
    target: &Path,
    runners: &[Runner],
    limits: &Limits,
) -> Result<Vec<Result<PathBuf, String>>, BuildError> {
    let started = std::time::Instant::now();
    let recipe = recipe(root, &super::target_dir(root), limits.confinement);
    crate::timing::phase("recipe", started);
    // Held until every compile below is done.
    let (recipe, _recipe_lock) = match recipe {
        Ok(kept) => kept,
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
            if let Err(errors) = compile(unit, &recipe, dir, target, limits)? {
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
