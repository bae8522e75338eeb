//! The figures `summary.html` shows, counted from a [`SummaryFile`] alone,
//! so that a page rendered from merged shards equals the page of one run.

use super::super::outside::is_advanced;
use super::super::summary::{step_columns, SummaryFile, SummaryStep, SummarySubmission};
use super::super::{AdvancedBuild, Build, StepStatus};
use std::collections::BTreeMap;

/// At most this many bars in the histogram; a wider range of points is
/// put in bins of several points each.
pub(super) const MAX_BARS: u32 = 40;

/// What became of one step of one submission, as the page counts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Passed,
    Failed,
    /// The submission (or, for an advanced step, its advanced.rs) does not
    /// compile.
    NotBuilt,
    /// A call of the step faulted (time-out, crash, flood, …: the step
    /// failed that way), or grading could not finish (the submission needs
    /// review), so the step never ran.
    Faulted,
    NotStarted,
    NotAttempted,
}

impl Kind {
    pub(super) const ALL: [Kind; 6] = [
        Kind::Passed,
        Kind::Failed,
        Kind::NotBuilt,
        Kind::Faulted,
        Kind::NotStarted,
        Kind::NotAttempted,
    ];

    /// The step, as summary.json gives it, for a submission.
    pub(super) fn of(s: &SummarySubmission, step: &SummaryStep) -> Kind {
        match step.status {
            StepStatus::Passed => Kind::Passed,
            StepStatus::Failed if step.fault.is_some() => Kind::Faulted,
            StepStatus::Failed => Kind::Failed,
            StepStatus::NotBuilt if s.build == Build::Error => Kind::Faulted,
            StepStatus::NotBuilt => Kind::NotBuilt,
            StepStatus::NotStarted => Kind::NotStarted,
            StepStatus::NotAttempted => Kind::NotAttempted,
        }
    }

    /// Its name in the page's classes and data attributes, and the last
    /// part of its catalog keys (`report.html.col.…`, `report.html.cell.…`).
    pub(super) fn name(self) -> &'static str {
        match self {
            Kind::Passed => "passed",
            Kind::Failed => "failed",
            Kind::NotBuilt => "not_built",
            Kind::Faulted => "faulted",
            Kind::NotStarted => "not_started",
            Kind::NotAttempted => "not_attempted",
        }
    }
}

/// One bar: the submissions whose points are `from..=to`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Bin {
    pub from: u32,
    pub to: u32,
    pub count: usize,
}

/// One step across the class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct StepFigures {
    pub step: String,
    pub bonus: bool,
    /// How many submissions came to each [`Kind`], in [`Kind::ALL`]'s order.
    pub counts: [usize; 6],
}

impl StepFigures {
    pub(super) fn count(&self, kind: Kind) -> usize {
        self.counts[kind as usize]
    }

    /// The submissions that attempted the step.
    pub(super) fn attempted(&self) -> usize {
        self.counts.iter().sum::<usize>() - self.count(Kind::NotAttempted)
    }

    /// Whole percent of the attempts that pass, rounded down; `None`
    /// without attempts.
    pub(super) fn percent(&self) -> Option<usize> {
        let attempted = self.attempted();
        (attempted > 0).then(|| self.count(Kind::Passed) * 100 / attempted)
    }
}

/// A known mistake and who made it (names in the summary's order).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Mistake {
    pub id: String,
    pub who: Vec<String>,
}

/// Everything the page counts.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Figures {
    pub total: usize,
    /// The most points a submission could get (the highest `max_score`).
    pub max: u32,
    pub bins: Vec<Bin>,
    /// The median of the points; `None` for an empty class.
    pub median: Option<f64>,
    /// Submissions that passed every core step.
    pub all_core: usize,
    /// Submissions with an advanced.rs (whether it compiled or not).
    pub advanced: usize,
    /// Submissions that need review (build `error`).
    pub review: usize,
    pub steps: Vec<StepFigures>,
    /// (clause id, how many submissions failed it), most failed first,
    /// then by id.
    pub rules: Vec<(String, usize)>,
    /// Most often made first, then by id.
    pub mistakes: Vec<Mistake>,
}

/// The bars of the histogram for points `0..=max`.
pub(super) fn bins(scores: &[u32], max: u32) -> Vec<Bin> {
    let width = (max + 1).div_ceil(MAX_BARS).max(1);
    (0..=max)
        .step_by(width as usize)
        .map(|from| {
            let to = (from + width - 1).min(max);
            let count = scores.iter().filter(|&&p| from <= p && p <= to).count();
            Bin { from, to, count }
        })
        .collect()
}

pub(super) fn median(scores: &[u32]) -> Option<f64> {
    let mut sorted = scores.to_vec();
    sorted.sort_unstable();
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(f64::from(sorted[n / 2])),
        _ => Some((f64::from(sorted[n / 2 - 1]) + f64::from(sorted[n / 2])) / 2.0),
    }
}

pub(super) fn figures(file: &SummaryFile) -> Figures {
    let subs = &file.submissions;
    let scores: Vec<u32> = subs.iter().map(|s| s.score).collect();
    let max = subs
        .iter()
        .map(|s| s.max_score.max(s.score))
        .max()
        .unwrap_or(0);
    let steps = step_columns(file)
        .into_iter()
        .map(|step| {
            let mut counts = [0; 6];
            for s in subs {
                if let Some(x) = s.steps.iter().find(|x| x.step == step) {
                    counts[Kind::of(s, x) as usize] += 1;
                }
            }
            StepFigures {
                bonus: is_advanced(&step)
                    || subs
                        .iter()
                        .flat_map(|s| &s.steps)
                        .any(|x| x.step == step && x.bonus),
                step,
                counts,
            }
        })
        .collect();
    let mut rules: BTreeMap<&str, usize> = BTreeMap::new();
    let mut mistakes: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for s in subs {
        let mut failed: Vec<&str> = s
            .steps
            .iter()
            .flat_map(|x| x.failed.iter().map(String::as_str))
            .collect();
        failed.sort_unstable();
        failed.dedup();
        for clause in failed {
            *rules.entry(clause).or_default() += 1;
        }
        let mut made: Vec<&str> = s
            .steps
            .iter()
            .filter_map(|x| x.mistake.as_deref())
            .collect();
        made.sort_unstable();
        made.dedup();
        for id in made {
            mistakes.entry(id).or_default().push(s.name.clone());
        }
    }
    let mut rules: Vec<(String, usize)> = rules
        .into_iter()
        .map(|(clause, n)| (clause.to_string(), n))
        .collect();
    rules.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let mut mistakes: Vec<Mistake> = mistakes
        .into_iter()
        .map(|(id, who)| Mistake {
            id: id.to_string(),
            who,
        })
        .collect();
    mistakes.sort_by(|a, b| b.who.len().cmp(&a.who.len()).then_with(|| a.id.cmp(&b.id)));
    Figures {
        total: subs.len(),
        max,
        bins: bins(&scores, max),
        median: median(&scores),
        all_core: subs.iter().filter(|s| passed_core(s)).count(),
        advanced: subs
            .iter()
            .filter(|s| s.advanced_build != AdvancedBuild::Absent)
            .count(),
        review: subs.iter().filter(|s| s.build == Build::Error).count(),
        steps,
        rules,
        mistakes,
    }
}

/// Whether a submission passed every core step (and has one).
pub(super) fn passed_core(s: &SummarySubmission) -> bool {
    let mut core = s.steps.iter().filter(|x| !x.bonus).peekable();
    core.peek().is_some() && core.all(|x| x.passed)
}
