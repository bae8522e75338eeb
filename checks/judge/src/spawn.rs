//! The judge's one spawn point. Every child gets stdin from /dev/null, its
//! output in two unnamed files of the judge's (no pipe can fill up or be
//! held open by a grandchild, and no name can be replaced), a session (and
//! so a process group and a scheduling group) of its own, its jail (see
//! `sandbox`), and is killed with that whole group when it ends. The judge
//! is a child subreaper: whatever a child leaves behind (even in a session
//! of its own) becomes the judge's child when its parent dies, and is
//! killed and reaped here.

use std::fs::File;
use std::io;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::sandbox::Jail;

/// How a supervised child ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exit {
    Success,
    Failure(i32),
    Signalled(i32),
    /// No progress for longer than the per-case limit (counted in the
    /// child's own time: see [`Clock`]).
    CaseTimeLimit,
    /// The whole run's time ran out.
    OverallTimeLimit,
    /// stdout and stderr together grew past the cap.
    Flood,
    /// What it wrote in its own folder grew past the jail's quota.
    FolderFull,
}

/// Where a child's output went: two unnamed files of the judge's own (see
/// [`private_file`]), read back only through these descriptors. The child
/// writes through its copies of them; the judge never moves their offset.
pub struct Captured {
    pub stdout: File,
    pub stderr: File,
}

impl Captured {
    fn new() -> io::Result<Captured> {
        Ok(Captured {
            stdout: private_file()?,
            stderr: private_file()?,
        })
    }

    /// Up to `cap` bytes of stderr, lossily decoded, for display only.
    pub fn stderr_excerpt(&self, cap: usize) -> String {
        excerpt(&self.stderr, cap)
    }

    pub fn bytes(&self) -> u64 {
        size(&self.stdout) + size(&self.stderr)
    }
}

/// A file of the judge's own that has no name: no other process can
/// open, replace or redirect it (`O_TMPFILE` in the judge's TMPDIR, or a
/// file created there with `O_EXCL` and unlinked at once). Only the
/// descriptors the judge holds and hands out reach it.
pub fn private_file() -> io::Result<File> {
    tempfile::tempfile()
}

/// Up to `cap` bytes of `file` from its start, lossily decoded.
pub fn excerpt(file: &File, cap: usize) -> String {
    slice(file, 0, u64::MAX, cap as u64).0
}

/// Up to `cap` bytes of `file` from byte `from` to byte `to`, lossily
/// decoded, and whether more was there. Positioned reads: the offset a
/// child shares with the judge's descriptor stays where the child left it.
pub fn slice(file: &File, from: u64, to: u64, cap: u64) -> (String, bool) {
    use std::os::unix::fs::FileExt;
    let to = to.min(size(file).max(from));
    let want = to.saturating_sub(from);
    let mut buf = vec![0u8; want.min(cap) as usize];
    let mut got = 0;
    while got < buf.len() {
        match file.read_at(&mut buf[got..], from + got as u64) {
            Ok(0) | Err(_) => break,
            Ok(n) => got += n,
        }
    }
    buf.truncate(got);
    (String::from_utf8_lossy(&buf).into_owned(), want > cap)
}

/// The size of one of the judge's files, read through its descriptor.
pub fn size(file: &File) -> u64 {
    file.metadata().map_or(0, |m| m.len())
}

/// Limits of one supervised child.
#[derive(Debug, Clone, Copy)]
pub struct Watch {
    /// Longest stretch without progress.
    pub idle: Duration,
    /// When everything must be over.
    pub deadline: Instant,
    /// Most bytes of stdout plus stderr.
    pub output_cap: u64,
}

/// Process groups alive right now, so that a judge stopped by Ctrl-C or
/// SIGTERM kills them on its way out (they are not in the terminal's
/// foreground group and would not get the signal themselves).
static LIVE_GROUPS: [AtomicI32; 256] = [const { AtomicI32::new(0) }; 256];

