//! The console's frame around the rules' verdicts: a title, a line per
//! rule, the failures in full, then the closing line, in the shape a Rust
//! test run has and in the learner's language (in English, libtest's own
//! words). Names are padded to the widest by terminal columns, with plain
//! spaces, so the results line up in Chinese too; the closing line gives
//! the real time since the check started. Under each failure's heading, a
//! `  --> FILE:LINE:COL` line (rustc's convention) names where its step's
//! function starts, so that editors jump there.

use crate::catalog::{t, tr};
use crate::render::display_width;
use std::io::Write;
use std::sync::OnceLock;
use std::time::Instant;

/// One rule's line: its name, and what to tell when it failed.
pub struct Trial {
    pub name: String,
    pub failure: Option<String>,
    /// Where the learner's function starts (`file:line:col`), shown under
    /// a failure's heading.
    pub at: Option<String>,
}

static STARTED: OnceLock<Instant> = OnceLock::new();

/// Marks the start of the command: the closing line's time counts from
/// here (from the first print, when never marked).
pub fn mark_start() {
    STARTED.get_or_init(Instant::now);
}

/// Prints the frame; returns (passed, failed).
pub fn print(trials: &[Trial], terse: bool, colour: bool) -> (u64, u64) {
    let started = *STARTED.get_or_init(Instant::now);
    let text = frame(trials, terse, colour, started.elapsed().as_secs_f64());
    let mut out = crate::stdout::human();
    // A reader that went away (`| head`) ends the output, not the check.
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
    let failed = trials.iter().filter(|t| t.failure.is_some()).count() as u64;
    (trials.len() as u64 - failed, failed)
}

/// The frame as text (`seconds`: the time the closing line gives).
fn frame(trials: &[Trial], terse: bool, colour: bool, seconds: f64) -> String {
    let paint = |text: String, passed: bool| {
        if colour {
            format!("\x1b[{}m{text}\x1b[0m", if passed { 32 } else { 31 })
        } else {
            text
        }
    };
    let outcome = |passed: bool| paint(t(if passed { "frame.ok" } else { "frame.failed" }), passed);
    let width = trials
        .iter()
        .map(|t| display_width(&t.name))
        .max()
        .unwrap_or(0);
    let mut out = format!("\n{}\n", tr("frame.running", &[("count", &trials.len())]));
    for trial in trials {
        let passed = trial.failure.is_none();
        if terse {
            out += &paint((if passed { "." } else { "F" }).to_string(), passed);
        } else {
            let pad = " ".repeat(width - display_width(&trial.name));
            out += &tr(
                "frame.trial",
                &[
                    ("name", &format!("{}{pad}", trial.name)),
                    ("outcome", &outcome(passed)),
                ],
            );
            out += "\n";
        }
    }
    let failed: Vec<&Trial> = trials.iter().filter(|t| t.failure.is_some()).collect();
    if !failed.is_empty() {
        out += &format!("\n{}\n\n", t("frame.failures"));
        for trial in &failed {
            let text = trial.failure.as_deref().unwrap_or("");
            out += &format!("---- {} ----\n", trial.name);
            if let Some(at) = &trial.at {
                out += &format!("  --> {at}\n");
            }
            out += &format!("{text}\n\n");
        }
        out += &format!("\n{}\n", t("frame.failures"));
        for trial in &failed {
            out += &format!("    {}\n", trial.name);
        }
    }
    let passed = trials.len() - failed.len();
    out += "\n";
    out += &tr(
        "frame.result",
        &[
            ("outcome", &outcome(failed.is_empty())),
            ("passed", &passed),
            ("failed", &failed.len()),
            ("seconds", &format!("{seconds:.2}")),
        ],
    );
    out += "\n\n";
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::{scoped, Lang};

    fn trials() -> Vec<Trial> {
        vec![
            Trial {
                name: "04 backoff :: attempt 大于 30 时报错".into(),
                failure: Some("  input:    backoff(31, 0.5, 4.0)".into()),
                at: Some("student/src/lib.rs:120:8".into()),
            },
            Trial {
                name: "04 backoff :: 负零不算负数".into(),
                failure: None,
                at: None,
            },
            Trial {
                name: "04 backoff :: random".into(),
                failure: None,
                at: None,
            },
        ]
    }

    #[test]
    fn english_reads_as_libtest_and_chinese_in_chinese() {
        let en = scoped(Lang::En, || frame(&trials(), false, false, 1.234));
        assert!(en.starts_with("\nrunning 3 tests\ntest 04 backoff"), "{en}");
        assert!(
            en.contains("\nfailures:\n\n---- 04 backoff :: attempt 大于 30 时报错 ----\n  --> student/src/lib.rs:120:8\n  input:"),
            "{en}"
        );
        assert!(
            en.contains("\nfailures:\n    04 backoff :: attempt 大于 30 时报错\n"),
            "{en}"
        );
        assert!(
            en.ends_with("\ntest result: FAILED. 2 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 1.23s\n\n"),
            "{en}"
        );
        let zh = scoped(Lang::Zh, || frame(&trials(), false, false, 1.234));
        for english in [
            "running",
            "test result",
            "failures:",
            "passed",
            "FAILED",
            "finished",
        ] {
            assert!(!zh.contains(english), "{english}: {zh}");
        }
        assert!(zh.contains("1.23"), "{zh}");
    }

    #[test]
    fn results_line_up_by_columns_with_plain_spaces() {
        for lang in [Lang::En, Lang::Zh] {
            let text = scoped(lang, || frame(&trials(), false, false, 0.0));
            let rows: Vec<&str> = text
                .lines()
                .filter(|l| l.contains(" :: "))
                .take(3)
                .collect();
            let columns: Vec<usize> = rows
                .iter()
                .map(|l| display_width(&l[..l.rfind(" ... ").unwrap()]))
                .collect();
            assert!(
                columns.iter().all(|c| *c == columns[0]),
                "{lang:?}: {rows:?}"
            );
            assert!(
                !text.contains('\u{3000}') && !text.contains('\u{200b}'),
                "{text}"
            );
            // The heading of a failure is the name alone.
            assert!(
                text.contains("---- 04 backoff :: attempt 大于 30 时报错 ----\n"),
                "{text}"
            );
        }
    }

    #[test]
    fn terse_prints_a_mark_per_rule_and_colour_only_when_asked() {
        let text = scoped(Lang::En, || frame(&trials(), true, false, 0.0));
        assert!(text.starts_with("\nrunning 3 tests\nF..\n"), "{text}");
        assert!(!text.contains('\x1b'));
        let text = scoped(Lang::En, || frame(&trials(), true, true, 0.0));
        assert!(
            text.contains("\x1b[31mF\x1b[0m\x1b[32m.\x1b[0m"),
            "{text:?}"
        );
    }
}
