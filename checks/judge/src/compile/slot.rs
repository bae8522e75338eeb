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
mod tests {
    use super::*;
    use std::time::Duration;

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
        for krate in crate::compile::RUNNER_CRATES {
            put(&root.join(krate).join("Cargo.toml"), krate);
        }
        put(&root.join("checks/api/src/lib.rs"), "api");
        put(&root.join("checks/runner/src/main.rs"), "runner");
        put(
            &root.join("checks/runner-advanced/src/main.rs"),
            "advanced runner",
        );
        put(&root.join("checks/runner-advanced/build.rs"), "script");
        put(&outside.join("secret.rs"), "outside file");
        put(&outside.join("folder/inner.rs"), "outside folder");
        let fill = |advanced: Option<&[u8]>| {
            make_tree(&slot, &slot_files(&root, b"learner", advanced).unwrap()).unwrap()
        };
        fill(Some(b"advanced"));

        // Planted: a build script, a manifest and a crate the slot does not
        // hold, a folder, a FIFO, links where a kit file and a kit folder
        // belong, a link to a folder outside, and a folder where a kit file
        // belongs.
        put(&slot.join("checks/runner/build.rs"), "fn main() {}");
        put(&slot.join("Cargo.toml"), "[workspace]");
        std::fs::remove_file(slot.join("checks/judge")).unwrap();
        symlink(&outside, slot.join("checks/judge")).unwrap();
        put(&slot.join("checks/api/src/lib.rs"), "planted api");
        put(&slot.join("student/extra/more.rs"), "extra");
        let fifo =
            std::ffi::CString::new(slot.join("checks/runner-advanced/pipe").to_str().unwrap())
                .unwrap();
        // SAFETY: mkfifo with a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
        std::fs::remove_file(slot.join("checks/runner-advanced/src/main.rs")).unwrap();
        symlink(
            outside.join("secret.rs"),
            slot.join("checks/runner-advanced/src/main.rs"),
        )
        .unwrap();
        std::fs::remove_dir_all(slot.join("checks/runner/src")).unwrap();
        symlink(outside.join("folder"), slot.join("checks/runner/src")).unwrap();
        symlink(&outside, slot.join("student/outside")).unwrap();
        std::fs::remove_file(slot.join("checks/runner/Cargo.toml")).unwrap();
        put(&slot.join("checks/runner/Cargo.toml/x"), "folder");
        // An unchanged file keeps its mtime.
        let old = std::time::SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
        let file = std::fs::File::options()
            .write(true)
            .open(slot.join("checks/runner-advanced/Cargo.toml"))
            .unwrap();
        file.set_modified(old).unwrap();
        drop(file);

