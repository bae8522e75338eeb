//! The class overview: `summary.json`, `summary.csv` and `summary.md`.
//!
//! `summary.json` keeps no clause details but the ids of the clauses each
//! step failed, so it cannot be read back as a [`ClassReport`]. Instead it
//! has its own type, [`SummaryFile`], which mirrors exactly what is
//! written: [`summary_of`] makes one from a class, [`read_summary`] reads
//! one (checking the schema and refusing unknown fields), and
//! [`summary_json_from`] writes one. The CSV and Markdown views
//! (and `summary.html`, in `report::html`) take a `SummaryFile`, so shards
//! graded separately can be read, merged (concatenate `submissions`, sort by
//! name) and rendered again.
//!
//! Writing is stable: `summary_json_from(&read_summary(text)?)` gives `text`
//! back for anything `summary_json` wrote. For that, `seconds` is rounded to
//! the millisecond (and non-finite or negative times become 0) both when
//! summarising and when reading, since a float read back from JSON may be one
//! unit off otherwise.
//!
//! The CSV follows RFC 4180: every record, the header's too, ends in CRLF;
//! a field holding a comma, a double quote, a CR or an LF is put in double
//! quotes, its double quotes doubled. A name that starts like a spreadsheet
//! formula (`=`, `+`, `-`, `@`, tab or carriage return) gets a leading `'`
//! first, so no spreadsheet evaluates it (the other fields are the kit's
//! own words and numbers). Step columns are the first submission's steps; a
//! submission lacking one of them has an empty cell there.
//!
//! The CSV and Markdown show each name as one visible line
//! ([`crate::visible::line`]: control and bidirectional characters, line
//! ends included, escaped as `\u{1b}`, `\n`, …) before quoting, disarming
//! or Markdown escaping; `summary.json` keeps the exact name.

use super::{AdvancedBuild, Build, ClassReport, FaultKind, StepStatus, GRADE_SCHEMA};
use crate::catalog::{t, tr};
use crate::visible;
use serde::{Deserialize, Serialize};

/// Exactly what `summary.json` holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SummaryFile {
    /// Always [`GRADE_SCHEMA`].
    pub schema: String,
    pub seed: String,
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
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SummaryStep {
    /// "01" … "08".
    pub step: String,
    pub passed: bool,
    pub status: StepStatus,
    pub weight: u32,
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
                seconds: milliseconds(s.seconds),
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
        s.seconds = milliseconds(s.seconds);
    }
    Ok(file)
}

/// `summary.csv`: `name,build,score,max_score,01,02,…`, one row a
/// submission; when a submission attempted an advanced step, its columns
/// and a last `bonus` column follow.
pub fn summary_csv(file: &SummaryFile) -> String {
    let steps = step_columns(file);
    let bonus = has_advanced(&steps);
    let mut out = String::from("name,build,score,max_score");
    for step in &steps {
        out.push(',');
        out.push_str(&csv_cell(step));
    }
    if bonus {
        out.push_str(",bonus");
    }
    out.push_str(CRLF);
    for s in &file.submissions {
        out.push_str(&csv_cell(&csv_name(&visible::line(&s.name))));
        out.push_str(&format!(
            ",{},{},{}",
            build_word(s.build),
            s.score,
            s.max_score
        ));
        for step in &steps {
            out.push(',');
            let status = s.steps.iter().find(|x| &x.step == step).map(|x| x.status);
            out.push_str(match status {
                Some(StepStatus::Passed) => "pass",
                Some(StepStatus::Failed) => "fail",
                Some(StepStatus::NotStarted) => "todo",
                Some(StepStatus::NotBuilt) => "error",
                Some(StepStatus::NotAttempted) => "n/a",
                None => "",
            });
        }
        if bonus {
            out.push_str(&format!(",{}", s.bonus));
        }
        out.push_str(CRLF);
    }
    out
}

/// RFC 4180's line end.
const CRLF: &str = "\r\n";

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
        let steps = crate::suites::range(crate::suites::Track::Advanced);
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
    out
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
    steps.iter().any(|s| crate::suites::is_advanced(s))
}

