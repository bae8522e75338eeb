//! The lines a new step adds to the kit's shared files: each one put right
//! after the line of the last registered step that it follows, in that
//! line's indentation. Every edit names the one line it follows exactly; a
//! file without that line (or with it twice) is refused, never guessed at.

use serde_json::Value;

/// `text` with `new` put on its own line after the one line whose trimmed
/// text is `anchor`; `None` unless exactly one line is.
pub(super) fn after_line(text: &str, anchor: &str, new: &str) -> Option<String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut found = lines.iter().enumerate().filter(|(_, l)| l.trim() == anchor);
    let (at, line) = found.next()?;
    if found.next().is_some() || !line.ends_with('\n') {
        return None;
    }
    let indent = &line[..line.len() - line.trim_start().len()];
    let mut out: String = lines[..=at].concat();
    out.push_str(&format!("{indent}{new}\n"));
    out.push_str(&lines[at + 1..].concat());
    Some(out)
}

/// The Rust sources that list every advanced step, as (file, edits): each
/// edit is (the last step's line, the new step's line after it).
pub(super) fn rust_lines(last: &str, step: &str, name: &str) -> Vec<(&'static str, Vec<Line>)> {
    let pair = |old: &str| {
        let new = old
            .replace(&format!("S{last}"), &format!("S{step}"))
            .replace(&format!("s{last}"), &format!("s{step}"))
            .replace(&format!("\"{last}\""), &format!("\"{step}\""));
        Line::After(old.to_string(), new)
    };
    vec![
        (
            "checks/judge/src/suites/mod.rs",
            vec![Line::After(
                registered_line(last),
                registry_line(step, name, None),
            )],
        ),
        (
            "checks/scripts/src/lib.rs",
            vec![pair(&format!("\"{last}\" => s{last}, S{last};"))],
        ),
    ]
}

/// One edit of a shared source file.
pub(super) enum Line {
    /// Put the second line after the one line that reads as the first.
    After(String, String),
}

impl Line {
    pub(super) fn apply(&self, text: &str) -> Option<String> {
        match self {
            Line::After(anchor, new) => after_line(text, anchor, new),
        }
    }
}

/// A step's line in the `steps!` registry, with its demonstration if it
/// has one.
fn registry_line(step: &str, items: &str, live: Option<lab_wire::Live>) -> String {
    let live = live.map_or(String::new(), |l| format!(", live: {l:?}"));
    format!("(\"{step}\", \"{items}\", Advanced, s{step}{live}),")
}

/// The line the registry has for `step`.
fn registered_line(step: &str) -> String {
    let entry = lab_judge::suites::entry(step);
    registry_line(entry.id, entry.items, entry.live)
}

/// `fixtures/submissions/expected.json` (one submission a line) with the
/// new step's status in every entry: `not-attempted` without an advanced
/// file, `not-built` when it does not compile, otherwise `passed` when the
/// step's section is the reference's and `not-started` when it is the
/// stubs'.
pub(super) fn expected(text: &str, step: &str) -> Option<String> {
    let mut out = String::new();
    for line in text.split_inclusive('\n') {
        let Some(at) = line.find("\"steps\": {") else {
            out.push_str(line);
            continue;
        };
        let (_, entry) = line.trim().trim_end_matches(',').split_once(':')?;
        let entry: Value = serde_json::from_str(entry).ok()?;
        let status = status_in(&entry, step)?;
        let close = at + line[at..].find('}')?;
        out.push_str(&line[..close]);
        out.push_str(&format!(", \"{step}\": \"{status}\""));
        out.push_str(&line[close..]);
    }
    Some(out)
}

/// What the sample submission `entry` comes to on a new step.
fn status_in(entry: &Value, step: &str) -> Option<&'static str> {
    Some(match entry["advanced_build"].as_str()? {
        "absent" => "not-attempted",
        "failed" => "not-built",
        _ => {
            let make = &entry["make"];
            let stubs = make["advanced"].as_str() == Some("fixtures/pristine/advanced.rs");
            let taken = make["sections"]
                .as_array()
                .is_some_and(|s| s.iter().any(|s| s.as_str() == Some(step)));
            if stubs && !taken {
                "not-started"
            } else {
                "passed"
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_goes_after_its_one_anchor_in_its_indentation() {
        let text = "a {\n    x,\n    y,\n}\n";
        assert_eq!(
            after_line(text, "y,", "z,").as_deref(),
            Some("a {\n    x,\n    y,\n    z,\n}\n")
        );
        assert_eq!(after_line("x,\nx,\n", "x,", "z,"), None);
        assert_eq!(after_line(text, "w,", "z,"), None);
    }

    #[test]
    fn the_sample_class_gains_the_new_step() {
        let text = concat!(
            "{\n",
            "  \"a\": {\"build\": \"ok\", \"advanced_build\": \"absent\", \"steps\": {\"13\": \"not-attempted\"}},\n",
            "  \"b\": {\"make\": {\"advanced\": \"solutions/advanced.rs\"}, \"build\": \"ok\", \"advanced_build\": \"ok\", \"steps\": {\"13\": \"passed\"}},\n",
            "  \"c\": {\"make\": {\"advanced\": \"fixtures/pristine/advanced.rs\", \"sections\": [\"09\"]}, \"build\": \"ok\", \"advanced_build\": \"ok\", \"steps\": {\"13\": \"not-started\"}},\n",
            "  \"d\": {\"build\": \"ok\", \"advanced_build\": \"failed\", \"steps\": {\"13\": \"not-built\"}}\n",
            "}\n"
        );
        let out = expected(text, "14").unwrap();
        let doc: Value = serde_json::from_str(&out).unwrap();
        let got: Vec<&str> = ["a", "b", "c", "d"]
            .iter()
            .map(|k| doc[k]["steps"]["14"].as_str().unwrap())
            .collect();
        assert_eq!(got, ["not-attempted", "passed", "not-started", "not-built"]);
        assert_eq!(out.lines().count(), text.lines().count());
    }

    #[test]
    fn the_kit_s_shared_files_have_every_line_an_edit_follows() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let last = lab_judge::suites::REGISTRY.last().unwrap().id;
        let next = format!("{:02}", last.parse::<u32>().unwrap() + 1);
        for (file, lines) in rust_lines(last, &next, "a_name") {
            let text = std::fs::read_to_string(root.join(file)).unwrap();
            for line in lines {
                assert!(line.apply(&text).is_some(), "{file}");
            }
        }
    }
}
