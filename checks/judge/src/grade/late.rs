//! `grade --due TIME --late POLICY`: each submission's time, how late it
//! was, and the points its lateness costs.
//!
//! A policy is comma-separated items (see docs/INSTRUCTORS.md):
//! `linear:P%/UNIT` (P percent per UNIT late, pro rata), `step:P%/UNIT`
//! (P percent per started UNIT), `cap:P%` (at most P percent, default
//! 100%), `grace:DURATION` (lateness up to it costs nothing; beyond it,
//! only the time past it is charged), or `none`. A UNIT or DURATION is a
//! number and `s`, `m`, `h`, `d` or `w` (`day`, `hour`, `week` too). The
//! penalty is that percent of the core score earned, rounded to the
//! nearest point (halves up). `--late-policy FILE` holds the same items as
//! a JSON object (`{"due": TIME, "linear": "10%/day", "cap": "40%"}`).
//!
//! A submission's time is, first found: its row of `--submitted-at FILE`,
//! its own `submitted_at` file (RFC 3339, at most 256 bytes, a regular
//! file, never followed through a link), its last git commit (see
//! [`git_time`]); else it is unknown, costs nothing and is listed.

mod git;
#[cfg(test)]
mod tests;
mod time;

pub(crate) use git::git_time;
pub(crate) use time::{format_rfc3339, parse_rfc3339};

use super::csv_read::{read_text, records, MAX_BYTES};
use crate::catalog::{t, tr};
use crate::report::lms::Late;
use std::collections::BTreeMap;
use std::path::Path;

#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Rate {
    None,
    /// Percent per `unit` seconds, pro rata.
    Linear {
        percent: f64,
        unit: i64,
    },
    /// Percent per started `unit` seconds.
    Step {
        percent: f64,
        unit: i64,
    },
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Policy {
    pub rate: Rate,
    pub cap: f64,
    pub grace: i64,
}

impl Default for Policy {
    fn default() -> Self {
        Policy {
            rate: Rate::None,
            cap: 100.0,
            grace: 0,
        }
    }
}

fn bad_policy(text: &str, why: &str) -> String {
    tr(
        "error.bad_late",
        &[("policy", &crate::visible::line(text)), ("why", &t(why))],
    )
}

/// `10%`: a percent from 0 to 100.
fn percent(text: &str) -> Option<f64> {
    let n: f64 = text.trim().strip_suffix('%')?.trim().parse().ok()?;
    (n.is_finite() && (0.0..=100.0).contains(&n)).then_some(n)
}

/// `2h`, `1.5d`, `day`: seconds, more than 0 (or 0 for `0`).
pub(crate) fn duration(text: &str) -> Option<i64> {
    let text = text.trim();
    let (number, unit) = match text {
        "day" => ("1", "d"),
        "hour" => ("1", "h"),
        "week" => ("1", "w"),
        "minute" => ("1", "m"),
        "0" => ("0", "s"),
        _ => text.split_at(text.find(|c: char| c.is_ascii_alphabetic())?),
    };
    let n: f64 = number.trim().parse().ok()?;
    let unit = match unit {
        "s" => 1.0,
        "m" => 60.0,
        "h" => 3600.0,
        "d" => 86400.0,
        "w" => 604800.0,
        _ => return None,
    };
    let secs = n * unit;
    (secs.is_finite() && (0.0..1e12).contains(&secs)).then(|| secs.round() as i64)
}

/// Reads a policy string.
pub(crate) fn parse_policy(text: &str) -> Result<Policy, String> {
    let mut p = Policy::default();
    let mut rated = false;
    for item in text.split(',') {
        let item = item.trim();
        if item == "none" {
            continue;
        }
        let (key, value) = item
            .split_once(':')
            .ok_or_else(|| bad_policy(text, "error.late_item"))?;
        match key.trim() {
            "linear" | "step" => {
                if rated {
                    return Err(bad_policy(text, "error.late_two_rates"));
                }
                rated = true;
                let (pc, unit) = value
                    .split_once('/')
                    .ok_or_else(|| bad_policy(text, "error.late_rate"))?;
                let percent = percent(pc).ok_or_else(|| bad_policy(text, "error.late_rate"))?;
                let unit = duration(unit)
                    .filter(|&u| u > 0)
                    .ok_or_else(|| bad_policy(text, "error.late_rate"))?;
                p.rate = if key.trim() == "linear" {
                    Rate::Linear { percent, unit }
                } else {
                    Rate::Step { percent, unit }
                };
            }
            "cap" => p.cap = percent(value).ok_or_else(|| bad_policy(text, "error.late_cap"))?,
            "grace" => {
                p.grace = duration(value).ok_or_else(|| bad_policy(text, "error.late_grace"))?
            }
            _ => return Err(bad_policy(text, "error.late_item")),
        }
    }
    Ok(p)
}

