//! The portable layer: a child started with the standard library, watched
//! against the same limits as on the Linux layer, killed with what it
//! started, its output in two unnamed files of the judge's. It confines
//! nothing (no jail): it is what a learner's own check runs on a system
//! without the Linux jail, where the learner's own code runs on the
//! learner's own machine.
//!
//! `unix.rs` hands descriptors by number, puts each child in a process
//! group of its own (killed whole) and sets its rlimits, with calls POSIX
//! has (macOS included); `windows.rs` hands inheritable handles by value
//! (their numbers in `LAB_HANDLE_<n>`) and kills the child with
//! `Child::kill`.

#[cfg(unix)]
mod unix;
#[cfg(unix)]
use unix as os;
#[cfg(windows)]
mod windows;
#[cfg(windows)]
use windows as os;

#[cfg(windows)]
pub(super) use os::socket_handle;
pub(super) use os::{appending, kill_all, start_up};

use super::folder::{FOLDER_ENTRIES, FOLDER_EVERY};
use super::{exit_of, folder_bytes, Captured, Exit, Handed, Heard, Rlimits, Watch};
use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What a child gets on this layer: its environment, argv[0], limits,
/// the descriptors it is handed and the folder whose size is watched.
pub(crate) struct Plan {
    env: Vec<(OsString, OsString)>,
    /// A runner's environment is only `env` (as in the jail); a build's is
    /// the judge's, less cargo's own variables, with `env` on top.
    only_env: bool,
    handed: Vec<(Handed, i32)>,
    arg0: Option<OsString>,
    limits: Option<Rlimits>,
    quota: Option<(PathBuf, u64)>,
}

impl Plan {
    /// A runner in `home` under `limits`.
    pub(super) fn runner(home: &Path, limits: Rlimits) -> Plan {
        Plan {
            env: os::runner_env(home),
            only_env: true,
            handed: Vec::new(),
            arg0: None,
            limits: Some(limits),
            quota: Some((home.to_path_buf(), super::RUNNER_FOLDER_BYTES)),
        }
    }

    /// A build writing `target`, its temporary files in `tmp`.
    pub(super) fn build(target: &Path, tmp: &Path) -> Plan {
        let mut env = vec![("CARGO_TARGET_DIR".into(), target.as_os_str().to_os_string())];
        for name in os::TMP_VARS {
            env.push(((*name).into(), tmp.as_os_str().to_os_string()));
        }
        Plan {
            env,
            only_env: false,
            handed: Vec::new(),
            arg0: None,
            limits: None,
            quota: None,
        }
    }

    pub(super) fn hand(mut self, what: Handed, at: i32) -> Plan {
        self.handed.push((what, at));
        self
    }

    pub(super) fn env(mut self, name: &str, value: impl Into<OsString>) -> Plan {
        self.env.push((name.into(), value.into()));
        self
    }

    pub(super) fn named(mut self, arg0: &str) -> Plan {
        self.arg0 = Some(arg0.into());
        self
    }
}

/// A runner's fresh, empty folder (`home` inside a temporary folder of the
/// judge's) and the binary it starts, as it is.
pub(super) fn home(exe: &Path) -> io::Result<(PathBuf, PathBuf, tempfile::TempDir)> {
    let top = tempfile::Builder::new()
        .prefix("retry-lab-run-")
        .tempdir()?;
    let dir = top.path().join("home");
    std::fs::create_dir(&dir)?;
    Ok((dir, exe.to_path_buf(), top))
}

/// Cargo's own variables that a build must not inherit from the judge's
/// environment (set when the judge itself runs under cargo, or by the
/// learner's shell): all of `CARGO_*` but these.
const CARGO_KEPT: [&str; 3] = ["CARGO_HOME", "CARGO_INCREMENTAL", "CARGO_ENCODED_RUSTFLAGS"];

