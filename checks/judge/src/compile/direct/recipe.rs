//! The recipe: what the warm-up's cargo build says about where each of the
//! kit's libraries went, and the rustc it ran, kept in the target folder
//! while nothing it was made from changed.

use super::files::{contents, digest, own_file, seen};
use crate::compile::{jail, BuildError};
use crate::limits::Confinement;
use crate::spawn::{self, Exit};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The recipe's file in a target folder.
const RECIPE: &str = "lab-recipe.json";

/// The folder of a target that holds the libraries builds of learner code
/// link, linked from cargo's (see [`link_libraries`]).
pub(super) const LIBS: &str = "lab-libs";

/// Changes whenever this module builds differently, so that an older
/// judge's recipe is never taken for this one's.
const FORMAT: &str = "lab recipe 2";

/// The libraries the builds here link, as rustc names them.
pub(super) const LINKED: [&str; 7] = [
    "lab_api",
    "lab_wire",
    "lab_scripts",
    "lab_harness",
    "lab_runner_core",
    "serde",
    "serde_json",
];

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
pub(super) struct Recipe {
    /// What it was made from: see [`stamp`].
    pub(super) stamp: String,
    /// The rustc cargo runs, and its length and modification time.
    pub(super) rustc: PathBuf,
    pub(super) rustc_seen: Option<(u64, u128)>,
    /// Each of [`LINKED`], by crate name: its rlib, with its length and
    /// modification time.
    pub(super) libs: BTreeMap<String, (PathBuf, Option<(u64, u128)>)>,
    /// Where their own dependencies are (`-L dependency=`).
    pub(super) deps: PathBuf,
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
    for krate in crate::compile::RUNNER_CRATES {
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

    pub(super) fn lib(&self, name: &str) -> Result<&Path, BuildError> {
        self.libs
            .get(name)
            .map(|(lib, _)| lib.as_path())
            .ok_or_else(|| BuildError::Kit(format!("the build recipe has no {name}")))
    }
}

/// The recipe's lock in a target folder: held shared by every build that
/// compiles against the recipe's libraries, and exclusively while cargo
/// builds them again, so that no build links a library cargo is replacing.
const RECIPE_LOCK: &str = "lab-recipe.lock";

/// The recipe kept in `target`, if it still holds for `stamp`.
fn kept(target: &Path, stamp: &str) -> Option<Recipe> {
    own_file(&target.join(RECIPE))
        .and_then(|text| serde_json::from_str::<Recipe>(&text).ok())
        .filter(|r| r.holds(stamp, target))
}

/// The recipe for building from the kit at `root`, whose own crates cargo
/// builds in `target`: the one kept there if it still holds, else a new
/// one, after cargo built the kit's crates (under the long limit, so that
/// the build timeout measures the learner's code and not a cold start).
/// Every build of learner code takes it from here, the kit's own and each
/// slot's: the kit's crates are built once per target folder. The lock
/// returned is held shared until the caller's compiles are done.
pub(super) fn recipe(
    root: &Path,
    target: &Path,
    confinement: Confinement,
) -> Result<(Recipe, std::fs::File), BuildError> {
    let stamp = stamp(root)?;
    std::fs::create_dir_all(target)?;
    let lock = crate::compile::lock_file(&target.join(RECIPE_LOCK), false)?;
    if let Some(recipe) = kept(target, &stamp) {
        return Ok((recipe, lock));
    }
    // Another build may be warming this target too: wait for it, then look
    // again before building.
    crate::compile::relock(&lock, true)?;
    if let Some(recipe) = kept(target, &stamp) {
        crate::compile::relock(&lock, false)?;
        return Ok((recipe, lock));
    }
    let recipe = warm(root, target, stamp, confinement)?;
    crate::compile::relock(&lock, false)?;
    Ok((recipe, lock))
}

/// Builds the kit's crates with cargo and keeps the recipe that says where
/// they went.
fn warm(
    root: &Path,
    target: &Path,
    stamp: String,
    confinement: Confinement,
) -> Result<Recipe, BuildError> {
    // lab-scripts beside the core runner: the advanced runner links it, and
    // nothing the core runner builds compiles it.
    let mut packages = vec!["lab-runner-core", "lab-scripts"];
    if crate::compile::is_kit(root) {
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
    let (exit, stdout, stderr) =
        crate::compile::cargo(root, target, &args, crate::compile::WARM_LIMIT, confinement)?;
    if exit != Exit::Success {
        return Err(crate::compile::failed_build(&exit, &stderr));
    }
    let (named, files) = libraries(&stdout);
    let set = link_libraries(target, &stamp, &files)?;
    let libs: BTreeMap<_, _> = named
        .into_iter()
        .filter_map(|(name, lib)| {
            let lib = set.join(hashed(&lib).file_name()?);
            let when = seen(&lib);
            Some((name, (lib, when)))
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
    let rustc = rustc(root, target, confinement)?;
    let recipe = Recipe {
        stamp,
        rustc_seen: seen(&rustc),
        rustc,
        libs,
        deps,
    };
    let json = serde_json::to_vec_pretty(&recipe).map_err(|e| BuildError::Kit(e.to_string()))?;
    crate::files::write_atomically(&target.join(RECIPE), &json)?;
    Ok(recipe)
}

/// What cargo's JSON messages say it built: the rlib of each of
/// [`LINKED`], by crate name, and every library file it named (rlibs, and
/// the proc macros' shared objects).
fn libraries(json: &str) -> (BTreeMap<String, PathBuf>, Vec<PathBuf>) {
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
    let mut files = Vec::new();
    for line in json.lines() {
        let Ok(m) = serde_json::from_str::<Message>(line) else {
            continue;
        };
        let Some(target) = m.target.filter(|_| m.reason == "compiler-artifact") else {
            continue;
        };
        files.extend(
            m.filenames
                .iter()
                .filter(|f| f.extension().is_some_and(|e| e == "rlib" || e == "so"))
                .cloned(),
        );
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
    (libs, files)
}

/// Links `files` (cargo's, under their hashed names) into a new folder of
/// their own under `target`'s [`LIBS`], named by a hash of `stamp` and
/// their names, and removes every older such folder (the caller holds the
/// recipe's lock exclusively: no build reads them). A build of learner
/// code reads this folder and nothing else of the target: the libraries
/// its runners link, never another crate cargo built there (the kit's
/// `solutions`, say).
fn link_libraries(target: &Path, stamp: &str, files: &[PathBuf]) -> io::Result<PathBuf> {
    let names: Vec<PathBuf> = files.iter().map(|f| hashed(f)).collect();
    let mut listed = stamp.to_string();
    for name in &names {
        listed.push_str(&format!("{}\n", name.display()));
    }
    let libs = target.join(LIBS);
    let set = libs.join(digest(listed.as_bytes()));
    // The older sets go with their folder (a link there goes itself, never
    // what it points at).
    if std::fs::symlink_metadata(&libs).is_ok() {
        crate::compile::remove(&libs)?;
    }
    std::fs::create_dir_all(&set)?;
    for file in names {
        let Some(name) = file.file_name() else {
            continue;
        };
        let to = set.join(name);
        if to.exists() {
            continue;
        }
        if std::fs::hard_link(&file, &to).is_err() {
            std::fs::copy(&file, &to)?;
        }
    }
    Ok(set)
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
fn rustc(dir: &Path, target: &Path, confinement: Confinement) -> Result<PathBuf, BuildError> {
    if let Some(rustc) = std::env::var_os("RUSTC") {
        return Ok(PathBuf::from(rustc));
    }
    let mut cmd = Command::new("rustc");
    cmd.current_dir(dir).args(["--print", "sysroot"]);
    let (exit, captured) = spawn::run_tool(
        &mut cmd,
        Duration::from_secs(60),
        Some(jail(dir, target, confinement)?),
    )?;
    let sysroot = spawn::excerpt(&captured.stdout, 4096);
    let real = Path::new(sysroot.trim()).join("bin/rustc");
    if exit == Exit::Success && real.is_file() {
        Ok(real)
    } else {
        Ok(PathBuf::from("rustc"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cargo_s_messages_name_each_library_s_rlib() {
        let json = r#"{"reason":"compiler-artifact","package_id":"path+file:///k/checks/api#lab-api@0.1.0","target":{"kind":["lib"],"crate_types":["lib"],"name":"lab_api","src_path":"/k/checks/api/src/lib.rs"},"filenames":["/t/debug/deps/liblab_api-0a.rlib","/t/debug/deps/liblab_api-0a.rmeta"],"fresh":true}
{"reason":"compiler-artifact","target":{"kind":["proc-macro"],"name":"serde_derive"},"filenames":["/t/debug/deps/libserde_derive-1b.so"]}
{"reason":"build-script-executed","package_id":"x"}
not json
{"reason":"compiler-artifact","target":{"kind":["lib"],"name":"serde_json"},"filenames":["/t/debug/deps/libserde_json-2c.rmeta","/t/debug/deps/libserde_json-2c.rlib"]}
{"reason":"compiler-artifact","target":{"kind":["lib"],"name":"clap"},"filenames":["/t/debug/deps/libclap-3d.rlib"]}
{"reason":"build-finished","success":true}"#;
        let (libs, files) = libraries(json);
        assert_eq!(
            files,
            [
                "/t/debug/deps/liblab_api-0a.rlib",
                "/t/debug/deps/libserde_derive-1b.so",
                "/t/debug/deps/libserde_json-2c.rlib",
                "/t/debug/deps/libclap-3d.rlib"
            ]
            .map(PathBuf::from)
        );
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
    fn the_libraries_a_build_reads_are_linked_into_a_folder_of_their_own() {
        let work = tempfile::tempdir().unwrap();
        let target = work.path();
        let deps = target.join("debug/deps");
        std::fs::create_dir_all(&deps).unwrap();
        for name in [
            "libserde-1a.rlib",
            "libserde_derive-2b.so",
            "libsolutions-3c.rlib",
        ] {
            std::fs::write(deps.join(name), name).unwrap();
        }
        // The copy cargo puts beside deps/ for a package it was asked for,
        // the same file as the hashed one.
        std::fs::write(deps.join("liblab_api-4d.rlib"), "api").unwrap();
        std::fs::hard_link(
            deps.join("liblab_api-4d.rlib"),
            target.join("debug/liblab_api.rlib"),
        )
        .unwrap();
        // An older set, which goes.
        std::fs::create_dir_all(target.join(LIBS).join("old")).unwrap();
        std::fs::write(target.join(LIBS).join("old/libx.rlib"), "x").unwrap();
        let named = [
            deps.join("libserde-1a.rlib"),
            deps.join("libserde_derive-2b.so"),
            target.join("debug/liblab_api.rlib"),
        ];
        let set = link_libraries(target, "stamp", &named).unwrap();
        assert_eq!(set.parent(), Some(target.join(LIBS).as_path()));
        let mut held: Vec<String> = std::fs::read_dir(&set)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        held.sort();
        // Only what cargo named, under deps/'s hashed names: never another
        // crate of the target (the solutions).
        assert_eq!(
            held,
            [
                "liblab_api-4d.rlib",
                "libserde-1a.rlib",
                "libserde_derive-2b.so"
            ]
        );
        assert_eq!(
            std::fs::read_to_string(set.join("liblab_api-4d.rlib")).unwrap(),
            "api"
        );
        let sets: Vec<_> = std::fs::read_dir(target.join(LIBS)).unwrap().collect();
        assert_eq!(sets.len(), 1, "the older set is removed");
        // Another stamp, another folder.
        let other = link_libraries(target, "another stamp", &named).unwrap();
        assert_ne!(other, set);
        assert!(!set.exists() && other.is_dir());
        // A link planted where the folder belongs goes itself: what it
        // points at stays as it was.
        let outside = work.path().join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("keep.rlib"), "mine").unwrap();
        std::fs::remove_dir_all(target.join(LIBS)).unwrap();
        std::os::unix::fs::symlink(&outside, target.join(LIBS)).unwrap();
        let linked = link_libraries(target, "stamp", &named).unwrap();
        assert!(!std::fs::symlink_metadata(target.join(LIBS))
            .unwrap()
            .file_type()
            .is_symlink());
        assert!(linked.is_dir());
        assert_eq!(
            std::fs::read_to_string(outside.join("keep.rlib")).unwrap(),
            "mine"
        );
        assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 1);
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
