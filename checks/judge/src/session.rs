//! Runs one suite's cases through the runner, in as many runner processes as
//! it takes: a case that hangs, crashes or floods is recorded and the next
//! clause goes to a fresh runner. What each case did is returned unjudged.

use crate::limits::Limits;
use crate::spawn::{self, Exit, Watch};
use crate::suites::Suite;
use lab_wire::{self as wire, Call, Case, Header, Observed, Value, PROTOCOL};
use std::io::{self, Read, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// The runner's own exit status when the kit, not the learner, is at fault.
const RUNNER_ERROR: i32 = 70;

/// Whether a runner's stderr opens with its signature, `NAME TOKEN:`
/// (`lab_harness::serve` writes it with the runner's own name). The token is
/// the run's secret, which only the runner read, so learner code cannot pass
/// a crash off as a fault of the kit; the name is not what is checked.
fn signed_by_runner(stderr: &str, token: &str) -> bool {
    stderr
        .split_once(' ')
        .is_some_and(|(name, rest)| !name.is_empty() && rest.starts_with(&format!("{token}:")))
}

/// What happened to one case, before judging.
#[derive(Debug, Clone, PartialEq)]
pub enum Got {
    Observed(Observed),
    /// No answer within the per-case limit.
    TimedOut,
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
    /// Not run: the suite's time limit was reached first.
    NotRun,
}

pub struct SuiteRun {
    /// Per clause, per check, in the suite's order.
    pub got: Vec<Vec<Got>>,
    /// Bytes the learner's code printed to stdout and stderr.
    pub printed: u64,
    /// Per clause, per check: what the learner's code printed during that
    /// check (capped at `PRINTED_CAP` per stream), when it printed anything.
    pub output: Vec<Vec<Option<String>>>,
}

/// Most bytes of a check's own stdout (and as many of its stderr) kept to
/// show beside its failure.
pub const PRINTED_CAP: u64 = 1024;

/// What a case printed, read back from a runner's captured streams: its
/// stdout, then its stderr, each capped, each cut marked.
fn printed_text(captured: &spawn::Captured, p: &lab_wire::Printed) -> Option<String> {
    let mut parts = Vec::new();
    for (path, [from, to]) in [(&captured.stdout, p.stdout), (&captured.stderr, p.stderr)] {
        if to > from {
            let (text, cut) = spawn::slice(path, from, to, PRINTED_CAP);
            let mut text = text.trim_end().to_string();
            if cut {
                text += "\n…";
            }
            parts.push(text);
        }
    }
    (!parts.is_empty()).then(|| parts.join("\n"))
}

fn file_name(path: &Path) -> &std::ffi::OsStr {
    path.file_name().unwrap_or(path.as_os_str())
}

/// Reads complete new lines from a growing file.
struct Tail {
    file: std::fs::File,
    pending: Vec<u8>,
}

impl Tail {
    /// The complete lines that arrived since the last call (linear time:
    /// the consumed prefix is dropped once, not line by line).
    fn lines(&mut self) -> Vec<String> {
        let _ = self.file.read_to_end(&mut self.pending);
        let mut lines = Vec::new();
        let mut start = 0;
        while let Some(len) = self.pending[start..].iter().position(|&b| b == b'\n') {
            lines.push(String::from_utf8_lossy(&self.pending[start..start + len]).into_owned());
            start += len + 1;
        }
        self.pending.drain(..start);
        lines
    }
}

/// Most statuses one `RetryableMany` case carries.
const BATCH: usize = 512;

/// A suite's cases written to disk, ready for runners.
pub struct CasesFile {
    dir: tempfile::TempDir,
    path: std::path::PathBuf,
    /// Per case: the flat indices of the checks it answers.
    covers: Vec<std::ops::Range<usize>>,
    /// Per case: whether it is a batch (answered with `Value::Bools`).
    batch: Vec<bool>,
    /// Per case: its clause, for skipping the rest after a bad case.
    clause: Vec<usize>,
    /// Per case: the id its outcome must echo.
    ids: Vec<String>,
}

/// Writes the cases file of a suite (done while the runner still compiles).
/// Consecutive `retryable` checks of one clause travel as batches; every
/// other check is one case.
pub fn write_cases(suite: &Suite, ids: &[String]) -> io::Result<CasesFile> {
    write_selected(suite, ids, true, &|_| true)
}

/// Appends cases to a cases file and records what each one covers.
struct Writer<'a> {
    out: io::BufWriter<std::fs::File>,
    file: CasesFile,
    ids: &'a [String],
    /// A batch being gathered: (clause, first check, statuses).
    pending: Option<(usize, usize, Vec<u16>)>,
}

