//! `grade --previous DIR`: what changed since an earlier grade of the same
//! class, written to `regrade.json` and printed as a short table.
//!
//! A rule is a clause, by its key (`04/attempt-above-30`); a step with no
//! clauses (one that did not build, or was not attempted) is one rule
//! keyed by its step (`04`). Its verdict is the clause's (or step's)
//! status. The earlier verdicts are read from each submission's
//! `result.json` in DIR; a submission whose `result.json` is missing there
//! is compared by its steps in DIR's `summary.json` (the step's status,
//! and `failed` for each clause it lists as failed, `not failed` for one
//! failed in the other run only), the current run read the same way.

use crate::catalog::{t, tr};
use crate::report::lms::RunInfo;
use crate::report::summary::{read_summary, SummaryFile, SummarySubmission};
use crate::report::{ClauseStatus, SubmissionReport};
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

pub(crate) const REGRADE_SCHEMA: &str = "retry-lab.regrade/1";

/// An earlier grade output, read before grading starts.
#[derive(Debug, Clone)]
pub(crate) struct Previous {
    pub dir: PathBuf,
    pub summary: SummaryFile,
}

/// Reads DIR's `summary.json`: a missing folder, or one that is not a
/// complete grade output, is a one-line error.
pub(crate) fn read_previous(dir: &Path) -> Result<Previous, String> {
    let shown = super::discovery::shown_path(dir);
    if !dir.is_dir() {
        return Err(tr("error.previous_missing", &[("path", &shown)]));
    }
    let path = dir.join("summary.json");
    let not_grade = |why: String| {
        tr(
            "error.previous_not_grade",
            &[("path", &shown), ("why", &crate::visible::line(&why))],
        )
    };
    let text = super::csv_read::read_text(&path, 256 << 20).map_err(not_grade)?;
    let summary = read_summary(&text).map_err(not_grade)?;
    Ok(Previous {
        dir: dir.to_path_buf(),
        summary,
    })
}

fn word<T: Serialize>(status: T) -> String {
    serde_json::to_value(status)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// Every rule's verdict in a full report.
pub(crate) fn verdicts(s: &SubmissionReport) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for step in &s.steps {
        if step.clauses.is_empty() {
            out.insert(step.step.clone(), word(step.status));
        }
        for c in &step.clauses {
            out.insert(c.key.clone(), word(c.status));
        }
    }
    out
}

/// The rules' verdicts a summary alone can tell.
fn summary_verdicts(s: &SummarySubmission) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for step in &s.steps {
        out.insert(step.step.clone(), word(step.status));
        for key in &step.failed {
            out.insert(key.clone(), word(ClauseStatus::Failed));
        }
    }
    out
}

/// What a summary would tell of a full report (see [`summary_verdicts`]).
fn summary_verdicts_of(s: &SubmissionReport) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for step in &s.steps {
        out.insert(step.step.clone(), word(step.status));
        for c in step
            .clauses
            .iter()
            .filter(|c| c.status == ClauseStatus::Failed)
        {
            out.insert(c.key.clone(), word(ClauseStatus::Failed));
        }
    }
    out
}

/// The earlier and current verdicts of one submission: by clause when the
/// earlier `result.json` is there, else both as the summaries tell them.
fn both_verdicts(
    prev: &Previous,
    old: &SummarySubmission,
    now: &SubmissionReport,
) -> (BTreeMap<String, String>, BTreeMap<String, String>) {
    let folder = old.folder.as_deref().unwrap_or(&old.name);
    if crate::folders::is_safe_folder(folder) {
        let path = prev.dir.join(folder).join("result.json");
        if let Ok(text) = super::csv_read::read_text(&path, 64 << 20) {
            if let Ok(r) = serde_json::from_str::<SubmissionReport>(&text) {
                return (verdicts(&r), verdicts(now));
            }
        }
    }
    let (mut a, mut b) = (summary_verdicts(old), summary_verdicts_of(now));
    // A summary names only failed clauses: one failed on one side only
    // was not failed on the other.
    let not_failed = t("regrade.not_failed");
    let keys: Vec<String> = a.keys().chain(b.keys()).cloned().collect();
    for k in keys.into_iter().filter(|k| k.contains('/')) {
        a.entry(k.clone()).or_insert_with(|| not_failed.clone());
        b.entry(k).or_insert_with(|| not_failed.clone());
    }
    (a, b)
}

#[derive(Debug, Serialize, PartialEq)]
pub(crate) struct Run {
    pub seed: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kit: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub toolchain: Option<String>,
}

