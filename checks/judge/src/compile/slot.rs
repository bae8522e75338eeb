//! Subject slots: a folder per slot name under the target folder, holding
//! `kit/`, a workspace cargo builds exactly as it builds the kit (the same
//! manifests and lock file, the subject's `lib.rs` and `advanced.rs` as
//! `student/src/`, copies of the two runner crates, and links to the kit's
//! other members); `target/`, the slot's own target folder, seeded from
//! the kit's build of its libraries so that only the subject's crate and
//! the runners compile there; the judge's notes of the last subject built
//! there and of the seed; and a lock.

use super::{target_dir, BuildError};
use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::path::{Path, PathBuf};

/// Writes `bytes` to `path` unless it already holds them. An unchanged file
/// keeps its mtime, so cargo has nothing to do; a changed one is replaced
/// through a new file, never written through a link to another.
fn write_if_changed(path: &Path, bytes: &[u8]) -> io::Result<()> {
    if std::fs::read(path).ok().as_deref() == Some(bytes) {
        return Ok(());
    }
    crate::files::write_atomically(path, bytes)
}

/// The runner crates copied into a slot: their sources reach the learner's
/// files by relative paths (`../../student`), which through a link would
/// resolve inside the kit instead.
const SLOT_CRATES: [&str; 2] = ["checks/runner", "checks/runner-advanced"];

/// The kit's files that a cargo build of a slot reads as they are: the
/// workspace's manifest and lock file, the student crate's manifest, and
/// cargo's configuration.
const SLOT_COPIES: [&str; 4] = [
    "Cargo.toml",
    "Cargo.lock",
    "student/Cargo.toml",
    ".cargo/config.toml",
];

/// Waits for exclusive use of a slot (another `lab.sh` may hold it).
pub(super) fn lock(dir: &Path) -> io::Result<std::fs::File> {
    std::fs::create_dir_all(dir)?;
    super::lock_file(&dir.join("lock"), true)
}

/// What a slot's `kit/` holds, by path relative to it: files with their
/// bytes, and links to folders of the kit.
#[derive(Debug, Default)]
struct Tree {
    files: BTreeMap<PathBuf, Vec<u8>>,
    links: BTreeMap<PathBuf, PathBuf>,
}

/// The tree of a slot's `kit/` for the kit at `root`: the subject's `lib_rs`
/// (and `advanced`) under `student/src/`, every regular file of
/// [`SLOT_CRATES`] and of [`SLOT_COPIES`], and a link to each other
/// workspace member of the kit. Nothing else belongs there.
fn slot_files(root: &Path, lib_rs: &[u8], advanced: Option<&[u8]>) -> io::Result<Tree> {
    let mut tree = Tree::default();
    tree.files
        .insert("student/src/lib.rs".into(), lib_rs.to_vec());
    if let Some(bytes) = advanced {
        tree.files
            .insert("student/src/advanced.rs".into(), bytes.to_vec());
    }
    for file in SLOT_COPIES {
        let from = root.join(file);
        if std::fs::symlink_metadata(&from).is_ok_and(|m| m.is_file()) {
            tree.files.insert(file.into(), std::fs::read(&from)?);
        }
    }
    for krate in SLOT_CRATES {
        let from = root.join(krate);
        crate::files::walk(&from, &|_| false, &mut |rel, folder| {
            if !folder {
                tree.files
                    .insert(Path::new(krate).join(rel), std::fs::read(from.join(rel))?);
            }
            Ok(())
        })?;
    }
    for member in linked_members(root)? {
        tree.links.insert(member.clone(), root.join(&member));
    }
    Ok(tree)
}

/// The kit's workspace members a slot links to: all but the student crate
/// and [`SLOT_CRATES`], and none inside another (`solutions/advanced`
/// comes with `solutions`).
pub(super) fn linked_members(root: &Path) -> io::Result<Vec<PathBuf>> {
    let manifest = std::fs::read_to_string(root.join("Cargo.toml"))?;
    let mut members: Vec<PathBuf> = crate::files::members(&manifest)
        .into_iter()
        .map(PathBuf::from)
        .filter(|m| m != Path::new("student") && !SLOT_CRATES.iter().any(|c| m == Path::new(c)))
        .collect();
    members.sort();
    let mut out: Vec<PathBuf> = Vec::new();
    for m in members {
        if !out.iter().any(|o| m.starts_with(o)) {
            out.push(m);
        }
    }
    Ok(out)
}

/// What an entry of a slot's tree is.
enum Kind {
    Folder,
    File,
    /// A symbolic link, with where it points.
    Link(PathBuf),
}