fn build_word(build: Build) -> &'static str {
    match build {
        Build::Ok => "ok",
        Build::Failed => "failed",
        Build::Error => "error",
    }
}

fn milliseconds(seconds: f64) -> f64 {
    if seconds.is_finite() && seconds > 0.0 {
        (seconds * 1000.0).round() / 1000.0
    } else {
        0.0
    }
}

/// A name a spreadsheet will not run as a formula.
fn csv_name(name: &str) -> String {
    if name.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{name}")
    } else {
        name.to_string()
    }
}

/// RFC 4180: quoted (quotes doubled) when holding a comma, quote, CR or LF.
fn csv_cell(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

/// Text for one Markdown table cell: Markdown punctuation and pipes escaped,
/// line ends (which would end the row) turned into spaces.
fn md_cell(text: &str) -> String {
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

#[cfg(test)]
mod tests {
    use super::super::snapshot::compare;
    use super::super::test_support::{class, raw_hidden, BOB, HOSTILE, HOSTILE_SHOWN, SEED};
    use super::*;
    use crate::report::{ClauseReport, ClauseStatus};
    use serde_json::Value;

    #[test]
    fn matches_the_snapshots() {
        let c = class();
        let json = summary_json(&c);
        compare("src/report/snapshots/summary.json", &json);
        let file = summary_of(&c);
        compare("src/report/snapshots/summary.csv", &summary_csv(&file));
        compare("src/report/snapshots/summary.md", &summary_md(&file));
    }

    #[test]
    fn json_has_exactly_the_summary_fields() {
        let v: Value = serde_json::from_str(&summary_json(&class())).unwrap();
        let keys = |v: &Value| -> Vec<String> { v.as_object().unwrap().keys().cloned().collect() };
        assert_eq!(keys(&v), ["schema", "seed", "submissions"]);
        assert_eq!(v["schema"], GRADE_SCHEMA);
        assert_eq!(v["seed"], SEED);
        for s in v["submissions"].as_array().unwrap() {
            assert_eq!(
                keys(s),
                [
                    "advanced_build",
                    "bonus",
                    "build",
                    "max_score",
                    "name",
                    "score",
                    "seconds",
                    "steps"
                ]
            );
            assert!(["ok", "failed"].contains(&s["build"].as_str().unwrap()));
            for step in s["steps"].as_array().unwrap() {
                let advanced = crate::suites::is_advanced(step["step"].as_str().unwrap());
                let mut want = vec!["passed", "status", "step", "weight"];
                if step["status"] == "failed" {
                    want.insert(0, "failed");
                }
                if advanced {
                    want.push("bonus");
                }
                // Only a failing step that matched a known mistake.
                if step.get("mistake").is_some() {
                    assert_eq!(step["status"], "failed");
                    want.push("mistake");
                }
                want.sort_unstable();
                assert_eq!(keys(step), want);
            }
        }
        let named: Vec<&Value> = v["submissions"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|s| s["steps"].as_array().unwrap())
            .filter_map(|step| step.get("mistake"))
            .collect();
        assert_eq!(named, ["02-post-exact-case"]);
        let back = read_summary(&summary_json(&class())).unwrap();
        assert_eq!(back, summary_of(&class()));
    }

    #[test]
    fn attempted_advanced_steps_get_columns_and_a_bonus() {
        let mut c = class();
        let dave = &mut c.submissions[0];
        dave.steps[3].status = StepStatus::Passed;
        dave.steps[3].passed = true;
        dave.bonus = 10;
        dave.advanced_build = AdvancedBuild::Ok;
        let file = summary_of(&c);
        let csv = summary_csv(&file);
        let header = csv.lines().next().unwrap();
        assert_eq!(header, "name,build,score,max_score,01,02,03,09,bonus");
        assert!(csv.lines().nth(1).unwrap().ends_with(",pass,10"), "{csv}");
        assert!(csv.lines().nth(2).unwrap().ends_with(",n/a,0"), "{csv}");
        let md = summary_md(&file);
        assert!(md.contains("| 30/30 +10 |") && md.contains(" – |"), "{md}");
        // Without attempts the columns are exactly the core ones.
        let plain = summary_csv(&summary_of(&class()));
        assert!(plain.starts_with("name,build,score,max_score,01,02,03\r\n"));
    }

    #[test]
    fn reads_back_and_writes_identically() {
        let mut c = class();
        c.submissions[0].seconds = 0.1 + 0.2;
        c.submissions[1].seconds = 1.0 / 3.0;
        c.submissions[2].seconds = f64::NAN;
        let text = summary_json(&c);
        let file = read_summary(&text).unwrap();
        assert_eq!(file, summary_of(&c));
        assert_eq!(summary_json_from(&file), text);
        assert_eq!(file.submissions[0].seconds, 0.3);
        assert_eq!(file.submissions[1].seconds, 0.333);
        assert_eq!(file.submissions[2].seconds, 0.0);

        let other = text.replace(GRADE_SCHEMA, "retry-lab.grade/0");
        assert!(read_summary(&other).unwrap_err().contains("schema"));
        let extra = text.replacen("\"seed\"", "\"clauses\": [],\n  \"seed\"", 1);
        assert!(read_summary(&extra).is_err());
        assert!(read_summary("not json").is_err());
    }

    /// A step keeps the ids of the clauses it failed, in the suite's order,
    /// and a known mistake when one is named; both read back and write
    /// identically, and a summary without them reads as before.
    #[test]
    fn failed_clauses_and_mistakes_read_back_and_write_identically() {
        let mut c = class();
        c.submissions[1].steps[1].clauses[0].status = ClauseStatus::Failed;
        let mut file = summary_of(&c);
        let bob = &file.submissions[1];
        assert_eq!(
            bob.steps[1].failed,
            ["02/get-is-safe", "02/post-with-key-is-safe"]
        );
        assert!(bob.steps[2].failed.is_empty(), "not started is no failure");
        // The class report's one known mistake, and only it, is carried.
        assert_eq!(bob.steps[1].mistake.as_deref(), Some("02-post-exact-case"));
        let named = file
            .submissions
            .iter()
            .flat_map(|s| &s.steps)
            .filter(|x| x.mistake.is_some())
            .count();
        assert_eq!(named, 1);
        file.submissions[1].steps[1].mistake = Some("02-head-forgotten".into());
        let text = summary_json_from(&file);
        assert!(
            text.contains("\"mistake\": \"02-head-forgotten\""),
            "{text}"
        );
        assert_eq!(read_summary(&text).unwrap(), file);
        assert_eq!(summary_json_from(&read_summary(&text).unwrap()), text);
        let plain = summary_json(&class());
        assert_eq!(text.matches("\"failed\": [").count(), 1);
        assert_eq!(plain.matches("\"mistake\"").count(), 1, "{plain}");
        // A summary written before failed clauses were kept.
        let old = strip_failed(&text);
        assert!(
            !old.contains("\"failed\": [") && !old.contains("mistake"),
            "{old}"
        );
        let read = read_summary(&old).unwrap();
        assert!(read.submissions[1].steps[1].failed.is_empty());
        assert!(read.submissions[1].steps[1].mistake.is_none());
    }

    /// A step whose failed clause faulted (time-out, crash, flood, …) says
    /// how; a wrong answer, a panic or a passing clause's fault does not.
    #[test]
    fn a_step_names_the_first_fault_among_its_failed_clauses() {
        let fault_of = |kinds: &[(ClauseStatus, Option<FaultKind>)]| {
            let mut c = class();
            let step = &mut c.submissions[1].steps[1];
            step.clauses.truncate(1);
            let template = step.clauses[0].clone();
            step.clauses = kinds
                .iter()
                .map(|(status, fault)| ClauseReport {
                    status: *status,
                    fault: *fault,
                    ..template.clone()
                })
                .collect();
            summary_of(&c).submissions[1].steps[1].fault
        };
        let failed = ClauseStatus::Failed;
        assert_eq!(fault_of(&[(failed, Some(FaultKind::Wrong))]), None);
        assert_eq!(fault_of(&[(failed, Some(FaultKind::Panicked))]), None);
        assert_eq!(
            fault_of(&[
                (failed, Some(FaultKind::Wrong)),
                (failed, Some(FaultKind::TimedOut)),
                (failed, Some(FaultKind::Crashed)),
            ]),
            Some(FaultKind::TimedOut)
        );
        assert_eq!(
            fault_of(&[(ClauseStatus::Passed, Some(FaultKind::Flooded))]),
            None
        );
        for kind in [
            FaultKind::Runaway,
            FaultKind::Crashed,
            FaultKind::Flooded,
            FaultKind::Forged,
            FaultKind::NotRun,
        ] {
            assert_eq!(fault_of(&[(failed, Some(kind))]), Some(kind));
        }
        let mut c = class();
        c.submissions[1].steps[1].clauses[1].fault = Some(FaultKind::Flooded);
        let text = summary_json(&c);
        assert!(text.contains("\"fault\": \"flooded\""), "{text}");
        assert_eq!(summary_json_from(&read_summary(&text).unwrap()), text);
    }

    /// `text` without its steps' `failed` and `mistake` members.
    fn strip_failed(text: &str) -> String {
        let mut v: Value = serde_json::from_str(text).unwrap();
        for s in v["submissions"].as_array_mut().unwrap() {
            for step in s["steps"].as_array_mut().unwrap() {
                step.as_object_mut().unwrap().remove("failed");
                step.as_object_mut().unwrap().remove("mistake");
            }
        }
        serde_json::to_string_pretty(&v).unwrap()
    }

    #[test]
    fn csv_quotes_names_and_disarms_formulas() {
        let csv = summary_csv(&summary_of(&class()));
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines[0], "name,build,score,max_score,01,02,03");
        assert_eq!(lines[1], "alice,ok,30,30,pass,pass,pass");
        assert_eq!(
            lines[2],
            "\"'-bob, \"\"the\"\" | 2nd\",ok,10,30,pass,fail,todo"
        );
        assert_eq!(lines[3], "carol,failed,0,30,error,error,error");
        assert_eq!(lines.len(), 4);

        assert_eq!(csv_cell(&csv_name("=SUM(A1)")), "'=SUM(A1)");
        assert_eq!(csv_cell(&csv_name("@x")), "'@x");
        assert_eq!(csv_cell(&csv_name("+1")), "'+1");
        assert_eq!(csv_cell(&csv_name("a=b")), "a=b");
        assert_eq!(csv_cell("two\nlines"), "\"two\nlines\"");
        assert_eq!(csv_cell("cr\ronly"), "\"cr\ronly\"");
        assert_eq!(csv_cell("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_cell(&csv_name("\tx")), "'\tx");
        assert_eq!(csv_cell(&csv_name("\rx")), "\"'\rx\"");
        assert_eq!(csv_cell(&csv_name("-1,2")), "\"'-1,2\"");
    }

    /// Splits RFC 4180 text into records of fields, refusing anything else:
    /// a bare CR or LF outside quotes, a quote inside an unquoted field,
    /// text after a closing quote, a last record without its CRLF.
    fn rfc4180(text: &str) -> Result<Vec<Vec<String>>, String> {
        let (mut records, mut record, mut field) = (Vec::new(), Vec::new(), String::new());
        let mut chars = text.chars().peekable();
        let mut quoted = false;
        let mut started = false;
        while let Some(c) = chars.next() {
            match (quoted, c) {
                (true, '"') if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                (true, '"') => {
                    quoted = false;
                    if !matches!(chars.peek(), Some(',' | '\r') | None) {
                        return Err(format!("text after a closing quote in {field:?}"));
                    }
                }
                (true, c) => field.push(c),
                (false, '"') if !started => quoted = true,
                (false, '"') => return Err(format!("a quote inside {field:?}")),
                (false, ',') => {
                    record.push(std::mem::take(&mut field));
                    started = false;
                    continue;
                }
                (false, '\r') if chars.peek() == Some(&'\n') => {
                    chars.next();
                    record.push(std::mem::take(&mut field));
                    records.push(std::mem::take(&mut record));
                    started = false;
                    continue;
                }
                (false, '\r' | '\n') => return Err("a bare line end".into()),
                (false, c) => field.push(c),
            }
            started = true;
        }
        if quoted || started || !record.is_empty() {
            return Err("the last record does not end in CRLF".into());
        }
        Ok(records)
    }

    #[test]
    fn csv_is_rfc_4180_with_crlf_line_ends() {
        let mut c = class();
        c.submissions[2].name = "=carol\r\n\"2\",\n@3".to_string();
        let csv = summary_csv(&summary_of(&c));
        assert!(csv.ends_with("\r\n"));
        // Four records; the name's line ends are shown escaped, on its line.
        assert_eq!(csv.matches("\r\n").count(), 4, "{csv:?}");
        let records = rfc4180(&csv).unwrap_or_else(|e| panic!("{e} in {csv:?}"));
        assert_eq!(records.len(), 4);
        assert!(records.iter().all(|r| r.len() == 7), "{records:?}");
        let names: Vec<&str> = records.iter().map(|r| r[0].as_str()).collect();
        assert_eq!(
            names,
            [
                "name",
                "alice",
                "'-bob, \"the\" | 2nd",
                "'=carol\\r\\n\"2\",\\n@3"
            ]
        );
        assert!(csv.contains("\"'=carol\\r\\n\"\"2\"\",\\n@3\",failed,"));
        for bad in ["a\nb\r\n", "a\"b\r\n", "\"a\"b\r\n", "a,b", "a\rb\r\n"] {
            assert!(rfc4180(bad).is_err(), "accepted {bad:?}");
        }
    }

    /// Control and bidirectional characters in a name are shown escaped in
    /// the CSV and the Markdown; summary.json keeps the name exactly.
    #[test]
    fn names_show_escaped_in_csv_and_markdown_and_exact_in_json() {
        let mut c = class();
        c.submissions[2].name = HOSTILE.to_string();
        let file = summary_of(&c);

        let csv = summary_csv(&file);
        assert_eq!(raw_hidden(&csv), [], "{csv:?}");
        assert_eq!(
            csv.lines().nth(3),
            Some(
                "\\u{1b}[2J\\u{7}王小明\\u{202e}\\u{2066}\\u{85}evil,failed,0,30,error,error,error"
            )
        );
        let records = rfc4180(&csv).unwrap_or_else(|e| panic!("{e} in {csv:?}"));
        assert_eq!(records[3][0], HOSTILE_SHOWN);
        // Disarming looks at what is shown: a tab shown as `\t` starts no
        // formula.
        let mut formula = class();
        formula.submissions[2].name = "\t=1+1".to_string();
        let csv = summary_csv(&summary_of(&formula));
        assert_eq!(
            csv.lines().nth(3).unwrap().split(',').next(),
            Some("\\t=1+1")
        );

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

        let json = summary_json(&c);
        let v: Value = serde_json::from_str(&json).unwrap();
        assert_eq!(v["submissions"][2]["name"], HOSTILE);
        assert_eq!(read_summary(&json).unwrap().submissions[2].name, HOSTILE);
    }

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

    #[test]
    fn an_empty_class_still_has_headers() {
        let mut c = class();
        c.submissions.clear();
        let file = summary_of(&c);
        assert_eq!(summary_csv(&file), "name,build,score,max_score\r\n");
        assert!(
            summary_md(&file).starts_with("| Submission | Build | Score |\n| --- | --- | ---: |\n")
        );
        assert_eq!(read_summary(&summary_json(&c)).unwrap(), file);
    }
}
