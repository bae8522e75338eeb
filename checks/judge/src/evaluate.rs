//! One evaluation: every selected step's suite, run against one runner and
//! judged. Shared by `check`, `selftest` and grading.

use crate::limits::Limits;
use crate::rng::Gen;
use crate::session::{self, Got, SuiteRun};
use crate::shrink;
use crate::suites::{self, Check, Clause, Suite};
use crate::verdict::{clause_verdict, judge, ClauseVerdict, Fault};
use lab_wire::Observed;
use std::io;
use std::path::Path;
use std::sync::Arc;

/// At most this many failing inputs are shown per clause.
pub const SHOWN_PER_CLAUSE: usize = 3;

pub struct StepResult {
    /// Shared with the other submissions a grading worker runs it for;
    /// copied only when shrinking adds a check to it.
    pub suite: Arc<Suite>,
    pub run: SuiteRun,
    pub verdicts: Vec<ClauseVerdict>,
    /// Wall time of running and judging the step (shrinking included).
    pub elapsed: std::time::Duration,
}

impl StepResult {
    /// A step that could not run: every clause gets `verdict`
    /// (`NotAttempted` or `NotBuilt`); no process is started.
    pub fn unavailable(step: &'static str, seed: u64, verdict: ClauseVerdict) -> StepResult {
        let suite = skeleton(step, seed);
        let n = suite.clauses.len();
        StepResult {
            suite: Arc::new(suite),
            run: SuiteRun {
                got: vec![Vec::new(); n],
                printed: 0,
                output: vec![Vec::new(); n],
                spent: vec![std::time::Duration::ZERO; n],
            },
            verdicts: vec![verdict; n],
            elapsed: std::time::Duration::ZERO,
        }
    }

    /// Whether the step could not run (not attempted, or not built).
    pub fn could_not_run(&self) -> bool {
        self.verdicts
            .iter()
            .any(|v| matches!(v, ClauseVerdict::NotAttempted | ClauseVerdict::NotBuilt))
    }

    /// The step was not started: every clause still reaches `todo!()`, and
    /// that stub is the step's own (not another step's that it calls).
    pub fn not_started(&self) -> bool {
        self.verdicts
            .iter()
            .all(|v| matches!(v, ClauseVerdict::NotImplemented))
            && self.stub_reached().is_none_or(|s| s == self.suite.step)
    }

    /// The step whose stub the learner's code reached first, read from the
    /// stubs' own `todo!("step NN: …")` message; `None` when no case reached
    /// a stub or its message names no step.
    pub fn stub_reached(&self) -> Option<&'static str> {
        self.run.got.iter().flatten().find_map(|g| match g {
            Got::Observed(Observed::Panicked {
                message,
                todo: true,
                ..
            }) => Some(stub_step(message)),
            _ => None,
        })?
    }
}

/// The registered step a stub's `todo!` message names: "not yet
/// implemented: step 04: backoff(…)" → `04`.
pub fn stub_step(message: &str) -> Option<&'static str> {
    let rest = message.split_once(": step ")?.1;
    let id = rest.split(':').next()?;
    crate::suites::find(id).map(|e| e.id)
}

