//! The judge's one spawn point. Every child gets stdin from /dev/null, its
//! output in files (no pipe can fill up or be held open by a grandchild), its
//! own process group, and is killed with that whole group when it ends.

use std::fs::File;
use std::io;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::{Duration, Instant};

/// How a supervised child ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exit {
    Success,
    Failure(i32),
    Signalled(i32),
    /// No progress for longer than the per-case limit.
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
static LIVE_GROUPS: [AtomicI32; 64] = [const { AtomicI32::new(0) }; 64];

fn register(pgid: i32) -> Option<usize> {
    LIVE_GROUPS.iter().position(|slot| {
        slot.compare_exchange(0, pgid, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    })
}

extern "C" fn on_stop_signal(signal: libc::c_int) {
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

fn start(cmd: &mut Command, dir: &Path, tag: &str) -> io::Result<(Child, Captured, Option<usize>)> {
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
/// child ends, so nothing it wrote is missed. The group is always killed.
pub fn supervise(
    cmd: &mut Command,
    dir: &Path,
    tag: &str,
    watch: Watch,
    mut progress: impl FnMut() -> bool,
) -> io::Result<(Exit, Captured)> {
    let (mut child, captured, slot) = start(cmd, dir, tag)?;
    let mut last_progress = Instant::now();
    let mut pause = Duration::from_micros(200);
    let exit = loop {
        if let Some(status) = child.try_wait()? {
            progress();
            break exit_of(status);
        }
        let now = Instant::now();
        if progress() {
            last_progress = now;
            pause = Duration::from_micros(200);
        }
        if captured.bytes() > watch.output_cap {
            break Exit::Flood;
        }
        if now >= watch.deadline {
            break Exit::OverallTimeLimit;
        }
        if now.duration_since(last_progress) > watch.idle {
            break Exit::CaseTimeLimit;
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(5));
    };
    kill_group(&mut child, slot);
    Ok((exit, captured))
}

/// Runs a tool (cargo) to completion under a time limit, output in files.
pub fn run_tool(
    cmd: &mut Command,
    dir: &Path,
    tag: &str,
    limit: Duration,
) -> io::Result<(Exit, Captured)> {
    let watch = Watch {
        idle: limit,
        deadline: Instant::now() + limit,
        output_cap: 256 << 20,
    };
    supervise(cmd, dir, tag, watch, || false)
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
            supervise(&mut cmd, dir.path(), "g", watch(5_000), || false).unwrap();
        assert_eq!(exit, Exit::Success);
        assert!(t.elapsed() < Duration::from_secs(4));
        assert_eq!(excerpt(&captured.stdout, 100), "started\n");
    }

    #[test]
    fn a_flood_is_cut_at_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "yes flood"]);
        let (exit, _) = supervise(&mut cmd, dir.path(), "f", watch(5_000), || false).unwrap();
        assert_eq!(exit, Exit::Flood);
    }

    #[test]
    fn exit_codes_and_signals_are_told_apart() {
        let dir = tempfile::tempdir().unwrap();
        let mut fail = Command::new("sh");
        fail.args(["-c", "exit 3"]);
        assert_eq!(
            supervise(&mut fail, dir.path(), "a", watch(5_000), || false)
                .unwrap()
                .0,
            Exit::Failure(3)
        );
        let mut abort = Command::new("sh");
        abort.args(["-c", "kill -ABRT $$"]);
        assert_eq!(
            supervise(&mut abort, dir.path(), "b", watch(5_000), || false)
                .unwrap()
                .0,
            Exit::Signalled(6)
        );
    }
}
