//! The gradebooks against the columns each LMS reads, as written by hand
//! in `fixtures/gradebook/` (not taken from this writer), read back with
//! an independent RFC 4180 reader.

use super::*;
use serde_json::Value;

fn fixture(name: &str) -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/gradebook/");
    let text = std::fs::read_to_string(format!("{path}{name}")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Strict RFC 4180 with CRLF record ends: records of fields.
fn rfc4180(text: &str) -> Vec<Vec<String>> {
    assert!(text.ends_with("\r\n"), "{text:?}");
    let mut records = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let mut record = Vec::new();
        loop {
            let mut field = String::new();
            if let Some(quoted) = rest.strip_prefix('"') {
                let mut chars = quoted.char_indices();
                let end = loop {
                    let (i, c) = chars.next().expect("a closed quote");
                    if c == '"' {
                        if quoted[i + 1..].starts_with('"') {
                            chars.next();
                            field.push('"');
                        } else {
                            break i + 1;
                        }
                    } else {
                        field.push(c);
                    }
                };
                rest = &quoted[end..];
            } else {
                let end = rest.find([',', '\r']).expect("a field's end");
                field.push_str(&rest[..end]);
                assert!(!field.contains(['"', '\n']), "{field:?}");
                rest = &rest[end..];
            }
            record.push(field);
            if let Some(r) = rest.strip_prefix(',') {
                rest = r;
            } else {
                rest = rest.strip_prefix("\r\n").expect("CRLF after a field");
                break;
            }
        }
        records.push(record);
    }
    records
}

fn rows() -> Vec<GradebookRow> {
    vec![
        GradebookRow {
            name: "Doe, Jane \"JJ\"".into(),
            id: "101".into(),
            sis_user_id: "S-101".into(),
            sis_login_id: "jdoe".into(),
            section: "Sec A".into(),
            moodle_id: "jane@example.edu".into(),
            points: 8,
        },
        GradebookRow {
            name: "=HYPERLINK(\"http://x\")".into(),
            id: "-5".into(),
            sis_user_id: "+1-555".into(),
            sis_login_id: "@evil".into(),
            section: "王小明\nsection".into(),
            moodle_id: "=1+1".into(),
            points: 3,
        },
    ]
}

#[test]
fn canvas_has_the_columns_canvas_reads_and_its_points_possible_row() {
    let want = fixture("canvas.json");
    let csv = canvas_csv("Retry lab (12345)", 8, &rows());
    let records = rfc4180(&csv);
    let mut header: Vec<String> = want["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap().to_string())
        .collect();
    header.push("Retry lab (12345)".into());
    assert_eq!(records[0], header);
    let pp = &want["points_possible_row"];
    assert_eq!(records[1][0], pp["first_cell"].as_str().unwrap());
    assert!(records[1][1..5].iter().all(String::is_empty));
    assert_eq!(records[1][5], "8");
    assert_eq!(
        records[2],
        ["Doe, Jane \"JJ\"", "101", "S-101", "jdoe", "Sec A", "8"]
    );
    // Formulas disarmed; a plain number (an ID) left as it is; line ends
    // and non-ASCII kept inside quotes.
    assert_eq!(
        records[3],
        [
            "'=HYPERLINK(\"http://x\")",
            "-5",
            "'+1-555",
            "'@evil",
            "王小明\nsection",
            "3"
        ]
    );
    assert_eq!(records.len(), 4);
    assert!(records.iter().all(|r| r.len() == header.len()));
}

#[test]
fn moodle_has_an_identifier_column_and_the_grade() {
    let want = fixture("moodle.json");
    let ids = want["identifier_columns"].as_object().unwrap();
    for id in ["email", "username", "idnumber"] {
        assert!(ids.contains_key(id), "{id} is not a Moodle identifier");
        let records = rfc4180(&moodle_csv(id, "Retry lab", &rows()));
        assert_eq!(records[0], [id, "Retry lab"]);
        assert_eq!(records[1], ["jane@example.edu", "8"]);
        assert_eq!(records[2], ["'=1+1", "3"]);
        assert_eq!(records.len(), 3);
    }
}

#[test]
fn cells_are_disarmed_and_quoted() {
    for (text, want) in [
        ("=SUM(A1)", "'=SUM(A1)"),
        ("-1", "-1"),
        ("+2.5", "+2.5"),
        ("-1,2", "\"'-1,2\""),
        ("-", "'-"),
        ("1.", "1."),
        ("\tx", "'\tx"),
        ("a\"b", "\"a\"\"b\""),
        ("plain", "plain"),
        ("", ""),
    ] {
        assert_eq!(cell(text), want, "{text:?}");
    }
}
