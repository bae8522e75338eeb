//! The runner processes that answer a cases file: each one started in its
//! jail where the verdicts so far say, its outcomes read as they arrive.

use super::cases::CasesFile;
use super::printed::{flooded_at, printed_since, printed_text};
use super::settle::{settle, signed_by_runner, Bad, Ended, Settled};
use super::time_outs::time_out_now;
use super::Got;
use crate::limits::Limits;
use crate::sandbox::{Jail, RunnerHome};
use crate::spawn::{self, Exit, Watch};
use crate::suites::Suite;
use lab_wire as wire;
use std::io::{self, Write};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// Reads complete new lines from a growing file, by position: the offset
/// the runner writes at (shared with this descriptor) is never moved.
struct Tail {
    file: std::fs::File,
    read_to: u64,
    pending: Vec<u8>,
}

impl Tail {
    /// The complete lines that arrived since the last call (linear time:
    /// the consumed prefix is dropped once, not line by line).
    fn lines(&mut self) -> Vec<String> {
        use std::os::unix::fs::FileExt;
        let mut chunk = [0u8; 64 << 10];
        while let Ok(n @ 1..) = self.file.read_at(&mut chunk, self.read_to) {
            self.pending.extend_from_slice(&chunk[..n]);
            self.read_to += n as u64;
        }
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

/// A pipe holding `bytes`, its write end already closed: the read end.
fn pipe_holding(bytes: &[u8]) -> io::Result<std::os::fd::OwnedFd> {
    use std::os::fd::FromRawFd;
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills `fds` with two new descriptors only we hold.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both are open and owned by nobody else.
    let (read, write) = unsafe {
        (
            std::os::fd::OwnedFd::from_raw_fd(fds[0]),
            std::fs::File::from_raw_fd(fds[1]),
        )
    };
    // A few dozen bytes: far below a pipe's capacity, never blocks.
    (&write).write_all(bytes)?;
    drop(write);
    Ok(read)
}

/// What the runners made of a cases file, per case (by case index).
pub(super) struct CasesRun {
    /// What each case did; `None` for a case no runner answered.
    pub(super) got: Vec<Option<Got>>,
    /// What each case printed, when it printed anything.
    pub(super) output: Vec<Option<String>>,
    /// The wall time each case took: from the end of the case before it (or
    /// its runner's start) to its outcome's arrival.
    pub(super) spent: Vec<Duration>,
    /// Bytes the learner's code printed, in all its runners.
    pub(super) printed: u64,
}

/// One runner, ready to start.
struct Started {
    /// Its own folder, removed when this is dropped (after the runner ended).
    home: RunnerHome,
    cmd: Command,
    jail: Jail,
    /// The file it writes its outcomes into, read by position.
    outcomes: Tail,
    /// The run's secret, which the runner signs a fault of the kit with.
    token: String,
}

/// A runner that starts at case `from` of `cases` (`careful`: flushing
/// each outcome).
///
/// The runner gets a fresh, empty folder of its own; everything the judge
/// gives it or takes from it travels through descriptors (the cases,
/// sealed; the outcomes; the token, in a pipe), so nothing it can write or
/// replace is ever opened by the judge. A bare program name: nothing it is
/// told names a place outside.
fn start(
    runner: &Path,
    cases: &CasesFile,
    limits: Limits,
    from: usize,
    careful: bool,
) -> io::Result<Started> {
    let outcomes = spawn::private_file()?;
    let tail = Tail {
        file: outcomes.try_clone()?,
        read_to: 0,
        pending: Vec::new(),
    };
    let home = RunnerHome::new(runner, limits.confinement)?;
    let mut cmd = Command::new(&home.program);
    cmd.current_dir(&home.dir);
    cmd.arg(from.to_string());
    if careful {
        cmd.arg("careful");
    }
    let token = crate::rng::nonce();
    let jail = crate::sandbox::runner(
        &home.program,
        &home,
        &[],
        crate::sandbox::runner_limits(limits.suite.as_secs() + 5),
    )?
    .named("lab-runner")
    .hand(cases.file.try_clone()?.into(), wire::CASES_FD)
    .hand(outcomes.into(), wire::OUTCOMES_FD)
    .hand(pipe_holding(token.as_bytes())?, wire::TOKEN_FD);
    Ok(Started {
        home,
        cmd,
        jail,
        outcomes: tail,
        token,
    })
}

/// The outcomes one runner sent, checked against the cases as they arrive.
struct Answers<'a> {
    /// Per case: the id its outcome must echo.
    ids: &'a [String],
    /// The first case without an answer.
    pos: usize,
    /// The first outcome line that does not belong, and why.
    forged: Option<(usize, String)>,
    /// Per answered case that printed: what its outcome says it printed.
    spans: Vec<(usize, wire::Printed)>,
    /// When the last answer arrived (at first, when the runner started).
    last: Instant,
}

impl Answers<'_> {
    /// Takes one outcome line into `run`; after a line that does not belong,
    /// nothing more is taken.
    fn take(&mut self, line: &str, run: &mut CasesRun) {
        let (pos, n) = (self.pos, self.ids.len());
        if self.forged.is_some() || pos >= n {
            self.forged
                .get_or_insert((pos.min(n - 1), format!("an extra outcome line: {line:.80}")));
            return;
        }
        match wire::parse_outcome(line) {
            Ok(o) if o.id == self.ids[pos] => {
                if let Some(p) = o.printed {
                    self.spans.push((pos, p));
                }
                run.got[pos] = Some(Got::Observed(o.observed));
                let now = Instant::now();
                run.spent[pos] += now - self.last;
                self.last = now;
                self.pos += 1;
            }
            Ok(o) => {
                self.forged = Some((
                    pos,
                    format!("outcome for id {:.40}, not {}", o.id, self.ids[pos]),
                ))
            }
            Err(e) => self.forged = Some((pos, format!("unreadable outcome line ({e})"))),
        }
    }
}

