//! `summary.md`, from a [`SummaryFile`]: a table of submissions by step, a
//! pass-count row, the seed, and the known mistakes found. Its words are
//! the catalog's; under it, the late policy's and the roster's notes. Names
//! (and a seed read back from a merged summary) are
//! shown as one visible line ([`crate::visible::line`]), then escaped for a
//! Markdown table cell.

use super::super::outside::{advanced_range, t, tr, visible};
use super::super::{Build, StepStatus};
use super::{has_advanced, step_columns, SummaryFile, SummaryStep, SummarySubmission};

/// `summary.md`: a table of submissions by step, a pass-count row, the seed.
/// Its words are the catalog's (the CSV's and the JSON's are fixed).
pub fn summary_md(file: &SummaryFile) -> String {
    let steps = step_columns(file);
    let mut out = format!(
        "| {} | {} | {} |",
        t("report.summary.submission"),
        t("report.summary.build"),
        t("report.summary.score")
    );
    for step in &steps {
        out.push_str(&format!(" {} |", md_cell(step)));
    }
    out.push_str("\n| --- | --- | ---: |");
    for _ in &steps {
        out.push_str(" :-: |");
    }
    out.push('\n');
    for s in &file.submissions {
        let extra = if has_advanced(&steps) && s.bonus > 0 {
            format!(" +{}", s.bonus)
        } else {
            String::new()
        };
        out.push_str(&format!(
            "| {} | {} | {}/{}{extra} |",
            md_cell(&visible::line(&s.name)),
            t(match s.build {
                Build::Ok => "report.summary.built",
                Build::Failed => "report.summary.not_built",
                Build::Error => "report.summary.error",
            }),
            s.score,
            s.max_score
        ));
        for step in &steps {
            let status = s.steps.iter().find(|x| &x.step == step).map(|x| x.status);
            out.push_str(match status {
                Some(StepStatus::Passed) => " ✅ |",
                Some(StepStatus::Failed) => " ❌ |",
                Some(StepStatus::NotStarted) => " … |",
                Some(StepStatus::NotBuilt) => " 🛠 |",
                Some(StepStatus::NotAttempted) => " – |",
                None => "  |",
            });
        }
        out.push('\n');
    }
    let total = file.submissions.len();
    out.push_str(&format!("| **{}** | | |", t("report.summary.passed")));
    for step in &steps {
        let passed = file
            .submissions
            .iter()
            .filter(|s| s.steps.iter().any(|x| &x.step == step && x.passed))
            .count();
        out.push_str(&format!(" {passed}/{total} |"));
    }
    out.push_str("\n\n");
    out.push_str(&tr(
        "report.summary.legend",
        &[("seed", &md_cell(&visible::line(&file.seed)))],
    ));
    out.push('\n');
    if has_advanced(&steps) {
        let steps = advanced_range();
        out.push_str(&tr("report.summary.bonus", &[("steps", &steps)]));
        out.push('\n');
    }
    let known: Vec<(&SummarySubmission, &SummaryStep, &String)> = file
        .submissions
        .iter()
        .flat_map(|s| {
            s.steps
                .iter()
                .filter_map(move |step| step.mistake.as_ref().map(|id| (s, step, id)))
        })
        .collect();
    if !known.is_empty() {
        out.push('\n');
        out.push_str(&t("report.summary.mistakes"));
        out.push_str("\n\n");
        for (s, step, id) in known {
            out.push_str(&tr(
                "report.summary.mistake",
                &[
                    ("name", &md_cell(&visible::line(&s.name))),
                    ("step", &step.step),
                    ("description", &t(&format!("mistake.{id}"))),
                    ("id", id),
                ],
            ));
            out.push('\n');
        }
    }
    out.push_str(&lms_notes(file));
    out
}

