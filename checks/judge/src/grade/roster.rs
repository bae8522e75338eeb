//! `grade --roster FILE`: who each submission folder is in the LMS.
//!
//! A roster is a CSV file with a header row. Columns are found by name,
//! in any order, case and spaces or underscores not minding (`SIS User ID`
//! is `sis_user_id`); other columns are ignored, so a Canvas gradebook
//! export with a `folder` column added is a roster. `folder` is required;
//! the others are optional, but at least one identity column must be
//! there: `id`, `sis_user_id`, `sis_login_id` (Canvas) or `email`,
//! `username`, `idnumber` (Moodle). `name` (or `student`), `section`.
//! A row with an empty `folder` is a student without a submission; the
//! row Canvas's export calls `Points Possible` is skipped.

use super::csv_read::{read_text, records, MAX_BYTES};
use crate::catalog::{t, tr};
use crate::report::gradebook::GradebookRow;
use std::collections::BTreeMap;
use std::path::Path;

/// One student of the roster.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Student {
    pub folder: String,
    pub name: String,
    pub id: String,
    pub sis_user_id: String,
    pub sis_login_id: String,
    pub section: String,
    pub email: String,
    pub username: String,
    pub idnumber: String,
}

/// A roster read from its file.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Roster {
    pub students: Vec<Student>,
    /// Canvas's identity columns are there (`id`, `sis_user_id` or
    /// `sis_login_id`).
    pub canvas: bool,
    /// The Moodle identifier column, the first of `email`, `username`,
    /// `idnumber` the roster has.
    pub moodle: Option<&'static str>,
}

/// The column a header cell names, if the kit knows it.
fn column(header: &str) -> Option<&'static str> {
    let norm: String = header
        .trim()
        .to_lowercase()
        .chars()
        .map(|c| if c == ' ' || c == '-' { '_' } else { c })
        .collect();
    Some(match norm.as_str() {
        "folder" => "folder",
        "name" | "student" => "name",
        "id" => "id",
        "sis_user_id" => "sis_user_id",
        "sis_login_id" => "sis_login_id",
        "section" => "section",
        "email" | "email_address" => "email",
        "username" => "username",
        "idnumber" | "id_number" => "idnumber",
        _ => return None,
    })
}

/// Reads and checks a roster: one-line errors name the file and line.
pub(crate) fn read(path: &Path) -> Result<Roster, String> {
    let text = read_text(path, MAX_BYTES)?;
    let recs = records(path, &text)?;
    let shown = super::discovery::shown_path(path);
    let err = |line: usize, why: String| {
        tr(
            "error.csv_line",
            &[("path", &shown), ("line", &line), ("why", &why)],
        )
    };
    let Some(((header_line, header), rows)) = recs.split_first() else {
        return Err(err(1, t("error.roster_empty")));
    };
    let mut at: BTreeMap<&'static str, usize> = BTreeMap::new();
    for (i, h) in header.iter().enumerate() {
        if let Some(name) = column(h) {
            if at.insert(name, i).is_some() {
                return Err(err(
                    *header_line,
                    tr("error.roster_column_twice", &[("column", &name)]),
                ));
            }
        }
    }
    if !at.contains_key("folder") {
        return Err(err(*header_line, t("error.roster_no_folder")));
    }
    let canvas = ["id", "sis_user_id", "sis_login_id"]
        .iter()
        .any(|c| at.contains_key(c));
    let moodle = ["email", "username", "idnumber"]
        .into_iter()
        .find(|c| at.contains_key(c));
    if !canvas && moodle.is_none() {
        return Err(err(*header_line, t("error.roster_no_identity")));
    }
    let mut students = Vec::new();
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    for (line, row) in rows {
        if row.len() != header.len() {
            return Err(err(
                *line,
                tr(
                    "error.roster_fields",
                    &[("got", &row.len()), ("want", &header.len())],
                ),
            ));
        }
        let get = |c: &str| {
            at.get(c)
                .map(|&i| row[i].trim().to_string())
                .unwrap_or_default()
        };
        let s = Student {
            folder: get("folder"),
            name: get("name"),
            id: get("id"),
            sis_user_id: get("sis_user_id"),
            sis_login_id: get("sis_login_id"),
            section: get("section"),
            email: get("email"),
            username: get("username"),
            idnumber: get("idnumber"),
        };
        if s.folder.is_empty() && s.name == "Points Possible" {
            continue;
        }
        if !s.folder.is_empty() {
            if let Some(first) = seen.insert(s.folder.clone(), *line) {
                return Err(err(
                    *line,
                    tr(
                        "error.roster_folder_twice",
                        &[
                            ("folder", &crate::visible::line(&s.folder)),
                            ("first", &first),
                        ],
                    ),
                ));
            }
        }
        students.push(s);
    }
    Ok(Roster {
        students,
        canvas,
        moodle,
    })
}

/// How a class and a roster match.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Matched {
    /// Gradebook rows, in roster order.
    pub rows: Vec<GradebookRow>,
    /// Submission names with no roster row.
    pub no_roster_row: Vec<String>,
    /// Roster students (their folder, else their name) with no submission.
    pub no_submission: Vec<String>,
}

/// Matches `class` (each submission's name and points) to the roster.
/// `whole` is every submission name of the class (all shards), so that a
/// shard does not list its classmates as missing.
pub(crate) fn matched(roster: &Roster, class: &BTreeMap<String, u32>, whole: &[String]) -> Matched {
    let mut out = Matched::default();
    let mut used = std::collections::BTreeSet::new();
    for s in &roster.students {
        let Some(&points) = class.get(&s.folder) else {
            if !whole.contains(&s.folder) {
                out.no_submission.push(if s.folder.is_empty() {
                    s.name.clone()
                } else {
                    s.folder.clone()
                });
            }
            continue;
        };
        used.insert(s.folder.clone());
        let moodle_id = match roster.moodle {
            Some("email") => s.email.clone(),
            Some("username") => s.username.clone(),
            Some(_) => s.idnumber.clone(),
            None => String::new(),
        };
        out.rows.push(GradebookRow {
            name: s.name.clone(),
            id: s.id.clone(),
            sis_user_id: s.sis_user_id.clone(),
            sis_login_id: s.sis_login_id.clone(),
            section: s.section.clone(),
            moodle_id,
            points,
        });
    }
    out.no_roster_row = class
        .keys()
        .filter(|n| !used.contains(*n))
        .cloned()
        .collect();
    out
}
