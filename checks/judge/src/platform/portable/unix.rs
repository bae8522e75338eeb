//! The portable layer's calls on Unix (macOS, the BSDs, Linux with
//! `LAB_PLATFORM=portable`): POSIX only.

use super::super::Rlimits;
use crate::platform::groups::{kill_children_on_stop, kill_live, register, release, spawning};
use std::ffi::OsString;
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command};

/// The variables that name a program's folder for temporary files.
pub(super) const TMP_VARS: &[&str] = &["TMPDIR"];

/// A runner's whole environment: its folder for temporary files, as in the
/// jail.
pub(super) fn runner_env(home: &Path) -> Vec<(OsString, OsString)> {
    vec![("TMPDIR".into(), home.as_os_str().to_os_string())]
}

/// A child this layer started, and where its group is registered.
pub(super) struct Started {
    pub(super) child: Child,
    slot: Option<usize>,
}

/// The signal that ended a process, if one did.
pub(super) fn signal_of(status: &std::process::ExitStatus) -> Option<i32> {
    std::os::unix::process::ExitStatusExt::signal(status)
}

/// Starts `cmd` in a session (and process group) of its own, each of
/// `handed` under its number, with `limits` (where the system takes them)
/// and `arg0`.
pub(super) fn spawn(
    cmd: &mut Command,
    handed: Vec<(OwnedFd, i32)>,
    arg0: Option<OsString>,
    limits: Option<Rlimits>,
) -> io::Result<Started> {
    reserve_handed_numbers();
    if let Some(name) = arg0 {
        cmd.arg0(name);
    }
    let pairs: Vec<(i32, i32)> = handed
        .iter()
        .map(|(fd, at)| (fd.as_raw_fd(), *at))
        .collect();
    // SAFETY: the closure makes only async-signal-safe calls (setsid, dup2,
    // getrlimit, setrlimit) on the child's own state, and allocates nothing.
    unsafe {
        cmd.pre_exec(move || {
            // A session (and so a process group) of its own: its group is
            // what `kill_tree` kills, and where the kernel shares the
            // processor between sessions (Linux's autogroups), a runner's
            // busy threads take its own share, as on the Linux layer.
            if libc::setsid() < 0 {
                return Err(io::Error::last_os_error());
            }
            for &(fd, at) in &pairs {
                // dup2 leaves the new number open across exec.
                if libc::dup2(fd, at) < 0 {
                    return Err(io::Error::last_os_error());
                }
            }
            if let Some(l) = limits {
                let set = |resource, value: u64| {
                    let mut rl = libc::rlimit {
                        rlim_cur: 0,
                        rlim_max: 0,
                    };
                    if libc::getrlimit(resource, &mut rl) == 0 {
                        let value = (value as libc::rlim_t).min(rl.rlim_max);
                        rl.rlim_cur = value;
                        rl.rlim_max = value;
                        // Where the system refuses one, the others still hold.
                        libc::setrlimit(resource, &rl);
                    }
                };
                set(libc::RLIMIT_CORE, 0);
                set(libc::RLIMIT_AS, l.address_space);
                set(libc::RLIMIT_FSIZE, l.file_size);
                set(libc::RLIMIT_CPU, l.cpu_seconds);
            }
            Ok(())
        });
    }
    let _guard = spawning();
    let child = cmd.spawn()?;
    drop(handed);
    let slot = register(child.id() as i32);
    Ok(Started { child, slot })
}

/// Kills the child's whole process group, then reaps the child.
pub(super) fn kill_tree(started: &mut Started) {
    // SAFETY: kill(2) with a negative pid signals the group the child
    // leads (setsid made its group id its pid).
    unsafe {
        libc::kill(-(started.child.id() as i32), libc::SIGKILL);
    }
    let _ = started.child.kill();
    let _ = started.child.wait();
    release(started.slot);
}

/// Kills every live child's process group (the watchdog's way out).
pub(crate) fn kill_all() {
    kill_live();
}

/// Installs the Ctrl-C / SIGTERM / SIGHUP handler that kills live groups,
/// and keeps the numbers children are handed under taken.
pub(crate) fn start_up() {
    reserve_handed_numbers();
    kill_children_on_stop();
}

/// Keeps the numbers children are handed under taken in the judge (by
/// /dev/null, closed at exec), so that no descriptor the standard library
/// opens while it spawns a child gets one of them. Once.
fn reserve_handed_numbers() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        for fd in lab_wire::CASES_FD..=lab_wire::TOKEN_FD {
            // SAFETY: fcntl, open, dup2 and close on this process's own table.
            unsafe {
                if libc::fcntl(fd, libc::F_GETFD) != -1 {
                    continue;
                }
                let null = libc::open(c"/dev/null".as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC);
                if null >= 0 && null != fd {
                    libc::dup2(null, fd);
                    libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
                    libc::close(null);
                }
            }
        }
    });
}

/// A second descriptor of one of the judge's files, in append mode: every
/// write through it lands at the end. The description is shared (POSIX has
/// no reopening of an unnamed file), and the judge reads it by position.
pub(crate) fn appending(file: &File) -> io::Result<File> {
    let f = file.try_clone()?;
    // SAFETY: fcntl on a descriptor this process owns.
    unsafe {
        let flags = libc::fcntl(f.as_raw_fd(), libc::F_GETFL);
        if flags < 0 || libc::fcntl(f.as_raw_fd(), libc::F_SETFL, flags | libc::O_APPEND) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(f)
}