/// A step's suite with its clauses but none of their checks: what a step
/// that cannot run reports. Built once per step and seed in a process (a
/// grading run asks for it once per submission).
fn skeleton(step: &'static str, seed: u64) -> Suite {
    type Cache = std::sync::Mutex<std::collections::HashMap<(&'static str, u64), Suite>>;
    static CACHE: std::sync::OnceLock<Cache> = std::sync::OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(suite) = cache
        .lock()
        .ok()
        .and_then(|c| c.get(&(step, seed)).cloned())
    {
        return suite;
    }
    let mut suite = suites::build(step, seed);
    for clause in &mut suite.clauses {
        clause.checks.clear();
    }
    if let Ok(mut c) = cache.lock() {
        c.insert((step, seed), suite.clone());
    }
    suite
}

/// A suite with the random ids of its cases, ready to run.
pub struct Prepared {
    pub suite: Arc<Suite>,
    pub seed: u64,
    /// Shared by every run of the suite: step 01 alone has 65 540.
    pub ids: Arc<[String]>,
    pub cases: io::Result<session::CasesFile>,
}

impl Prepared {
    /// The same suite again, for a run after the runs of this one (see
    /// [`session::CasesFile::again`]): grading builds each suite once per
    /// worker, not once per submission.
    pub fn again(&self) -> Prepared {
        let cases = match &self.cases {
            Ok(cases) => cases.again(),
            Err(e) => Err(io::Error::new(e.kind(), e.to_string())),
        };
        Prepared {
            suite: self.suite.clone(),
            seed: self.seed,
            ids: self.ids.clone(),
            cases,
        }
    }
}

/// Builds the suites of `steps` (no process is started).
pub fn prepare(steps: &[&'static str], seed: u64) -> Vec<Prepared> {
    steps
        .iter()
        .map(|step| {
            let suite = suites::build(step, seed);
            let count: usize = suite.clauses.iter().map(|c| c.checks.len()).sum();
            let mut g = Gen::fork(seed, &format!("ids-{step}"));
            let ids: Arc<[String]> = (0..count).map(|_| g.id("c")).collect();
            let cases = session::write_cases(&suite, &ids);
            Prepared {
                suite: Arc::new(suite),
                seed,
                ids,
                cases,
            }
        })
        .collect()
}

/// Runs and judges one step. The step's whole time, shrinking included,
/// is bounded by one suite limit: its runners, the per-status reruns and
/// every shrinking round share one deadline.
fn run_one(runner: &Path, p: Prepared, limits: Limits) -> io::Result<StepResult> {
    let started = std::time::Instant::now();
    let deadline = started + limits.suite;
    let run = session::run(runner, &p.suite, &p.cases?, &p.ids, limits, deadline)?;
    crate::timing::phase(&format!("suite {} ran", p.suite.step), started);
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
        elapsed: std::time::Duration::ZERO,
    };
    shrink_failures(runner, &mut result, p.seed, limits, deadline)?;
    result.elapsed = started.elapsed();
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
    let jobs = prepared.into_iter().map(|p| (runner, p)).collect();
    run_jobs(jobs, limits, parallel)
}

/// Runs prepared suites, each with its own runner, `parallel` runner
/// processes at a time; results come back in the jobs' order.
pub fn run_jobs(
    jobs: Vec<(&Path, Prepared)>,
    limits: Limits,
    parallel: usize,
) -> io::Result<Vec<StepResult>> {
    let count = jobs.len();
    let queue = std::sync::Mutex::new(jobs.into_iter().enumerate().collect::<Vec<_>>());
    let results = std::sync::Mutex::new(Vec::with_capacity(count));
    std::thread::scope(|scope| {
        for _ in 0..parallel.clamp(1, count.max(1)) {
            scope.spawn(|| loop {
                let next = queue
                    .lock()
                    .ok()
                    .and_then(|mut q| (!q.is_empty()).then(|| q.remove(0)));
                let Some((i, (runner, p))) = next else { break };
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
/// Shrinking shares the step's `deadline`, and ends for the whole step at
/// the first candidate that did not answer (timed out, not run, forged):
/// a submission that hangs on the shrinker's candidates costs at most what
/// its step may cost, and the simplest failure found so far is shown.
fn shrink_failures(
    runner: &Path,
    result: &mut StepResult,
    seed: u64,
    limits: Limits,
    deadline: std::time::Instant,
) -> io::Result<()> {
    let mut unanswered = false;
    for c in 0..result.suite.clauses.len() {
        if unanswered || std::time::Instant::now() >= deadline {
            break;
        }
        let key = result.suite.clauses[c].key.clone();
        let ClauseVerdict::Failed { faults, .. } = &result.verdicts[c] else {
            continue;
        };
        let Some((i, fault)) = faults.first().cloned() else {
            continue;
        };
        if !key.ends_with("/random") || !matches!(fault, Fault::Wrong(_) | Fault::Panicked(..)) {
            continue;
        }
        let mut current = result.suite.clauses[c].checks[i].clone();
        let mut best: Option<(Check, Fault, Option<String>)> = None;
        for round in 0..shrink::ROUNDS {
            let checks = shrink::round(&current);
            if checks.is_empty() || std::time::Instant::now() >= deadline {
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
            let run = session::run(runner, &mini, &cases, &ids, limits, deadline)?;
            result.run.spent[c] += run.spent[0];
            unanswered = run.got[0].iter().any(unanswered_candidate);
            let found =
                checks
                    .iter()
                    .zip(&run.got[0])
                    .zip(&run.output[0])
                    .find_map(|((k, g), o)| match judge(k, g) {
                        Some(f @ (Fault::Wrong(_) | Fault::Panicked(..))) => {
                            Some((k.clone(), f, o.clone()))
                        }
                        _ => None,
                    });
            let Some((check, f, output)) = found else {
                break;
            };
            current = check.clone();
            best = Some((check, f, output));
            if unanswered {
                break;
            }
        }
        if let (Some((check, f, output)), ClauseVerdict::Failed { faults, total }) =
            (best, &mut result.verdicts[c])
        {
            let clause = &mut Arc::make_mut(&mut result.suite).clauses[c];
            clause.checks.push(check);
            result.run.output[c].resize(clause.checks.len() - 1, None);
            result.run.output[c].push(output);
            faults.insert(0, (clause.checks.len() - 1, f));
            faults.truncate(SHOWN_PER_CLAUSE);
            *total += 1;
        }
    }
    Ok(())
}

/// Whether a shrinking candidate got no answer of its own: shrinking stops
/// there.
fn unanswered_candidate(got: &Got) -> bool {
    matches!(
        got,
        Got::TimedOut(_) | Got::CutShort | Got::NotRun | Got::Forged(_)
    )
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

/// What every clause of an advanced step gets when the advanced runner is
/// missing (no advanced file) or did not build; `None` when it was built.
pub fn unavailable_verdict(advanced: &crate::compile::Advanced) -> Option<ClauseVerdict> {
    use crate::compile::Advanced;
    match advanced {
        Advanced::Built(_) => None,
        Advanced::Absent | Advanced::NotAsked => Some(ClauseVerdict::NotAttempted),
        Advanced::DoesNotCompile(_) => Some(ClauseVerdict::NotBuilt),
    }
}

/// Runs prepared suites of core and advanced steps with the runners built
/// for them; an advanced step whose runner is absent or did not build gets
/// an unavailable result. Results come back in the prepared order.
pub fn run_with(
    core: Option<&Path>,
    advanced: &crate::compile::Advanced,
    prepared: Vec<Prepared>,
    limits: Limits,
    parallel: usize,
) -> io::Result<Vec<StepResult>> {
    use crate::compile::Advanced;
    let mut slots: Vec<Option<StepResult>> = Vec::new();
    let mut jobs = Vec::new();
    let mut places = Vec::new();
    for p in prepared {
        let step = p.suite.step;
        let runner = if suites::is_advanced(step) {
            if let Some(verdict) = unavailable_verdict(advanced) {
                slots.push(Some(StepResult::unavailable(step, p.seed, verdict)));
            }
            match advanced {
                Advanced::Built(path) => Some(path.as_path()),
                _ => None,
            }
        } else {
            core
        };
        if let Some(runner) = runner {
            places.push(slots.len());
            slots.push(None);
            jobs.push((runner, p));
        }
    }
    for (place, result) in places.into_iter().zip(run_jobs(jobs, limits, parallel)?) {
        slots[place] = Some(result);
    }
    Ok(slots.into_iter().flatten().collect())
}

#[cfg(test)]
mod tests {
    use super::stub_step;

    #[test]
    fn a_stubs_message_names_its_step() {
        assert_eq!(
            stub_step("not yet implemented: step 04: backoff(1, 0.5, 8)"),
            Some("04")
        );
        assert_eq!(
            stub_step("not yet implemented: step 13: Gate::in_use"),
            Some("13")
        );
        assert_eq!(stub_step("not yet implemented: step 99: x"), None);
        assert_eq!(stub_step("not yet implemented"), None);
        assert_eq!(stub_step("not implemented: my own todo"), None);
    }
}
