//! Runs one suite's cases through the runner, in as many runner processes as
//! it takes: a case that hangs, crashes or floods is recorded and the next
//! clause goes to a fresh runner. What each case did is returned unjudged.
//!
//! `cases.rs` writes the sealed cases file, `runners.rs` starts runners and
//! reads their outcomes, `settle.rs` pins a runner's end on a case,
//! `printed.rs` reads back what each case printed and `time_outs.rs` tells
//! time-outs as they happen.

mod cases;
mod printed;
mod runners;
mod settle;
mod time_outs;

pub use cases::{write_cases, CasesFile};
pub use printed::PRINTED_CAP;
pub use time_outs::tell_time_outs;

use crate::limits::Limits;
use crate::platform::Exit;
use crate::suites::Suite;
use cases::write_selected;
use lab_wire::{Observed, Value};
use runners::{run_cases, Hung};
use std::io;
use std::path::Path;
use std::time::{Duration, Instant};

/// What happened to one case, before judging.
#[derive(Debug, Clone, PartialEq)]
pub enum Got {
    Observed(Observed),
    /// No answer within the per-case limit; what its call did so far,
    /// when its runner said.
    TimedOut(Option<Box<lab_wire::SoFar>>),
    /// No answer within [`AFTER_A_HANG`]: an earlier case of the same step
    /// already hung, so this one was cut short.
    CutShort,
    /// The runner died during this case.
    Crashed {
        exit: Exit,
        stderr: String,
    },
    /// The case printed past the output cap.
    Flooded,
    /// An outcome line that does not belong to this case.
    Forged(String),
    /// Not run: an earlier case of the same clause already hung or crashed.
    Skipped,
    /// Not answered: the suite's time limit was reached first (before the
    /// case ran, or while it ran within its own limit).
    NotRun,
}

/// How long a case may go unanswered once an earlier case of its step
/// hung (at most the case limit): an endless loop usually hangs every case
/// it reaches, and a learner should not wait the full limit for each.
pub const AFTER_A_HANG: Duration = Duration::from_millis(300);

/// What a suite's cases did, unjudged.
pub struct SuiteRun {
    /// Per clause, per check, in the suite's order.
    pub got: Vec<Vec<Got>>,
    /// Bytes the learner's code printed to stdout and stderr.
    pub printed: u64,
    /// Per clause, per check: what the learner's code printed during that
    /// check (capped at `PRINTED_CAP` per stream), when it printed anything.
    pub output: Vec<Vec<Option<String>>>,
    /// Per clause: the wall time its cases took, each from the end of the
    /// case before it (or its runner's start) to its outcome's arrival,
    /// reruns included.
    pub spent: Vec<Duration>,
}

/// Runs a suite's cases, all of them over by `deadline` (the step's, which
/// its shrinking shares). Batches that come back whole are spread over their
/// checks; a batch that hung, crashed, panicked or answered out of shape is
/// run again one status per case, so every fault lands on its exact input.
pub fn run(
    runner: &Path,
    suite: &Suite,
    cases: &CasesFile,
    ids: &[String],
    limits: Limits,
    deadline: Instant,
) -> io::Result<SuiteRun> {
    let n: usize = suite.clauses.iter().map(|c| c.checks.len()).sum();
    let batched = cases.batch.iter().any(|b| *b);
    let mut spent = vec![Duration::ZERO; suite.clauses.len()];
    let first = run_cases(
        runner,
        suite,
        cases,
        limits,
        deadline,
        !batched,
        Hung::default(),
    )?;
    let mut printed = first.printed;
    for (i, t) in first.spent.into_iter().enumerate() {
        spent[cases.clause[i]] += t;
    }
    let mut got: Vec<Option<Got>> = vec![None; n];
    let mut output: Vec<Option<String>> = vec![None; n];
    let mut again = vec![false; n];
    for (i, g) in first.got.into_iter().enumerate() {
        let covers = cases.covers[i].clone();
        // A batch's output belongs to all the inputs it checked at once.
        if let Some(printed) = &first.output[i] {
            for k in covers.clone() {
                output[k] = Some(printed.clone());
            }
        }
        if !cases.batch[i] {
            got[covers.start] = g;
            continue;
        }
        match g {
            Some(Got::Observed(Observed::Returned {
                value: Value::Bools { values },
            })) if values.len() == covers.len() => {
                for (k, value) in covers.zip(values) {
                    got[k] = Some(Got::Observed(Observed::Returned {
                        value: Value::Bool { value },
                    }));
                }
            }
            _ => covers.for_each(|k| again[k] = true),
        }
    }
    if again.contains(&true) {
        let singles = write_selected(suite, ids, false, &|i| again[i])?;
        let rerun = run_cases(runner, suite, &singles, limits, deadline, true, first.hung)?;
        printed += rerun.printed;
        for (i, t) in rerun.spent.into_iter().enumerate() {
            spent[singles.clause[i]] += t;
        }
        for (i, (g, o)) in rerun.got.into_iter().zip(rerun.output).enumerate() {
            got[singles.covers[i].start] = g;
            output[singles.covers[i].start] = o;
        }
    }
    // Cases come in the suite's order, clause after clause.
    let (mut got, mut output) = (got.into_iter(), output.into_iter());
    let per_clause: Vec<Vec<Got>> = suite
        .clauses
        .iter()
        .map(|c| {
            got.by_ref()
                .take(c.checks.len())
                .map(|g| g.unwrap_or(Got::NotRun))
                .collect()
        })
        .collect();
    let output_per_clause: Vec<Vec<Option<String>>> = suite
        .clauses
        .iter()
        .map(|c| output.by_ref().take(c.checks.len()).collect())
        .collect();
    Ok(SuiteRun {
        got: per_clause,
        printed,
        output: output_per_clause,
        spent,
    })
}
