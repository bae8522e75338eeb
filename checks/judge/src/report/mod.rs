//! Reports for machines. The grader fills a [`ClassReport`]; each format is a
//! pure function from it (or one submission of it) to bytes, one file per
//! format. Reporters never run, time or spawn anything. Besides this model,
//! what they take from the rest of the judge (catalog words, safe display,
//! three facts of the step registry) comes through [`outside`] alone.

pub mod exercism;
pub mod gradebook;
pub mod gradescope;
pub mod html;
pub mod junit;
pub mod kit;
pub mod lms;
pub(crate) mod outside;
pub mod prairielearn;
#[cfg(test)]
pub(crate) mod schema_check;
pub mod similarity;
#[cfg(test)]
mod snapshot;
pub mod summary;
#[cfg(test)]
pub(crate) mod test_support;
pub mod visibility;

use serde::{Deserialize, Serialize};

/// Schema of `summary.json`; other tools rely on its fields.
pub const GRADE_SCHEMA: &str = "retry-lab.grade/1";
/// Schema of one submission's `result.json`.
pub const RESULT_SCHEMA: &str = "retry-lab.result/1";
/// Most bytes of one message shown to students; longer ones are cut and say so.
pub const MESSAGE_CAP: usize = 4096;

/// A whole class, in name order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClassReport {
    pub schema: String,
    /// The run's seed, as a string (JSON numbers lose precision past 2^53).
    pub seed: String,
    pub submissions: Vec<SubmissionReport>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Build {
    Ok,
    Failed,
    /// Grading could not finish for this submission (its runner reported a
    /// fault of the kit, or stopped the judge's work): "error — needs
    /// review", with the reason in `review`. Never the class's failure.
    Error,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AdvancedBuild {
    /// No advanced.rs: the advanced steps are not attempted.
    #[default]
    Absent,
    Ok,
    Failed,
}

impl SubmissionReport {
    /// The same report without the steps that were not attempted: what the
    /// third-party formats (JUnit, Gradescope, Exercism) show, so a core
    /// submission's files read exactly as they did before the advanced track.
    pub fn attempted(&self) -> SubmissionReport {
        let mut s = self.clone();
        s.steps
            .retain(|step| step.status != StepStatus::NotAttempted);
        s
    }
}

/// For `skip_serializing_if`: a `false` flag is left out.
pub(crate) fn is_false(b: &bool) -> bool {
    !*b
}

/// One submission's grade.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubmissionReport {
    /// The submission folder's name.
    pub name: String,
    pub build: Build,
    /// The compiler's first errors when `build` is `failed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build_errors: Option<String>,
    /// Why a person must look at this submission, when `build` is `error`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review: Option<String>,
    /// Points of the core steps that pass.
    pub score: u32,
    /// Points of the core steps.
    pub max_score: u32,
    /// Points of the advanced (bonus) steps that pass; never part of
    /// `score`, so `score <= max_score` always holds.
    #[serde(default)]
    pub bonus: u32,
    /// Whether the submission has an advanced.rs, and whether it compiled.
    #[serde(default)]
    pub advanced_build: AdvancedBuild,
    /// The compiler's first errors when `advanced_build` is `failed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub advanced_build_errors: Option<String>,
    /// In step order: the core steps, then the advanced ones.
    pub steps: Vec<StepReport>,
    /// Wall time of building and checking this submission.
    pub seconds: f64,
    /// Bytes the submission's code printed (never part of a verdict).
    pub printed_bytes: u64,
    /// How late it was and what that cost, when the run had `--due`;
    /// `score` is then already reduced by `late.penalty`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub late: Option<lms::Late>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StepStatus {
    /// Every clause holds.
    Passed,
    /// At least one clause fails for a reason other than `todo!()`.
    Failed,
    /// Every clause still reaches `todo!()`.
    NotStarted,
    /// The submission does not compile (for an advanced step: its
    /// advanced.rs does not).
    NotBuilt,
    /// An advanced step of a submission without an advanced.rs.
    NotAttempted,
}

impl StepStatus {
    /// The status a step's clauses share when the step has no clauses.
    pub fn as_clause(self) -> ClauseStatus {
        match self {
            StepStatus::Passed => ClauseStatus::Passed,
            StepStatus::Failed => ClauseStatus::Failed,
            StepStatus::NotStarted => ClauseStatus::NotImplemented,
            StepStatus::NotBuilt => ClauseStatus::NotBuilt,
            StepStatus::NotAttempted => ClauseStatus::NotAttempted,
        }
    }
}