fn register(pgid: i32) -> Option<usize> {
    LIVE_GROUPS.iter().position(|slot| {
        slot.compare_exchange(0, pgid, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    })
}

extern "C" fn on_stop_signal(signal: libc::c_int) {
    // A terminal `watch` took out of line mode gets its settings back.
    crate::keys::restore(libc::STDIN_FILENO);
    for slot in &LIVE_GROUPS {
        let pgid = slot.load(Ordering::SeqCst);
        if pgid > 0 {
            // SAFETY: kill(2) is async-signal-safe.
            unsafe {
                libc::kill(-pgid, libc::SIGKILL);
            }
        }
    }
    // SAFETY: restoring the default action and re-raising are async-signal-safe.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        libc::raise(signal);
    }
}

/// Kills every live child's process group and every orphan (the
/// watchdog's way out).
pub fn kill_all() {
    for slot in &LIVE_GROUPS {
        let pgid = slot.swap(0, Ordering::SeqCst);
        if pgid > 0 {
            // SAFETY: kill(2) on a process group this judge started.
            unsafe {
                libc::kill(-pgid, libc::SIGKILL);
            }
        }
    }
    reap_orphans();
}

/// Installs the Ctrl-C / SIGTERM / SIGHUP handler that kills live groups.
pub fn kill_children_on_stop() {
    let handler = on_stop_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: installing a handler that only does async-signal-safe work.
        unsafe {
            libc::signal(signal, handler);
        }
    }
}

/// Held while a child is being started and while orphans are collected, so
/// that a child not yet registered is never taken for an orphan.
static SPAWNING: Mutex<()> = Mutex::new(());

/// Makes the judge a child subreaper (see the module's comment).
pub fn become_subreaper() {
    // SAFETY: prctl with integer arguments.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    }
}

/// The judge's children that it did not start itself: descendants of a
/// child that outlived their parent. /proc/self/task/*/children where the
/// kernel has it, else a scan of /proc.
fn orphans() -> Vec<i32> {
    let mine: Vec<i32> = LIVE_GROUPS
        .iter()
        .map(|g| g.load(Ordering::SeqCst))
        .filter(|g| *g > 0)
        .collect();
    let mut children = Vec::new();
    let tasks = std::fs::read_dir("/proc/self/task")
        .into_iter()
        .flatten()
        .flatten();
    let mut listed = false;
    for task in tasks {
        if let Ok(text) = std::fs::read_to_string(task.path().join("children")) {
            listed = true;
            children.extend(
                text.split_whitespace()
                    .filter_map(|p| p.parse::<i32>().ok()),
            );
        }
    }
    if !listed {
        let me = std::process::id() as i32;
        for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<i32>().ok())
            else {
                continue;
            };
            let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
            // Field 4, after the parenthesised command name.
            let ppid = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().nth(1))
                .and_then(|p| p.parse::<i32>().ok());
            if ppid == Some(me) {
                children.push(pid);
            }
        }
    }
    children.retain(|pid| !mine.contains(pid));
    children
}

/// Kills and reaps every orphan, and the orphans those leave, until none is
/// left (bounded, so a judge bug cannot spin here).
pub fn reap_orphans() {
    let _guard = SPAWNING.lock().unwrap_or_else(|e| e.into_inner());
    for _ in 0..1000 {
        let pids = orphans();
        if pids.is_empty() {
            return;
        }
        for pid in pids {
            // SAFETY: kill and waitpid on a child of this process that no
            // other part of the judge waits for.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, std::ptr::null_mut(), 0);
            }
        }
    }
}

