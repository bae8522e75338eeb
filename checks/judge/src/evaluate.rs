//! One evaluation: every selected step's suite, run against one runner and
//! judged. Shared by `check`, `selftest` and grading.

use crate::rng::Gen;
use crate::session::{self, Limits, SuiteRun};
use crate::shrink;
use crate::suites::{self, Check, Clause, Suite};
use crate::verdict::{clause_verdict, judge, ClauseVerdict, Fault};
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

/// A suite with the random ids of its cases, ready to run.
pub struct Prepared {
    pub suite: Suite,
    pub seed: u64,
    pub ids: Vec<String>,
    pub cases: io::Result<session::CasesFile>,
}

/// Builds the suites of `steps` (no process is started).
pub fn prepare(steps: &[&'static str], seed: u64) -> Vec<Prepared> {
    steps
        .iter()
        .map(|step| {
            let suite = suites::build(step, seed);
            let count: usize = suite.clauses.iter().map(|c| c.checks.len()).sum();
            let mut g = Gen::fork(seed, &format!("ids-{step}"));
            let ids: Vec<String> = (0..count).map(|_| g.id("c")).collect();
            let cases = session::write_cases(&suite, &ids);
            Prepared {
                suite,
                seed,
                ids,
                cases,
            }
        })
        .collect()
}

fn run_one(runner: &Path, p: Prepared, limits: Limits) -> io::Result<StepResult> {
    let started = std::time::Instant::now();
    let run = session::run(runner, &p.suite, &p.cases?, &p.ids, limits)?;
    crate::timing(&format!("suite {} ran", p.suite.step), started);
    let verdicts = p
        .suite
        .clauses
        .iter()
        .zip(&run.got)
        .map(|(clause, got)| clause_verdict(&clause.checks, got, SHOWN_PER_CLAUSE))
        .collect();
    let mut result = StepResult {
        suite: p.suite,
        run,
        verdicts,
    };
    shrink_failures(runner, &mut result, p.seed, limits)?;
    Ok(result)
}

/// Runs prepared suites, `parallel` runner processes at a time; results
/// come back in step order.
pub fn run_prepared(
    runner: &Path,
    prepared: Vec<Prepared>,
    limits: Limits,
    parallel: usize,
) -> io::Result<Vec<StepResult>> {
    let count = prepared.len();
    let queue = std::sync::Mutex::new(prepared.into_iter().enumerate().collect::<Vec<_>>());
    let results = std::sync::Mutex::new(Vec::with_capacity(count));
    std::thread::scope(|scope| {
        for _ in 0..parallel.clamp(1, count.max(1)) {
            scope.spawn(|| loop {
                let next = queue
                    .lock()
                    .ok()
                    .and_then(|mut q| (!q.is_empty()).then(|| q.remove(0)));
                let Some((i, p)) = next else { break };
                let result = run_one(runner, p, limits);
                if let Ok(mut r) = results.lock() {
                    r.push((i, result));
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap_or_default();
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, r)| r).collect()
}

/// Replaces the first failure of every failing random clause by the
/// simplest input found that still fails the same way (see `shrink`).
fn shrink_failures(
    runner: &Path,
    result: &mut StepResult,
    seed: u64,
    limits: Limits,
) -> io::Result<()> {
    for c in 0..result.suite.clauses.len() {
        let key = result.suite.clauses[c].key.clone();
        let ClauseVerdict::Failed { faults, .. } = &result.verdicts[c] else {
            continue;
        };
        let Some((i, fault)) = faults.first().cloned() else {
            continue;
        };
        if !key.ends_with("/random") || !matches!(fault, Fault::Wrong(_) | Fault::Panicked(_)) {
            continue;
        }
        let mut current = result.suite.clauses[c].checks[i].call.clone();
        let mut best: Option<(Check, Fault)> = None;
        for round in 0..shrink::ROUNDS {
            let checks = shrink::round(&current);
            if checks.is_empty() {
                break;
            }
            let mini = Suite {
                step: result.suite.step,
                function: result.suite.function,
                clauses: vec![Clause {
                    key: key.clone(),
                    checks: checks.clone(),
                }],
            };
            let mut g = Gen::fork(seed, &format!("shrink-{key}-{round}"));
            let ids: Vec<String> = checks.iter().map(|_| g.id("s")).collect();
            let cases = session::write_cases(&mini, &ids)?;
            let run = session::run(runner, &mini, &cases, &ids, limits)?;
            let found = checks
                .iter()
                .zip(&run.got[0])
                .find_map(|(k, g)| match judge(k, g) {
                    Some(f @ (Fault::Wrong(_) | Fault::Panicked(_))) => Some((k.clone(), f)),
                    _ => None,
                });
            let Some((check, f)) = found else { break };
            current = check.call.clone();
            best = Some((check, f));
        }
        if let (Some((check, f)), ClauseVerdict::Failed { faults, total }) =
            (best, &mut result.verdicts[c])
        {
            let clause = &mut result.suite.clauses[c];
            clause.checks.push(check);
            faults.insert(0, (clause.checks.len() - 1, f));
            faults.truncate(SHOWN_PER_CLAUSE);
            *total += 1;
        }
    }
    Ok(())
}

/// Builds and runs the suites of `steps`, one runner process at a time.
pub fn evaluate(
    runner: &Path,
    steps: &[&'static str],
    seed: u64,
    limits: Limits,
) -> io::Result<Vec<StepResult>> {
    run_prepared(runner, prepare(steps, seed), limits, 1)
}
