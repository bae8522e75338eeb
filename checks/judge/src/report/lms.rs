//! What grading for an LMS adds to the model: what a late policy did to
//! one submission ([`Late`], `late` in `result.json` and `summary.json`),
//! the run's kit and toolchain ([`RunInfo`], `run` in `summary.json`) and
//! who a roster did not match ([`Unmatched`], `roster` in `summary.json`).
//! Each is left out of a file when the run had none of it (and `run` is
//! absent from summaries written before it was recorded), so a run
//! without `--due`, `--roster` writes what it always did but `run`.

use serde::{Deserialize, Serialize};

/// How late one submission was and what that cost. `score` in the
/// submission's report is already `score_before_penalty - penalty`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Late {
    /// When it was submitted (RFC 3339, as read), `None` when no time is
    /// known for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub submitted_at: Option<String>,
    /// Where that time came from: `csv` (`--submitted-at`), `file` (its
    /// `submitted_at` file), `git` (its last commit) or `unknown`.
    pub source: String,
    /// Seconds after the due time (0 when on time); `None` when unknown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub late_by: Option<i64>,
    /// Points taken off the core score.
    pub penalty: u32,
    /// The core score before the penalty.
    pub score_before_penalty: u32,
}

/// The kit and toolchain a class was graded with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunInfo {
    /// The kit's version (its workspace version).
    pub kit: String,
    /// `rustc --version` of the toolchain that built the submissions.
    pub toolchain: String,
}

/// Who a roster and a class did not match (see `grade --roster`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Unmatched {
    /// Submission names with no roster row.
    pub no_roster_row: Vec<String>,
    /// Roster students (their `folder`, else their name) with no
    /// submission.
    pub no_submission: Vec<String>,
}