fn start(cmd: &mut Command, jail: Option<Jail>) -> io::Result<(Child, Captured, Option<usize>)> {
    reserve_handed_numbers();
    let captured = Captured::new()?;
    cmd.stdin(Stdio::null())
        .stdout(captured.stdout.try_clone()?)
        .stderr(captured.stderr.try_clone()?);
    // SAFETY: prctl and setsid are async-signal-safe. The first asks Linux
    // to kill the child if the judge's spawning thread dies, even by
    // SIGKILL. The second gives the child a session (and process group) of
    // its own: the kernel's scheduler shares the processor fairly between
    // sessions (autogroups), so a runner's many busy threads cannot starve
    // a classmate's build or runner, and its group is what `kill_group` kills.
    unsafe {
        cmd.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            if libc::setsid() < 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
    if let Some(jail) = jail {
        jail.apply(cmd);
    }
    let _guard = SPAWNING.lock().unwrap_or_else(|e| e.into_inner());
    let child = cmd.spawn()?;
    let slot = register(child.id() as i32);
    Ok((child, captured, slot))
}

/// The numbers descriptors are handed to children under (see
/// `sandbox::Jail::hand`): a runner's cases, outcomes and token (`try
/// 13`'s front socket reuses the first).
pub const HANDED: std::ops::RangeInclusive<i32> = lab_wire::CASES_FD..=lab_wire::TOKEN_FD;

/// Keeps the numbers in [`HANDED`] taken in the judge (by /dev/null, closed
/// at exec), so that no descriptor the standard library opens while it
/// spawns a child (its pipe for exec errors) gets one of them and is
/// replaced in the child. Called by `main` before any thread starts, and
/// again before each spawn (for the unit tests, which have no `main`).
pub fn reserve_handed_numbers() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        for fd in HANDED {
            // SAFETY: fcntl, open, dup2 and close on this process's own table.
            unsafe {
                if libc::fcntl(fd, libc::F_GETFD) != -1 {
                    continue;
                }
                let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC);
                if null >= 0 && null != fd {
                    libc::dup3(null, fd, libc::O_CLOEXEC);
                    libc::close(null);
                }
            }
        }
    });
}

/// Kills the child's whole process group, then reaps the child.
fn kill_group(child: &mut Child, slot: Option<usize>) {
    // SAFETY: kill(2) with a negative pid signals the group the child leads;
    // the group id is the child's pid because of process_group(0).
    unsafe {
        libc::kill(-(child.id() as i32), libc::SIGKILL);
    }
    let _ = child.kill();
    let _ = child.wait();
    if let Some(i) = slot {
        LIVE_GROUPS[i].store(0, Ordering::SeqCst);
    }
}

fn exit_of(status: std::process::ExitStatus) -> Exit {
    match (status.code(), status.signal()) {
        (Some(0), _) => Exit::Success,
        (Some(code), _) => Exit::Failure(code),
        (None, Some(signal)) => Exit::Signalled(signal),
        (None, None) => Exit::Failure(-1),
    }
}

/// Runs `cmd` under `watch`. `progress` is polled often and says whether the
/// child made progress since the last poll; it is polled once more after the
/// child ends, however it ends (stopped at a limit too), so nothing it wrote
/// before that is missed. The group is always killed.
pub fn supervise(
    cmd: &mut Command,
    watch: Watch,
    jail: Option<Jail>,
    progress: impl FnMut() -> bool,
) -> io::Result<(Exit, Captured)> {
    supervise_by(cmd, watch, jail, progress, Measure::LearnerThread)
}

/// Which time a child's limit (`Watch::idle`) counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Measure {
    /// Its learner thread's own time (see [`Clock`]).
    LearnerThread,
    /// The processor time of its whole session (see [`session_cpu`]).
    SessionCpu,
}

