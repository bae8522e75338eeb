//! The gradebooks an LMS imports: `gradebook/canvas.csv` and
//! `gradebook/moodle.csv`, from rows the grader matched to a roster.
//!
//! Both are RFC 4180 with CRLF record ends, UTF-8 without a byte order
//! mark. Every cell is quoted when it holds a comma, a double quote, a CR
//! or an LF. A text cell that starts like a spreadsheet formula (`=`, `+`,
//! `-`, `@`, tab or CR) gets a leading `'`, as OWASP advises, unless the
//! whole cell is a plain decimal number (`-3`, `+1.5`), which no
//! spreadsheet runs and an ID may be.
//!
//! Canvas (see `fixtures/gradebook/canvas.json`): `Student`, `ID`,
//! `SIS User ID`, `SIS Login ID`, `Section`, then the assignment's column;
//! the second row is Canvas's own `Points Possible` row. Moodle (see
//! `fixtures/gradebook/moodle.json`): the identifier column (`email`,
//! `username` or `idnumber`) and the assignment's column.

/// One student of the roster who has a graded submission.
#[derive(Debug, Clone, PartialEq)]
pub struct GradebookRow {
    pub name: String,
    pub id: String,
    pub sis_user_id: String,
    pub sis_login_id: String,
    pub section: String,
    /// The Moodle identifier's value (empty when the roster has none).
    pub moodle_id: String,
    /// The points the LMS records: the core score after any penalty,
    /// plus bonus points.
    pub points: u32,
}

const CRLF: &str = "\r\n";

/// `gradebook/canvas.csv`.
pub fn canvas_csv(assignment: &str, points_possible: u32, rows: &[GradebookRow]) -> String {
    let mut out = String::new();
    record(
        &mut out,
        &[
            "Student",
            "ID",
            "SIS User ID",
            "SIS Login ID",
            "Section",
            assignment,
        ],
    );
    record(
        &mut out,
        &[
            "    Points Possible",
            "",
            "",
            "",
            "",
            &points_possible.to_string(),
        ],
    );
    for r in rows {
        record(
            &mut out,
            &[
                &r.name,
                &r.id,
                &r.sis_user_id,
                &r.sis_login_id,
                &r.section,
                &r.points.to_string(),
            ],
        );
    }
    out
}

/// `gradebook/moodle.csv`: `identifier` names the column (`email`,
/// `username` or `idnumber`).
pub fn moodle_csv(identifier: &str, assignment: &str, rows: &[GradebookRow]) -> String {
    let mut out = String::new();
    record(&mut out, &[identifier, assignment]);
    for r in rows {
        record(&mut out, &[&r.moodle_id, &r.points.to_string()]);
    }
    out
}

fn record(out: &mut String, cells: &[&str]) {
    let cells: Vec<String> = cells.iter().map(|c| cell(c)).collect();
    out.push_str(&cells.join(","));
    out.push_str(CRLF);
}

/// One cell, disarmed and quoted.
pub fn cell(text: &str) -> String {
    use super::summary::csv::{csv_cell, csv_name};
    if is_number(text) {
        csv_cell(text)
    } else {
        csv_cell(&csv_name(text))
    }
}

/// A plain decimal number: an optional sign, digits, at most one point.
fn is_number(text: &str) -> bool {
    let body = text.strip_prefix(['+', '-']).unwrap_or(text);
    let (whole, frac) = body.split_once('.').unwrap_or((body, ""));
    !whole.is_empty()
        && whole.bytes().all(|b| b.is_ascii_digit())
        && frac.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests;
