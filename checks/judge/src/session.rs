//! Runs one suite's cases through the runner, in as many runner processes as
//! it takes: a case that hangs, crashes or floods is recorded and the next
//! clause goes to a fresh runner. What each case did is returned unjudged.

use crate::limits::Limits;
use crate::spawn::{self, Exit, Watch};
use crate::suites::Suite;
use lab_wire::{self as wire, Call, Case, Header, Observed, Value, PROTOCOL};
use std::io::{self, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

/// Whether a case that reaches its time limit is told at once, on stderr
/// (a learner's `check`: a loop that never ends should not look like a kit
/// that hangs), and how many each step has had so far.
static TELL_TIME_OUTS: std::sync::Mutex<Option<Vec<(&'static str, usize)>>> =
    std::sync::Mutex::new(None);

/// From now on, every case that reaches its time limit is told on stderr
/// as it happens.
pub fn tell_time_outs() {
    let mut told = TELL_TIME_OUTS.lock().unwrap_or_else(|e| e.into_inner());
    told.get_or_insert_with(Vec::new);
}

/// Tells that a case of `step` reached the case limit: the first in full,
/// then a count.
fn time_out_now(step: &'static str, limits: &Limits) {
    let mut told = TELL_TIME_OUTS.lock().unwrap_or_else(|e| e.into_inner());
    let Some(told) = told.as_mut() else {
        return;
    };
    let count = match told.iter_mut().find(|(s, _)| *s == step) {
        Some((_, n)) => {
            *n += 1;
            *n
        }
        None => {
            told.push((step, 1));
            1
        }
    };
    let seconds = limits.case.as_secs_f64();
    let line = if count == 1 {
        crate::catalog::tr(
            "run.timed_out_now",
            &[("step", &step), ("seconds", &seconds)],
        )
    } else {
        crate::catalog::tr(
            "run.timed_out_again",
            &[("step", &step), ("seconds", &seconds), ("count", &count)],
        )
    };
    eprintln!("lab: {line}");
}

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
    /// Per clause: the wall time its cases took, each from the end of the
    /// case before it (or its runner's start) to its outcome's arrival,
    /// reruns included.
    pub spent: Vec<Duration>,
}

/// Most bytes of a check's own stdout (and as many of its stderr) kept to
/// show beside its failure.
pub const PRINTED_CAP: u64 = 1024;

/// What a case printed, read back from a runner's captured streams: its
/// stdout, then its stderr, each capped, each cut marked.
fn printed_text(captured: &spawn::Captured, p: &lab_wire::Printed) -> Option<String> {
    let mut parts = Vec::new();
    for (file, [from, to]) in [(&captured.stdout, p.stdout), (&captured.stderr, p.stderr)] {
        if to > from {
            let (text, cut) = spawn::slice(file, from, to, PRINTED_CAP);
            let mut text = text.trim_end().to_string();
            if cut {
                text += "\n…";
            }
            parts.push(text);
        }
    }
    (!parts.is_empty()).then(|| parts.join("\n"))
}

/// The runner's output (stdout and stderr together, counted from the
/// runner's start) after each case whose outcome says it printed: the
/// offsets the spans end at, in case order.
fn ends(spans: &[(usize, wire::Printed)]) -> impl Iterator<Item = (usize, [u64; 2])> + '_ {
    let mut last = [0, 0];
    spans.iter().map(move |(at, p)| {
        last = [last[0].max(p.stdout[1]), last[1].max(p.stderr[1])];
        (*at, last)
    })
}

/// The case during which a runner's output first grew past `cap`, read
/// from the outcomes that arrived: that case flooded, whether or not the
/// judge stopped the runner in time, and however many cases after it had
/// answered when the runner was stopped.
fn flooded_at(spans: &[(usize, wire::Printed)], cap: u64) -> Option<usize> {
    ends(spans)
        .find(|(_, [out, err])| out + err > cap)
        .map(|(at, _)| at)
}

/// What the case a runner was stopped in printed: both streams from where
/// the last answered case left them.
fn printed_since(captured: &spawn::Captured, spans: &[(usize, wire::Printed)]) -> Option<String> {
    let [out, err] = ends(spans).last().map_or([0, 0], |(_, e)| e);
    let p = wire::Printed {
        stdout: [out, spawn::size(&captured.stdout).max(out)],
        stderr: [err, spawn::size(&captured.stderr).max(err)],
    };
    printed_text(captured, &p)
}

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

/// Most statuses one `RetryableMany` case carries.
const BATCH: usize = 512;

