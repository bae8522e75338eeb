//! The runner processes that answer a cases file: each one started in its
//! jail where the verdicts so far say, its outcomes read as they arrive.

use super::cases::CasesFile;
use super::printed::{flooded_at, printed_since, printed_text};
use super::settle::{settle, Bad, Ended, Settled};
use super::time_outs::time_out_now;
use super::Got;
use crate::limits::Limits;
use crate::platform::{self, Exit, Heard, Watch};
use crate::platform::{Jail, RunnerHome};
use crate::suites::Suite;
use lab_wire as wire;
use std::io;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// Longest outcome line the judge reads (a legitimate one is at most a few
/// hundred KiB: step 08's longest traces; a panic message is cut at 4 KiB
/// by the harness). A longer line is forged.
pub(super) const LINE_CAP: usize = 1 << 20;

/// Most outcome bytes the judge reads from the runners of one cases file
/// together (the most an honest suite writes: about 10 MiB, step 01 of the
/// untouched stubs, 65,536 panics). Past it the case being answered is
/// forged and the rest of the file is not run. The count runs over every
/// runner of the file, a careful runner's reread included (after a fast
/// runner died), so it leaves room for an honest suite read twice.
pub(super) const OUTCOMES_CAP: u64 = 32 << 20;

/// Most bytes read in one poll, so that the judge looks at its clocks and
/// limits again between pieces.
const READ_PER_POLL: usize = 256 << 10;

/// Why an outcome line was not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Overrun {
    /// A line longer than [`LINE_CAP`].
    LongLine,
    /// More than the cap on all the outcomes.
    TooMuch,
}

/// Reads complete new lines from a growing file, by position (the offset
/// the runner writes at is never moved), in pieces of a fixed size, and
/// never more than `limit` bytes in all. At most one line plus one piece is
/// held at a time.
struct Tail {
    file: std::fs::File,
    read_to: u64,
    /// The most it may read in all.
    limit: u64,
    pending: Vec<u8>,
}

impl Tail {
    /// Hands each complete new line to `each` until it answers
    /// [`Heard::Stop`], reading at most [`READ_PER_POLL`] new bytes; a line
    /// past the cap, or bytes past the limit, are handed as an [`Overrun`].
    /// Returns [`Heard::Stop`] when `each` did, else whether any line made
    /// progress.
    fn poll(&mut self, mut each: impl FnMut(Result<&str, Overrun>) -> Heard) -> Heard {
        let mut heard = Heard::Nothing;
        let mut read = 0;
        let mut chunk = vec![0u8; 64 << 10];
        loop {
            let mut start = 0;
            while let Some(len) = self.pending[start..].iter().position(|&b| b == b'\n') {
                let answer = if len > LINE_CAP {
                    each(Err(Overrun::LongLine))
                } else {
                    each(Ok(&String::from_utf8_lossy(
                        &self.pending[start..start + len],
                    )))
                };
                start += len + 1;
                match answer {
                    Heard::Stop => return Heard::Stop,
                    Heard::Progress => heard = Heard::Progress,
                    Heard::Nothing => {}
                }
            }
            self.pending.drain(..start);
            if self.pending.len() > LINE_CAP {
                return each(Err(Overrun::LongLine));
            }
            if read >= READ_PER_POLL {
                return heard;
            }
            // One byte past the limit is enough to know it was passed.
            let room = (self.limit + 1).saturating_sub(self.read_to);
            let want = chunk.len().min(usize::try_from(room).unwrap_or(usize::MAX));
            let n = crate::platform::fs::read_at(&self.file, &mut chunk[..want], self.read_to)
                .unwrap_or(0);
            if n == 0 {
                return heard;
            }
            self.read_to += n as u64;
            if self.read_to > self.limit {
                return each(Err(Overrun::TooMuch));
            }
            read += n;
            self.pending.extend_from_slice(&chunk[..n]);
        }
    }
}

