//! The judge's one spawn point. Every child gets stdin from /dev/null, its
//! output in two unnamed files of the judge's (no pipe can fill up or be
//! held open by a grandchild, and no name can be replaced), a session (and
//! so a process group and a scheduling group) of its own, its jail (see
//! `sandbox`), and is killed with that whole group when it ends. The judge
//! is a child subreaper: whatever a child leaves behind (even in a session
//! of its own) becomes the judge's child when its parent dies, and is
//! killed and reaped here.
//!
//! `launch.rs` starts a child without copying the judge, `captured.rs`
//! holds the descriptor a child writes its output through, `groups.rs` the
//! live process groups and the orphans, `clock.rs` the time a limit counts
//! (the folder's size and the output files are the platform layer's, shared
//! with the portable one).

mod captured;
mod clock;
mod groups;
mod launch;

pub use crate::platform::{excerpt, folder_bytes, private_file, size, slice, Captured};
pub use crate::platform::{Exit, Heard, Watch, TOOL_WALL_FACTOR};
pub use captured::appending;
pub use groups::{become_subreaper, kill_all, reap_orphans};

use crate::platform::folder::{FOLDER_ENTRIES, FOLDER_EVERY};
use crate::platform::groups::{register, release, spawning};
use crate::platform::linux::sandbox::Jail;
use clock::{Clock, Measure};
use launch::{launch, Launched, Step};
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::process::ExitStatusExt;
use std::process::Command;
use std::time::{Duration, Instant};

fn start(cmd: &mut Command, jail: Option<Jail>) -> io::Result<(Launched, Captured, Option<usize>)> {
    reserve_handed_numbers();
    let captured = Captured::new()?;
    // The first step asks Linux to kill the child if the judge's spawning
    // thread dies, even by SIGKILL. The second gives the child a session
    // (and process group) of its own: the kernel's scheduler shares the
    // processor fairly between sessions (autogroups), so a runner's many
    // busy threads cannot starve a classmate's build or runner, and its
    // group is what `kill_group` kills.
    let mut steps: Vec<Step> = vec![Box::new(|| {
        // SAFETY: prctl and setsid are plain system calls.
        unsafe {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            if libc::setsid() < 0 {
                return Err(io::Error::last_os_error());
            }
        }
        Ok(())
    })];
    let cleared = jail.is_some();
    let mut arg0 = None;
    if let Some(jail) = jail {
        let (name, step) = jail.apply(cmd);
        arg0 = name;
        steps.push(step);
    }
    // The child writes its output through append-only descriptors: what it
    // printed stays counted, whatever it does to them afterwards.
    let (stdout, stderr) = (appending(&captured.stdout)?, appending(&captured.stderr)?);
    let _guard = spawning();
    let child = launch(
        cmd,
        cleared,
        arg0.as_deref(),
        stdout.as_raw_fd(),
        stderr.as_raw_fd(),
        &mut steps,
    )?;
    let slot = register(child.id() as i32);
    Ok((child, captured, slot))
}

/// The numbers descriptors are handed to children under (see
/// `sandbox::Jail::hand`): a runner's cases and outcomes, and a third
/// number kept free (once the token's, which no runner is handed now; `try
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
fn kill_group(child: &mut Launched, slot: Option<usize>) {
    // SAFETY: kill(2) with a negative pid signals the group the child leads;
    // the group id is the child's pid because of process_group(0).
    unsafe {
        libc::kill(-(child.id() as i32), libc::SIGKILL);
    }
    child.kill();
    let _ = child.wait();
    release(slot);
}

use crate::platform::exit_of;

/// Runs `cmd` under `watch`. `progress` is polled often and says whether the
/// child made progress since the last poll; it is polled once more after the
/// child ends, however it ends (stopped at a limit too), so nothing it wrote
/// before that is missed. The group is always killed.
pub fn supervise(
    cmd: &mut Command,
    watch: Watch,
    jail: Option<Jail>,
    mut progress: impl FnMut() -> bool,
) -> io::Result<(Exit, Captured)> {
    let heard = move || {
        if progress() {
            Heard::Progress
        } else {
            Heard::Nothing
        }
    };
    supervise_by(cmd, watch, jail, heard, Measure::Wall)
}

/// [`supervise`], with a poll that may also stop the child at once
/// ([`Heard::Stop`], which ends it as [`Exit::Stopped`]).
pub fn supervise_heard(
    cmd: &mut Command,
    watch: Watch,
    jail: Option<Jail>,
    heard: impl FnMut() -> Heard,
) -> io::Result<(Exit, Captured)> {
    supervise_by(cmd, watch, jail, heard, Measure::Wall)
}

fn supervise_by(
    cmd: &mut Command,
    watch: Watch,
    jail: Option<Jail>,
    mut progress: impl FnMut() -> Heard,
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
        match progress() {
            Heard::Nothing => {}
            Heard::Progress => {
                last_progress = now;
                pause = Duration::from_micros(200);
            }
            Heard::Stop => break Exit::Stopped,
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
        child.pause(pause);
        pause = (pause * 2).min(Duration::from_millis(5));
    };
    kill_group(&mut child, slot);
    reap_orphans();
    // What the child wrote between the last poll and its end: a runner
    // stopped for flooding may have finished cases the judge has not read.
    progress();
    Ok((exit, captured))
}

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
    supervise_by(cmd, watch, jail, || Heard::Nothing, Measure::SessionCpu)
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
    fn output_written_after_a_seek_back_is_added_not_written_over() {
        let mut cmd = Command::new("python3");
        cmd.args([
            "-c",
            "import os; os.write(1, b'abcdef'); os.lseek(1, 0, 0); os.pwrite(1, b'XY', 0); os.write(1, b'Z')",
        ]);
        let (exit, captured) = supervise(&mut cmd, watch(5_000), None, || false).unwrap();
        assert_eq!(exit, Exit::Success);
        assert_eq!(excerpt(&captured.stdout, 100), "abcdefXYZ");
        assert_eq!(captured.bytes(), 9);
    }

    #[test]
    fn a_poll_can_stop_a_child_at_once_and_only_progress_resets_the_case_limit() {
        let t = Instant::now();
        let mut polls = 0;
        let (exit, _) =
            supervise_heard(Command::new("sleep").arg("30"), watch(5_000), None, || {
                polls += 1;
                if polls == 3 {
                    Heard::Stop
                } else {
                    Heard::Nothing
                }
            })
            .unwrap();
        assert_eq!(exit, Exit::Stopped);
        assert!(t.elapsed() < Duration::from_secs(2));
        // Heard::Nothing does not keep a silent child alive past its limit.
        let t = Instant::now();
        let (exit, _) = supervise_heard(Command::new("sleep").arg("30"), watch(300), None, || {
            Heard::Nothing
        })
        .unwrap();
        assert_eq!(exit, Exit::CaseTimeLimit);
        assert!(t.elapsed() < Duration::from_secs(2));
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
