//! Reads the small CSV files an instructor hands `grade` (`--roster`,
//! `--submitted-at`): RFC 4180 fields, quoted or not, records ending in
//! CRLF or LF, a UTF-8 byte order mark (as Excel writes) ignored, blank
//! lines skipped. A file is read only when it is a regular file of at most
//! [`MAX_BYTES`]; anything else is a one-line error naming the file and,
//! for a bad record, its line.

use crate::catalog::tr;
use std::path::Path;

/// Most bytes of one instructor's CSV (a roster of 100,000 students fits).
pub(super) const MAX_BYTES: u64 = 16 << 20;

/// A record of fields and the line it starts on (1-based).
pub(super) type Record = (usize, Vec<String>);

/// A file's text, or a one-line error naming it.
pub(super) fn read_text(path: &Path, max: u64) -> Result<String, String> {
    let shown = super::discovery::shown_path(path);
    let bad = |why: String| tr("error.input_file", &[("path", &shown), ("why", &why)]);
    let meta = std::fs::metadata(path).map_err(|e| bad(e.to_string()))?;
    if !meta.is_file() {
        return Err(bad(crate::catalog::t("error.input_not_file")));
    }
    if meta.len() > max {
        return Err(bad(tr("error.input_too_big", &[("max", &max)])));
    }
    let bytes = std::fs::read(path).map_err(|e| bad(e.to_string()))?;
    let text =
        String::from_utf8(bytes).map_err(|_| bad(crate::catalog::t("error.input_not_utf8")))?;
    Ok(text.strip_prefix('\u{feff}').unwrap_or(&text).to_string())
}

/// The records of `text` (from `path`, for errors).
pub(super) fn records(path: &Path, text: &str) -> Result<Vec<Record>, String> {
    let line_error = |line: usize, key: &str| {
        tr(
            "error.csv_line",
            &[
                ("path", &super::discovery::shown_path(path)),
                ("line", &line),
                ("why", &crate::catalog::t(key)),
            ],
        )
    };
    let mut out = Vec::new();
    let (mut record, mut field) = (Vec::new(), String::new());
    let (mut line, mut start) = (1usize, 1usize);
    let (mut quoted, mut was_quoted) = (false, false);
    let mut chars = text.chars().peekable();
    let mut end_record = |record: &mut Vec<String>, field: &mut String, start: usize| {
        record.push(std::mem::take(field));
        let done = std::mem::take(record);
        if !(done.len() == 1 && done[0].is_empty()) {
            out.push((start, done));
        }
    };
    while let Some(c) = chars.next() {
        if quoted {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                '"' => {
                    quoted = false;
                    if !matches!(chars.peek(), Some(',' | '\r' | '\n') | None) {
                        return Err(line_error(line, "error.csv_after_quote"));
                    }
                }
                '\n' => {
                    line += 1;
                    field.push(c);
                }
                c => field.push(c),
            }
            continue;
        }
        match c {
            '"' if field.is_empty() && !was_quoted => {
                quoted = true;
                was_quoted = true;
            }
            '"' => return Err(line_error(line, "error.csv_stray_quote")),
            ',' => {
                record.push(std::mem::take(&mut field));
                was_quoted = false;
            }
            '\r' if chars.peek() == Some(&'\n') => {}
            '\r' | '\n' => {
                end_record(&mut record, &mut field, start);
                was_quoted = false;
                line += 1;
                start = line;
            }
            c => field.push(c),
        }
    }
    if quoted {
        return Err(line_error(start, "error.csv_open_quote"));
    }
    if !field.is_empty() || !record.is_empty() || was_quoted {
        end_record(&mut record, &mut field, start);
    }
    Ok(out)
}
