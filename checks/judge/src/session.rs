//! Runs one suite's cases through the runner, in as many runner processes as
//! it takes: a case that hangs, crashes or floods is recorded and the next
//! clause goes to a fresh runner. What each case did is returned unjudged.

use crate::spawn::{self, Exit, Watch};
use crate::suites::Suite;
use lab_api::wire::{self, Case, Header, Observed, PROTOCOL};
use std::io::{self, Read, Write};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// The runner's own exit status when the kit, not the learner, is at fault.
const RUNNER_ERROR: i32 = 70;

/// Time and output limits of one suite.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub case: Duration,
    pub suite: Duration,
    pub output_cap: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            case: Duration::from_secs(2),
            suite: Duration::from_secs(45),
            output_cap: 32 << 20,
        }
    }
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

/// A suite's cases written to disk, ready for runners.
pub struct CasesFile {
    dir: tempfile::TempDir,
    path: std::path::PathBuf,
    /// Flat case index -> (clause, check).
    place: Vec<(usize, usize)>,
}

/// Writes the cases file of a suite (done while the runner still compiles).
pub fn write_cases(suite: &Suite, ids: &[String]) -> io::Result<CasesFile> {
    let dir = tempfile::Builder::new().prefix("retry-lab-").tempdir()?;
    let mut place = Vec::new(); // flat index -> (clause, check)
    let cases_path = dir.path().join("cases.jsonl");
    {
        let mut out = io::BufWriter::new(std::fs::File::create(&cases_path)?);
        let header = Header {
            protocol: PROTOCOL.into(),
        };
        out.write_all(wire::to_line(&header).as_bytes())?;
        out.write_all(b"\n")?;
        for (c, clause) in suite.clauses.iter().enumerate() {
            for (k, check) in clause.checks.iter().enumerate() {
                let case = Case {
                    id: ids[place.len()].clone(),
                    call: check.call.clone(),
                };
                out.write_all(wire::to_line(&case).as_bytes())?;
                out.write_all(b"\n")?;
                place.push((c, k));
            }
        }
        out.flush()?;
    }
    Ok(CasesFile {
        dir,
        path: cases_path,
        place,
    })
}

pub fn run(
    runner: &Path,
    suite: &Suite,
    cases: &CasesFile,
    ids: &[String],
    limits: Limits,
) -> io::Result<SuiteRun> {
    let t0 = Instant::now();
    let (dir, cases_path, place) = (&cases.dir, &cases.path, &cases.place);
    let n = place.len();
    let mut got: Vec<Option<Got>> = vec![None; n];
    let deadline = Instant::now() + limits.suite;
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
        let mut cmd = Command::new(runner);
        cmd.arg(cases_path).arg(&outcomes).arg(next.to_string());
        if careful {
            cmd.arg("careful");
        }
        let token = crate::rng::nonce();
        let token_file = dir.path().join(format!("token-{runners}"));
        std::fs::write(&token_file, &token)?;
        cmd.env("LAB_RUNNER_TOKEN_FILE", &token_file);
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
                        Ok(o) if o.id == ids[pos] => got[pos] = Some(Got::Observed(o.observed)),
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
        let bad = match (&forged, exit.clone()) {
            (None, Exit::Success) if pos == n => break,
            (Some((at, why)), _) => {
                got[*at] = Some(Got::Forged(why.clone()));
                *at
            }
            (None, Exit::Failure(RUNNER_ERROR))
                if captured
                    .stderr_excerpt(256)
                    .starts_with(&format!("lab-runner {token}:")) =>
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
        if exit == Exit::OverallTimeLimit {
            break;
        }
        careful = false;
        let clause = place[bad].0;
        next = bad + 1;
        while next < n && place[next].0 == clause {
            got[next] = Some(Got::Skipped);
            next += 1;
        }
    }
    let mut per_clause: Vec<Vec<Got>> = suite
        .clauses
        .iter()
        .map(|c| Vec::with_capacity(c.checks.len()))
        .collect();
    for (i, g) in got.into_iter().enumerate() {
        per_clause[place[i].0].push(g.unwrap_or(Got::NotRun));
    }
    Ok(SuiteRun {
        got: per_clause,
        printed,
    })
}