/// A policy file: `{"due": TIME, "linear"|"step": "P%/UNIT", "cap": "P%",
/// "grace": "DURATION"}`, every key optional; its due time, if any.
pub(crate) fn read_policy_file(path: &Path) -> Result<(Policy, Option<i64>), String> {
    let text = read_text(path, 64 << 10)?;
    let shown = super::discovery::shown_path(path);
    let bad = |why: String| tr("error.input_file", &[("path", &shown), ("why", &why)]);
    let map: BTreeMap<String, String> =
        serde_json::from_str(&text).map_err(|e| bad(e.to_string()))?;
    let mut items = Vec::new();
    let mut due = None;
    for (key, value) in &map {
        match key.as_str() {
            "due" => due = Some(parse_rfc3339(value).ok_or_else(|| bad(t("error.late_time")))?),
            "linear" | "step" | "cap" | "grace" => items.push(format!("{key}:{value}")),
            _ => return Err(bad(tr("error.late_key", &[("key", key)]))),
        }
    }
    let policy = parse_policy(&items.join(",")).map_err(bad)?;
    Ok((policy, due))
}

impl Policy {
    /// The percent a submission `late_by` seconds late loses.
    pub(crate) fn percent(&self, late_by: i64) -> f64 {
        if late_by <= self.grace {
            return 0.0;
        }
        let charged = (late_by - self.grace) as f64;
        let pc = match self.rate {
            Rate::None => 0.0,
            Rate::Linear { percent, unit } => percent * charged / unit as f64,
            Rate::Step { percent, unit } => percent * (charged / unit as f64).ceil(),
        };
        pc.min(self.cap)
    }

    /// Points lost from `score` for being `late_by` seconds late.
    pub(crate) fn penalty(&self, score: u32, late_by: i64) -> u32 {
        let points = f64::from(score) * self.percent(late_by) / 100.0;
        ((points + 0.5).floor() as u32).min(score)
    }
}

/// Where one submission's time came from.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Stamp {
    /// As read, and as seconds since the epoch; `None`: unknown.
    pub time: Option<(String, i64)>,
    pub source: &'static str,
}

/// `--submitted-at FILE`: `folder,submitted_at` rows after a header whose
/// first cell is `folder`.
pub(crate) fn read_times_csv(path: &Path) -> Result<BTreeMap<String, (String, i64)>, String> {
    let text = read_text(path, MAX_BYTES)?;
    let shown = super::discovery::shown_path(path);
    let err = |line: usize, why: String| {
        tr(
            "error.csv_line",
            &[("path", &shown), ("line", &line), ("why", &why)],
        )
    };
    let mut out = BTreeMap::new();
    for (i, (line, row)) in records(path, &text)?.into_iter().enumerate() {
        if i == 0
            && row
                .first()
                .is_some_and(|c| c.trim().eq_ignore_ascii_case("folder"))
        {
            continue;
        }
        let [folder, time] = &row[..] else {
            return Err(err(
                line,
                tr("error.roster_fields", &[("got", &row.len()), ("want", &2)]),
            ));
        };
        let at = parse_rfc3339(time.trim()).ok_or_else(|| err(line, t("error.late_time")))?;
        if out
            .insert(folder.trim().to_string(), (time.trim().to_string(), at))
            .is_some()
        {
            return Err(err(
                line,
                tr(
                    "error.times_folder_twice",
                    &[("folder", &crate::visible::line(folder))],
                ),
            ));
        }
    }
    Ok(out)
}

/// The time of the submission in `dir` named `name`, by the precedence
/// above. A malformed `submitted_at` file is an error naming it.
pub(crate) fn stamp(
    dir: &Path,
    name: &str,
    csv: &BTreeMap<String, (String, i64)>,
) -> Result<Stamp, String> {
    if let Some(t) = csv.get(name) {
        return Ok(Stamp {
            time: Some(t.clone()),
            source: "csv",
        });
    }
    let file = dir.join("submitted_at");
    if let Ok(meta) = std::fs::symlink_metadata(&file) {
        let shown = super::discovery::shown_path(&file);
        let bad = |why: String| tr("error.input_file", &[("path", &shown), ("why", &why)]);
        if !meta.file_type().is_file() {
            return Err(bad(t("error.input_not_file")));
        }
        let text = read_text(&file, 256)?;
        let at = parse_rfc3339(text.trim()).ok_or_else(|| bad(t("error.late_time")))?;
        return Ok(Stamp {
            time: Some((text.trim().to_string(), at)),
            source: "file",
        });
    }
    if let Some((text, at)) = git_time(dir) {
        return Ok(Stamp {
            time: Some((text, at)),
            source: "git",
        });
    }
    Ok(Stamp {
        time: None,
        source: "unknown",
    })
}

/// What `policy` does to a submission of `score` points stamped `stamp`.
pub(crate) fn assess(policy: &Policy, due: i64, stamp: &Stamp, score: u32) -> Late {
    let late_by = stamp.time.as_ref().map(|(_, at)| (at - due).max(0));
    Late {
        submitted_at: stamp.time.as_ref().map(|(text, _)| text.clone()),
        source: stamp.source.to_string(),
        late_by,
        penalty: late_by.map_or(0, |l| policy.penalty(score, l)),
        score_before_penalty: score,
    }
}

/// `report` with its penalty applied (once: a report that already has
/// `late` is returned as it is).
pub(crate) fn apply(
    report: &crate::report::SubmissionReport,
    policy: &Policy,
    due: i64,
    stamp: &Stamp,
) -> crate::report::SubmissionReport {
    let mut r = report.clone();
    if r.late.is_none() {
        let late = assess(policy, due, stamp, r.score);
        r.score -= late.penalty;
        r.late = Some(late);
    }
    r
}