impl Writer<'_> {
    fn emit(
        &mut self,
        case: Case,
        covers: std::ops::Range<usize>,
        batch: bool,
        clause: usize,
    ) -> io::Result<()> {
        self.out.write_all(wire::to_line(&case).as_bytes())?;
        self.out.write_all(b"\n")?;
        self.file.ids.push(case.id);
        self.file.covers.push(covers);
        self.file.batch.push(batch);
        self.file.clause.push(clause);
        Ok(())
    }

    fn flush_batch(&mut self) -> io::Result<()> {
        if let Some((clause, first, statuses)) = self.pending.take() {
            let covers = first..first + statuses.len();
            let case = Case {
                id: self.ids[first].clone(),
                call: Call::RetryableMany { statuses },
            };
            self.emit(case, covers, true, clause)?;
        }
        Ok(())
    }

    /// Adds `status` (check `i` of clause `c`) to the batch, starting a new
    /// one when it cannot join the current one.
    fn batch(&mut self, c: usize, i: usize, status: u16) -> io::Result<()> {
        let joins = matches!(&self.pending, Some((pc, first, st)) if *pc == c && first + st.len() == i && st.len() < BATCH);
        if !joins {
            self.flush_batch()?;
            self.pending = Some((c, i, Vec::new()));
        }
        if let Some((_, _, st)) = &mut self.pending {
            st.push(status);
        }
        Ok(())
    }
}

fn write_selected(
    suite: &Suite,
    ids: &[String],
    batching: bool,
    wanted: &dyn Fn(usize) -> bool,
) -> io::Result<CasesFile> {
    let dir = tempfile::Builder::new().prefix("retry-lab-").tempdir()?;
    let path = dir.path().join(if batching {
        "cases-batched.jsonl"
    } else {
        "cases-single.jsonl"
    });
    let out = io::BufWriter::new(std::fs::File::create(&path)?);
    let file = CasesFile {
        dir,
        path,
        covers: Vec::new(),
        batch: Vec::new(),
        clause: Vec::new(),
        ids: Vec::new(),
    };
    let mut w = Writer {
        out,
        file,
        ids,
        pending: None,
    };
    w.out.write_all(
        wire::to_line(&Header {
            protocol: PROTOCOL.into(),
        })
        .as_bytes(),
    )?;
    w.out.write_all(b"\n")?;
    let mut i = 0;
    for (c, clause) in suite.clauses.iter().enumerate() {
        for check in &clause.checks {
            match (&check.call, batching && wanted(i)) {
                _ if !wanted(i) => w.flush_batch()?,
                (Call::Retryable { status }, true) => w.batch(c, i, *status)?,
                _ => {
                    w.flush_batch()?;
                    let case = Case {
                        id: ids[i].clone(),
                        call: check.call.clone(),
                    };
                    w.emit(case, i..i + 1, false, c)?;
                }
            }
            i += 1;
        }
    }
    w.flush_batch()?;
    w.out.flush()?;
    Ok(w.file)
}

