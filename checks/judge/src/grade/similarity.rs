//! `grade`'s similarity stage: the whole class named on the command line
//! (every shard compares all of it, so shards write the same
//! `similarity.json`) handed to [`crate::similarity`] on a thread beside
//! the grading, timed, and told in one console line. Private to
//! instructors: see docs/INSTRUCTORS.md.

use super::discovery::Submission;
use crate::catalog::tr;
use crate::report::similarity::SimilarityFile;
use crate::similarity::{compare, Options, Source};
use std::path::Path;
use std::time::Instant;

/// The similarity stage, started beside the grading: the class is only
/// read, never built or run, so it needs none of the grading's slots.
pub(super) struct Running(std::thread::JoinHandle<(SimilarityFile, f64)>, f64);

/// Starts comparing `class` on a thread of its own.
pub(super) fn start(root: &Path, class: Vec<Submission>, opts: Options) -> Running {
    let root = root.to_path_buf();
    let threshold = opts.threshold;
    let handle = std::thread::spawn(move || {
        let start = Instant::now();
        let sources: Vec<Source> = class
            .iter()
            .map(|s| Source {
                name: &s.name,
                lib: s.lib.as_deref(),
                advanced: s.advanced.as_deref(),
            })
            .collect();
        let file = compare(&root, &sources, &opts);
        crate::timing::phase("similarity compared", start);
        (file, start.elapsed().as_secs_f64())
    });
    Running(handle, threshold)
}

/// The stage's file once it is done, told in one console line (none if
/// its thread failed, which the line says).
pub(super) fn finish(running: Running) -> Option<SimilarityFile> {
    let Running(handle, threshold) = running;
    let Ok((file, secs)) = handle.join() else {
        eprintln!("lab: {}", tr("grade.similarity_failed", &[]));
        return None;
    };
    println!(
        "{}",
        tr(
            "grade.similarity",
            &[
                ("pairs", &file.pairs.len()),
                ("percent", &format!("{:.0}", threshold * 100.0)),
                ("secs", &format!("{secs:.2}")),
            ]
        )
    );
    Some(file)
}

/// For `grade --merge`: the `similarity.json` of the first shard folder
/// that has one (every shard compared the whole class, so they agree).
pub(super) fn from_shards(shards: &[std::path::PathBuf]) -> Option<SimilarityFile> {
    shards.iter().find_map(|dir| {
        let text = std::fs::read_to_string(dir.join("similarity.json")).ok()?;
        crate::report::similarity::read_similarity(&text).ok()
    })
}

#[cfg(test)]
mod tests {
    use super::super::write::write_summaries_with;
    use super::*;
    use crate::report::similarity::read_similarity;
    use crate::report::summary::summary_of;
    use crate::report::test_support::class;

    #[test]
    fn the_private_file_is_written_before_the_summary_and_removed_when_off() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        let summary = summary_of(&class());
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let file = compare(&root, &[], &Options::default());
        write_summaries_with(&out, &summary, Some(&file)).unwrap();
        let text = std::fs::read_to_string(out.join("similarity.json")).unwrap();
        assert_eq!(read_similarity(&text).unwrap(), file);
        let html = std::fs::read_to_string(out.join("summary.html")).unwrap();
        assert!(html.contains("<section id=\"similarity\""));
        // A shard folder's file is what --merge takes.
        let other = dir.path().join("none");
        assert_eq!(from_shards(&[other, out.clone()]), Some(file));
        // Without the stage, no private file outlives the run that wrote it.
        write_summaries_with(&out, &summary, None).unwrap();
        assert!(!out.join("similarity.json").exists());
        let html = std::fs::read_to_string(out.join("summary.html")).unwrap();
        assert!(!html.contains("id=\"similarity\""));
        assert_eq!(from_shards(&[out]), None);
    }
}
