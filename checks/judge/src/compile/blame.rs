//! What rustc said about a unit, read from its diagnostics as data (the
//! `message` of cargo's `compiler-message` lines: one JSON object a line):
//! whose fault its errors are, decided from their fields, and the text a
//! person reads, which is each diagnostic's `rendered` field (the exact
//! text rustc's human format prints) with the closing tally turned into
//! cargo's line.

use serde::Deserialize;

/// One of the compiler runs a build of learner code makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Unit {
    /// The learner's crate, `student/src/lib.rs`.
    Student,
    /// The core runner's `main`, linking the learner's crate.
    CoreMain,
    /// The advanced runner, with the learner's advanced.rs inside.
    Advanced,
}

impl Unit {
    /// The package and target cargo names in "could not compile".
    fn cargo_name(self) -> &'static str {
        match self {
            Unit::Student => "`student` (lib)",
            Unit::CoreMain => "`lab-runner` (bin \"lab-runner\")",
            Unit::Advanced => "`lab-runner-advanced` (bin \"lab-runner-advanced\")",
        }
    }
}

/// rustc's codes for a prebuilt library it could not use (unreadable,
/// invalid, or built by another rustc): no code of a learner's causes them.
const KIT_CODES: [&str; 5] = ["E0786", "E0514", "E0460", "E0461", "E0462"];

/// One diagnostic (or one of its children), with the fields the judge reads.
#[derive(Debug, Deserialize)]
struct Diagnostic {
    #[serde(rename = "$message_type")]
    message_type: Option<String>,
    message: String,
    code: Option<Code>,
    /// `error`, `warning`, `note`, `help`, `failure-note`, or `error:
    /// internal compiler error`.
    level: String,
    #[serde(default)]
    spans: Vec<Span>,
    #[serde(default)]
    children: Vec<Diagnostic>,
    /// What rustc's human format prints for it (a top-level one only).
    rendered: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Code {
    code: String,
}

/// A place in the sources a diagnostic points at.
#[derive(Debug, Deserialize)]
struct Span {
    file_name: String,
    label: Option<String>,
    /// The source lines it covers.
    #[serde(default)]
    text: Vec<SourceLine>,
    /// The macro call it was expanded from, if any.
    expansion: Option<Box<Expansion>>,
}

#[derive(Debug, Deserialize)]
struct SourceLine {
    text: String,
}

#[derive(Debug, Deserialize)]
struct Expansion {
    span: Span,
}

impl Diagnostic {
    fn is_error(&self) -> bool {
        self.level.starts_with("error")
    }

    /// What rustc's closing tally counts (`2 previous errors; 1 warning
    /// emitted`), when this is that tally: an error with no code and no
    /// place.
    fn tally(&self) -> Option<&str> {
        let bare = self.code.is_none() && self.spans.is_empty();
        (bare && self.level == "error")
            .then(|| self.message.strip_prefix("aborting due to "))
            .flatten()
    }

    /// Whether it is rustc's count of warnings (`2 warnings emitted`), said
    /// when nothing failed.
    fn counts_warnings(&self) -> bool {
        let bare = self.code.is_none() && self.spans.is_empty();
        bare && self.level == "warning" && self.message.ends_with(" emitted")
    }

