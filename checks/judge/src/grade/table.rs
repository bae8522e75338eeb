//! The console's table: one row per submission as it finishes.

use crate::catalog::{t, tr};
use crate::report::{AdvancedBuild, Build, StepStatus, SubmissionReport};

/// Columns of a submission's name in a row, and of a step's mark.
pub(super) const NAME_COLUMNS: usize = 28;
pub(super) const MARK_COLUMNS: usize = 4;

/// A step's mark in a row, right-aligned in its columns.
pub(super) fn mark(s: StepStatus) -> String {
    let key = match s {
        StepStatus::Passed => "grade.row.passed",
        StepStatus::Failed => "grade.row.failed",
        StepStatus::NotStarted => "grade.row.not_started",
        StepStatus::NotBuilt => return "-".repeat(MARK_COLUMNS),
        StepStatus::NotAttempted => "grade.row.not_attempted",
    };
    crate::render::right_aligned(&t(key), MARK_COLUMNS)
}

/// The console's line for one graded submission.
pub(super) fn row(s: &SubmissionReport) -> String {
    let shown = s.attempted();
    let steps: Vec<String> = shown.steps.iter().map(|st| mark(st.status)).collect();
    let build = t(match s.build {
        Build::Ok => "grade.row.built",
        Build::Failed => "grade.row.not_built",
        Build::Error => "grade.row.needs_review",
    });
    let bonus = match s.advanced_build {
        AdvancedBuild::Absent => String::new(),
        AdvancedBuild::Ok => format!("  {}", tr("grade.row.bonus", &[("bonus", &s.bonus)])),
        AdvancedBuild::Failed => format!("  {}", t("grade.row.advanced_not_built")),
    };
    let seconds = tr(
        "grade.row.seconds",
        &[("secs", &format!("{:.1}", s.seconds))],
    );
    format!(
        "{} {:>3}/{:<3} {}  {build}{bonus}  {seconds}",
        crate::render::padded(&s.name, NAME_COLUMNS),
        s.score,
        s.max_score,
        steps.join(" "),
    )
}

pub(super) fn print_row(s: &SubmissionReport) {
    println!("{}", row(s));
}
