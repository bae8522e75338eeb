//! Which submissions a grade run has: folders and their display names,
//! the steps' weights, and the shard this run takes.

use crate::catalog::tr;
use crate::compile;
use crate::suites::{self};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A submission to grade: its name, its report folder, its lib.rs and its
/// advanced.rs (when it has one), nothing else.
#[derive(Debug, Clone)]
pub struct Submission {
    /// The submission folder's own name, as reports show it.
    pub name: String,
    /// Its report folder under `--out` (see [`crate::folders`]).
    pub folder: String,
    /// None: the folder holds no lib.rs; the submission is graded as
    /// "no lib.rs found" (needs review, 0 points).
    pub lib: Option<PathBuf>,
    pub advanced: Option<PathBuf>,
}

/// Points per step, from fixtures/weights.json (1 each when absent). The
/// advanced steps' points are bonus points.
pub fn weights(root: &Path) -> Result<BTreeMap<String, u32>, String> {
    let mut out: BTreeMap<String, u32> = suites::all_steps()
        .map(|(s, _)| (s.to_string(), 1))
        .collect();
    let path = root.join("fixtures/weights.json");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(out);
    };
    let given: BTreeMap<String, u32> =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    for (step, weight) in given {
        let Some(key) = out.get_mut(&step) else {
            return Err(tr(
                "error.weights_unknown_step",
                &[("path", &path.display()), ("step", &step)],
            ));
        };
        *key = weight;
    }
    Ok(out)
}

/// The class named on the command line, in name order, each with its report
/// folder (computed over the whole class, so every shard agrees).
///
/// A path that does not exist, is not a folder, has no name (`/`), or
/// repeats another's name is a bad command line: one line, exit 2, nothing
/// graded. A folder without a lib.rs is a submission like any other: it is
/// reported as "no lib.rs found" and the class goes on.
pub fn resolve(paths: &[PathBuf]) -> Result<Vec<Submission>, String> {
    let mut seen = BTreeMap::new();
    for path in paths {
        let shown = shown_path(path);
        if !path.exists() {
            return Err(tr("error.missing_folder", &[("path", &shown)]));
        }
        if !path.is_dir() {
            return Err(tr("error.not_a_folder", &[("path", &shown)]));
        }
        let name = path
            .canonicalize()
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_default();
        if name.is_empty() {
            return Err(tr("error.bad_submission_name", &[("path", &shown)]));
        }
        if seen
            .insert(
                name.clone(),
                Submission {
                    name: name.clone(),
                    folder: String::new(),
                    advanced: compile::subject_advanced(path),
                    lib: compile::subject_lib(path).ok(),
                },
            )
            .is_some()
        {
            return Err(tr("error.duplicate_submission", &[("name", &name)]));
        }
    }
    let folders = crate::folders::folders(seen.keys().map(String::as_str));
    Ok(seen
        .into_values()
        .map(|mut s| {
            s.folder = folders[&s.name].clone();
            s
        })
        .collect())
}

/// A class folder given where its submissions were meant (`grade class`
/// for `grade class/*/`): a folder that holds no lib.rs (in itself, in
/// `src/` or `student/src/`) while some of its own folders do. Its one-line
/// error shows the command that names each submission. Only real folders
/// count (a symbolic link is not followed), and at most the first 10,000
/// entries are looked at.
pub fn class_folder(paths: &[PathBuf], out: &Path) -> Result<(), String> {
    for path in paths {
        if !path.is_dir() || compile::subject_lib(path).is_ok() {
            continue;
        }
        let Ok(entries) = std::fs::read_dir(path) else {
            continue;
        };
        let holding = entries
            .take(10_000)
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .filter(|e| compile::subject_lib(&e.path()).is_ok())
            .count();
        if holding > 0 {
            let shown = shown_path(path);
            let glob = format!("{}/*/", shown.trim_end_matches('/'));
            let command = format!("--out {} {glob}", shown_path(out));
            return Err(tr(
                "error.class_folder",
                &[("path", &shown), ("count", &holding), ("command", &command)],
            ));
        }
    }
    Ok(())
}

/// A path as the console shows it: one visible line (a submission folder's
/// name may hold any character; see [`crate::visible`]).
pub(super) fn shown_path(path: &Path) -> String {
    crate::visible::line(&path.display().to_string()).into_owned()
}

/// The I-th of N slices of name-ordered submissions: the same set always
/// splits the same way, whoever runs it.
pub(super) fn shard(all: Vec<Submission>, shard: Option<(usize, usize)>) -> Vec<Submission> {
    match shard {
        None => all,
        Some((i, n)) => all
            .into_iter()
            .enumerate()
            .filter(|(k, _)| k % n == i - 1)
            .map(|(_, s)| s)
            .collect(),
    }
}
