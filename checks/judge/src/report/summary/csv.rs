//! `summary.csv`, from a [`SummaryFile`].
//!
//! The CSV follows RFC 4180: every record, the header's too, ends in CRLF;
//! a field holding a comma, a double quote, a CR or an LF is put in double
//! quotes, its double quotes doubled. A name that starts like a spreadsheet
//! formula (`=`, `+`, `-`, `@`, tab or carriage return) gets a leading `'`
//! first, so no spreadsheet evaluates it (the other fields are the kit's
//! own words and numbers). Step columns are the first submission's steps; a
//! submission lacking one of them has an empty cell there. Names are shown
//! as one visible line first ([`crate::visible::line`]).
//!
//! When a submission has a late record (`grade --due`), three last columns
//! follow: `score_before_penalty`, `penalty` and `late_by` (seconds, empty
//! when its time is unknown); `score` is then after the penalty.

use super::super::outside::visible;
use super::super::{Build, StepStatus};
use super::{has_advanced, step_columns, SummaryFile};

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
    let late = file.submissions.iter().any(|s| s.late.is_some());
    if late {
        out.push_str(",score_before_penalty,penalty,late_by");
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
        if late {
            match &s.late {
                Some(l) => out.push_str(&format!(
                    ",{},{},{}",
                    l.score_before_penalty,
                    l.penalty,
                    l.late_by.map_or(String::new(), |x| x.to_string())
                )),
                None => out.push_str(&format!(",{},0,", s.score)),
            }
        }
        out.push_str(CRLF);
    }
    out
}

/// RFC 4180's line end.
const CRLF: &str = "\r\n";

fn build_word(build: Build) -> &'static str {
    match build {
        Build::Ok => "ok",
        Build::Failed => "failed",
        Build::Error => "error",
    }
}

/// A name a spreadsheet will not run as a formula.
pub(in super::super) fn csv_name(name: &str) -> String {
    if name.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{name}")
    } else {
        name.to_string()
    }
}

/// RFC 4180: quoted (quotes doubled) when holding a comma, quote, CR or LF.
pub(in super::super) fn csv_cell(text: &str) -> String {
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::test_support::{class, raw_hidden, HOSTILE, HOSTILE_SHOWN};
    use super::super::summary_of;
    use super::*;

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
    /// the CSV.
    #[test]
    fn names_show_escaped() {
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
    }
}