/// Makes the tree at `dir` hold exactly `tree` (paths relative to `dir`)
/// and the folders its entries are in. Anything else is removed first:
/// other files and folders, links other than the tree's own (the links,
/// never what they point at), FIFOs, and a folder or link standing where a
/// file belongs. Then each file is written unless it already holds its
/// bytes, and each missing link is made.
fn make_tree(dir: &Path, tree: &Tree) -> io::Result<()> {
    let folders: BTreeSet<&Path> = tree
        .files
        .keys()
        .chain(tree.links.keys())
        .flat_map(|f| f.ancestors().skip(1))
        .filter(|f| !f.as_os_str().is_empty())
        .collect();
    match std::fs::symlink_metadata(dir) {
        Ok(meta) if !meta.is_dir() => remove(dir)?,
        _ => {}
    }
    std::fs::create_dir_all(dir)?;
    prune(dir, Path::new(""), &|rel, kind| match kind {
        Kind::Folder => folders.contains(rel),
        Kind::File => tree.files.contains_key(rel),
        Kind::Link(to) => tree.links.get(rel).is_some_and(|want| *want == to),
    })?;
    for (rel, bytes) in &tree.files {
        write_if_changed(&dir.join(rel), bytes)?;
    }
    for (rel, to) in &tree.links {
        let at = dir.join(rel);
        if std::fs::symlink_metadata(&at).is_err() {
            if let Some(up) = at.parent() {
                std::fs::create_dir_all(up)?;
            }
            crate::platform::fs::symlink(to, &at)?;
        }
    }
    Ok(())
}

/// Removes from the folder `root/rel` every entry that `keep` does not keep
/// (by its path relative to `root` and its kind; anything but a folder, a
/// regular file or a link goes), and descends into the folders kept. Links
/// are removed or kept, never followed.
fn prune(root: &Path, rel: &Path, keep: &dyn Fn(&Path, Kind) -> bool) -> io::Result<()> {
    for entry in std::fs::read_dir(root.join(rel))? {
        let rel = rel.join(entry?.file_name());
        let path = root.join(&rel);
        let meta = std::fs::symlink_metadata(&path)?;
        let kind = if meta.is_dir() {
            Kind::Folder
        } else if meta.is_file() {
            Kind::File
        } else if meta.file_type().is_symlink() {
            Kind::Link(std::fs::read_link(&path)?)
        } else {
            remove(&path)?;
            continue;
        };
        let folder = matches!(kind, Kind::Folder);
        if !keep(&rel, kind) {
            remove(&path)?;
        } else if folder {
            prune(root, &rel, keep)?;
        }
    }
    Ok(())
}

/// Removes `path`: a folder with everything in it, anything else (a
/// symbolic link included, not what it points at) as itself.
pub(in crate::compile) fn remove(path: &Path) -> io::Result<()> {
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
/// code: the student crate's and both runners' binaries, libraries,
/// dependency files, fingerprints (which keep the compiler's messages),
/// incremental caches and build-script folders, what a killed rustc left
/// half-written, and the build's temporary folder. What the kit's own
/// crates and the registry's compiled to stays, so the next build is warm.
fn clear_learner_outputs(target: &Path, keep_incremental: bool) -> io::Result<()> {
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
    // Not `build/`: it holds the advanced runner's build script and what
    // that printed, the kit's own code, which reads only whether the
    // learner's file exists (cargo runs it again when the folder changes).
    for sub in ["", "deps", ".fingerprint", "incremental"] {
        if keep_incremental && sub == "incremental" {
            continue;
        }
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
            let script = sub == ".fingerprint" && is_build_script(&dir.join(&*name));
            if (built_from_learner(&name) && !script) || half_written {
                remove(&dir.join(&*name))?;
            }
        }
    }
    Ok(())
}

/// Whether the fingerprint folder `dir` is that of a build script (its
/// compile or its run), whose files cargo names `build-script-…` and
/// `run-build-script-…`: a folder of its own, never a link.
fn is_build_script(dir: &Path) -> bool {
    std::fs::symlink_metadata(dir).is_ok_and(|m| m.is_dir())
        && std::fs::read_dir(dir).is_ok_and(|entries| {
            entries.flatten().any(|e| {
                let name = e.file_name();
                let name = name.to_string_lossy();
                name.starts_with("build-script-") || name.starts_with("run-build-script-")
            })
        })
}

/// The folders of a profile folder that seed a slot's target.
const SEEDED: [&str; 3] = ["deps", "build", ".fingerprint"];

/// What the kit's build of its libraries in `debug` (its target's profile
/// folder) is now: each fingerprint file's path, length and modification
/// time, but those of the learner's units. A slot seeded from another
/// build is seeded again.
fn seed_stamp(debug: &Path) -> io::Result<String> {
    let mut out = String::from("lab seed 1\n");
    let fingerprints = debug.join(".fingerprint");
    let mut names: Vec<_> = std::fs::read_dir(&fingerprints)?
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !built_from_learner(n))
        .collect();
    names.sort();
    for name in names {
        let Ok(files) = std::fs::read_dir(fingerprints.join(&name)) else {
            continue;
        };
        let mut files: Vec<_> = files.filter_map(Result::ok).collect();
        files.sort_by_key(|e| e.file_name());
        for file in files {
            let Ok(meta) = file.metadata() else { continue };
            let when = meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            out.push_str(&format!(
                "{name}/{} {} {when}\n",
                file.file_name().to_string_lossy(),
                meta.len()
            ));
        }
    }
    Ok(out)
}