#[derive(Debug, Serialize, PartialEq)]
pub(crate) struct Rule {
    pub rule: String,
    pub old: String,
    pub new: String,
}

#[derive(Debug, Serialize, PartialEq)]
pub(crate) struct Changed {
    pub name: String,
    pub old_score: u32,
    pub new_score: u32,
    pub rules: Vec<Rule>,
}

#[derive(Debug, Serialize, PartialEq)]
pub(crate) struct Regrade {
    pub schema: &'static str,
    pub previous: Run,
    pub current: Run,
    pub changed: Vec<Changed>,
    pub added: Vec<String>,
    pub removed: Vec<String>,
}

/// Compares this run's reports with `prev`. `whole` is every submission
/// name of this class (all shards), so that a shard lists as removed only
/// those gone from the class.
pub(crate) fn compare(
    prev: &Previous,
    now: &[SubmissionReport],
    seed: &str,
    run: &RunInfo,
    whole: &[String],
) -> Regrade {
    let old: BTreeMap<&str, &SummarySubmission> = prev
        .summary
        .submissions
        .iter()
        .map(|s| (s.name.as_str(), s))
        .collect();
    let mut changed = Vec::new();
    let mut added = Vec::new();
    for s in now {
        let Some(before) = old.get(s.name.as_str()) else {
            added.push(s.name.clone());
            continue;
        };
        let (a, b) = both_verdicts(prev, before, s);
        let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
        let absent = t("regrade.absent");
        let rules: Vec<Rule> = keys
            .into_iter()
            .filter_map(|k| {
                let (o, n) = (a.get(k).unwrap_or(&absent), b.get(k).unwrap_or(&absent));
                (o != n).then(|| Rule {
                    rule: k.clone(),
                    old: o.clone(),
                    new: n.clone(),
                })
            })
            .collect();
        if !rules.is_empty() || before.score != s.score {
            changed.push(Changed {
                name: s.name.clone(),
                old_score: before.score,
                new_score: s.score,
                rules,
            });
        }
    }
    let removed = old
        .keys()
        .filter(|n| !whole.iter().any(|w| w == *n))
        .map(|n| n.to_string())
        .collect();
    let prev_run = prev.summary.run.as_ref();
    Regrade {
        schema: REGRADE_SCHEMA,
        previous: Run {
            seed: prev.summary.seed.clone(),
            kit: prev_run.map(|r| r.kit.clone()),
            toolchain: prev_run.map(|r| r.toolchain.clone()),
        },
        current: Run {
            seed: seed.to_string(),
            kit: Some(run.kit.clone()),
            toolchain: Some(run.toolchain.clone()),
        },
        changed,
        added,
        removed,
    }
}

/// `regrade.json`, pretty, newline.
pub(crate) fn regrade_json(r: &Regrade) -> String {
    let mut text = serde_json::to_string_pretty(r).expect("a regrade always serializes");
    text.push('\n');
    text
}

/// The console's short table.
pub(crate) fn table(r: &Regrade) -> Vec<String> {
    let unknown = t("regrade.unknown");
    let run = |x: &Run| {
        tr(
            "regrade.run",
            &[
                ("seed", &x.seed),
                ("kit", x.kit.as_ref().unwrap_or(&unknown)),
                ("toolchain", x.toolchain.as_ref().unwrap_or(&unknown)),
            ],
        )
    };
    let mut out = vec![
        tr("regrade.previous", &[("run", &run(&r.previous))]),
        tr("regrade.current", &[("run", &run(&r.current))]),
    ];
    if r.changed.is_empty() {
        out.push(t("regrade.none_changed"));
    } else {
        out.push(tr("regrade.changed", &[("count", &r.changed.len())]));
    }
    for c in &r.changed {
        let first = c.rules.first().map_or(String::new(), |x| {
            tr(
                "regrade.first_rule",
                &[("rule", &x.rule), ("old", &x.old), ("new", &x.new)],
            )
        });
        out.push(format!(
            "  {} {:>3} -> {:<3} {}  {first}",
            crate::render::padded(&c.name, super::table::NAME_COLUMNS),
            c.old_score,
            c.new_score,
            tr("regrade.rules", &[("count", &c.rules.len())]),
        ));
    }
    let names = |v: &[String]| {
        v.iter()
            .map(|n| crate::visible::line(n).into_owned())
            .collect::<Vec<_>>()
            .join(", ")
    };
    if !r.added.is_empty() {
        out.push(tr("regrade.added", &[("names", &names(&r.added))]));
    }
    if !r.removed.is_empty() {
        out.push(tr("regrade.removed", &[("names", &names(&r.removed))]));
    }
    out
}
