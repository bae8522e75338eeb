//! File helpers shared by grading, the handout, the learner's state and the
//! benchmark.

use std::io;
use std::path::Path;

/// What a fresh clone of the kit would not have, by path relative to its
/// root: for copies that stand in for one (the bench's, the tests'). A
/// maintainer's own `student/src/advanced.rs` stays out too.
pub fn not_in_a_clone(rel: &Path) -> bool {
    [
        ".git",
        "target",
        ".lab",
        "grades",
        "student/src/advanced.rs",
    ]
    .iter()
    .any(|n| rel == Path::new(n))
}

/// Copies the tree at `from` into `to`, leaving out every path (relative to
/// `from`) for which `skip` says so. Links are not followed. Each file keeps
/// its modification time, as `cp -p` keeps it: cargo then finds a build of
/// the original fresh in the copy too (a handout built in the kit's target
/// folder compiles nothing again).
pub fn copy_tree(from: &Path, to: &Path, skip: &dyn Fn(&Path) -> bool) -> io::Result<()> {
    let mut folders = Vec::new();
    walk(from, skip, &mut |rel, folder| {
        if folder {
            folders.push(rel.to_path_buf());
            return std::fs::create_dir_all(to.join(rel));
        }
        let (source, copy) = (from.join(rel), to.join(rel));
        std::fs::copy(&source, &copy)?;
        let modified = std::fs::metadata(&source)?.modified()?;
        std::fs::File::options()
            .write(true)
            .open(&copy)?
            .set_modified(modified)
    })?;
    // Folders too (lab.sh's freshness check looks at them), once nothing
    // more is written into them.
    for rel in folders.iter().rev() {
        let modified = std::fs::metadata(from.join(rel))?.modified()?;
        std::fs::File::open(to.join(rel))?.set_modified(modified)?;
    }
    Ok(())
}

/// Visits the tree at `root` in name order, each folder before what it
/// holds: `visit` gets every folder's and regular file's path relative to
/// `root` and whether it is a folder. Paths for which `skip` says so are
/// left out with all they hold; links are not followed.
pub fn walk(
    root: &Path,
    skip: &dyn Fn(&Path) -> bool,
    visit: &mut dyn FnMut(&Path, bool) -> io::Result<()>,
) -> io::Result<()> {
    walk_below(root, Path::new(""), skip, visit)
}

fn walk_below(
    root: &Path,
    rel: &Path,
    skip: &dyn Fn(&Path) -> bool,
    visit: &mut dyn FnMut(&Path, bool) -> io::Result<()>,
) -> io::Result<()> {
    if skip(rel) {
        return Ok(());
    }
    let path = root.join(rel);
    let meta = std::fs::symlink_metadata(&path)?;
    if meta.is_dir() {
        visit(rel, true)?;
        let mut names: Vec<_> = std::fs::read_dir(&path)?
            .filter_map(|e| e.ok().map(|e| e.file_name()))
            .collect();
        names.sort();
        for name in names {
            walk_below(root, &rel.join(name), skip, visit)?;
        }
    } else if meta.is_file() {
        visit(rel, false)?;
    }
    Ok(())
}

/// A workspace manifest with its `members` list, which may span several
/// lines, replaced by `members = [..]` of these packages, one line each.
/// The members listed in a workspace manifest.
pub fn members(manifest: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_members = false;
    for line in manifest.lines() {
        if line.starts_with("members") {
            in_members = true;
        }
        if in_members {
            out.extend(line.split('"').skip(1).step_by(2).map(str::to_string));
            if line.trim_end().ends_with(']') {
                break;
            }
        }
    }
    out
}

pub fn with_members(manifest: &str, members: &[&str]) -> String {
    let mut out = String::new();
    let mut in_members = false;
    for line in manifest.lines() {
        if in_members {
            in_members = !line.trim_end().ends_with(']');
            continue;
        }
        if line.starts_with("members") {
            in_members = !line.trim_end().ends_with(']');
            out.push_str("members = [\n");
            for m in members {
                out.push_str(&format!("    {m:?},\n"));
            }
            out.push_str("]\n");
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// Writes a file through a temporary name, so readers never see half of it.
pub fn write_atomically(path: &Path, bytes: impl AsRef<[u8]>) -> io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension("tmp-writing");
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)
}

/// `from` (a folder of a cargo target's profile folder) into `to`, as a
/// build started from it needs: libraries and programs as hard links (rustc
/// and the linker replace such a file through a new one, never in place),
/// everything else (fingerprints, dependency files, build-script outputs,
/// which cargo rewrites in place) as copies, times kept. Entries of `from`
/// itself whose names `skip` says so of are left out, and so are links and
/// other special files.
pub fn seed_folder(from: &Path, to: &Path, skip: &dyn Fn(&str) -> bool) -> io::Result<()> {
    seed_below(from, to, Some(skip))
}

fn seed_below(from: &Path, to: &Path, skip: Option<&dyn Fn(&str) -> bool>) -> io::Result<()> {
    std::fs::create_dir_all(to)?;
    let Ok(entries) = std::fs::read_dir(from) else {
        return Ok(());
    };
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name();
        if skip.is_some_and(|skip| skip(&name.to_string_lossy())) {
            continue;
        }
        let (path, into) = (entry.path(), to.join(&name));
        let kind = entry.file_type()?;
        if kind.is_dir() {
            seed_below(&path, &into, None)?;
        } else if kind.is_file() {
            let meta = entry.metadata()?;
            let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
            let binary = ["rlib", "rmeta", "so"].contains(&ext)
                || (ext.is_empty() && crate::platform::fs::mode(&meta) & 0o111 != 0);
            if !(binary && std::fs::hard_link(&path, &into).is_ok()) {
                std::fs::copy(&path, &into)?;
                std::fs::File::options()
                    .write(true)
                    .open(&into)?
                    .set_modified(meta.modified()?)?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_leaves_out_what_it_is_told_to() {
        let dir = tempfile::tempdir().unwrap();
        let (from, to) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::create_dir_all(from.join("keep/deep")).unwrap();
        std::fs::create_dir_all(from.join("drop")).unwrap();
        std::fs::write(from.join("keep/deep/x"), "x").unwrap();
        std::fs::write(from.join("drop/y"), "y").unwrap();
        copy_tree(&from, &to, &|rel| rel == Path::new("drop")).unwrap();
        assert_eq!(
            std::fs::read_to_string(to.join("keep/deep/x")).unwrap(),
            "x"
        );
        assert!(!to.join("drop").exists());
        // The copy keeps the file's modification time.
        let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000_000);
        std::fs::File::options()
            .write(true)
            .open(from.join("keep/deep/x"))
            .unwrap()
            .set_modified(old)
            .unwrap();
        let again = dir.path().join("c");
        copy_tree(&from, &again, &|_| false).unwrap();
        let modified = |p: &Path| std::fs::metadata(p).unwrap().modified().unwrap();
        assert_eq!(modified(&again.join("keep/deep/x")), old);
        assert_eq!(modified(&again.join("keep")), modified(&from.join("keep")));
    }

    #[test]
    fn an_atomic_write_leaves_no_temporary_file() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("sub/summary.json");
        write_atomically(&f, "{}").unwrap();
        assert_eq!(std::fs::read_to_string(&f).unwrap(), "{}");
        assert_eq!(
            std::fs::read_dir(dir.path().join("sub")).unwrap().count(),
            1
        );
    }
}