fn supervise_by(
    cmd: &mut Command,
    watch: Watch,
    jail: Option<Jail>,
    mut progress: impl FnMut() -> bool,
    measure: Measure,
) -> io::Result<(Exit, Captured)> {
    let quota = jail
        .as_ref()
        .and_then(|j| j.quota().map(|(d, n)| (d.to_path_buf(), n)));
    let mut next_look = Instant::now();
    let (mut child, captured, slot) = start(cmd, jail)?;
    let mut clock = Clock::of(child.id(), measure);
    let mut last_progress = clock.now();
    let mut pause = Duration::from_micros(200);
    let exit = loop {
        if let Some(status) = child.try_wait()? {
            progress();
            // A stream that reached its file-size limit is a flood.
            let flooded =
                status.signal() == Some(libc::SIGXFSZ) && captured.bytes() > watch.output_cap;
            break if flooded {
                Exit::Flood
            } else {
                exit_of(status)
            };
        }
        let now = clock.now();
        if progress() {
            last_progress = now;
            pause = Duration::from_micros(200);
        }
        if captured.bytes() > watch.output_cap {
            break Exit::Flood;
        }
        if let Some((dir, most)) = &quota {
            if Instant::now() >= next_look {
                if folder_bytes(dir, FOLDER_ENTRIES) > *most {
                    break Exit::FolderFull;
                }
                next_look = Instant::now() + FOLDER_EVERY;
            }
        }
        if Instant::now() >= watch.deadline {
            break Exit::OverallTimeLimit;
        }
        if now.saturating_sub(last_progress) > watch.idle {
            break Exit::CaseTimeLimit;
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(5));
    };
    kill_group(&mut child, slot);
    reap_orphans();
    // What the child wrote between the last poll and its end: a runner
    // stopped for flooding may have finished cases the judge has not read.
    progress();
    Ok((exit, captured))
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
struct Clock {
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
    fn of(pid: u32, measure: Measure) -> Clock {
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

    fn now(&mut self) -> Duration {
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

/// How often a jailed child's folder is measured against its quota.
const FOLDER_EVERY: Duration = Duration::from_millis(50);
/// Most files and folders a jailed child's folder may hold; more counts
/// as past its quota.
const FOLDER_ENTRIES: usize = 10_000;

/// The bytes `dir` takes on disk, everything beneath it counted (a sparse
/// file by its length), links not followed; `u64::MAX` when it holds more
/// than `entries` files and folders.
pub fn folder_bytes(dir: &Path, entries: usize) -> u64 {
    use std::os::unix::fs::MetadataExt;
    let (mut total, mut seen) = (0u64, 0usize);
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(list) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in list.flatten() {
            seen += 1;
            if seen > entries {
                return u64::MAX;
            }
            let Ok(meta) = entry.path().symlink_metadata() else {
                continue;
            };
            total = total.saturating_add(meta.len().max(meta.blocks() * 512));
            if meta.is_dir() {
                stack.push(entry.path());
            }
        }
    }
    total
}

/// How much wall-clock time a tool gets for each second of its limit: a
/// build that waits without using the processor (blocked on a lock, say)
/// still ends.
pub const TOOL_WALL_FACTOR: u32 = 3;

/// Runs a tool (cargo) to completion under a limit of processor time (its
/// whole session's, see [`session_cpu`]; at most [`TOOL_WALL_FACTOR`]
/// times as long on the wall clock), output in unnamed files.
pub fn run_tool(
    cmd: &mut Command,
    limit: Duration,
    jail: Option<Jail>,
) -> io::Result<(Exit, Captured)> {
    let watch = Watch {
        idle: limit,
        deadline: Instant::now() + limit * TOOL_WALL_FACTOR,
        output_cap: 256 << 20,
    };
    supervise_by(cmd, watch, jail, || false, Measure::SessionCpu)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn watch(idle_ms: u64) -> Watch {
        Watch {
            idle: Duration::from_millis(idle_ms),
            deadline: Instant::now() + Duration::from_secs(20),
            output_cap: 1 << 20,
        }
    }

    #[test]
    fn a_silent_child_is_stopped_at_the_idle_limit() {
        let t = Instant::now();
        let (exit, _) =
            supervise(Command::new("sleep").arg("30"), watch(300), None, || false).unwrap();
        assert_eq!(exit, Exit::CaseTimeLimit);
        assert!(t.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn a_grandchild_holding_output_open_does_not_hang_the_judge() {
        let t = Instant::now();
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "sleep 30 & echo started"]);
        let (exit, captured) = supervise(&mut cmd, watch(5_000), None, || false).unwrap();
        assert_eq!(exit, Exit::Success);
        assert!(t.elapsed() < Duration::from_secs(4));
        assert_eq!(excerpt(&captured.stdout, 100), "started\n");
    }

    #[test]
    fn a_descendant_in_a_session_of_its_own_is_killed_when_its_runner_ends() {
        become_subreaper();
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("pid");
        let mut cmd = Command::new("sh");
        // The grandchild leaves the process group and the session, then
        // outlives its parent: only the subreaper can still reach it.
        cmd.args([
            "-c",
            &format!(
                "setsid sh -c 'echo $$ > {}; exec sleep 30' & sleep 0.3",
                pid_file.display()
            ),
        ]);
        let (exit, _) = supervise(&mut cmd, watch(5_000), None, || false).unwrap();
        assert_eq!(exit, Exit::Success);
        let pid: i32 = std::fs::read_to_string(&pid_file)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        // SAFETY: kill with signal 0 only asks whether the process exists.
        let alive = unsafe { libc::kill(pid, 0) } == 0;
        assert!(!alive, "process {pid} outlived its runner");
    }

    #[test]
    fn a_flood_is_cut_at_the_cap() {
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "yes flood"]);
        let (exit, _) = supervise(&mut cmd, watch(5_000), None, || false).unwrap();
        assert_eq!(exit, Exit::Flood);
    }

    #[test]
    fn progress_is_polled_once_more_after_a_child_is_stopped() {
        let dir = tempfile::tempdir().unwrap();
        // What the child writes to stdout it also writes to a file of its
        // own, which the progress poll can look at.
        let also = dir.path().join("also");
        let mut cmd = Command::new("sh");
        cmd.args(["-c", &format!("yes flood | tee {}", also.display())]);
        let mut seen = 0;
        let (exit, _) = supervise(&mut cmd, watch(5_000), None, || {
            seen = std::fs::metadata(&also).map_or(0, |m| m.len());
            false
        })
        .unwrap();
        assert_eq!(exit, Exit::Flood);
        // The last poll came after the child's last byte.
        assert!(seen > 0);
        assert_eq!(seen, std::fs::metadata(&also).unwrap().len());
    }

    #[test]
    fn a_tools_limit_counts_its_processor_time_not_the_wall_clock() {
        // Asleep for longer than its limit, using no processor: it ends well.
        let mut idle = Command::new("sh");
        idle.args(["-c", "sleep 1.5; echo done"]);
        let (exit, captured) = run_tool(&mut idle, Duration::from_secs(1), None).unwrap();
        assert_eq!(exit, Exit::Success);
        assert_eq!(excerpt(&captured.stdout, 100), "done\n");
        // Busy in a grandchild past its limit: stopped, and about then.
        let t = Instant::now();
        let mut busy = Command::new("sh");
        busy.args(["-c", "sh -c 'while :; do :; done'"]);
        let (exit, _) = run_tool(&mut busy, Duration::from_secs(1), None).unwrap();
        // On a loaded machine it may get less than a third of a processor,
        // and then the wall-clock backstop comes first: allowed only then.
        let loaded = std::fs::read_to_string("/proc/loadavg")
            .ok()
            .and_then(|l| l.split(' ').next()?.parse::<f64>().ok())
            .is_some_and(|load| {
                load >= std::thread::available_parallelism().map_or(1, |n| n.get()) as f64
            });
        if !(loaded && exit == Exit::OverallTimeLimit) {
            assert_eq!(exit, Exit::CaseTimeLimit);
        }
        let backstop = Duration::from_secs(1) * TOOL_WALL_FACTOR;
        assert!(
            t.elapsed() < backstop + Duration::from_millis(500),
            "{:?}",
            t.elapsed()
        );
        // Asleep past the wall-clock backstop: stopped all the same.
        let mut stuck = Command::new("sleep");
        stuck.arg("30");
        let (exit, _) = run_tool(&mut stuck, Duration::from_millis(300), None).unwrap();
        assert_eq!(exit, Exit::OverallTimeLimit);
    }

    #[test]
    fn exit_codes_and_signals_are_told_apart() {
        let mut fail = Command::new("sh");
        fail.args(["-c", "exit 3"]);
        assert_eq!(
            supervise(&mut fail, watch(5_000), None, || false)
                .unwrap()
                .0,
            Exit::Failure(3)
        );
        let mut abort = Command::new("sh");
        abort.args(["-c", "kill -ABRT $$"]);
        assert_eq!(
            supervise(&mut abort, watch(5_000), None, || false)
                .unwrap()
                .0,
            Exit::Signalled(6)
        );
    }
}
