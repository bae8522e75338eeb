//! One evaluation: every selected step's suite, run against one runner and
//! judged. Shared by `check`, `selftest` and grading.

use crate::rng::Gen;
use crate::session::{self, Limits, SuiteRun};
use crate::suites::{self, Suite};
use crate::verdict::{clause_verdict, ClauseVerdict};
use std::io;
use std::path::Path;

/// At most this many failing inputs are shown per clause.
pub const SHOWN_PER_CLAUSE: usize = 3;

pub struct StepResult {
    pub suite: Suite,
    pub run: SuiteRun,
    pub verdicts: Vec<ClauseVerdict>,
}

impl StepResult {
    /// The step was not started: every clause still reaches `todo!()`.
    pub fn not_started(&self) -> bool {
        self.verdicts
            .iter()
            .all(|v| matches!(v, ClauseVerdict::NotImplemented))
    }
}

pub fn evaluate(
    runner: &Path,
    steps: &[&'static str],
    seed: u64,
    limits: Limits,
) -> io::Result<Vec<StepResult>> {
    let mut results = Vec::new();
    for step in steps {
        let suite = suites::build(step, seed);
        let count: usize = suite.clauses.iter().map(|c| c.checks.len()).sum();
        let mut g = Gen::fork(seed, &format!("ids-{step}"));
        let ids: Vec<String> = (0..count).map(|_| g.id("c")).collect();
        let run = session::run(runner, &suite, &ids, limits)?;
        let verdicts = suite
            .clauses
            .iter()
            .zip(&run.got)
            .map(|(clause, got)| clause_verdict(&clause.checks, got, SHOWN_PER_CLAUSE))
            .collect();
        results.push(StepResult {
            suite,
            run,
            verdicts,
        });
    }
    Ok(results)
}
