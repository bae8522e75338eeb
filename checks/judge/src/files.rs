//! File helpers shared by grading, the handout, the learner's state and the
//! benchmark.

use std::io;
use std::path::Path;

/// Copies the tree at `from` into `to`, leaving out every path (relative to
/// `from`) for which `skip` says so. Links are not followed.
pub fn copy_tree(from: &Path, to: &Path, skip: &dyn Fn(&Path) -> bool) -> io::Result<()> {
    copy_below(from, Path::new(""), to, skip)
}

fn copy_below(root: &Path, rel: &Path, to: &Path, skip: &dyn Fn(&Path) -> bool) -> io::Result<()> {
    if skip(rel) {
        return Ok(());
    }
    let from = root.join(rel);
    let meta = std::fs::symlink_metadata(&from)?;
    if meta.is_dir() {
        std::fs::create_dir_all(to.join(rel))?;
        let mut names: Vec<_> = std::fs::read_dir(&from)?
            .filter_map(|e| e.ok().map(|e| e.file_name()))
            .collect();
        names.sort();
        for name in names {
            copy_below(root, &rel.join(name), to, skip)?;
        }
    } else if meta.is_file() {
        std::fs::copy(&from, to.join(rel))?;
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
pub fn write_atomically(path: &Path, text: &str) -> io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension("tmp-writing");
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, path)
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
