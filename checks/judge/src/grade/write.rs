//! The reports on disk: each submission's folder and the class summaries.

use crate::files::write_atomically;
use crate::report::prairielearn::Ungradable;
use crate::report::visibility::Shown;
use crate::report::{self, ClassReport, SubmissionReport};
use std::collections::BTreeMap;
use std::path::Path;

/// What the learner-facing formats show (see `grade::policy`).
pub(super) struct Formats<'a> {
    pub(super) shown: &'a Shown,
    pub(super) ungradable: Ungradable,
}

#[cfg(all(test, unix))]
impl Formats<'static> {
    /// Every detail shown, PrairieLearn's default for a crate that does
    /// not compile.
    pub(super) const PLAIN: Formats<'static> = Formats {
        shown: &Shown::NONE,
        ungradable: Ungradable::CompileError,
    };
}

/// Writes one submission's reports into `out/folder` (its portable folder;
/// the reports inside carry its real name). `result.json` keeps every
/// detail; the learner-facing formats show what `formats` says.
pub(super) fn write_submission(
    out: &Path,
    folder: &str,
    s: &SubmissionReport,
    seed: &str,
    formats: &Formats,
) -> std::io::Result<()> {
    let dir = out.join(folder);
    let shown = formats.shown;
    write_atomically(&dir.join("result.json"), report::kit::result_json(s, seed))?;
    write_atomically(
        &dir.join("junit.xml"),
        report::junit::junit_xml_shown(s, seed, shown),
    )?;
    write_atomically(
        &dir.join("gradescope/results.json"),
        report::gradescope::results_json_shown(s, seed, shown),
    )?;
    write_atomically(
        &dir.join("exercism/results.json"),
        report::exercism::results_json_shown(s, shown),
    )?;
    write_atomically(
        &dir.join("prairielearn/results.json"),
        report::prairielearn::results_json(s, seed, shown, formats.ungradable),
    )
}

/// The summary of a class, each submission with its report folder.
pub(super) fn summary_with_folders(
    class: &ClassReport,
    folders: &BTreeMap<String, String>,
) -> report::summary::SummaryFile {
    let mut summary = report::summary::summary_of(class);
    for s in &mut summary.submissions {
        s.folder = folders.get(&s.name).cloned();
    }
    summary
}

#[cfg(all(test, unix))]
pub(super) fn write_summaries(
    out: &Path,
    summary: &report::summary::SummaryFile,
) -> std::io::Result<()> {
    write_summaries_with(out, summary, None)
}

/// The summaries, and with `similarity` its private `similarity.json` and
/// section of summary.html; without, an older `similarity.json` in `out`
/// is removed, so that no file there outlives the run that wrote it.
pub(super) fn write_summaries_with(
    out: &Path,
    summary: &report::summary::SummaryFile,
    similarity: Option<&report::similarity::SimilarityFile>,
) -> std::io::Result<()> {
    let private = out.join("similarity.json");
    match similarity {
        Some(file) => write_atomically(&private, report::similarity::similarity_json(file))?,
        None => {
            if std::fs::symlink_metadata(&private).is_ok() {
                std::fs::remove_file(&private)?;
            }
        }
    }
    write_atomically(
        &out.join("summary.csv"),
        report::summary::summary_csv(summary),
    )?;
    write_atomically(
        &out.join("summary.md"),
        report::summary::summary_md(summary),
    )?;
    write_atomically(
        &out.join("summary.html"),
        report::html::summary_html_with(summary, similarity),
    )?;
    // Last: its presence means the folder is complete.
    write_atomically(
        &out.join("summary.json"),
        report::summary::summary_json_from(summary),
    )
}