/// Runs `cmd` under `watch` (see `platform::supervise_heard`): every limit
/// counts the wall clock here.
pub(crate) fn supervise(
    cmd: &mut Command,
    watch: Watch,
    plan: Option<Plan>,
    mut progress: impl FnMut() -> Heard,
) -> io::Result<(Exit, Captured)> {
    let captured = Captured::new()?;
    cmd.stdin(Stdio::null())
        .stdout(Stdio::from(appending(&captured.stdout)?))
        .stderr(Stdio::from(appending(&captured.stderr)?));
    let mut quota = None;
    let (handed, arg0, limits) = match plan {
        Some(plan) => {
            if plan.only_env {
                cmd.env_clear();
            } else {
                for (name, _) in std::env::vars_os() {
                    let text = name.to_string_lossy();
                    if text.starts_with("CARGO_") && !CARGO_KEPT.contains(&&*text) {
                        cmd.env_remove(&name);
                    }
                }
            }
            cmd.envs(plan.env);
            quota = plan.quota;
            (plan.handed, plan.arg0, plan.limits)
        }
        None => (Vec::new(), None, None),
    };
    let mut child = os::spawn(cmd, handed, arg0, limits)?;
    let mut next_look = Instant::now();
    let start = Instant::now();
    let mut last_progress = Duration::ZERO;
    let mut pause = Duration::from_micros(200);
    let exit = loop {
        if let Some(status) = child.child.try_wait()? {
            progress();
            let flooded = os::signal_of(&status) == Some(super::FILE_TOO_LARGE)
                && captured.bytes() > watch.output_cap;
            break if flooded {
                Exit::Flood
            } else {
                exit_of(status)
            };
        }
        let now = start.elapsed();
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
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(5));
    };
    os::kill_tree(&mut child);
    // What the child wrote between the last poll and its end.
    progress();
    Ok((exit, captured))
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::platform::excerpt;

    fn watch(idle_ms: u64) -> Watch {
        Watch {
            idle: Duration::from_millis(idle_ms),
            deadline: Instant::now() + Duration::from_secs(20),
            output_cap: 1 << 20,
        }
    }

    fn run(cmd: &mut Command, idle_ms: u64, plan: Option<Plan>) -> (Exit, Captured) {
        supervise(cmd, watch(idle_ms), plan, || Heard::Nothing).unwrap()
    }

    #[test]
    fn a_silent_child_is_stopped_at_the_idle_limit_with_its_whole_group() {
        let dir = tempfile::tempdir().unwrap();
        let pid_file = dir.path().join("pid");
        let t = Instant::now();
        let mut cmd = Command::new("sh");
        cmd.args([
            "-c",
            &format!("sleep 30 & echo $! > {}; wait", pid_file.display()),
        ]);
        let (exit, _) = run(&mut cmd, 300, None);
        assert_eq!(exit, Exit::CaseTimeLimit);
        assert!(t.elapsed() < Duration::from_secs(5));
        let pid: i32 = std::fs::read_to_string(&pid_file)
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        // The grandchild was in the child's group: killed with it (and,
        // its parent gone, reaped by init or a subreaper soon after).
        let gone = (0..100).any(|_| {
            std::thread::sleep(Duration::from_millis(20));
            let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            state.is_empty() || state.contains(") Z")
        });
        assert!(gone, "process {pid} outlived its group");
    }

    /// `work`'s answer, done while the Linux layer's collector of orphans
    /// runs in a loop beside it, as it does while the judge grades.
    #[cfg(target_os = "linux")]
    fn beside_the_collector<T>(work: impl FnOnce() -> T) -> T {
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let collector = {
            let stop = stop.clone();
            std::thread::spawn(move || {
                while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                    crate::platform::linux::spawn::reap_orphans();
                    std::thread::sleep(Duration::from_millis(5));
                }
            })
        };
        let answer = work();
        stop.store(true, std::sync::atomic::Ordering::SeqCst);
        collector.join().unwrap();
        answer
    }

    /// Both layers live in one process (the unit tests; a judge on Linux
    /// with `LAB_PLATFORM=portable` that also builds through the Linux
    /// layer's code): the Linux layer, collecting orphans, must take none
    /// of this layer's children for one.
    #[cfg(target_os = "linux")]
    #[test]
    fn the_linux_layer_collecting_orphans_leaves_this_layers_child_alone() {
        let (exit, _) = beside_the_collector(|| {
            let mut cmd = Command::new("sh");
            cmd.args(["-c", "sleep 0.4; exit 7"]);
            run(&mut cmd, 5_000, None)
        });
        assert_eq!(exit, Exit::Failure(7));
    }

    /// A trusted helper run with a limit: registered, so the Linux layer's
    /// collector leaves it alone (its status is read, not "no child
    /// processes"), and stopped at the limit.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_helper_within_a_limit_is_left_to_the_judge_and_stopped_at_it() {
        let (status, cut) = beside_the_collector(|| {
            let mut done = Command::new("sh");
            done.args(["-c", "sleep 0.3; exit 4"]);
            let limit = Duration::from_secs(60);
            let status = crate::platform::plain_status_within(&mut done, limit).unwrap();
            let mut endless = Command::new("sh");
            endless.args(["-c", "sleep 60"]);
            let short = Duration::from_millis(300);
            let cut = crate::platform::plain_status_within(&mut endless, short).unwrap();
            (status, cut)
        });
        assert_eq!(status.and_then(|s| s.code()), Some(4));
        assert!(cut.is_none());
    }

    #[test]
    fn exit_codes_signals_and_a_flood_are_told_apart() {
        let mut fail = Command::new("sh");
        fail.args(["-c", "echo out; exit 3"]);
        let (exit, captured) = run(&mut fail, 5_000, None);
        assert_eq!(exit, Exit::Failure(3));
        assert_eq!(excerpt(&captured.stdout, 100), "out\n");
        let mut abort = Command::new("sh");
        abort.args(["-c", "kill -ABRT $$"]);
        assert_eq!(run(&mut abort, 5_000, None).0, Exit::Signalled(6));
        let mut flood = Command::new("sh");
        flood.args(["-c", "yes flood"]);
        assert_eq!(run(&mut flood, 5_000, None).0, Exit::Flood);
    }

    #[test]
    fn a_runner_gets_its_descriptors_by_number_its_folder_and_only_its_environment() {
        let (home, _, _top) = super::home(Path::new("/bin/sh")).unwrap();
        let mut cases = crate::platform::private_file().unwrap();
        std::io::Write::write_all(&mut cases, b"the cases\n").unwrap();
        // The runner reads from the offset it shares with the judge (the
        // harness rewinds first).
        std::io::Seek::rewind(&mut cases).unwrap();
        let outcomes = crate::platform::private_file().unwrap();
        let plan = Plan::runner(&home, crate::platform::runner_limits(20))
            .hand(cases.try_clone().unwrap().into(), 3)
            .hand(appending(&outcomes).unwrap().into(), 4)
            .named("lab-runner");
        let mut cmd = Command::new("/bin/sh");
        cmd.current_dir(&home).args([
            "-c",
            "cat <&3 >&4; echo \"$0 $TMPDIR ${HOME:-none}\"; ulimit -c",
        ]);
        let (exit, captured) = run(&mut cmd, 5_000, Some(plan));
        assert_eq!(exit, Exit::Success, "{}", captured.stderr_excerpt(500));
        assert_eq!(excerpt(&outcomes, 100), "the cases\n");
        assert_eq!(
            excerpt(&captured.stdout, 200),
            format!("lab-runner {} none\n0\n", home.display())
        );
    }

    #[test]
    fn a_runner_that_fills_its_folder_past_the_quota_is_stopped() {
        let (home, _, _top) = super::home(Path::new("/bin/sh")).unwrap();
        let mut plan = Plan::runner(&home, crate::platform::runner_limits(20));
        plan.quota = Some((home.clone(), 1 << 20));
        let mut cmd = Command::new("/bin/sh");
        cmd.current_dir(&home)
            .args(["-c", "head -c 3000000 /dev/zero > big; sleep 5"]);
        let (exit, _) = run(&mut cmd, 10_000, Some(plan));
        assert_eq!(exit, Exit::FolderFull);
    }
}
