//! PrairieLearn's external-grading `results.json`: one test per attempted
//! step, in step order, with `points` and `max_points` (a bonus step's
//! `max_points` is 0, its points count when passed, as in Gradescope's
//! file). The top-level `score` is the share of the core points, 0 to 1:
//! `(score + bonus) / max_score`, at most 1.
//!
//! A late penalty lowers `score` (it comes from the penalized core score)
//! and is said in `message`; the tests keep the points their steps earned,
//! as PrairieLearn's points are never negative.
//!
//! A submission that does not compile is, as the instructor chooses
//! ([`Ungradable`]), either not gradable (`gradable: false`, the compiler's
//! first errors in `format_errors`, no score, no tests: PrairieLearn then
//! charges no attempt) or an ordinary score of 0. A submission that could
//! not be graded to the end (needs review, no lib.rs) is never gradable,
//! its reason in `format_errors`.
//!
//! Every text a person reads is made visible ([`super::outside::visible`])
//! and capped: `message` and a test's `message` at [`MESSAGE_CAP`] bytes, a
//! test's `output` (what the code printed during its failing inputs) at
//! [`OUTPUT_CAP`]; a cut text says so. Whatever the learner printed, the
//! whole file stays under [`FILE_CAP`] (the limit PrairieLearn reads).

use super::gradescope::{overview, step_output};
use super::outside::{t, tr, visible};
use super::visibility::Shown;
use super::{capped, Build, ClauseStatus, StepReport, SubmissionReport, MESSAGE_CAP};
use serde::Serialize;

/// Most bytes of one test's `output`, cut note included.
pub const OUTPUT_CAP: usize = 16 * 1024;
/// Most bytes of the whole file.
pub const FILE_CAP: usize = 1024 * 1024;

/// What a submission that does not compile gets.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Ungradable {
    /// `gradable: false`, the compiler's words in `format_errors`.
    #[default]
    CompileError,
    /// Graded as usual: every step scores 0.
    Zero,
}

impl Ungradable {
    pub fn word(self) -> &'static str {
        match self {
            Ungradable::CompileError => "compile-error",
            Ungradable::Zero => "zero",
        }
    }

    pub fn from_word(word: &str) -> Option<Ungradable> {
        [Ungradable::CompileError, Ungradable::Zero]
            .into_iter()
            .find(|u| u.word() == word)
    }
}

#[derive(Serialize)]
struct Results {
    gradable: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    score: Option<f64>,
    message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    format_errors: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tests: Option<Vec<Test>>,
}

#[derive(Serialize)]
struct Test {
    name: String,
    description: String,
    points: u32,
    max_points: u32,
    message: String,
    output: String,
}

/// The score PrairieLearn records: every test's points over the core's, at
/// most 1 (0 when there are no core points).
pub fn score_of(s: &SubmissionReport) -> f64 {
    if s.max_score == 0 {
        return 0.0;
    }
    (f64::from(s.score + s.bonus) / f64::from(s.max_score)).min(1.0)
}

/// PrairieLearn's `results.json` for one submission, pretty, newline.
pub fn results_json(
    s: &SubmissionReport,
    seed: &str,
    shown: &Shown,
    ungradable: Ungradable,
) -> String {
    let s = &shown.redacted(&s.attempted(), false);
    let recorded =
        |what: &Option<String>| what.clone().unwrap_or_else(|| t("report.none_recorded"));
    let not_gradable = match s.build {
        Build::Failed if ungradable == Ungradable::CompileError => Some(recorded(&s.build_errors)),
        Build::Error => Some(recorded(&s.review)),
        Build::Ok | Build::Failed => None,
    };
    let results = match not_gradable {
        Some(why) => Results {
            gradable: false,
            score: None,
            message: overview(s, seed),
            format_errors: Some(vec![capped(&visible::text(&why), MESSAGE_CAP)]),
            tests: None,
        },
        None => Results {
            gradable: true,
            score: Some(score_of(s)),
            message: overview(s, seed) + &late_line(s),
            format_errors: None,
            tests: Some(s.steps.iter().map(test).collect()),
        },
    };
    within_cap(results)
}

/// A late penalty, said in the message: PrairieLearn's points are never
/// negative, so the tests keep what the steps earned and only `score`
/// (from the penalized core score) carries it.
fn late_line(s: &SubmissionReport) -> String {
    let Some(late) = s.late.as_ref().filter(|l| l.penalty > 0) else {
        return String::new();
    };
    let hours = format!("{:.1}", late.late_by.unwrap_or(0) as f64 / 3600.0);
    let text = tr(
        "report.gradescope.late_output",
        &[
            ("hours", &hours),
            ("penalty", &late.penalty),
            ("before", &late.score_before_penalty),
            ("at", &late.submitted_at.clone().unwrap_or_default()),
        ],
    );
    format!("\n{}", visible::text(&text))
}

/// A results.json that says grading could not finish: not gradable, with
/// `why` as its message and only format error.
pub fn failed_json(why: &str) -> String {
    let why = capped(&visible::text(why), MESSAGE_CAP);
    within_cap(Results {
        gradable: false,
        score: None,
        message: why.clone(),
        format_errors: Some(vec![why]),
        tests: None,
    })
}

fn test(step: &StepReport) -> Test {
    let key = if step.bonus {
        "report.gradescope.bonus_step_name"
    } else {
        "report.gradescope.step_name"
    };
    let name = tr(key, &[("step", &step.step), ("function", &step.function)]);
    let printed: Vec<String> = step
        .clauses
        .iter()
        .filter(|c| c.status == ClauseStatus::Failed)
        .filter_map(|c| Some(format!("{}\n{}", c.name, c.output.as_deref()?)))
        .collect();
    Test {
        name: visible::line(&name).into_owned(),
        description: visible::line(&tr(
            "report.prairielearn.description",
            &[("items", &super::outside::items_of(&step.step))],
        ))
        .into_owned(),
        points: step.score,
        max_points: if step.bonus { 0 } else { step.weight },
        message: step_output(step),
        output: capped(&visible::text(&printed.join("\n\n")), OUTPUT_CAP),
    }
}

/// The file, pretty with a newline; past [`FILE_CAP`] (it cannot be with
/// the kit's caps, but the file's bound must not rest on them), every
/// test's output is replaced by a note that says so.
fn within_cap(mut results: Results) -> String {
    let text = |r: &Results| {
        let mut text = serde_json::to_string_pretty(r).expect("results always serialize");
        text.push('\n');
        text
    };
    let first = text(&results);
    if first.len() <= FILE_CAP {
        return first;
    }
    for test in results.tests.iter_mut().flatten() {
        test.output = t("report.prairielearn.output_dropped");
        test.message = capped(&test.message, 1024);
    }
    results.message = capped(&results.message, 1024);
    text(&results)
}

#[cfg(test)]
mod tests;
