//! `grade --merge`: the summaries and report folders of shards joined
//! into one.

use super::discovery::shown_path;
use super::write::write_summaries_with;
use crate::catalog::tr;
use crate::report::{self};
use crate::status;
use std::path::{Path, PathBuf};

/// Joins shard folders written by `grade --out` into `out`: the
/// summaries (checked for one seed and no submission twice) and every
/// submission's report folder. A shard folder without a summary.json (its
/// grading job failed, or its artifact never arrived) is named on stderr and
/// left out; the others are merged all the same and the status is
/// NEEDS_REVIEW. With no shard at all to merge, it is a bad command line.
pub(super) fn merge(shards: &[PathBuf], out: &Path) -> u8 {
    let mut merged: Option<report::summary::SummaryFile> = None;
    let mut missing: Vec<String> = Vec::new();
    for dir in shards {
        let path = dir.join("summary.json");
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(_) => {
                eprintln!(
                    "lab: {}",
                    tr("grade.missing_shard", &[("path", &shown_path(dir))])
                );
                missing.push(shown_path(dir));
                continue;
            }
        };
        let file = match report::summary::read_summary(&text) {
            Ok(f) => f,
            Err(e) => {
                eprintln!("lab: {}: {}", shown_path(&path), crate::visible::line(&e));
                return status::USAGE;
            }
        };
        for s in &file.submissions {
            let folder = s.folder.as_deref().unwrap_or(&s.name);
            // A summary from before report folders names none: its folders
            // are the names, which need only be one plain path component.
            let safe = match &s.folder {
                Some(f) => crate::folders::is_safe_folder(f),
                None => {
                    let mut parts = Path::new(&s.name).components();
                    matches!(parts.next(), Some(std::path::Component::Normal(_)))
                        && parts.next().is_none()
                }
            };
            if !safe {
                eprintln!(
                    "lab: {}",
                    tr(
                        "error.bad_folder",
                        &[("path", &shown_path(&path)), ("folder", &folder)]
                    )
                );
                return status::USAGE;
            }
        }
        let same_dir = dir.canonicalize().ok() == out.canonicalize().ok();
        for s in &file.submissions {
            let folder = s.folder.as_deref().unwrap_or(&s.name);
            let from = dir.join(folder);
            if !same_dir && from.is_dir() {
                if let Err(e) = crate::files::copy_tree(&from, &out.join(folder), &|_| false) {
                    eprintln!("lab: {}", tr("error.kit", &[("what", &e)]));
                    return status::KIT_ERROR;
                }
            }
        }
        merged = Some(match merged {
            None => file,
            Some(mut acc) => {
                if acc.seed != file.seed {
                    eprintln!(
                        "lab: {}",
                        tr(
                            "error.merge_seeds",
                            &[
                                ("a", &crate::visible::line(&acc.seed)),
                                ("b", &crate::visible::line(&file.seed))
                            ]
                        )
                    );
                    return status::USAGE;
                }
                // Each shard lists its own submissions without a roster row;
                // the students without a submission are the whole class's.
                if let Some(theirs) = &file.roster {
                    let ours = acc.roster.get_or_insert_with(|| theirs.clone());
                    ours.no_roster_row
                        .extend(theirs.no_roster_row.iter().cloned());
                    ours.no_roster_row.sort();
                    ours.no_roster_row.dedup();
                }
                let folder = |x: &report::summary::SummarySubmission| {
                    x.folder.as_deref().unwrap_or(&x.name).to_ascii_lowercase()
                };
                for s in file.submissions {
                    if acc.submissions.iter().any(|t| t.name == s.name) {
                        eprintln!(
                            "lab: {}",
                            tr("error.duplicate_submission", &[("name", &s.name)])
                        );
                        return status::USAGE;
                    }
                    if let Some(t) = acc.submissions.iter().find(|t| folder(t) == folder(&s)) {
                        eprintln!(
                            "lab: {}",
                            tr(
                                "error.merge_folder",
                                &[("folder", &folder(&s)), ("a", &t.name), ("b", &s.name)]
                            )
                        );
                        return status::USAGE;
                    }
                    acc.submissions.push(s);
                }
                acc
            }
        });
    }
    let Some(mut merged) = merged else {
        eprintln!("lab: {}", tr("error.merge_nothing", &[]));
        return status::USAGE;
    };
    merged.submissions.sort_by(|a, b| a.name.cmp(&b.name));
    let similar = super::similarity::from_shards(shards);
    if let Err(e) = write_summaries_with(out, &merged, similar.as_ref()) {
        eprintln!("lab: {}", tr("error.kit", &[("what", &e)]));
        return status::KIT_ERROR;
    }
    println!(
        "{}",
        tr(
            "grade.merged",
            &[
                ("count", &merged.submissions.len()),
                ("found", &(shards.len() - missing.len())),
                ("total", &shards.len()),
                ("out", &shown_path(out)),
            ]
        )
    );
    if missing.is_empty() {
        return status::PASSED;
    }
    eprintln!(
        "lab: {}",
        tr(
            "grade.merge_incomplete",
            &[
                ("count", &missing.len()),
                ("total", &shards.len()),
                ("paths", &missing.join(", ")),
            ]
        )
    );
    status::NEEDS_REVIEW
}

#[cfg(all(test, unix))]
mod tests;
