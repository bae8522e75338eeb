//! The judge's one spawn point. Every child gets stdin from /dev/null, its
//! output in files (no pipe can fill up or be held open by a grandchild), its
//! own process group, its jail (see `sandbox`), and is killed with that
//! whole group when it ends. The judge is a child subreaper: whatever a
//! child leaves behind (even in a session of its own) becomes the judge's
//! child when its parent dies, and is killed and reaped here.

use std::fs::File;
use std::io;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
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
}

/// Where a child's output went.
pub struct Captured {
    pub stdout: PathBuf,
    pub stderr: PathBuf,
}

impl Captured {
    /// Up to `cap` bytes of stderr, lossily decoded, for display only.
    pub fn stderr_excerpt(&self, cap: usize) -> String {
        excerpt(&self.stderr, cap)
    }

    pub fn bytes(&self) -> u64 {
        size(&self.stdout) + size(&self.stderr)
    }
}

pub fn excerpt(path: &Path, cap: usize) -> String {
    use std::io::Read;
    let mut buf = Vec::new();
    if let Ok(f) = File::open(path) {
        let _ = f.take(cap as u64).read_to_end(&mut buf);
    }
    String::from_utf8_lossy(&buf).into_owned()
}

/// Up to `cap` bytes of `path` from byte `from` to byte `to`, lossily
/// decoded, and whether more was there.
pub fn slice(path: &Path, from: u64, to: u64, cap: u64) -> (String, bool) {
    use std::io::{Read, Seek, SeekFrom};
    let mut buf = Vec::new();
    let want = to.saturating_sub(from);
    if let Ok(mut f) = File::open(path) {
        if f.seek(SeekFrom::Start(from)).is_ok() {
            let _ = f.take(want.min(cap)).read_to_end(&mut buf);
        }
    }
    (String::from_utf8_lossy(&buf).into_owned(), want > cap)
}

fn size(path: &Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
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

fn start(
    cmd: &mut Command,
    dir: &Path,
    tag: &str,
    jail: Option<Jail>,
) -> io::Result<(Child, Captured, Option<usize>)> {
    let captured = Captured {
        stdout: dir.join(format!("{tag}.stdout")),
        stderr: dir.join(format!("{tag}.stderr")),
    };
    cmd.stdin(Stdio::null())
        .stdout(File::create(&captured.stdout)?)
        .stderr(File::create(&captured.stderr)?)
        .process_group(0);
    // SAFETY: prctl is async-signal-safe; it asks Linux to kill the child
    // if the judge's spawning thread dies, even by SIGKILL.
    unsafe {
        cmd.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
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
    dir: &Path,
    tag: &str,
    watch: Watch,
    jail: Option<Jail>,
    mut progress: impl FnMut() -> bool,
) -> io::Result<(Exit, Captured)> {
    let (mut child, captured, slot) = start(cmd, dir, tag, jail)?;
    let clock = Clock::of(child.id());
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

/// A child's own time: wall-clock time less the time its main thread spent
/// waiting for a CPU (`/proc/PID/schedstat`). It advances while the child
/// runs or sleeps, not while a busy machine keeps it off the processor, so
/// a per-case limit gives the same verdict on a loaded machine as on an
/// idle one (a flood reaches the output cap before a limit, an endless loop
/// reaches the limit). Plain wall-clock time where the kernel does not say.
struct Clock {
    schedstat: Option<PathBuf>,
    start: Instant,
}

impl Clock {
    fn of(pid: u32) -> Clock {
        let path = PathBuf::from(format!("/proc/{pid}/schedstat"));
        Clock {
            schedstat: read_wait(&path).map(|_| path),
            start: Instant::now(),
        }
    }

    fn now(&self) -> Duration {
        let wall = self.start.elapsed();
        let waited = self
            .schedstat
            .as_deref()
            .and_then(read_wait)
            .unwrap_or_default();
        wall.saturating_sub(waited)
    }
}

/// The second field of a schedstat file: nanoseconds spent runnable but
/// waiting for a CPU.
fn read_wait(path: &Path) -> Option<Duration> {
    let text = std::fs::read_to_string(path).ok()?;
    let ns = text.split_whitespace().nth(1)?.parse::<u64>().ok()?;
    Some(Duration::from_nanos(ns))
}

/// Runs a tool (cargo) to completion under a time limit, output in files.
pub fn run_tool(
    cmd: &mut Command,
    dir: &Path,
    tag: &str,
    limit: Duration,
    jail: Option<Jail>,
) -> io::Result<(Exit, Captured)> {
    let watch = Watch {
        idle: limit,
        deadline: Instant::now() + limit,
        output_cap: 256 << 20,
    };
    supervise(cmd, dir, tag, watch, jail, || false)
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
        let dir = tempfile::tempdir().unwrap();
        let t = Instant::now();
        let (exit, _) = supervise(
            Command::new("sleep").arg("30"),
            dir.path(),
            "s",
            watch(300),
            None,
            || false,
        )
        .unwrap();
        assert_eq!(exit, Exit::CaseTimeLimit);
        assert!(t.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn a_grandchild_holding_output_open_does_not_hang_the_judge() {
        let dir = tempfile::tempdir().unwrap();
        let t = Instant::now();
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "sleep 30 & echo started"]);
        let (exit, captured) =
            supervise(&mut cmd, dir.path(), "g", watch(5_000), None, || false).unwrap();
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
        let (exit, _) = supervise(&mut cmd, dir.path(), "o", watch(5_000), None, || false).unwrap();
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
        let dir = tempfile::tempdir().unwrap();
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "yes flood"]);
        let (exit, _) = supervise(&mut cmd, dir.path(), "f", watch(5_000), None, || false).unwrap();
        assert_eq!(exit, Exit::Flood);
    }

    #[test]
    fn progress_is_polled_once_more_after_a_child_is_stopped() {
        let dir = tempfile::tempdir().unwrap();
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "yes flood"]);
        let stdout = dir.path().join("p.stdout");
        let mut seen = 0;
        let (exit, captured) = supervise(&mut cmd, dir.path(), "p", watch(5_000), None, || {
            seen = std::fs::metadata(&stdout).map_or(0, |m| m.len());
            false
        })
        .unwrap();
        assert_eq!(exit, Exit::Flood);
        // The last poll came after the child's last byte.
        assert_eq!(seen, captured.bytes());
    }

    #[test]
    fn exit_codes_and_signals_are_told_apart() {
        let dir = tempfile::tempdir().unwrap();
        let mut fail = Command::new("sh");
        fail.args(["-c", "exit 3"]);
        assert_eq!(
            supervise(&mut fail, dir.path(), "a", watch(5_000), None, || false)
                .unwrap()
                .0,
            Exit::Failure(3)
        );
        let mut abort = Command::new("sh");
        abort.args(["-c", "kill -ABRT $$"]);
        assert_eq!(
            supervise(&mut abort, dir.path(), "b", watch(5_000), None, || false)
                .unwrap()
                .0,
            Exit::Signalled(6)
        );
    }
}