impl Tail {
    /// Reads every line the file holds (once its writer has ended), piece
    /// by piece, until `each` stops or nothing new is left: still never
    /// more than the limit. An ended runner's outcomes are all read,
    /// however far the judge was behind when it ended.
    fn drain(&mut self, mut each: impl FnMut(Result<&str, Overrun>) -> Heard) {
        loop {
            let before = self.read_to;
            if self.poll(&mut each) == Heard::Stop || self.read_to == before {
                return;
            }
        }
    }
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
    /// Whether a case hung, then or before.
    pub(super) hung: Hung,
}

/// What the step's runs so far left of hangs.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct Hung {
    /// A case hung (told on stderr as it happened).
    pub(super) any: bool,
    /// A hang was told as a time-out against its own input. A hung batch
    /// is not: its cases are run again one by one (in a run that starts
    /// with the full limit), and the first of them that hangs is told as
    /// the time-out; every case after a hang in the same run is cut short.
    pub(super) shown: bool,
}

/// One runner, ready to start.
struct Started {
    /// Its own folder, removed when this is dropped (after the runner ended).
    home: RunnerHome,
    cmd: Command,
    jail: Jail,
    /// The file it writes its outcomes into, read by position.
    outcomes: Tail,
}

/// A runner that starts at case `from` of `cases` (`careful`: flushing
/// each outcome).
///
/// The runner gets a fresh, empty folder of its own; everything the judge
/// gives it or takes from it travels through descriptors (the cases,
/// sealed; the outcomes, append-only), so nothing it can write or replace
/// is ever opened by the judge. It is handed no secret: nothing it says
/// can make a fault of the kit. A bare program name: nothing it is told
/// names a place outside. The judge reads at most `budget` bytes of its
/// outcomes.
fn start(
    runner: &Path,
    cases: &CasesFile,
    limits: Limits,
    (from, careful): (usize, bool),
    budget: u64,
) -> io::Result<Started> {
    let outcomes = platform::private_file()?;
    let tail = Tail {
        file: outcomes.try_clone()?,
        read_to: 0,
        limit: budget,
        pending: Vec::new(),
    };
    let home = RunnerHome::new(runner, limits.confinement)?;
    let mut cmd = Command::new(&home.program);
    cmd.current_dir(&home.dir);
    cmd.arg(from.to_string());
    if careful {
        cmd.arg("careful");
    }
    let jail = crate::platform::runner(
        &home.program,
        &home,
        &[],
        crate::platform::runner_limits(limits.suite.as_secs() + 5),
    )?
    .named("lab-runner")
    .hand(cases.file.try_clone()?.into(), wire::CASES_FD)
    .hand(platform::appending(&outcomes)?, wire::OUTCOMES_FD);
    Ok(Started {
        home,
        cmd,
        jail,
        outcomes: tail,
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
    /// Whether the outcomes went past [`OUTCOMES_CAP`].
    too_much: bool,
    /// What the call of the case at `pos` did so far, as its runner last
    /// wrote while it ran long (see `lab_harness::so_far`).
    so_far: Option<wire::SoFar>,
}

impl Answers<'_> {
    /// Takes one outcome line into `run`: progress when it is the
    /// well-formed outcome of the current case; anything else is forged
    /// and stops the runner (nothing after it is read).
    fn take(&mut self, line: Result<&str, Overrun>, run: &mut CasesRun) -> Heard {
        use crate::catalog::tr;
        let (pos, n) = (self.pos, self.ids.len());
        let why = match line {
            Err(Overrun::LongLine) => tr("forged.long_line", &[("kib", &(LINE_CAP >> 10))]),
            Err(Overrun::TooMuch) => {
                self.too_much = true;
                tr("forged.too_much", &[("mib", &(OUTCOMES_CAP >> 20))])
            }
            Ok(line) if pos >= n => tr("forged.extra", &[("line", &quoted(line))]),
            Ok(line) => match wire::parse_outcome(line) {
                Ok(o) if o.id == self.ids[pos] => {
                    if let Some(p) = o.printed {
                        self.spans.push((pos, p));
                    }
                    run.got[pos] = Some(Got::Observed(o.observed));
                    self.so_far = None;
                    let now = Instant::now();
                    run.spent[pos] += now - self.last;
                    self.last = now;
                    self.pos += 1;
                    return Heard::Progress;
                }
                Ok(o) => tr(
                    "forged.other_id",
                    &[("id", &quoted(&o.id)), ("expected", &self.ids[pos])],
                ),
                // Not an outcome: the current case's story so far (never
                // progress), or a line that does not belong.
                Err(_) => match wire::parse_partial(line) {
                    Ok(p) if p.partial == self.ids[pos] => {
                        self.so_far = Some(p.so_far);
                        return Heard::Nothing;
                    }
                    Ok(p) => tr(
                        "forged.other_id",
                        &[("id", &quoted(&p.partial)), ("expected", &self.ids[pos])],
                    ),
                    Err(_) => tr("forged.unreadable", &[("line", &quoted(line))]),
                },
            },
        };
        self.forged
            .get_or_insert((pos.min(n.saturating_sub(1)), why));
        Heard::Stop
    }
}

/// The start of a line the runner wrote, quoted: the submission's words.
fn quoted(line: &str) -> String {
    let mut end = line.len().min(80);
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    format!("{:?}", &line[..end])
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
    hung: Hung,
) -> io::Result<CasesRun> {
    let t0 = Instant::now();
    // Once a case of the step hung, the next ones in this run get less
    // time; a run that starts after a hung batch (its cases one by one)
    // gives the full limit until one of its own hangs.
    let short = |mut l: Limits| {
        l.case = l.case.min(super::AFTER_A_HANG);
        l
    };
    let mut limits = if hung.shown { short(limits) } else { limits };
    let n = cases.ids.len();
    let mut run = CasesRun {
        got: vec![None; n],
        output: vec![None; n],
        spent: vec![Duration::ZERO; n],
        printed: 0,
        hung,
    };
    let (mut next, mut runners) = (0, 0);
    let mut budget = OUTCOMES_CAP;
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
        } = start(runner, cases, limits, (next, careful), budget)?;
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
            too_much: false,
            so_far: None,
        };
        // Once a line is forged nothing more is read: the runner is stopped.
        let (exit, captured) = platform::supervise_heard(&mut cmd, watch, Some(jail), || {
            if answers.forged.is_some() {
                return Heard::Stop;
            }
            outcomes.poll(|line| answers.take(line, &mut run))
        })?;
        // The runner has ended: whatever it wrote is read now, however far
        // behind a loaded machine left the judge (an honest runner that
        // ended is never taken for one that died).
        if answers.forged.is_none() {
            outcomes.drain(|line| answers.take(line, &mut run));
        }
        runners += 1;
        budget = budget.saturating_sub(outcomes.read_to);
        crate::timing::phase(
            &format!(
                "runner {runners} of {} ended ({} bytes of outcomes)",
                suite.step, outcomes.read_to
            ),
            t0,
        );
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
        };
        let bad = match settle(ended) {
            Settled::Done => break,
            Settled::Careful { from } => {
                careful = true;
                next = from;
                continue;
            }
            Settled::Bad { at, crashed } => {
                run.got[at] = Some(match crashed {
                    Bad::Forged(why) => Got::Forged(why),
                    Bad::TimedOut => {
                        time_out_now(suite.step, &limits, run.hung.any);
                        let got = if run.hung.shown {
                            Got::CutShort
                        } else {
                            let so_far = (at == answers.pos).then(|| answers.so_far.take());
                            Got::TimedOut(so_far.flatten().map(Box::new))
                        };
                        run.hung = Hung {
                            any: true,
                            shown: run.hung.shown || !cases.batch[at],
                        };
                        limits = short(limits);
                        got
                    }
                    Bad::StepTimeUp => Got::NotRun,
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
        if exit == Exit::OverallTimeLimit || answers.too_much {
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

#[cfg(test)]
mod tests;
