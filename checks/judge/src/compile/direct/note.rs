//! A unit's note, `<output>.built`: what its last good build was made from,
//! so that a unit whose note still matches is not compiled again.

use super::files::{contents, digest, own_file, seen};
use super::recipe::Recipe;
use super::unit::Unit;
use std::path::{Path, PathBuf};

/// What a unit's last build was made from, as its note keeps it: the
/// recipe, rustc's arguments, its output as written (length and time), every source rustc
/// read (length and hash of its bytes) and, for the core main, the
/// learner's crate it linked. `None` when a file cannot be read.
pub(super) fn made_from(unit: Unit, recipe: &Recipe, dir: &Path, out: &Path) -> Option<String> {
    let (output, depinfo) = unit.outputs(out);
    let (len, mtime) = seen(&output)?;
    // The arguments too: a judge that compiles differently builds again.
    let args = unit
        .args(recipe, out, crate::compile::is_kit(dir))
        .ok()?
        .join(" ");
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

/// The sources a rustc dependency file lists for its first target (paths
/// as rustc wrote them; a space in a path is written `\ `).
pub(super) fn sources_read(depinfo: &str) -> Vec<PathBuf> {
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
pub(super) fn note_path(unit: Unit, out: &Path) -> PathBuf {
    let (output, _) = unit.outputs(out);
    output.with_extension("built")
}

/// Whether `unit` needs no build: its note says it was made from what
/// is there now (the same recipe, sources of the same bytes, its output
/// untouched). A learner who saves without a change, or a class with the
/// same file twice in a row in one slot, compiles nothing.
pub(super) fn up_to_date(unit: Unit, recipe: &Recipe, dir: &Path, out: &Path) -> bool {
    let note = own_file(&note_path(unit, out));
    note.is_some() && note == made_from(unit, recipe, dir, out)
}

#[cfg(test)]
mod tests {
    use super::super::recipe::LINKED;
    use super::*;

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
        let (runner, runner_d) = Unit::CoreMain.outputs(&out);
        put(&runner, "linked");
        put(&runner_d, "x: checks/runner/src/main.rs\n");
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
        put(&runner, "replaced");
        assert!(!fresh(Unit::CoreMain, &recipe));
        std::fs::remove_file(&runner).unwrap();
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
}
