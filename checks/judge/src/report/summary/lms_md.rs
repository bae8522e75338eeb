//! What `summary.md` says under its table of a late policy and a roster:
//! each submission that lost points or has no known time, and who the
//! roster did not match. Nothing when the run had neither.

use super::super::outside::{t, tr, visible};
use super::markdown::md_cell;
use super::SummaryFile;

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