/// Runs a suite's cases. Batches that come back whole are spread over their
/// checks; a batch that hung, crashed, panicked or answered out of shape is
/// run again one status per case, so every fault lands on its exact input.
pub fn run(
    runner: &Path,
    suite: &Suite,
    cases: &CasesFile,
    ids: &[String],
    limits: Limits,
) -> io::Result<SuiteRun> {
    let place: Vec<usize> = suite
        .clauses
        .iter()
        .enumerate()
        .flat_map(|(c, cl)| std::iter::repeat_n(c, cl.checks.len()))
        .collect();
    let n = place.len();
    let deadline = Instant::now() + limits.suite;
    let batched = cases.batch.iter().any(|b| *b);
    let (per_case, mut printed, outputs) =
        run_cases(runner, suite, cases, limits, deadline, !batched)?;
    let mut got: Vec<Option<Got>> = vec![None; n];
    let mut output: Vec<Option<String>> = vec![None; n];
    let mut again = vec![false; n];
    for (i, g) in per_case.into_iter().enumerate() {
        let covers = cases.covers[i].clone();
        // A batch's output belongs to all the inputs it checked at once.
        for k in covers.clone() {
            output[k] = outputs[i].clone();
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
        let (per_case, more, outputs) = run_cases(runner, suite, &singles, limits, deadline, true)?;
        printed += more;
        for (i, g) in per_case.into_iter().enumerate() {
            got[singles.covers[i].start] = g;
            output[singles.covers[i].start] = outputs[i].clone();
        }
    }
    let mut per_clause: Vec<Vec<Got>> = suite
        .clauses
        .iter()
        .map(|c| Vec::with_capacity(c.checks.len()))
        .collect();
    let mut output_per_clause: Vec<Vec<Option<String>>> = vec![Vec::new(); per_clause.len()];
    for (i, (g, o)) in got.into_iter().zip(output).enumerate() {
        per_clause[place[i]].push(g.unwrap_or(Got::NotRun));
        output_per_clause[place[i]].push(o);
    }
    Ok(SuiteRun {
        got: per_clause,
        printed,
        output: output_per_clause,
    })
}

/// Per case: what it did and what it printed; and the bytes printed in all.
type CasesRun = (Vec<Option<Got>>, u64, Vec<Option<String>>);

/// Runs the cases of a cases file in as many runners as it takes; returns
/// what each case did (by case index) and the bytes printed. With
/// `skip_clause`, the rest of a clause is skipped after a bad case.
fn run_cases(
    runner: &Path,
    suite: &Suite,
    cases: &CasesFile,
    limits: Limits,
    deadline: Instant,
    skip_clause: bool,
) -> io::Result<CasesRun> {
    let t0 = Instant::now();
    let (dir, cases_path, ids) = (&cases.dir, &cases.path, &cases.ids);
    let n = ids.len();
    let mut got: Vec<Option<Got>> = vec![None; n];
    let mut output: Vec<Option<String>> = vec![None; n];
    let (mut next, mut runners, mut printed) = (0, 0, 0);
    // After a fast runner dies, its last outcomes may be lost: the cases from
    // the first missing one are rerun by a careful runner, which pins the
    // crash on its exact case.
    let mut careful = false;
    while next < n {
        let outcomes = dir.path().join(format!("outcomes-{runners}.jsonl"));
        std::fs::File::create(&outcomes)?;
        let mut tail = Tail {
            file: std::fs::File::open(&outcomes)?,
            pending: Vec::new(),
        };
        let mut pos = next;
        let mut forged: Option<(usize, String)> = None;
        let mut spans: Vec<(usize, wire::Printed)> = Vec::new();
        // Relative paths from the runner's own folder, and a bare program
        // name: nothing the runner is told names a place outside it.
        let mut cmd = Command::new(runner);
        cmd.arg0("lab-runner").current_dir(dir.path());
        cmd.arg(file_name(cases_path))
            .arg(file_name(&outcomes))
            .arg(next.to_string());
        if careful {
            cmd.arg("careful");
        }
        let token = crate::rng::nonce();
        let token_name = format!("token-{runners}");
        std::fs::write(dir.path().join(&token_name), &token)?;
        let jail = crate::sandbox::runner(
            runner,
            dir.path(),
            &[],
            crate::sandbox::runner_limits(limits.suite.as_secs() + 5),
        )?
        .env("LAB_RUNNER_TOKEN_FILE", &token_name);
        let watch = Watch {
            idle: limits.case,
            deadline,
            output_cap: limits.output_cap,
        };
        let (exit, captured) = spawn::supervise(
            &mut cmd,
            dir.path(),
            &format!("runner-{runners}"),
            watch,
            Some(jail),
            || {
                let lines = tail.lines();
                for line in &lines {
                    if forged.is_some() || pos >= n {
                        forged.get_or_insert((
                            pos.min(n - 1),
                            format!("an extra outcome line: {line:.80}"),
                        ));
                        continue;
                    }
                    match wire::parse_outcome(line) {
                        Ok(o) if o.id == ids[pos] => {
                            if let Some(p) = o.printed {
                                spans.push((pos, p));
                            }
                            got[pos] = Some(Got::Observed(o.observed));
                        }
                        Ok(o) => {
                            forged = Some((
                                pos,
                                format!("outcome for id {:.40}, not {}", o.id, ids[pos]),
                            ))
                        }
                        Err(e) => forged = Some((pos, format!("unreadable outcome line ({e})"))),
                    }
                    if forged.is_none() {
                        pos += 1;
                    }
                }
                !lines.is_empty()
            },
        )?;
        runners += 1;
        crate::timing(&format!("runner {runners} of {} ended", suite.step), t0);
        printed += captured.bytes();
        for (at, p) in &spans {
            output[*at] = printed_text(&captured, p);
        }
        let bad = match (&forged, exit.clone()) {
            (None, Exit::Success) if pos == n => break,
            (Some((at, why)), _) => {
                got[*at] = Some(Got::Forged(why.clone()));
                *at
            }
            (None, Exit::Failure(RUNNER_ERROR))
                if signed_by_runner(&captured.stderr_excerpt(256), &token) =>
            {
                let why = captured.stderr_excerpt(2048);
                return Err(io::Error::other(why.trim().to_string()));
            }
            (None, Exit::Failure(_) | Exit::Signalled(_) | Exit::Success | Exit::Flood)
                if !careful =>
            {
                careful = true;
                next = pos;
                continue;
            }
            (None, exit) => {
                got[pos] = Some(match exit {
                    Exit::CaseTimeLimit | Exit::OverallTimeLimit => Got::TimedOut,
                    Exit::Flood => Got::Flooded,
                    other => Got::Crashed {
                        exit: other,
                        stderr: captured.stderr_excerpt(2048),
                    },
                });
                pos
            }
        };
        // Anything this runner said after the bad case is not trusted.
        for g in got.iter_mut().skip(bad + 1) {
            *g = None;
        }
        for o in output.iter_mut().skip(bad + 1) {
            *o = None;
        }
        if exit == Exit::OverallTimeLimit {
            break;
        }
        careful = false;
        let clause = cases.clause[bad];
        next = bad + 1;
        while skip_clause && next < n && cases.clause[next] == clause {
            got[next] = Some(Got::Skipped);
            next += 1;
        }
    }
    Ok((got, printed, output))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cases_output_is_its_spans_of_both_streams_capped_and_marked() {
        let dir = tempfile::tempdir().unwrap();
        let captured = spawn::Captured {
            stdout: dir.path().join("out"),
            stderr: dir.path().join("err"),
        };
        let long = "x".repeat(PRINTED_CAP as usize + 10);
        std::fs::write(&captured.stdout, format!("before\nmine\n{long}")).unwrap();
        std::fs::write(&captured.stderr, "warned\n").unwrap();
        let at = |from: usize, to: usize| [from as u64, to as u64];
        let p = wire::Printed {
            stdout: at(7, 12),
            stderr: at(0, 7),
        };
        assert_eq!(printed_text(&captured, &p).as_deref(), Some("mine\nwarned"));
        let cut = wire::Printed {
            stdout: at(12, 12 + long.len()),
            stderr: at(0, 0),
        };
        let text = printed_text(&captured, &cut).unwrap();
        assert!(
            text.ends_with("\n…") && text.len() < long.len(),
            "{}",
            text.len()
        );
        let nothing = wire::Printed {
            stdout: at(3, 3),
            stderr: at(0, 0),
        };
        assert_eq!(printed_text(&captured, &nothing), None);
    }

    #[test]
    fn both_runners_sign_their_faults_and_only_with_the_token() {
        assert!(signed_by_runner("lab-runner t0k: bad header", "t0k"));
        assert!(signed_by_runner("lab-runner-advanced t0k: bad case", "t0k"));
        assert!(!signed_by_runner("lab-runner guess: bad header", "t0k"));
        assert!(!signed_by_runner("lab-runner-advanced : bad case", "t0k"));
        assert!(!signed_by_runner("thread 'main' panicked", "t0k"));
        assert!(!signed_by_runner(" t0k: no name", "t0k"));
    }

    #[test]
    fn statuses_travel_in_batches_within_a_clause_and_singles_when_asked() {
        let suite = crate::suites::build("01", 5);
        let n: usize = suite.clauses.iter().map(|c| c.checks.len()).sum();
        let ids: Vec<String> = (0..n).map(|i| format!("c{i}")).collect();
        let batched = write_cases(&suite, &ids).unwrap();
        assert!(
            batched.covers.len() < n / 100,
            "{} cases for {n} checks",
            batched.covers.len()
        );
        // Every check is covered exactly once, in order, and no batch crosses a clause.
        let mut next = 0;
        for (k, r) in batched.covers.iter().enumerate() {
            assert_eq!(r.start, next);
            assert!(r.len() <= BATCH && batched.batch[k]);
            next = r.end;
        }
        assert_eq!(next, n);
        let first_clause = suite.clauses[0].checks.len();
        assert!(batched
            .covers
            .iter()
            .all(|r| r.end <= first_clause || r.start >= first_clause));
        let singles = write_selected(&suite, &ids, false, &|i| i % 1000 == 0).unwrap();
        assert_eq!(singles.covers.len(), n.div_ceil(1000));
        assert!(singles.batch.iter().all(|b| !b) && singles.covers.iter().all(|r| r.len() == 1));
    }
}
