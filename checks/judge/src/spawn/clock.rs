//! The time a child's limit counts: its learner thread's own time, or its
//! whole session's processor time.

use std::fs::File;
use std::time::{Duration, Instant};

/// Which time a child's limit (`Watch::idle`) counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Measure {
    /// Its learner thread's own time (see [`Clock`]).
    LearnerThread,
    /// The processor time of its whole session (see [`session_cpu`]).
    SessionCpu,
}

/// A child's own time: wall-clock time less the time the thread that runs
/// learner code spent waiting for a CPU (`/proc/PID/task/TID/schedstat`).
/// That thread is the child's first thread after its main one (a runner
/// starts it before any learner code runs), or its main thread while it has
/// no other. The time advances while that thread runs or sleeps, not while
/// a busy machine keeps it off the processor, so a per-case limit gives the
/// same verdict on a loaded machine as on an idle one (a flood reaches the
/// output cap before a limit, an endless loop reaches the limit). Plain
/// wall-clock time where the kernel does not say.
pub(super) struct Clock {
    pid: u32,
    measure: Measure,
    /// The session's processor time at the last look, and when to look again.
    cpu: (Duration, Instant),
    /// The schedstat of the thread being timed, held open.
    schedstat: Option<File>,
    /// Whether that is the learner's thread (else the main one, for now).
    found: bool,
    /// The longest wait read so far.
    waited: Duration,
    start: Instant,
}

/// How long a clock keeps looking for a child's second thread.
const FIND_WORKER_FOR: Duration = Duration::from_secs(2);

impl Clock {
    pub(super) fn of(pid: u32, measure: Measure) -> Clock {
        let mut clock = Clock {
            pid,
            measure,
            cpu: (Duration::ZERO, Instant::now()),
            schedstat: File::open(format!("/proc/{pid}/schedstat")).ok(),
            found: false,
            waited: Duration::ZERO,
            start: Instant::now(),
        };
        if measure == Measure::LearnerThread {
            clock.find_worker();
        }
        clock
    }

    /// Switches to the child's first thread after its main one, once it has one.
    fn find_worker(&mut self) {
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{}/task", self.pid)) else {
            return;
        };
        let first = tasks
            .flatten()
            .filter_map(|t| t.file_name().to_str().and_then(|n| n.parse::<u32>().ok()))
            .filter(|tid| *tid != self.pid)
            .min();
        if let Some(tid) = first {
            if let Ok(f) = File::open(format!("/proc/{}/task/{tid}/schedstat", self.pid)) {
                self.schedstat = Some(f);
                self.found = true;
            }
        }
    }

    pub(super) fn now(&mut self) -> Duration {
        if self.measure == Measure::SessionCpu {
            if Instant::now() >= self.cpu.1 {
                self.cpu = (session_cpu(self.pid), Instant::now() + SESSION_EVERY);
            }
            return self.cpu.0;
        }
        let wall = self.start.elapsed();
        if !self.found && wall < FIND_WORKER_FOR {
            self.find_worker();
        }
        // A thread that has ended waits no more: its last reading stands.
        if let Some(waited) = self.schedstat.as_ref().and_then(read_wait) {
            self.waited = self.waited.max(waited);
        }
        wall.saturating_sub(self.waited)
    }
}

/// How often a session's processor time is added up (a scan of /proc).
const SESSION_EVERY: Duration = Duration::from_millis(100);

/// The processor time (user and system) that the processes of session
/// `sid` have used: each live one's own, and what each has collected from
/// the children it waited for. A busy machine slows a build down but does
/// not add to this, so a build's limit gives the same verdict beside a
/// CPU hog as alone.
fn session_cpu(sid: u32) -> Duration {
    // SAFETY: sysconf only returns a number.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
    let mut total = 0u64;
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let name = entry.file_name();
        let Some(name) = name
            .to_str()
            .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{name}/stat")) else {
            continue;
        };
        // After the parenthesised command name: state, ppid, pgrp,
        // session, ..., utime, stime, cutime, cstime (fields 3, 6, 14-17).
        let Some((_, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.get(3).and_then(|f| f.parse::<u32>().ok()) != Some(sid) {
            continue;
        }
        total += fields
            .get(11..15)
            .into_iter()
            .flatten()
            .filter_map(|f| f.parse::<u64>().ok())
            .sum::<u64>();
    }
    Duration::from_millis(total * 1000 / ticks)
}

/// The second field of a schedstat file: nanoseconds spent runnable but
/// waiting for a CPU.
fn read_wait(file: &File) -> Option<Duration> {
    use std::os::unix::fs::FileExt;
    let mut buf = [0u8; 128];
    let n = file.read_at(&mut buf, 0).ok()?;
    let text = std::str::from_utf8(&buf[..n]).ok()?;
    let ns = text.split_whitespace().nth(1)?.parse::<u64>().ok()?;
    Some(Duration::from_nanos(ns))
}