        fill(None);
        let want = [
            "Cargo.lock = lock",
            "Cargo.toml = [workspace]\nmembers = [\"student\", \"checks/judge\"]\n",
            "checks/",
            // A link to the kit's member, not a copy.
            "checks/judge ?",
            "checks/runner/",
            "checks/runner/Cargo.toml = checks/runner",
            "checks/runner/src/",
            "checks/runner/src/main.rs = runner",
            "checks/runner-advanced/",
            "checks/runner-advanced/Cargo.toml = checks/runner-advanced",
            "checks/runner-advanced/build.rs = script",
            "checks/runner-advanced/src/",
            "checks/runner-advanced/src/main.rs = advanced runner",
            "student/",
            "student/Cargo.toml = student manifest",
            "student/src/",
            "student/src/lib.rs = learner",
        ];
        assert_eq!(listing(&slot), want);
        assert_eq!(
            std::fs::read_link(slot.join("checks/judge")).unwrap(),
            root.join("checks/judge")
        );
        assert_eq!(
            listing(&outside),
            [
                "folder/",
                "folder/inner.rs = outside folder",
                "secret.rs = outside file"
            ]
        );
        let mtime = std::fs::metadata(slot.join("checks/runner-advanced/Cargo.toml"))
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
            "debug/.fingerprint/lab-runner-advanced-1234abcd5678ef90/bin-lab-runner-advanced",
            "lab-tmp/rustcAbCdEf/x.o",
            "debug/incremental/student-3k1x9z0q2w7e/s-h1-abc-xyz/query-cache.bin",
            "debug/incremental/lab_runner-1a2b3c4d5e6f/s-h1-abc-xyz/dep-graph.bin",
        ];
        let kept = [
            "debug/.cargo-lock = x",
            "debug/build/",
            // The advanced runner's build script, the kit's code: kept.
            "debug/build/lab-runner-advanced-9999aaaabbbbcccc/",
            "debug/build/lab-runner-advanced-9999aaaabbbbcccc/output = x",
            "debug/.fingerprint/lab-runner-advanced-9999aaaabbbbcccc/",
            "debug/.fingerprint/lab-runner-advanced-9999aaaabbbbcccc/run-build-script-build-script-build = x",
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

        clear_learner_outputs(&target, false).unwrap();
        let mut want: Vec<String> = kept.iter().map(|s| s.to_string()).collect();
        want.push("debug/".into());
        want.sort();
        let mut left = listing(&target);
        left.sort();
        assert_eq!(left, want);
        assert_eq!(listing(&outside), ["lab_runner-keep = outside"]);
    }

    #[test]
    fn a_slot_s_target_starts_from_the_kit_s_libraries_and_never_from_a_learner_s() {
        use std::os::unix::fs::MetadataExt;
        let work = tempfile::tempdir().unwrap();
        let (debug, target, note) = (
            work.path().join("kit/debug"),
            work.path().join("slot/target"),
            work.path().join("slot/seeded"),
        );
        put(&debug.join("deps/liblab_api-0123456789abcdef.rlib"), "api");
        put(
            &debug.join("deps/libstudent-0a1b2c3d4e5f6071.rlib"),
            "learner",
        );
        put(
            &debug.join(".fingerprint/lab-api-0123456789abcdef/lib-lab_api"),
            "fp",
        );
        put(
            &debug.join(".fingerprint/student-0a1b2c3d4e5f6071/lib-student"),
            "learner fp",
        );
        put(&debug.join("build/serde-0123456789abcdef/output"), "out");
        put(&debug.join("lab-judge"), "not seeded");
        put(&target.join("debug/deps/planted"), "left by another kit");
        seed(&debug, &target, &note).unwrap();
        let mut got = listing(&target.join("debug"));
        got.sort();
        assert_eq!(
            got,
            [
                ".fingerprint/",
                ".fingerprint/lab-api-0123456789abcdef/",
                ".fingerprint/lab-api-0123456789abcdef/lib-lab_api = fp",
                "build/",
                "build/serde-0123456789abcdef/",
                "build/serde-0123456789abcdef/output = out",
                "deps/",
                "deps/liblab_api-0123456789abcdef.rlib = api",
            ]
        );
        let ino = |p: &Path| std::fs::metadata(p).unwrap().ino();
        let rlib = "deps/liblab_api-0123456789abcdef.rlib";
        assert_eq!(
            ino(&debug.join(rlib)),
            ino(&target.join("debug").join(rlib))
        );
        let fp = ".fingerprint/lab-api-0123456789abcdef/lib-lab_api";
        assert_ne!(ino(&debug.join(fp)), ino(&target.join("debug").join(fp)));
        // The same build again: the slot's target is left as it is.
        put(
            &target.join("debug/deps/libstudent-0a1b2c3d4e5f6071.rlib"),
            "built",
        );
        seed(&debug, &target, &note).unwrap();
        assert!(target
            .join("debug/deps/libstudent-0a1b2c3d4e5f6071.rlib")
            .exists());
        // The kit built its libraries again: seeded afresh.
        let file = std::fs::File::options()
            .write(true)
            .open(debug.join(fp))
            .unwrap();
        file.set_modified(std::time::SystemTime::UNIX_EPOCH + Duration::from_secs(7))
            .unwrap();
        drop(file);
        seed(&debug, &target, &note).unwrap();
        assert!(!target
            .join("debug/deps/libstudent-0a1b2c3d4e5f6071.rlib")
            .exists());
        // A note that is a link is no note.
        std::fs::remove_file(&note).unwrap();
        put(&work.path().join("forged"), &seed_stamp(&debug).unwrap());
        std::os::unix::fs::symlink(work.path().join("forged"), &note).unwrap();
        put(&target.join("debug/deps/planted"), "x");
        seed(&debug, &target, &note).unwrap();
        assert!(!target.join("debug/deps/planted").exists());
    }

    #[test]
    fn the_kit_s_own_build_is_cleared_when_its_sources_differ_whatever_their_times() {
        let work = tempfile::tempdir().unwrap();
        let (kit, other, target) = (
            work.path().join("kit"),
            work.path().join("copy"),
            work.path().join("target"),
        );
        let note = target.join("lab-build/subject");
        put(&kit.join("student/src/lib.rs"), "fn a() {}");
        put(&other.join("student/src/lib.rs"), "fn a() {}");
        let runner = target.join("debug/lab-runner");
        let cache = target.join("debug/incremental/student-3k1x9z0q2w7e/s-1/dep-graph.bin");
        let built = || {
            put(&runner, "built");
            put(&cache, "cache");
        };
        built();
        clear_unless_kit_same(&kit, &target, &note).unwrap();
        assert!(!runner.exists(), "no note yet: cleared");
        assert!(cache.exists(), "the learner's incremental cache stays");
        built();
        clear_unless_kit_same(&kit, &target, &note).unwrap();
        assert!(runner.exists(), "the same sources: kept");
        // The same bytes in another copy of the kit sharing the target.
        clear_unless_kit_same(&other, &target, &note).unwrap();
        assert!(!runner.exists(), "another kit: cleared");
        built();
        clear_unless_kit_same(&other, &target, &note).unwrap();
        // A file put back with its old time: its bytes decide.
        let lib = other.join("student/src/lib.rs");
        let when = std::fs::metadata(&lib).unwrap().modified().unwrap();
        std::fs::write(&lib, "fn b() {}").unwrap();
        let file = std::fs::File::options().write(true).open(&lib).unwrap();
        file.set_modified(when).unwrap();
        drop(file);
        clear_unless_kit_same(&other, &target, &note).unwrap();
        assert!(!runner.exists(), "other bytes at the same time: cleared");
        // A new module counts too.
        built();
        clear_unless_kit_same(&other, &target, &note).unwrap();
        put(&other.join("student/src/more.rs"), "");
        clear_unless_kit_same(&other, &target, &note).unwrap();
        assert!(!runner.exists(), "a new file: cleared");
    }
}
