//! The class overview: `summary.json` here, `summary.csv` in [`csv`] and
//! `summary.md` in [`markdown`] (and `summary.html`, in `report::html`).
//!
//! `summary.json` keeps no clause details but the ids of the clauses each
//! step failed, so it cannot be read back as a [`ClassReport`]. Instead it
//! has its own type, [`SummaryFile`], which mirrors exactly what is
//! written: [`summary_of`] makes one from a class, [`read_summary`] reads
//! one (checking the schema and refusing unknown fields), and
//! [`summary_json_from`] writes one. The CSV and Markdown views
//! (and `summary.html`) take a `SummaryFile`, so shards
//! graded separately can be read, merged (concatenate `submissions`, sort by
//! name) and rendered again.
//!
//! Writing is stable: `summary_json_from(&read_summary(text)?)` gives `text`
//! back for anything `summary_json` wrote. For that, `seconds` is rounded to
//! the millisecond (and non-finite or negative times become 0) both when
//! summarising and when reading, since a float read back from JSON may be one
//! unit off otherwise.
//!
//! The CSV and Markdown show each name as one visible line
//! ([`crate::visible::line`]: control and bidirectional characters, line
//! ends included, escaped as `\u{1b}`, `\n`, …) before quoting, disarming
//! or Markdown escaping; `summary.json` keeps the exact name.

pub(super) mod csv;
mod markdown;
#[cfg(test)]
mod tests;

pub use csv::summary_csv;
pub use markdown::summary_md;

use super::outside::{is_advanced, tr};
use super::{AdvancedBuild, Build, ClassReport, FaultKind, StepStatus, GRADE_SCHEMA};
use serde::{Deserialize, Serialize};

/// Exactly what `summary.json` holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SummaryFile {
    /// Always [`GRADE_SCHEMA`].
    pub schema: String,
    pub seed: String,
    /// The kit and toolchain of the run (absent in summaries written
    /// before they were recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<super::lms::RunInfo>,
    /// Who `--roster` did not match, when it was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roster: Option<super::lms::Unmatched>,
    pub submissions: Vec<SummarySubmission>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SummarySubmission {
    pub name: String,
    /// The submission's report folder under the output folder (see
    /// `crate::folders`); summaries written before folders were mapped lack
    /// it, and their folders are the names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folder: Option<String>,
    pub build: Build,
    /// Why a person must look at it, when `build` is `error` (for example
    /// "no lib.rs found").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review: Option<String>,
    pub score: u32,
    pub max_score: u32,
    /// Points of the advanced steps that pass (never part of `score`).
    #[serde(default)]
    pub bonus: u32,
    #[serde(default)]
    pub advanced_build: AdvancedBuild,
    pub steps: Vec<SummaryStep>,
    /// Rounded to the millisecond.
    pub seconds: f64,
    /// How late it was and what that cost (see `SubmissionReport::late`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub late: Option<super::lms::Late>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SummaryStep {
    /// "01" … "08".
    pub step: String,
    pub passed: bool,
    pub status: StepStatus,
    pub weight: u32,
    /// Points this step earned (its weight when passed, or its share of
    /// it under `--credit rules`); absent in summaries written before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<u32>,
    /// An advanced (bonus) step.
    #[serde(default, skip_serializing_if = "super::is_false")]
    pub bonus: bool,
    /// The ids of the clauses this step failed (e.g. "02/safe-methods"), in
    /// the suite's order; left out when none did.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed: Vec<String>,
    /// How the first of its failed clauses that faulted did (time-out,
    /// crash, flood, …; see [`FaultKind::is_fault`]); left out when the
    /// step did not fail that way.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fault: Option<FaultKind>,
    /// The known mistake the failing step's answers are (its id; its
    /// words are the catalog's `mistake.<id>`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mistake: Option<String>,
}

/// The summary of a class: everything but clause details (each step keeps
/// only the ids of its failed clauses) and printed bytes.
pub fn summary_of(c: &ClassReport) -> SummaryFile {
    SummaryFile {
        schema: GRADE_SCHEMA.to_string(),
        seed: c.seed.clone(),
        run: None,
        roster: None,
        submissions: c
            .submissions
            .iter()
            .map(|s| SummarySubmission {
                name: s.name.clone(),
                folder: None,
                build: s.build,
                review: s.review.clone(),
                score: s.score,
                max_score: s.max_score,
                bonus: s.bonus,
                advanced_build: s.advanced_build,
                steps: s
                    .steps
                    .iter()
                    .map(|step| SummaryStep {
                        step: step.step.clone(),
                        passed: step.passed,
                        status: step.status,
                        weight: step.weight,
                        score: Some(step.score),
                        bonus: step.bonus,
                        failed: step
                            .clauses
                            .iter()
                            .filter(|c| c.status == super::ClauseStatus::Failed)
                            .map(|c| c.key.clone())
                            .collect(),
                        fault: step
                            .clauses
                            .iter()
                            .filter(|c| c.status == super::ClauseStatus::Failed)
                            .find_map(|c| c.fault.filter(|f| f.is_fault())),
                        mistake: step.mistake.clone(),
                    })
                    .collect(),
                seconds: super::milliseconds(s.seconds),
                late: s.late.clone(),
            })
            .collect(),
    }
}

/// `summary.json` for a class, pretty, newline.
#[cfg(test)]
pub fn summary_json(c: &ClassReport) -> String {
    summary_json_from(&summary_of(c))
}

/// `summary.json` from a summary, pretty, newline.
pub fn summary_json_from(file: &SummaryFile) -> String {
    let mut text = serde_json::to_string_pretty(file).expect("a summary always serializes");
    text.push('\n');
    text
}

/// Reads what `summary_json` wrote.
pub fn read_summary(text: &str) -> Result<SummaryFile, String> {
    let mut file: SummaryFile =
        serde_json::from_str(text).map_err(|e| tr("error.not_a_summary", &[("why", &e)]))?;
    if file.schema != GRADE_SCHEMA {
        return Err(tr(
            "error.summary_schema",
            &[("want", &GRADE_SCHEMA), ("got", &file.schema)],
        ));
    }
    for s in &mut file.submissions {
        s.seconds = super::milliseconds(s.seconds);
    }
    Ok(file)
}

/// The first submission's steps, in its order, without the advanced steps
/// no submission attempted (so a class of core submissions gets exactly
/// the columns it always had).
pub(super) fn step_columns(file: &SummaryFile) -> Vec<String> {
    let attempted = |step: &SummaryStep| {
        !step.bonus
            || file.submissions.iter().any(|s| {
                s.steps
                    .iter()
                    .any(|x| x.step == step.step && x.status != StepStatus::NotAttempted)
            })
    };
    file.submissions
        .first()
        .map(|s| {
            s.steps
                .iter()
                .filter(|x| attempted(x))
                .map(|x| x.step.clone())
                .collect()
        })
        .unwrap_or_default()
}

fn has_advanced(steps: &[String]) -> bool {
    steps.iter().any(|s| is_advanced(s))
}