/// Text for one Markdown table cell: Markdown punctuation and pipes escaped,
/// line ends (which would end the row) turned into spaces.
pub(super) fn md_cell(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' | '|' | '*' | '_' | '`' | '[' | ']' | '<' | '>' | '~' | '&' | '#' => {
                out.push('\\');
                out.push(c);
            }
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// What `summary.md` says under its table of a late policy and a roster:
/// each submission that lost points or has no known time, and who the
/// roster did not match. Nothing when the run had neither.
pub(super) fn lms_notes(file: &SummaryFile) -> String {
    let mut out = String::new();
    let names = |v: &mut dyn Iterator<Item = &String>| {
        v.map(|n| md_cell(&visible::line(n)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let late: Vec<_> = file
        .submissions
        .iter()
        .filter_map(|s| s.late.as_ref().map(|l| (s, l)))
        .collect();
    if !late.is_empty() {
        out.push('\n');
        out.push_str(&t("report.summary.late"));
        out.push_str("\n\n");
        for (s, l) in late.iter().filter(|(_, l)| l.penalty > 0) {
            let hours = format!("{:.1}", l.late_by.unwrap_or(0) as f64 / 3600.0);
            out.push_str(&tr(
                "report.summary.late_row",
                &[
                    ("name", &md_cell(&visible::line(&s.name))),
                    ("hours", &hours),
                    ("penalty", &l.penalty),
                    ("before", &l.score_before_penalty),
                ],
            ));
            out.push('\n');
        }
        let mut unknown = late
            .iter()
            .filter(|(_, l)| l.late_by.is_none())
            .map(|(s, _)| &s.name);
        let unknown = names(&mut unknown);
        if !unknown.is_empty() {
            out.push_str(&tr("report.summary.late_unknown", &[("names", &unknown)]));
            out.push('\n');
        }
    }
    if let Some(r) = &file.roster {
        for (list, key) in [
            (&r.no_roster_row, "report.summary.no_roster_row"),
            (&r.no_submission, "report.summary.no_submission"),
        ] {
            if !list.is_empty() {
                out.push('\n');
                out.push_str(&tr(key, &[("names", &names(&mut list.iter()))]));
                out.push('\n');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::super::test_support::{class, raw_hidden, BOB, HOSTILE, SEED};
    use super::super::summary_of;
    use super::*;

    #[test]
    fn markdown_escapes_pipes_and_counts_passes() {
        let md = summary_md(&summary_of(&class()));
        let lines: Vec<&str> = md.lines().collect();
        assert_eq!(lines[0], "| Submission | Build | Score | 01 | 02 | 03 |");
        assert_eq!(lines[2], "| alice | ok | 30/30 | ✅ | ✅ | ✅ |");
        assert_eq!(
            lines[3],
            "| -bob, \"the\" \\| 2nd | ok | 10/30 | ✅ | ❌ | … |"
        );
        assert_eq!(lines[4], "| carol | failed | 0/30 | 🛠 | 🛠 | 🛠 |");
        assert_eq!(lines[5], "| **Passed** | | | 2/3 | 1/3 | 1/3 |");
        assert!(lines[7].starts_with(&format!("Seed: {SEED}.")));
        assert!(BOB.contains('|'));
        // Every table row has the same number of unescaped pipes.
        let pipes = |l: &str| l.replace("\\|", "").matches('|').count();
        assert!(lines[..6].iter().all(|l| pipes(l) == 7), "{md}");
        assert_eq!(md_cell("a\\|b\nc"), "a\\\\\\|b c");
    }

    /// Control and bidirectional characters in a name, or in a seed read
    /// back from a merged summary.json, are shown escaped.
    #[test]
    fn names_show_escaped() {
        let mut c = class();
        c.submissions[2].name = HOSTILE.to_string();
        let file = summary_of(&c);

        let md = summary_md(&file);
        assert_eq!(raw_hidden(&md), [], "{md:?}");
        assert_eq!(
            md.lines().nth(4),
            Some(
                "| \\\\u{1b}\\[2J\\\\u{7}王小明\\\\u{202e}\\\\u{2066}\\\\u{85}evil | failed | 0/30 | 🛠 | 🛠 | 🛠 |"
            )
        );

        // A seed read back from a merged summary.json is shown alike.
        let mut merged = file.clone();
        merged.seed = "7\u{1b}[2J".to_string();
        let md = summary_md(&merged);
        assert_eq!(raw_hidden(&md), [], "{md:?}");
        assert!(md.contains("Seed: 7\\\\u{1b}\\[2J."), "{md}");
    }
}