/// Makes the slot's `target` start from the kit's build in `debug` unless
/// `note` (the judge's own file) says it already did from this very build:
/// everything of [`SEEDED`] but the learner's units, libraries and
/// programs as hard links (rustc and the linker replace such a file through
/// a new one, never in place), everything else (fingerprints, dependency
/// files, build-script outputs, which cargo rewrites in place) as copies,
/// times kept. Whatever the slot held before goes first.
fn seed(debug: &Path, target: &Path, note: &Path) -> io::Result<()> {
    let stamp = seed_stamp(debug)?;
    let last = std::fs::symlink_metadata(note)
        .ok()
        .filter(|m| m.is_file())
        .and_then(|_| std::fs::read(note).ok());
    if last.as_deref() == Some(stamp.as_bytes()) && target.join("debug").is_dir() {
        return Ok(());
    }
    if std::fs::symlink_metadata(note).is_ok() {
        remove(note)?;
    }
    if std::fs::symlink_metadata(target).is_ok() {
        remove(target)?;
    }
    for sub in SEEDED {
        crate::files::seed_folder(
            &debug.join(sub),
            &target.join("debug").join(sub),
            &built_from_learner,
        )?;
    }
    crate::files::write_atomically(note, stamp.as_bytes())
}

/// A slot made ready for a build.
pub(super) struct Filled {
    /// The slot's workspace.
    pub(super) dir: PathBuf,
    /// Its target folder.
    pub(super) target: PathBuf,
    /// Held while the slot is in use.
    pub(super) lock: std::fs::File,
}

/// Locks slot `name` and makes it the kit's workspace with `lib_rs`, and
/// with `advanced` as `student/src/advanced.rs` (absent when `None`); seeds
/// its target from the kit's build of its libraries in `kit_debug`, and
/// clears from it what an earlier subject's build produced.
pub(super) fn fill_slot(
    root: &Path,
    kit_debug: &Path,
    name: &str,
    lib_rs: &[u8],
    advanced: Option<&[u8]>,
) -> Result<Filled, BuildError> {
    // Slots of earlier kits (other layouts, or state a runner once
    // wrote) are under other names; this one starts them afresh.
    let slots = target_dir(root).join("lab-slots-3");
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
    seed(kit_debug, &target, &slots.join(name).join("seeded"))?;
    clear_unless_same(
        &target,
        &slots.join(name).join("subject"),
        &subject_bytes(lib_rs, advanced),
    )?;
    Ok(Filled {
        dir: slot,
        target,
        lock,
    })
}

/// Clears `target` of an earlier subject's outputs unless `note` (the
/// judge's own file) says the last subject built there was `this` one.
fn clear_unless_same(target: &Path, note: &Path, this: &[u8]) -> io::Result<()> {
    clear_unless(target, note, this, false)
}

/// [`clear_unless_same`], keeping rustc's incremental caches when
/// `keep_incremental`.
fn clear_unless(target: &Path, note: &Path, this: &[u8], keep_incremental: bool) -> io::Result<()> {
    let last = std::fs::symlink_metadata(note)
        .ok()
        .filter(|m| m.is_file())
        .and_then(|_| std::fs::read(note).ok());
    if last.as_deref() != Some(this) || !target.is_dir() {
        clear_learner_outputs(target, keep_incremental)?;
        crate::files::write_atomically(note, this)?;
    }
    Ok(())
}

/// Before a build of the kit's own `student/` at `root` into `target`:
/// clears what was built there from other sources than these, whatever
/// their modification times say. Cargo decides freshness by times, so a
/// file put back with an older time, or another copy of the kit sharing
/// the target folder, would otherwise be taken for what was built. The
/// note (`note`, the judge's own file) holds the kit's path and every file
/// of `student/`, whole. The learner's incremental caches stay: they are
/// their own.
pub(super) fn clear_unless_kit_same(root: &Path, target: &Path, note: &Path) -> io::Result<()> {
    let mut this = format!("{}\n", root.display()).into_bytes();
    let student = root.join("student");
    let mut files = Vec::new();
    crate::files::walk(&student, &|_| false, &mut |rel, folder| {
        if !folder {
            files.push(rel.to_path_buf());
        }
        Ok(())
    })?;
    files.sort();
    for rel in files {
        let path = student.join(&rel);
        // A regular file only: a FIFO would wait for a writer.
        if !std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()) {
            continue;
        }
        let bytes = std::fs::read(&path)?;
        this.extend(format!("{} {}\n", rel.display(), bytes.len()).into_bytes());
        this.extend(bytes);
    }
    clear_unless(target, note, &this, true)
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

#[cfg(all(test, unix))]
mod tests;
