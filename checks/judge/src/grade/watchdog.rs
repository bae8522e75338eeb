//! The bound on a whole grade run: past it, whatever has not finished is
//! "needs review", every runner and build is stopped, and the summary is
//! written all the same.

use super::discovery::Submission;
use crate::compile;
use crate::limits::Limits;
use crate::report::SubmissionReport;
use crate::suites::{self};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How long a whole grade may take: every submission at its worst (the
/// kit's warm-up build, the learner's build, every suite at its limit),
/// `jobs` at a time, and a minute to spare.
pub(super) fn watchdog_bound(limits: &Limits, count: usize, jobs: usize) -> Duration {
    let suites = suites::all_steps().count() as u32;
    let one = (compile::WARM_LIMIT + limits.build * 2) * crate::platform::TOOL_WALL_FACTOR
        + limits.suite * suites;
    one * count.div_ceil(jobs.max(1)).max(1) as u32 + Duration::from_secs(60)
}

/// What the grading thread says: one submission's report, or that the
/// whole class is done (or why it stopped).
enum Message {
    Report(SubmissionReport),
    Finished(Result<(), String>),
}

/// Runs `grading` on a thread of its own, handing each report it sends to
/// `on_done` on this thread, for at most `bound`. Past it (or on a kit
/// error), `stop` ends every runner and build, and each submission without a report gets `late`'s
/// ("needs review"), handed to `on_done` too; the grading thread is left
/// behind (only ever waiting for what was stopped) and ends with the
/// process. The reports come back sorted by name. `Err` is a kit error:
/// the grading's own, `on_done`'s, or a grading thread that died.
pub(super) fn within(
    bound: Duration,
    all: &[Submission],
    grading: impl FnOnce(&dyn Fn(SubmissionReport) -> Result<(), String>) -> Result<(), String>
        + Send
        + 'static,
    mut late: impl FnMut(&Submission) -> SubmissionReport,
    mut on_done: impl FnMut(&SubmissionReport) -> Result<(), String>,
    stop: impl Fn(),
) -> Result<Vec<SubmissionReport>, String> {
    let deadline = Instant::now() + bound;
    let (tx, rx) = mpsc::channel();
    std::thread::Builder::new()
        .name("grade".into())
        .spawn(move || {
            let send = |r| {
                tx.send(Message::Report(r))
                    .map_err(|_| "grading stopped".to_string())
            };
            let result = grading(&send);
            let _ = tx.send(Message::Finished(result));
        })
        .map_err(|e| format!("cannot start the grading thread: {e}"))?;
    let mut reports: Vec<SubmissionReport> = Vec::new();
    let fail = |e: String| {
        stop();
        Err(e)
    };
    loop {
        match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(Message::Report(report)) => {
                if let Err(e) = on_done(&report) {
                    return fail(e);
                }
                reports.push(report);
            }
            Ok(Message::Finished(Ok(()))) => break,
            Ok(Message::Finished(Err(e))) => return fail(e),
            Err(RecvTimeoutError::Disconnected) => {
                return fail("the grading thread ended early".into())
            }
            Err(RecvTimeoutError::Timeout) => {
                stop();
                for sub in all {
                    if !reports.iter().any(|r| r.name == sub.name) {
                        let report = late(sub);
                        on_done(&report)?;
                        reports.push(report);
                    }
                }
                break;
            }
        }
    }
    reports.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(reports)
}
