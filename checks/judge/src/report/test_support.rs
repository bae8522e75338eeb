//! Test-only helpers shared by the report formats: the small hand-made class
//! every format's tests render, and the capping check. Each format's output
//! for the class is a snapshot in `snapshots/` next to this file, compared
//! through `snapshot.rs`. To refresh them after an intended change:
//!
//! ```text
//! UPDATE_SNAPSHOTS=1 cargo test -p lab-judge --lib report   # rewrites them
//! git diff checks/judge/src/report/snapshots/                # review by hand
//! cargo test -p lab-judge --lib report                      # must pass as is
//! ```

use crate::report::{
    capped, AdvancedBuild, Build, ClassReport, ClauseReport, ClauseStatus, FaultKind, StepReport,
    StepStatus, SubmissionReport, GRADE_SCHEMA, MESSAGE_CAP,
};

/// u64::MAX: the reason seeds travel as strings.
pub const SEED: &str = "18446744073709551615";

/// A failed clause's message with everything a format must survive: XML and
/// JSON specials, a raw control character and non-ASCII text.
pub const NASTY: &str =
    "replay_safe(\"<&>\"'\u{1}中文\")\n  expected: true\n       got: false\n\tsee: a < b && c > d";

/// How the human-readable formats show [`NASTY`]: its control character
/// escaped, its line feeds and tab kept.
pub const NASTY_SHOWN: &str =
    "replay_safe(\"<&>\"'\\u{1}中文\")\n  expected: true\n       got: false\n\tsee: a < b && c > d";

/// What `carol` (who does not compile) gets from the compiler.
pub const COMPILER_ERRORS: &str = "error[E0308]: mismatched types\n  --> src/lib.rs:12:5\n   |\n12 |     a < b && \"c\"\n   |     ^^^^^^^^^^^^^ expected `bool`, found `&str`";

/// What `BOB`'s code printed during the input it failed: markup and a
/// formula-like line, which no format may take for its own.
pub const PRINTED: &str =
    "debug: <b>Result<f64, InvalidArgument></b> & \"quoted\"\n=cmd|' /C calc'!A0";

/// The name of the submission with a failed clause: it starts like a
/// spreadsheet formula and holds a comma, quotes and a Markdown pipe.
pub const BOB: &str = "-bob, \"the\" | 2nd";

/// A submission name holding what a terminal or a reader would act on
/// instead of showing: ESC and BEL (clear the screen, ring), RIGHT-TO-LEFT
/// OVERRIDE, LEFT-TO-RIGHT ISOLATE and a C1 control (NEXT LINE), around
/// Chinese text that must stay as it is.
pub const HOSTILE: &str = "\u{1b}[2J\u{7}王小明\u{202e}\u{2066}\u{85}evil";

/// How every human-readable format shows [`HOSTILE`].
pub const HOSTILE_SHOWN: &str = "\\u{1b}[2J\\u{7}王小明\\u{202e}\\u{2066}\\u{85}evil";

/// What hostile learner code printed, or a compiler quoted from it:
/// colours, a bell, a carriage return, a line end, an override.
pub const HOSTILE_PRINTED: &str = "\u{1b}[31mred\u{7}\r\n\u{202e}gnp.exe\u{9b}";

/// `BOB` renamed [`HOSTILE`], whose failed clause printed
/// [`HOSTILE_PRINTED`], which its message and call show too.
pub fn hostile_submission() -> SubmissionReport {
    let mut bob = class().submissions[1].clone();
    bob.name = HOSTILE.to_string();
    let clause = &mut bob.steps[1].clauses[1];
    clause.message = Some(format!("{HOSTILE_PRINTED}\n  expected: true"));
    clause.call = Some(format!("replay_safe({HOSTILE_PRINTED})"));
    clause.output = Some(HOSTILE_PRINTED.to_string());
    bob
}

/// `carol` renamed [`HOSTILE`], the compiler quoting [`HOSTILE_PRINTED`].
pub fn hostile_build() -> SubmissionReport {
    let mut carol = class().submissions[2].clone();
    carol.name = HOSTILE.to_string();
    carol.build_errors = Some(HOSTILE_PRINTED.to_string());
    carol
}

/// The characters of `text` a screen would act on instead of showing, but
/// for line feeds, tabs and carriage returns (which each format places
/// itself, e.g. the CSV's CRLF).
pub fn raw_hidden(text: &str) -> Vec<char> {
    text.chars()
        .filter(|&c| crate::visible::hidden(c) && !matches!(c, '\n' | '\t' | '\r'))
        .collect()
}

/// Every string in a JSON value, keys included.
pub fn json_strings(v: &serde_json::Value) -> Vec<String> {
    use serde_json::Value;
    match v {
        Value::String(s) => vec![s.clone()],
        Value::Array(a) => a.iter().flat_map(json_strings).collect(),
        Value::Object(o) => o
            .iter()
            .flat_map(|(k, v)| std::iter::once(k.clone()).chain(json_strings(v)))
            .collect(),
        _ => Vec::new(),
    }
}

/// Each clause's first input, as the learner would write the call.
const CALLS: [[&str; 2]; 4] = [
    ["retryable(503)", "retryable(400)"],
    [
        "replay_safe(\"GET\", None)",
        "replay_safe(\"POST\", Some(\"k\"))",
    ],
    ["remaining(10.0, 4.0)", "remaining(10.0, 11.0)"],
    ["Deadline::new(5.0, ..)", "Deadline::left()"],
];

const STEPS: [(&str, &str, [&str; 2]); 4] = [
    ("01", "retryable", ["accepts 503", "refuses 400"]),
    (
        "02",
        "replay_safe",
        ["GET is safe", "POST with key is safe"],
    ),
    ("03", "remaining", ["never negative", "counts down"]),
    // An advanced (bonus) step: nobody in the class attempts it, so every
    // third-party format and both summaries must read as if it were not there.
    ("09", "Deadline", ["fixed at creation", "never negative"]),
];

