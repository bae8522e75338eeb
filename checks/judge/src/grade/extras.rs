//! What `--roster`, `--due`/`--late` and `--previous` add to a grade run:
//! everything they read is read and checked before grading starts (a bad
//! file is a one-line error, exit 2, nothing graded); penalties are applied
//! to each report before any format is written; the gradebooks,
//! `regrade.json` and the console's lists come after the class.

use super::late::{self, Policy, Stamp};
use super::regrade::{self, Previous};
use super::roster::{self, Roster};
use super::Submission;
use crate::catalog::{t, tr};
use crate::files::write_atomically;
use crate::report::gradebook;
use crate::report::lms::{RunInfo, Unmatched};
use crate::report::summary::SummaryFile;
use crate::report::SubmissionReport;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The options, as the command line gave them.
#[derive(Debug, Clone, Default)]
pub struct GradeExtras {
    pub roster: Option<PathBuf>,
    /// The gradebooks' assignment column (default: [`DEFAULT_ASSIGNMENT`]).
    pub assignment: Option<String>,
    /// Seconds since the epoch.
    pub due: Option<i64>,
    pub late: Option<String>,
    pub late_policy: Option<PathBuf>,
    pub submitted_at: Option<PathBuf>,
    pub previous: Option<PathBuf>,
}

pub const DEFAULT_ASSIGNMENT: &str = "Retry lab";

impl GradeExtras {
    /// The options that change scores, as words to add to the command that
    /// reruns this grade (paths as the console shows them).
    pub fn rerun_words(&self) -> String {
        let mut out = String::new();
        let shown = |p: &PathBuf| super::discovery::shown_path(p);
        if let Some(due) = self.due {
            out += &format!(" --due {}", late::format_rfc3339(due));
        }
        if let Some(policy) = &self.late {
            out += &format!(" --late '{}'", crate::visible::line(policy));
        }
        if let Some(p) = &self.late_policy {
            out += &format!(" --late-policy {}", shown(p));
        }
        if let Some(p) = &self.submitted_at {
            out += &format!(" --submitted-at {}", shown(p));
        }
        out
    }

    /// Whether any of these options was given (`--merge` takes none).
    pub fn any(&self) -> bool {
        self.roster.is_some()
            || self.assignment.is_some()
            || self.due.is_some()
            || self.late.is_some()
            || self.late_policy.is_some()
            || self.submitted_at.is_some()
            || self.previous.is_some()
    }
}

/// The options read and checked.
#[derive(Debug, Clone, Default)]
pub(super) struct Prepared {
    roster: Option<Roster>,
    assignment: String,
    late: Option<(Policy, i64, BTreeMap<String, Stamp>)>,
    previous: Option<Previous>,
    /// Every submission name of the class (all shards).
    whole: Vec<String>,
}

/// The name a submission path gets (as `discovery::resolve` names it).
fn name_of(path: &Path) -> String {
    path.canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_default()
}

/// Reads and checks every file the options name; `paths` are the class's
/// folders, `all` the class.
pub(super) fn prepare(
    x: &GradeExtras,
    paths: &[PathBuf],
    all: &[Submission],
) -> Result<Prepared, String> {
    let roster = x.roster.as_deref().map(roster::read).transpose()?;
    let previous = x
        .previous
        .as_deref()
        .map(regrade::read_previous)
        .transpose()?;
    if x.late.is_some() && x.late_policy.is_some() {
        return Err(t("error.late_twice"));
    }
    let mut policy = x.late.as_deref().map(late::parse_policy).transpose()?;
    let mut due = x.due;
    if let Some(file) = &x.late_policy {
        let (p, file_due) = late::read_policy_file(file)?;
        policy = Some(p);
        due = due.or(file_due);
    }
    if x.submitted_at.is_some() && due.is_none() {
        return Err(t("error.late_no_due"));
    }
    let late = match (due, policy) {
        (None, None) => None,
        (None, Some(_)) => return Err(t("error.late_no_due")),
        (Some(due), policy) => {
            let csv = match &x.submitted_at {
                Some(f) => late::read_times_csv(f)?,
                None => BTreeMap::new(),
            };
            let mut stamps = BTreeMap::new();
            for path in paths {
                let name = name_of(path);
                if all.iter().any(|s| s.name == name) {
                    stamps.insert(name.clone(), late::stamp(path, &name, &csv)?);
                }
            }
            Some((policy.unwrap_or_default(), due, stamps))
        }
    };
    Ok(Prepared {
        roster,
        assignment: x
            .assignment
            .clone()
            .unwrap_or_else(|| DEFAULT_ASSIGNMENT.to_string()),
        late,
        previous,
        whole: all.iter().map(|s| s.name.clone()).collect(),
    })
}