/// One step of one submission.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StepReport {
    /// "01" … "08".
    pub step: String,
    /// The learner function the step checks, e.g. "backoff".
    pub function: String,
    pub passed: bool,
    pub status: StepStatus,
    /// Points for this step (from fixtures/weights.json).
    pub weight: u32,
    /// `weight` when passed, else 0.
    pub score: u32,
    /// An advanced step: its score counts towards `bonus`, not `score`.
    #[serde(default, skip_serializing_if = "is_false")]
    pub bonus: bool,
    pub clauses: Vec<ClauseReport>,
    /// The known mistake a failing step's answers are, exactly, on every
    /// table case (its id, a mutant's file stem; see `crate::mistakes`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mistake: Option<String>,
    /// Wall time of running and judging the step, in seconds rounded to the
    /// millisecond (0 for a step that could not run, and in reports written
    /// before it was measured).
    #[serde(default)]
    pub seconds: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ClauseStatus {
    Passed,
    Failed,
    NotImplemented,
    NotBuilt,
    NotAttempted,
}

/// One clause (one trial) of one step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClauseReport {
    /// Stable key, e.g. "04/attempt-above-30".
    pub key: String,
    /// Trial name, e.g. "04 backoff :: rejects attempt above 30".
    pub name: String,
    pub status: ClauseStatus,
    /// Why it failed (input, expected, got), already capped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// How its first shown failing input failed, when it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fault: Option<FaultKind>,
    /// The Rust call that was checked, as the learner would write it: the
    /// first shown failing input's, else the clause's first input's. `None`
    /// when the clause did not run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<String>,
    /// What the learner's code printed (stdout, then stderr, at most 1 KiB
    /// of each): during the first shown failing input, else during the
    /// first input that printed anything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
    /// Wall time of the clause's inputs, reruns and shrinking included, in
    /// seconds rounded to the millisecond (0 when it did not run, and in
    /// reports written before it was measured).
    #[serde(default)]
    pub seconds: f64,
}

/// How a failing input failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FaultKind {
    /// A value came back, and it is not the expected one.
    Wrong,
    /// `todo!()` was reached (in a clause where other inputs failed).
    NotImplemented,
    Panicked,
    /// A scripted world stopped a call that kept going.
    Runaway,
    TimedOut,
    /// The process died during the call (exit, signal, stack overflow).
    Crashed,
    /// The call printed past the output cap.
    Flooded,
    /// An outcome that does not belong to the call.
    Forged,
    /// Not run: the suite's time ran out first.
    NotRun,
}

impl FaultKind {
    /// A fault of the run rather than of the answer: the call did not end
    /// by itself (time-out, a runaway stopped, its process died, it
    /// flooded its output, an outcome was forged, or it never ran). A
    /// panic is the learner's code ending the call, counted as failed.
    pub fn is_fault(self) -> bool {
        self.is_runtime_error() && self != FaultKind::Panicked
    }

    /// A runtime error (the call did not finish with a value), as opposed
    /// to a wrong answer or a stub.
    pub fn is_runtime_error(self) -> bool {
        match self {
            FaultKind::Wrong | FaultKind::NotImplemented => false,
            FaultKind::Panicked
            | FaultKind::Runaway
            | FaultKind::TimedOut
            | FaultKind::Crashed
            | FaultKind::Flooded
            | FaultKind::Forged
            | FaultKind::NotRun => true,
        }
    }
}

/// Seconds rounded to the millisecond; 0 when not a sensible duration.
pub fn milliseconds(seconds: f64) -> f64 {
    if seconds.is_finite() && seconds > 0.0 {
        (seconds * 1000.0).round() / 1000.0
    } else {
        0.0
    }
}

/// Cuts `text` to at most `cap` bytes on a char boundary, saying so.
pub fn capped(text: &str, cap: usize) -> String {
    if text.len() <= cap {
        return text.to_string();
    }
    let mut end = cap;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let note = outside::tr("report.cut", &[("bytes", &(text.len() - end))]);
    format!("{}\n{note}", &text[..end])
}