/// Runs the cases of a cases file in as many runners as it takes; returns
/// what each case did, what it printed and the time it took, and the bytes
/// printed in all. With `skip_clause`, the rest of a clause is skipped
/// after a bad case.
///
/// Where a runner starts is decided by verdicts alone, never by timing: the
/// first runner at the first case, the next one after the bad case, and a
/// careful runner (after a fast one died) where the fast one started. So the
/// runner's output counted against `output_cap` is the same in every run of
/// a seed, and so is the case it floods in.
pub(super) fn run_cases(
    runner: &Path,
    suite: &Suite,
    cases: &CasesFile,
    limits: Limits,
    deadline: Instant,
    skip_clause: bool,
) -> io::Result<CasesRun> {
    let t0 = Instant::now();
    let n = cases.ids.len();
    let mut run = CasesRun {
        got: vec![None; n],
        output: vec![None; n],
        spent: vec![Duration::ZERO; n],
        printed: 0,
    };
    let (mut next, mut runners) = (0, 0);
    // After a fast runner dies, its last outcomes may be lost: the cases from
    // the first missing one are rerun by a careful runner, which pins the
    // crash on its exact case.
    let mut careful = false;
    while next < n {
        let Started {
            home: _home,
            mut cmd,
            jail,
            mut outcomes,
            token,
        } = start(runner, cases, limits, next, careful)?;
        let watch = Watch {
            idle: limits.case,
            deadline,
            output_cap: limits.output_cap,
        };
        let mut answers = Answers {
            ids: &cases.ids,
            pos: next,
            forged: None,
            spans: Vec::new(),
            last: Instant::now(),
        };
        let (exit, captured) = spawn::supervise(&mut cmd, watch, Some(jail), || {
            let lines = outcomes.lines();
            for line in &lines {
                answers.take(line, &mut run);
            }
            !lines.is_empty()
        })?;
        runners += 1;
        crate::timing::phase(&format!("runner {runners} of {} ended", suite.step), t0);
        if answers.pos < n {
            run.spent[answers.pos] += answers.last.elapsed();
        }
        run.printed += captured.bytes();
        for (at, p) in &answers.spans {
            run.output[*at] = printed_text(&captured, p);
        }
        let flooded = flooded_at(&answers.spans, limits.output_cap);
        let ended = Ended {
            exit: exit.clone(),
            flooded,
            forged: answers.forged.clone(),
            pos: answers.pos,
            n,
            start: next,
            careful,
            signed: signed_by_runner(&captured.stderr_excerpt(256), &token),
        };
        let bad = match settle(ended) {
            Settled::Done => break,
            Settled::Careful { from } => {
                careful = true;
                next = from;
                continue;
            }
            Settled::KitFault => {
                let why = captured.stderr_excerpt(2048);
                return Err(io::Error::other(why.trim().to_string()));
            }
            Settled::Bad { at, crashed } => {
                run.got[at] = Some(match crashed {
                    Bad::Forged(why) => Got::Forged(why),
                    Bad::TimedOut => {
                        time_out_now(suite.step, &limits);
                        Got::TimedOut
                    }
                    Bad::Flooded => {
                        if flooded.is_none() {
                            run.output[at] = printed_since(&captured, &answers.spans);
                        }
                        Got::Flooded
                    }
                    Bad::Crashed(exit) => Got::Crashed {
                        exit,
                        stderr: captured.stderr_excerpt(2048),
                    },
                });
                at
            }
        };
        // Anything this runner said after the bad case is not trusted.
        for g in run.got.iter_mut().skip(bad + 1) {
            *g = None;
        }
        for o in run.output.iter_mut().skip(bad + 1) {
            *o = None;
        }
        if exit == Exit::OverallTimeLimit {
            break;
        }
        careful = false;
        let clause = cases.clause[bad];
        next = bad + 1;
        while skip_clause && next < n && cases.clause[next] == clause {
            run.got[next] = Some(Got::Skipped);
            next += 1;
        }
    }
    Ok(run)
}