impl Prepared {
    /// `r` with its late penalty, when the run has a due time.
    pub(super) fn apply(&self, r: &SubmissionReport) -> SubmissionReport {
        match &self.late {
            Some((policy, due, stamps)) => {
                let unknown = Stamp {
                    time: None,
                    source: "unknown",
                };
                let stamp = stamps.get(&r.name).unwrap_or(&unknown);
                late::apply(r, policy, *due, stamp)
            }
            None => r.clone(),
        }
    }

    /// Before the summaries are written: records who the roster did not
    /// match and the run's kit and toolchain in `summary`, writes the
    /// gradebooks and `regrade.json`, and prints what an instructor must
    /// know. `reports` are the class's, penalties applied.
    pub(super) fn finish(
        &self,
        out: &Path,
        summary: &mut SummaryFile,
        reports: &[SubmissionReport],
        run: &RunInfo,
    ) -> std::io::Result<()> {
        summary.run = Some(run.clone());
        let names = |v: &[String]| {
            v.iter()
                .map(|n| crate::visible::line(n).into_owned())
                .collect::<Vec<_>>()
                .join(", ")
        };
        if let Some((_, _, _)) = &self.late {
            let unknown: Vec<String> = reports
                .iter()
                .filter(|r| r.late.as_ref().is_some_and(|l| l.late_by.is_none()))
                .map(|r| r.name.clone())
                .collect();
            let penalised = reports
                .iter()
                .filter(|r| r.late.as_ref().is_some_and(|l| l.penalty > 0))
                .count();
            let late = reports
                .iter()
                .filter(|r| {
                    r.late
                        .as_ref()
                        .and_then(|l| l.late_by)
                        .is_some_and(|s| s > 0)
                })
                .count();
            println!(
                "{}",
                tr(
                    "late.summary",
                    &[("late", &late), ("penalised", &penalised)]
                )
            );
            if !unknown.is_empty() {
                println!(
                    "{}",
                    tr(
                        "late.unknown",
                        &[("count", &unknown.len()), ("names", &names(&unknown))]
                    )
                );
            }
        }
        if let Some(roster) = &self.roster {
            let points: BTreeMap<String, u32> = reports
                .iter()
                .map(|r| (r.name.clone(), r.score + r.bonus))
                .collect();
            let m = roster::matched(roster, &points, &self.whole);
            let possible = reports.iter().map(|r| r.max_score).max().unwrap_or(0);
            let mut written = Vec::new();
            if roster.canvas {
                let text = gradebook::canvas_csv(&self.assignment, possible, &m.rows);
                write_atomically(&out.join("gradebook/canvas.csv"), text)?;
                written.push("gradebook/canvas.csv");
            }
            if let Some(id) = roster.moodle {
                let text = gradebook::moodle_csv(id, &self.assignment, &m.rows);
                write_atomically(&out.join("gradebook/moodle.csv"), text)?;
                written.push("gradebook/moodle.csv");
            }
            println!(
                "{}",
                tr(
                    "roster.written",
                    &[("count", &m.rows.len()), ("files", &written.join(", "))]
                )
            );
            if !m.no_roster_row.is_empty() {
                println!(
                    "{}",
                    tr(
                        "roster.no_roster_row",
                        &[
                            ("count", &m.no_roster_row.len()),
                            ("names", &names(&m.no_roster_row))
                        ]
                    )
                );
            }
            if !m.no_submission.is_empty() {
                println!(
                    "{}",
                    tr(
                        "roster.no_submission",
                        &[
                            ("count", &m.no_submission.len()),
                            ("names", &names(&m.no_submission))
                        ]
                    )
                );
            }
            summary.roster = Some(Unmatched {
                no_roster_row: m.no_roster_row,
                no_submission: m.no_submission,
            });
        }
        if let Some(prev) = &self.previous {
            let r = regrade::compare(prev, reports, &summary.seed, run, &self.whole);
            write_atomically(&out.join("regrade.json"), regrade::regrade_json(&r))?;
            for line in regrade::table(&r) {
                println!("{line}");
            }
        }
        Ok(())
    }
}

/// The kit's version and `rustc --version` (the catalog's "unknown" when
/// rustc does not answer).
pub(super) fn run_info() -> RunInfo {
    // Registered as the judge's own child (platform::plain_output): the
    // Linux layer's collector of orphans would reap it otherwise.
    let toolchain =
        crate::platform::plain_output(std::process::Command::new("rustc").arg("--version"))
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| t("regrade.unknown"));
    RunInfo {
        kit: env!("CARGO_PKG_VERSION").to_string(),
        toolchain,
    }
}

#[cfg(test)]
#[path = "extras_tests.rs"]
mod tests;