    /// Whether `needle` is in its message, in the file, label or source
    /// lines of one of its places (or of the macro calls they came from),
    /// or in one of its children.
    fn mentions(&self, needle: &str) -> bool {
        self.message.contains(needle)
            || self.spans.iter().any(|s| s.mentions(needle))
            || self.children.iter().any(|c| c.mentions(needle))
    }
}

impl Span {
    fn mentions(&self, needle: &str) -> bool {
        self.file_name.contains(needle)
            || self.label.as_deref().is_some_and(|l| l.contains(needle))
            || self.text.iter().any(|line| line.text.contains(needle))
            || self
                .expansion
                .as_ref()
                .is_some_and(|e| e.span.mentions(needle))
    }
}

/// One line of rustc's stderr.
enum Line {
    Diagnostic(Diagnostic),
    /// Anything else rustc printed (a compiler's panic, say), as it is.
    Text(String),
}

/// rustc's stderr, line by line. A diagnostic cut short where the judge
/// stopped reading is left out.
fn lines(stderr: &str) -> Vec<Line> {
    stderr
        .lines()
        .filter_map(|line| match serde_json::from_str::<Diagnostic>(line) {
            Ok(d) if d.message_type.as_deref().is_none_or(|t| t == "diagnostic") => {
                Some(Line::Diagnostic(d))
            }
            Ok(_) => None,
            Err(_) if line.starts_with("{\"$message_type\"") => None,
            Err(_) => Some(Line::Text(line.to_string())),
        })
        .collect()
}

/// What rustc said about one unit.
pub(super) struct Said {
    /// As cargo shows it: what the learner reads.
    pub(super) as_cargo: String,
    /// Its errors are the learner's.
    pub(super) learners: bool,
    /// It said at least one error.
    pub(super) has_errors: bool,
}

/// What rustc said about `unit`, read from its stderr.
pub(super) fn read(stderr: &str, unit: Unit) -> Said {
    let lines = lines(stderr);
    Said {
        as_cargo: as_cargo_says(&lines, unit),
        learners: learners_fault(unit, &lines),
        has_errors: lines
            .iter()
            .any(|l| matches!(l, Line::Diagnostic(d) if d.is_error())),
    }
}

/// A line as rustc's human format prints it.
fn rendered(line: &Line) -> String {
    match line {
        Line::Diagnostic(d) => d.rendered.clone().unwrap_or_default(),
        Line::Text(text) => format!("{text}\n"),
    }
}

/// rustc's messages as cargo shows them: its closing tally ("aborting due
/// to …") becomes cargo's line naming what could not be compiled, and a
/// count of warnings alone is left out (each keeps the blank line after it).
fn as_cargo_says(lines: &[Line], unit: Unit) -> String {
    let mut out = String::new();
    for line in lines {
        let Line::Diagnostic(d) = line else {
            out.push_str(&rendered(line));
            continue;
        };
        let text = d.rendered.as_deref().unwrap_or_default();
        let after_first = text.split_once('\n').map_or("", |(_, rest)| rest);
        if let Some(count) = d.tally() {
            let name = unit.cargo_name();
            out.push_str(&format!("error: could not compile {name} due to {count}\n"));
            out.push_str(after_first);
        } else if d.counts_warnings() {
            out.push_str(after_first);
        } else {
            out.push_str(text);
        }
    }
    // The advanced runner reaches the learner's file through its own
    // folder; the learner knows it as student/src/advanced.rs.
    out.replace(ADVANCED_THROUGH_RUNNER, "student/src/")
}

/// How rustc names the learner's advanced file from the advanced runner.
const ADVANCED_THROUGH_RUNNER: &str = "checks/runner-advanced/src/../../../student/src/";

/// Whether a unit's errors are the learner's: always in their crate; in a
/// runner, when its link fails, or when one concerns the learner's items (a
/// signature that differs from the contract names `student::`) or file
/// (`advanced.rs`, `advanced::`). Never when rustc could not use one of the kit's prebuilt
/// libraries. Warnings and notes count for nothing.
fn learners_fault(unit: Unit, lines: &[Line]) -> bool {
    let errors = || {
        lines.iter().filter_map(|line| match line {
            Line::Diagnostic(d) if d.is_error() && d.tally().is_none() => Some(d),
            _ => None,
        })
    };
    let kit = |d: &Diagnostic| {
        d.code
            .as_ref()
            .is_some_and(|c| KIT_CODES.contains(&c.code.as_str()))
    };
    if errors().any(kit) {
        return false;
    }
    // A runner's link takes the kit's libraries, which link alone, and the
    // learner's code: what fails it (a native library, a symbol defined
    // twice) came with the learner's code.
    if unit != Unit::Student && errors().any(|d| d.message.starts_with("linking with ")) {
        return true;
    }
    let marks: &[&str] = match unit {
        Unit::Student => return true,
        Unit::CoreMain => &["student::"],
        Unit::Advanced => &["advanced.rs", "advanced::"],
    };
    errors().any(|d| marks.iter().any(|mark| d.mentions(mark)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whose fault the errors in these JSON lines are.
    fn learners(unit: Unit, json: &str) -> bool {
        learners_fault(unit, &lines(json))
    }

    #[test]
    fn rustc_s_tally_becomes_cargo_s_line() {
        let stderr = r#"{"$message_type":"diagnostic","message":"mismatched types","code":{"code":"E0308","explanation":"Expected type did not match the received type.\n"},"level":"error","spans":[{"file_name":"student/src/lib.rs","byte_start":40,"byte_end":43,"line_start":3,"line_end":3,"column_start":5,"column_end":8,"is_primary":true,"text":[{"text":"    \"a\"","highlight_start":5,"highlight_end":8}],"label":"expected `u32`, found `&str`","suggested_replacement":null,"suggestion_applicability":null,"expansion":null}],"children":[],"rendered":"error[E0308]: mismatched types\n --> student/src/lib.rs:3:5\n\n"}
{"$message_type":"diagnostic","message":"aborting due to 1 previous error; 1 warning emitted","code":null,"level":"error","spans":[],"children":[],"rendered":"error: aborting due to 1 previous error; 1 warning emitted\n\n"}
{"$message_type":"diagnostic","message":"For more information about this error, try `rustc --explain E0308`.","code":null,"level":"failure-note","spans":[],"children":[],"rendered":"For more information about this error, try `rustc --explain E0308`.\n"}
"#;
        let said = read(stderr, Unit::Student);
        assert_eq!(
            said.as_cargo,
            "error[E0308]: mismatched types\n --> student/src/lib.rs:3:5\n\nerror: could not compile `student` (lib) due to 1 previous error; 1 warning emitted\n\nFor more information about this error, try `rustc --explain E0308`.\n"
        );
        let warnings = r#"{"$message_type":"diagnostic","message":"2 warnings emitted","code":null,"level":"warning","spans":[],"children":[],"rendered":"warning: 2 warnings emitted\n"}"#;
        assert_eq!(read(warnings, Unit::Advanced).as_cargo, "");
        // As rustc prints it, with a blank line after: the line goes, the
        // blank line stays.
        let warnings = r#"{"$message_type":"diagnostic","message":"1 warning emitted","code":null,"level":"warning","spans":[],"children":[],"rendered":"warning: 1 warning emitted\n\n"}"#;
        assert_eq!(read(warnings, Unit::Advanced).as_cargo, "\n");
    }

    #[test]
    fn what_rustc_printed_besides_its_diagnostics_is_kept_and_a_cut_line_is_not() {
        let stderr = "thread 'rustc' panicked at compiler/x.rs:1:1\n{\"$message_type\":\"diagnostic\",\"message\":\"cut";
        let said = read(stderr, Unit::Student);
        assert_eq!(
            said.as_cargo,
            "thread 'rustc' panicked at compiler/x.rs:1:1\n"
        );
        assert!(said.learners);
    }

    #[test]
    fn only_the_learners_code_or_its_signatures_make_a_build_their_fault() {
        let learner = r#"{"$message_type":"diagnostic","message":"no method named `nope` found for type `u32` in the current scope","code":{"code":"E0599","explanation":null},"level":"error","spans":[{"file_name":"student/src/lib.rs","line_start":4,"column_start":7,"label":"method not found in `u32`","text":[{"text":"    x.nope()"}],"expansion":null}],"children":[],"rendered":"error[E0599]: anything\n"}"#;
        assert!(learners(Unit::Student, learner));
        let signature = r#"{"$message_type":"diagnostic","message":"mismatched types","code":{"code":"E0308","explanation":null},"level":"error","spans":[{"file_name":"checks/runner/src/main.rs","line_start":8,"column_start":20,"label":"expected fn pointer, found fn item","text":[{"text":"        retryable: student::retryable,"}],"expansion":null}],"children":[{"message":"expected fn pointer `fn(u16) -> bool`\n   found fn item `fn(u32) -> bool {student::retryable}`","code":null,"level":"note","spans":[],"children":[],"rendered":null}],"rendered":"error[E0308]: mismatched types\n"}"#;
        assert!(learners(Unit::CoreMain, signature));
        let kit = r#"{"$message_type":"diagnostic","message":"missing field `execute` in initializer of `Functions`","code":{"code":"E0063","explanation":null},"level":"error","spans":[{"file_name":"checks/runner/src/main.rs","line_start":7,"column_start":5,"label":"missing `execute`","text":[{"text":"    lab_runner_core::main(Functions {"}],"expansion":null}],"children":[],"rendered":"error[E0063]: missing field `execute`\n"}"#;
        assert!(!learners(Unit::CoreMain, kit));
        let advanced = r#"{"$message_type":"diagnostic","message":"cannot find value `x` in this scope","code":{"code":"E0425","explanation":null},"level":"error","spans":[{"file_name":"checks/runner-advanced/src/../../../student/src/advanced.rs","line_start":3,"column_start":5,"label":"not found in this scope","text":[{"text":"    x"}],"expansion":null}],"children":[],"rendered":"error[E0425]: cannot find value `x` in this scope\n"}"#;
        assert!(learners(Unit::Advanced, advanced));
        // Shown as the learner knows the file.
        let said = read(advanced.replace("rendered\":\"error", "rendered\":\" --> checks/runner-advanced/src/../../../student/src/advanced.rs:3:5\\nerror").as_str(), Unit::Advanced);
        assert!(
            said.as_cargo.contains(" --> student/src/advanced.rs:3:5"),
            "{}",
            said.as_cargo
        );
        let glue = r#"{"$message_type":"diagnostic","message":"cannot find value `y` in this scope","code":{"code":"E0425","explanation":null},"level":"error","spans":[{"file_name":"checks/runner-advanced/src/glue/s09.rs","line_start":3,"column_start":5,"label":"not found in this scope","text":[{"text":"    y"}],"expansion":null}],"children":[],"rendered":"error[E0425]: cannot find value `y` in this scope\n"}"#;
        assert!(!learners(Unit::Advanced, glue));
        // A warning in the learner's file is not what failed the glue.
        let warned = r#"{"$message_type":"diagnostic","message":"unused variable: `z`","code":{"code":"unused_variables","explanation":null},"level":"warning","spans":[{"file_name":"student/src/advanced.rs","line_start":9,"column_start":9,"label":null,"text":[{"text":"    let z = 1;"}],"expansion":null}],"children":[],"rendered":"warning: unused variable: `z`\n"}"#;
        assert!(!learners(Unit::Advanced, &format!("{warned}\n{glue}")));
        // The kit's own libraries, unreadable or from another compiler.
        let unreadable = r#"{"$message_type":"diagnostic","message":"found invalid metadata files for crate `lab_api`","code":{"code":"E0786","explanation":null},"level":"error","spans":[{"file_name":"student/src/lib.rs","line_start":1,"column_start":9,"label":null,"text":[{"text":"pub use lab_api::*;"}],"expansion":null}],"children":[],"rendered":"error[E0786]: found invalid metadata files for crate `lab_api`\n"}"#;
        assert!(!learners(Unit::Student, unreadable));
        assert!(!learners(
            Unit::Student,
            &format!("{learner}\n{unreadable}")
        ));
        let other = r#"{"$message_type":"diagnostic","message":"found crate `lab_runner_core` compiled by an incompatible version of rustc","code":{"code":"E0514","explanation":null},"level":"error","spans":[{"file_name":"checks/runner/src/main.rs","line_start":9,"column_start":20,"label":null,"text":[{"text":"        retryable: student::retryable,"}],"expansion":null}],"children":[],"rendered":"error[E0514]: found crate `lab_runner_core` compiled by an incompatible version of rustc\n"}"#;
        assert!(!learners(Unit::CoreMain, other));
        // The link of a runner: the learner's crate is what changed.
        let link = r#"{"$message_type":"diagnostic","message":"linking with `cc` failed: exit status: 1","code":null,"level":"error","spans":[],"children":[{"message":"rust-lld: error: unable to find library -llab_hostile_no_such_library","code":null,"level":"note","spans":[],"children":[],"rendered":null}],"rendered":"error: linking with `cc` failed: exit status: 1\n"}"#;
        assert!(learners(Unit::CoreMain, link));
        assert!(learners(Unit::Advanced, link));
    }
}