fn step(
    index: usize,
    status: StepStatus,
    clauses: [(ClauseStatus, Option<&str>); 2],
) -> StepReport {
    let (number, function, titles) = STEPS[index];
    let passed = status == StepStatus::Passed;
    let ran = !matches!(status, StepStatus::NotBuilt | StepStatus::NotAttempted);
    StepReport {
        step: number.to_string(),
        function: function.to_string(),
        passed,
        status,
        weight: 10,
        score: if passed { 10 } else { 0 },
        bonus: crate::suites::is_advanced(number),
        clauses: clauses
            .iter()
            .zip(titles)
            .zip(CALLS[index])
            .enumerate()
            .map(|(i, ((&(status, message), title), call))| {
                let failed = status == ClauseStatus::Failed;
                ClauseReport {
                    key: format!("{number}/{}", title.replace(' ', "-").to_lowercase()),
                    name: format!("{number} {function} :: {title}"),
                    status,
                    message: message.map(str::to_string),
                    fault: failed.then_some(FaultKind::Wrong),
                    // A failing input's call is its message's first line.
                    call: ran.then(|| {
                        message
                            .filter(|_| failed)
                            .and_then(|m| m.lines().next())
                            .unwrap_or(call)
                            .to_string()
                    }),
                    output: failed.then(|| PRINTED.to_string()),
                    seconds: if ran { [0.125, 0.25][i] } else { 0.0 },
                }
            })
            .collect(),
        mistake: None,
        seconds: if ran { 0.5 } else { 0.0 },
    }
}

/// Three submissions: `alice` passes
/// everything; `BOB` passes 01, fails one clause of 02 with [`NASTY`] (a
/// known mistake) and has not started 03; `carol` does not compile.
pub fn class() -> ClassReport {
    use ClauseStatus as C;
    use StepStatus as S;
    let pass = [(C::Passed, None), (C::Passed, None)];
    let todo = [(C::NotImplemented, None), (C::NotImplemented, None)];
    let broken = [(C::NotBuilt, None), (C::NotBuilt, None)];
    let absent = [(C::NotAttempted, None), (C::NotAttempted, None)];
    ClassReport {
        schema: GRADE_SCHEMA.to_string(),
        seed: SEED.to_string(),
        submissions: vec![
            SubmissionReport {
                name: "alice".to_string(),
                build: Build::Ok,
                build_errors: None,
                review: None,
                score: 30,
                max_score: 30,
                steps: vec![
                    step(0, S::Passed, pass),
                    step(1, S::Passed, pass),
                    step(2, S::Passed, pass),
                    step(3, S::NotAttempted, absent),
                ],
                bonus: 0,
                advanced_build: AdvancedBuild::Absent,
                advanced_build_errors: None,
                seconds: 1.5,
                printed_bytes: 0,
                late: None,
            },
            SubmissionReport {
                name: BOB.to_string(),
                build: Build::Ok,
                build_errors: None,
                review: None,
                score: 10,
                max_score: 30,
                steps: vec![
                    step(0, S::Passed, pass),
                    StepReport {
                        mistake: Some("02-post-exact-case".to_string()),
                        ..step(1, S::Failed, [(C::Passed, None), (C::Failed, Some(NASTY))])
                    },
                    step(2, S::NotStarted, todo),
                    step(3, S::NotAttempted, absent),
                ],
                bonus: 0,
                advanced_build: AdvancedBuild::Absent,
                advanced_build_errors: None,
                seconds: 2.25,
                printed_bytes: 12,
                late: None,
            },
            SubmissionReport {
                name: "carol".to_string(),
                build: Build::Failed,
                build_errors: Some(COMPILER_ERRORS.to_string()),
                review: None,
                score: 0,
                max_score: 30,
                steps: vec![
                    step(0, S::NotBuilt, broken),
                    step(1, S::NotBuilt, broken),
                    step(2, S::NotBuilt, broken),
                    step(3, S::NotAttempted, absent),
                ],
                bonus: 0,
                advanced_build: AdvancedBuild::Absent,
                advanced_build_errors: None,
                seconds: 0.75,
                printed_bytes: 0,
                late: None,
            },
        ],
    }
}

/// About 10 kB of three-byte characters: `MESSAGE_CAP` falls inside one.
pub fn long_message() -> String {
    "中".repeat(3400)
}

/// `BOB` with the failed clause's message replaced by [`long_message`].
pub fn long_submission() -> SubmissionReport {
    let mut bob = class().submissions[1].clone();
    bob.steps[1].clauses[1].message = Some(long_message());
    bob
}

/// Checks that `got` is `text` cut by [`capped`]: at most `MESSAGE_CAP` bytes
/// of it, as many whole characters as fit, then the notice.
pub fn assert_capped(got: &str, text: &str) {
    assert!(text.len() > MESSAGE_CAP, "the message should need capping");
    let (kept, notice) = got
        .split_once("\n[… cut: ")
        .unwrap_or_else(|| panic!("no cut notice in {} bytes", got.len()));
    assert!(kept.len() <= MESSAGE_CAP, "kept {} bytes", kept.len());
    assert!(text.starts_with(kept), "the kept part is not a prefix");
    let next = text[kept.len()..]
        .chars()
        .next()
        .expect("something was cut");
    assert!(kept.len() + next.len_utf8() > MESSAGE_CAP, "cut too early");
    assert_eq!(
        notice,
        format!("{} more bytes not shown]", text.len() - kept.len())
    );
    assert_eq!(got, capped(text, MESSAGE_CAP));
}
