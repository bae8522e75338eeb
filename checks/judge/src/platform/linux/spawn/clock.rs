//! The time a child's limit counts: the wall clock, or its whole session's
//! processor time.

use std::time::{Duration, Instant};

/// Which time a child's limit (`Watch::idle`) counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Measure {
    /// The wall clock: nothing the child does can slow it down.
    Wall,
    /// The processor time of its whole session (see [`session_cpu`]).
    SessionCpu,
}

/// The time a child's limit counts. A runner's case is timed on the wall
/// clock: a clock read from one of the child's own threads would be the
/// child's to stop (a thread started by learner code before the harness's,
/// kept waiting for a processor by spinners of its own). Honest cases take
/// milliseconds, so the 2 s a case may take leave room for a loaded
/// machine; what a submission's own spinners cost it is its own.
pub(super) struct Clock {
    pid: u32,
    measure: Measure,
    /// The session's processor time at the last look, and when to look again.
    cpu: (Duration, Instant),
    start: Instant,
}

impl Clock {
    pub(super) fn of(pid: u32, measure: Measure) -> Clock {
        Clock {
            pid,
            measure,
            cpu: (Duration::ZERO, Instant::now()),
            start: Instant::now(),
        }
    }

    pub(super) fn now(&mut self) -> Duration {
        if self.measure == Measure::SessionCpu {
            if Instant::now() >= self.cpu.1 {
                self.cpu = (session_cpu(self.pid), Instant::now() + SESSION_EVERY);
            }
            return self.cpu.0;
        }
        self.start.elapsed()
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
