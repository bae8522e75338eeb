//! What a learner-facing format shows of each step: its visibility
//! (`visible`, `after_due_date`, `after_published`, `hidden`) and how much a
//! failure tells (`full`, `input`, `verdict`). The grader fills a [`Shown`]
//! from `fixtures/visibility.json` and the command line; the learner-facing
//! formats (Gradescope, PrairieLearn, Exercism, JUnit) render the report
//! [`Shown::redacted`] returns. The instructor's own files (`result.json`,
//! the summaries) always keep every detail.
//!
//! - `full`: the clause's whole message (call, expected value, what came
//!   back), what the code printed, and a known mistake's sentence.
//! - `input`: the clause's name and the call that failed, never the
//!   expected value or what came back; what the code printed stays (it is
//!   the learner's own); no known mistake.
//! - `verdict`: the clause's name and that it failed, nothing else (no call,
//!   no output, no known mistake).
//!
//! Gradescope shows each step's visibility as its test's `visibility`. The
//! other formats have no such notion: there a `hidden` step is shown at
//! `verdict` detail whatever its own detail (its name and points only), and
//! `after_due_date` or `after_published` steps are shown at once with their
//! detail.

use super::outside::{t, tr};
use super::{ClauseStatus, SubmissionReport};
use std::collections::BTreeMap;

/// When a step's test is shown to the learner.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Visibility {
    #[default]
    Visible,
    AfterDueDate,
    AfterPublished,
    Hidden,
}

/// How much a failing clause tells the learner.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum Detail {
    #[default]
    Full,
    Input,
    Verdict,
}

impl Visibility {
    pub const ALL: [Visibility; 4] = [
        Visibility::Visible,
        Visibility::AfterDueDate,
        Visibility::AfterPublished,
        Visibility::Hidden,
    ];

    /// The word in visibility.json, on the command line and in Gradescope's
    /// `visibility`.
    pub fn word(self) -> &'static str {
        match self {
            Visibility::Visible => "visible",
            Visibility::AfterDueDate => "after_due_date",
            Visibility::AfterPublished => "after_published",
            Visibility::Hidden => "hidden",
        }
    }

    pub fn from_word(word: &str) -> Option<Visibility> {
        Visibility::ALL.into_iter().find(|v| v.word() == word)
    }
}

impl Detail {
    pub const ALL: [Detail; 3] = [Detail::Full, Detail::Input, Detail::Verdict];

    pub fn word(self) -> &'static str {
        match self {
            Detail::Full => "full",
            Detail::Input => "input",
            Detail::Verdict => "verdict",
        }
    }

    pub fn from_word(word: &str) -> Option<Detail> {
        Detail::ALL.into_iter().find(|d| d.word() == word)
    }
}

/// Each step's visibility and detail; a step not named is `visible`, `full`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Shown {
    pub steps: BTreeMap<String, (Visibility, Detail)>,
}

impl Shown {
    /// Every step `visible`, `full`.
    pub const NONE: Shown = Shown {
        steps: BTreeMap::new(),
    };

    pub fn of(&self, step: &str) -> (Visibility, Detail) {
        self.steps.get(step).copied().unwrap_or_default()
    }

    /// The report as a learner-facing format shows it. `has_visibility`:
    /// the format shows each step's visibility itself (Gradescope); without
    /// it, a `hidden` step is told at `verdict` detail.
    pub fn redacted(&self, s: &SubmissionReport, has_visibility: bool) -> SubmissionReport {
        let mut s = s.clone();
        for step in &mut s.steps {
            let (visibility, detail) = self.of(&step.step);
            let detail = if !has_visibility && visibility == Visibility::Hidden {
                Detail::Verdict
            } else {
                detail
            };
            if detail == Detail::Full {
                continue;
            }
            step.mistake = None;
            for clause in &mut step.clauses {
                if clause.status != ClauseStatus::Failed {
                    continue;
                }
                let call = clause.call.take();
                // Every format names the clause itself beside its message.
                clause.message = Some(match (detail, call) {
                    (Detail::Input, Some(call)) => {
                        let text = tr("report.detail.input", &[("call", &call)]);
                        clause.call = Some(call);
                        text
                    }
                    _ => {
                        clause.output = None;
                        t("report.detail.verdict")
                    }
                });
            }
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::class;
    use super::*;

    #[test]
    fn words_read_back() {
        for v in Visibility::ALL {
            assert_eq!(Visibility::from_word(v.word()), Some(v));
        }
        for d in Detail::ALL {
            assert_eq!(Detail::from_word(d.word()), Some(d));
        }
        assert_eq!(Visibility::from_word("Hidden"), None);
        assert_eq!(Detail::from_word("none"), None);
    }

    #[test]
    fn input_and_verdict_withhold_the_expected_value() {
        let bob = class().submissions[1].clone();
        let failing = &bob.steps[1].clauses[1];
        assert!(failing
            .message
            .as_deref()
            .unwrap()
            .contains("expected: true"));
        for (detail, call_kept) in [(Detail::Input, true), (Detail::Verdict, false)] {
            let mut shown = Shown::default();
            shown
                .steps
                .insert("02".into(), (Visibility::Visible, detail));
            let r = shown.redacted(&bob, true);
            let c = &r.steps[1].clauses[1];
            let message = c.message.as_deref().unwrap();
            assert!(!message.contains("expected"), "{detail:?}: {message}");
            assert!(!message.contains("false"), "{detail:?}: {message}");
            assert_eq!(c.call.is_some(), call_kept, "{detail:?}");
            assert_eq!(message.contains("replay_safe("), call_kept, "{message}");
            // Other steps are left as they were.
            assert_eq!(r.steps[0], bob.steps[0]);
        }
    }

    #[test]
    fn a_hidden_step_is_a_verdict_where_the_format_cannot_hide_it() {
        let bob = class().submissions[1].clone();
        let mut shown = Shown::default();
        shown
            .steps
            .insert("02".into(), (Visibility::Hidden, Detail::Full));
        assert_eq!(shown.redacted(&bob, true), bob);
        let r = shown.redacted(&bob, false);
        let message = r.steps[1].clauses[1].message.as_deref().unwrap();
        assert!(!message.contains("expected"), "{message}");
        assert_eq!(r.steps[1].clauses[1].call, None);
    }
}