/// A suite's cases, written once into a sealed file of the judge's own
/// (see [`sealed_file`]) and handed to each runner as descriptor
/// [`wire::CASES_FD`].
pub struct CasesFile {
    file: std::fs::File,
    /// Per case: the flat indices of the checks it answers.
    covers: Vec<std::ops::Range<usize>>,
    /// Per case: whether it is a batch (answered with `Value::Bools`).
    batch: Vec<bool>,
    /// Per case: its clause, for skipping the rest after a bad case.
    clause: Vec<usize>,
    /// Per case: the id its outcome must echo.
    ids: Vec<String>,
}

impl CasesFile {
    /// The same cases for another run, through a second descriptor of the
    /// same sealed file. The two share a read offset (each runner rewinds
    /// first), so they serve runners that run one after the other.
    pub fn again(&self) -> io::Result<CasesFile> {
        Ok(CasesFile {
            file: self.file.try_clone()?,
            covers: self.covers.clone(),
            batch: self.batch.clone(),
            clause: self.clause.clone(),
            ids: self.ids.clone(),
        })
    }
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
    let sealed = memory_file()?;
    let out = io::BufWriter::new(sealed.try_clone()?);
    let file = CasesFile {
        file: sealed,
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
    seal(&w.file.file)?;
    Ok(w.file)
}

/// A file in memory with no name (memfd), which can be sealed.
fn memory_file() -> io::Result<std::fs::File> {
    use std::os::fd::FromRawFd;
    // SAFETY: memfd_create returns a new descriptor that only we hold.
    let fd = unsafe {
        libc::memfd_create(
            c"retry-lab-cases".as_ptr(),
            libc::MFD_CLOEXEC | libc::MFD_ALLOW_SEALING,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` is open and owned by nobody else.
    Ok(unsafe { std::fs::File::from_raw_fd(fd) })
}

/// Seals a memory file for good: no process, the judge included, can
/// write, grow or shrink it any more, through any descriptor.
fn seal(file: &std::fs::File) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let seals = libc::F_SEAL_SEAL | libc::F_SEAL_SHRINK | libc::F_SEAL_GROW | libc::F_SEAL_WRITE;
    // SAFETY: fcntl on a descriptor we own.
    if unsafe { libc::fcntl(file.as_raw_fd(), libc::F_ADD_SEALS, seals) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
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
    let mut spent = vec![Duration::ZERO; suite.clauses.len()];
    let (per_case, mut printed, outputs, took) =
        run_cases(runner, suite, cases, limits, deadline, !batched)?;
    for (i, t) in took.into_iter().enumerate() {
        spent[cases.clause[i]] += t;
    }
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
        let (per_case, more, outputs, took) =
            run_cases(runner, suite, &singles, limits, deadline, true)?;
        printed += more;
        for (i, t) in took.into_iter().enumerate() {
            spent[singles.clause[i]] += t;
        }
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
        spent,
    })
}

/// How one runner ended, as far as judging its cases goes.
#[derive(Debug, Clone)]
struct Ended {
    exit: Exit,
    /// The case whose answer shows the runner's output past the cap.
    flooded: Option<usize>,
    /// The first outcome line that does not belong, and why.
    forged: Option<(usize, String)>,
    /// The first case without an answer.
    pos: usize,
    /// Cases in the file.
    n: usize,
    /// The case the runner started at.
    start: usize,
    careful: bool,
    /// Its stderr opens with the runner's own signature.
    signed: bool,
}

/// What the case a runner was stopped in gets.
#[derive(Debug, Clone, PartialEq)]
enum Bad {
    Forged(String),
    TimedOut,
    Flooded,
    Crashed(Exit),
}

#[derive(Debug, Clone, PartialEq)]
enum Settled {
    /// Every case answered.
    Done,
    /// A fast runner died: a careful one runs the cases again from `from`.
    Careful { from: usize },
    /// The runner reported a fault of the kit.
    KitFault,
    /// Case `at` went wrong; nothing the runner said after it is trusted.
    Bad { at: usize, crashed: Bad },
}

/// Which case a runner's end is pinned on. Decided by what the runner
/// answered, never by when the judge looked: a case that answered yet took
/// the output past the cap flooded even when a later case was running when
/// the runner was stopped (or when nobody stopped it), and a careful runner
/// starts where the fast one did, so it counts the same output.
fn settle(e: Ended) -> Settled {
    match (e.flooded, e.forged, e.exit) {
        (Some(at), _, _) => Settled::Bad {
            at,
            crashed: Bad::Flooded,
        },
        (None, None, Exit::Success) if e.pos == e.n => Settled::Done,
        (None, Some((at, why)), _) => Settled::Bad {
            at,
            crashed: Bad::Forged(why),
        },
        // Every case answered before the runner died, hung or overflowed on
        // its way out: every outcome is in, the rest is not a case's doing.
        (None, None, _) if e.pos >= e.n => Settled::Done,
        (None, None, Exit::Failure(RUNNER_ERROR)) if e.signed => Settled::KitFault,
        (None, None, Exit::Failure(_) | Exit::Signalled(_) | Exit::Success | Exit::Flood)
            if !e.careful =>
        {
            Settled::Careful { from: e.start }
        }
        (None, None, exit) => Settled::Bad {
            at: e.pos,
            crashed: match exit {
                Exit::CaseTimeLimit | Exit::OverallTimeLimit => Bad::TimedOut,
                Exit::Flood => Bad::Flooded,
                other => Bad::Crashed(other),
            },
        },
    }
}

/// Per case: what it did and what it printed; the bytes printed in all; and
/// per case the wall time it took.
type CasesRun = (Vec<Option<Got>>, u64, Vec<Option<String>>, Vec<Duration>);

/// Runs the cases of a cases file in as many runners as it takes; returns
/// what each case did (by case index), the bytes printed and the time each
/// case took. With `skip_clause`, the rest of a clause is skipped after a
/// bad case.
///
/// Where a runner starts is decided by verdicts alone, never by timing: the
/// first runner at the first case, the next one after the bad case, and a
/// careful runner (after a fast one died) where the fast one started. So the
/// runner's output counted against `output_cap` is the same in every run of
/// a seed, and so is the case it floods in.
fn run_cases(
    runner: &Path,
    suite: &Suite,
    cases: &CasesFile,
    limits: Limits,
    deadline: Instant,
    skip_clause: bool,
) -> io::Result<CasesRun> {
    let t0 = Instant::now();
    let ids = &cases.ids;
    let n = ids.len();
    let mut got: Vec<Option<Got>> = vec![None; n];
    let mut output: Vec<Option<String>> = vec![None; n];
    let mut spent = vec![Duration::ZERO; n];
    let (mut next, mut runners, mut printed) = (0, 0, 0);
    // After a fast runner dies, its last outcomes may be lost: the cases from
    // the first missing one are rerun by a careful runner, which pins the
    // crash on its exact case.
    let mut careful = false;
    while next < n {
        let start = next;
        let outcomes = spawn::private_file()?;
        let mut tail = Tail {
            file: outcomes.try_clone()?,
            read_to: 0,
            pending: Vec::new(),
        };
        let mut pos = next;
        let mut forged: Option<(usize, String)> = None;
        let mut spans: Vec<(usize, wire::Printed)> = Vec::new();
        // The runner gets a fresh, empty folder of its own; everything the
        // judge gives it or takes from it travels through descriptors
        // (the cases, sealed; the outcomes; the token, in a pipe), so
        // nothing it can write or replace is ever opened by the judge. A
        // bare program name: nothing it is told names a place outside.
        let home = crate::sandbox::RunnerHome::new(runner)?;
        let mut cmd = Command::new(&home.program);
        cmd.arg0("lab-runner").current_dir(&home.dir);
        cmd.arg(next.to_string());
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
        .hand(cases.file.try_clone()?.into(), wire::CASES_FD)
        .hand(outcomes.into(), wire::OUTCOMES_FD)
        .hand(pipe_holding(token.as_bytes())?, wire::TOKEN_FD);
        let watch = Watch {
            idle: limits.case,
            deadline,
            output_cap: limits.output_cap,
        };
        let mut last = Instant::now();
        let (exit, captured) = spawn::supervise(&mut cmd, watch, Some(jail), || {
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
                        let now = Instant::now();
                        spent[pos] += now - last;
                        last = now;
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
        })?;
        runners += 1;
        crate::timing::phase(&format!("runner {runners} of {} ended", suite.step), t0);
        if pos < n {
            spent[pos] += last.elapsed();
        }
        printed += captured.bytes();
        for (at, p) in &spans {
            output[*at] = printed_text(&captured, p);
        }
        let flooded = flooded_at(&spans, limits.output_cap);
        let ended = Ended {
            exit: exit.clone(),
            flooded,
            forged: forged.clone(),
            pos,
            n,
            start,
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
                got[at] = Some(match crashed {
                    Bad::Forged(why) => Got::Forged(why),
                    Bad::TimedOut => {
                        time_out_now(suite.step, &limits);
                        Got::TimedOut
                    }
                    Bad::Flooded => {
                        if flooded.is_none() {
                            output[at] = printed_since(&captured, &spans);
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
    Ok((got, printed, output, spent))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Captured streams that hold `stdout` and `stderr`.
    fn holding(stdout: &str, stderr: &str) -> spawn::Captured {
        let file = |text: &str| {
            let mut f = spawn::private_file().unwrap();
            f.write_all(text.as_bytes()).unwrap();
            f
        };
        spawn::Captured {
            stdout: file(stdout),
            stderr: file(stderr),
        }
    }

    #[test]
    fn a_cases_output_is_its_spans_of_both_streams_capped_and_marked() {
        let long = "x".repeat(PRINTED_CAP as usize + 10);
        let captured = holding(&format!("before\nmine\n{long}"), "warned\n");
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

    fn printed(stdout: [u64; 2], stderr: [u64; 2]) -> wire::Printed {
        wire::Printed { stdout, stderr }
    }

    fn ended(exit: Exit, spans: &[(usize, wire::Printed)], pos: usize, careful: bool) -> Ended {
        Ended {
            exit,
            flooded: flooded_at(spans, 100),
            forged: None,
            pos,
            n: 10,
            start: 2,
            careful,
            signed: false,
        }
    }

    #[test]
    fn a_flood_is_the_answered_case_that_took_the_output_past_the_cap() {
        // Case 3 printed 60 bytes to stdout, case 4 nothing, case 5 50 bytes
        // to stderr: the runner's output passes 100 bytes in case 5.
        let spans = [
            (3, printed([0, 60], [0, 0])),
            (5, printed([0, 0], [0, 50])),
            (6, printed([60, 70], [0, 0])),
        ];
        assert_eq!(flooded_at(&spans, 100), Some(5));
        assert_eq!(flooded_at(&spans, 110), Some(6));
        assert_eq!(flooded_at(&spans, 120), None);
        let flood = Settled::Bad {
            at: 5,
            crashed: Bad::Flooded,
        };
        // However far the runner got before the judge stopped it, and
        // whether it was stopped at all, the flood is case 5's.
        for (exit, pos, careful) in [
            (Exit::Flood, 6, false),
            (Exit::Flood, 9, true),
            (Exit::Success, 10, false),
            (Exit::CaseTimeLimit, 8, true),
        ] {
            assert_eq!(settle(ended(exit, &spans, pos, careful)), flood);
        }
    }

    #[test]
    fn a_runner_that_answered_every_case_is_done_however_it_then_ends() {
        let quiet = [(3, printed([0, 10], [0, 0]))];
        for careful in [false, true] {
            for exit in [
                Exit::CaseTimeLimit,
                Exit::OverallTimeLimit,
                Exit::FolderFull,
                Exit::Signalled(6),
                Exit::Failure(1),
            ] {
                assert_eq!(
                    settle(ended(exit.clone(), &quiet, 10, careful)),
                    Settled::Done,
                    "{exit:?}, careful: {careful}"
                );
            }
        }
    }

    #[test]
    fn a_careful_runner_starts_where_the_fast_one_did() {
        let quiet = [(3, printed([0, 10], [0, 0]))];
        for exit in [Exit::Flood, Exit::Signalled(9), Exit::Failure(1)] {
            assert_eq!(
                settle(ended(exit, &quiet, 7, false)),
                Settled::Careful { from: 2 }
            );
        }
        assert_eq!(
            settle(ended(Exit::Flood, &quiet, 7, true)),
            Settled::Bad {
                at: 7,
                crashed: Bad::Flooded
            }
        );
        assert_eq!(
            settle(ended(Exit::Success, &quiet, 10, false)),
            Settled::Done
        );
        assert_eq!(
            settle(ended(Exit::Signalled(6), &quiet, 10, true)),
            Settled::Done
        );
    }

    #[test]
    fn what_a_stopped_case_printed_starts_where_the_last_answer_left_off() {
        let captured = holding(&format!("early\n{}", "x".repeat(3000)), "");
        let spans = [(0, printed([0, 6], [0, 0]))];
        let text = printed_since(&captured, &spans).unwrap();
        assert!(text.starts_with("xxx") && text.ends_with("\n…"), "{text}");
        assert_eq!(text.len(), PRINTED_CAP as usize + "\n…".len());
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
