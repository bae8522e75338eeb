//! A jail: its policy, rlimits, environment and filter, applied to a
//! command between the child's start and its exec, with system calls only.

use super::kernel::abi;
use super::policy::{Filter, Policy, Sockets};
use super::rules::ruleset;
use super::seccomp::no_fork_filter;
use crate::limits::Confinement;
use std::ffi::OsString;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::process::Command;

pub use crate::platform::Rlimits;

/// A prepared jail: the ruleset (already built), limits and environment.
pub struct Jail {
    pub(super) ruleset: Option<OwnedFd>,
    pub(super) limits: Rlimits,
    pub(super) env: Vec<(OsString, OsString)>,
    /// A seccomp filter that refuses new processes (threads stay allowed).
    pub(super) no_fork: Option<Filter>,
    /// Descriptors the program gets, each under its number; every other
    /// descriptor above 2 is closed when it starts.
    pub(super) handed: Vec<(OwnedFd, i32)>,
    /// Who the program runs as: a user of its own, or a user namespace of
    /// its own (see [`Identity`]); `None` leaves it as the judge is.
    pub(super) identity: Option<Becomes>,
    /// Most threads (and processes) the program may have at once.
    pub(super) threads: Option<u64>,
    /// The folder it writes in and the most bytes it may hold, watched by
    /// `spawn::supervise` (no file system here gives a folder a quota).
    pub(super) quota: Option<(PathBuf, u64)>,
    /// The program's argv[0], when not its path.
    pub(super) arg0: Option<OsString>,
}

impl Jail {
    /// A jail for `policy`; Landlock is left out under `--unsandboxed` or
    /// where the kernel has none.
    pub fn new(
        policy: &Policy,
        limits: Rlimits,
        env: Vec<(OsString, OsString)>,
        confinement: Confinement,
    ) -> io::Result<Jail> {
        let ruleset = if confinement == Confinement::Off || abi() < 1 {
            None
        } else {
            Some(ruleset(policy).map_err(|e| io::Error::other(format!("landlock: {e}")))?)
        };
        Ok(Jail {
            ruleset,
            limits,
            env,
            no_fork: None,
            handed: Vec::new(),
            identity: None,
            threads: None,
            quota: None,
            arg0: None,
        })
    }

    /// The folder the program may write and the most bytes it may hold there.
    pub fn quota(&self) -> Option<(&Path, u64)> {
        self.quota.as_ref().map(|(d, n)| (d.as_path(), *n))
    }

    /// Hands `fd` to the jailed program as its descriptor number `at`
    /// (3 and up); it gets no other descriptor of the judge's but 0, 1, 2.
    pub fn hand(mut self, fd: OwnedFd, at: i32) -> Jail {
        self.handed.push((fd, at));
        self
    }

    /// Refuses the jailed program every new process (threads stay allowed),
    /// where seccomp filters are known for this architecture.
    pub fn without_new_processes(mut self, sockets: Sockets) -> Jail {
        let filter = no_fork_filter(sockets);
        self.no_fork = (!filter.program.is_empty()).then_some(filter);
        self
    }

    /// One more variable in the jailed program's environment.
    pub fn env(mut self, name: &str, value: impl Into<OsString>) -> Jail {
        self.env.push((name.into(), value.into()));
        self
    }

    /// The program's argv[0] instead of its path, so that nothing it is
    /// told names a place outside its folder.
    pub fn named(mut self, arg0: &str) -> Jail {
        self.arg0 = Some(arg0.into());
        self
    }

    /// Applies the jail to `cmd`: a cleared environment; and returns the
    /// program's argv[0], if named, and the step the child takes between
    /// its start and its exec: rlimits, no-new-privileges and Landlock.
    pub fn apply(
        self,
        cmd: &mut Command,
    ) -> (Option<OsString>, Box<dyn FnMut() -> io::Result<()> + Send>) {
        cmd.env_clear();
        cmd.envs(self.env);
        let Jail {
            arg0,
            ruleset,
            limits,
            mut no_fork,
            handed,
            identity,
            threads,
            ..
        } = self;
        // Where each handed descriptor waits, above every number it may be
        // handed under, before it takes its place (filled in the child).
        let mut parked: Vec<i32> = vec![-1; handed.len()];
        // The closure only makes system calls (fcntl, dup2, close_range,
        // setrlimit, setgroups, setgid, setuid, unshare, prctl,
        // landlock_restrict_self, seccomp) and allocates nothing: it runs in
        // a child that shares the judge's memory until it execs (see
        // `spawn::launch`). setgroups, setgid and setuid are made as raw
        // system calls: glibc's wrappers would signal every thread of the
        // judge to change its ids too.
        let step = Box::new(move || {
            // SAFETY: system calls on the child's own state, with arguments
            // made before it started.
            unsafe {
                for (i, (fd, _)) in handed.iter().enumerate() {
                    parked[i] = libc::fcntl(fd.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 64);
                    if parked[i] < 0 {
                        return Err(io::Error::last_os_error());
                    }
                }
                close_at_exec_from(3);
                for (i, (_, at)) in handed.iter().enumerate() {
                    // dup2 leaves the new number open across exec.
                    if libc::dup2(parked[i], *at) < 0 {
                        return Err(io::Error::last_os_error());
                    }
                }
                let set = |resource, value: u64| {
                    let rl = libc::rlimit {
                        rlim_cur: value,
                        rlim_max: value,
                    };
                    if libc::setrlimit(resource, &rl) != 0 {
                        return Err(io::Error::last_os_error());
                    }
                    Ok(())
                };
                set(libc::RLIMIT_CORE, 0)?;
                set(libc::RLIMIT_AS, limits.address_space)?;
                set(libc::RLIMIT_FSIZE, limits.file_size)?;
                set(libc::RLIMIT_CPU, limits.cpu_seconds)?;
                // A user of its own: no capability is left, and the kernel
                // counts its threads apart from everyone's. A user
                // namespace of its own is refused where the system allows
                // none: the program then runs as the judge.
                if let Some(Becomes::User(id)) = identity {
                    if libc::syscall(libc::SYS_setgroups, 0, std::ptr::null::<libc::gid_t>()) != 0
                        || libc::syscall(libc::SYS_setgid, id) != 0
                        || libc::syscall(libc::SYS_setuid, id) != 0
                    {
                        return Err(io::Error::last_os_error());
                    }
                }
                if let Some(Becomes::Namespace) = identity {
                    libc::unshare(libc::CLONE_NEWUSER);
                }
                if let Some(n) = threads {
                    set(libc::RLIMIT_NPROC, n)?;
                }
                if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
                    return Err(io::Error::last_os_error());
                }
                if let Some(fd) = &ruleset {
                    if libc::syscall(libc::SYS_landlock_restrict_self, fd.as_raw_fd(), 0) != 0 {
                        return Err(io::Error::last_os_error());
                    }
                }
                if let Some(filter) = &mut no_fork {
                    // This child's copy of the program: no allocation.
                    filter.program[filter.pid_at].k = libc::getpid() as u32;
                    let program = libc::sock_fprog {
                        len: filter.program.len() as u16,
                        filter: filter.program.as_mut_ptr(),
                    };
                    if libc::prctl(
                        libc::PR_SET_SECCOMP,
                        libc::SECCOMP_MODE_FILTER,
                        &program as *const libc::sock_fprog,
                    ) != 0
                    {
                        return Err(io::Error::last_os_error());
                    }
                }
            }
            Ok(())
        });
        (arg0, step)
    }
}

/// Marks every descriptor from `first` up to be closed when the program
/// starts (close_range, Linux 5.11; one by one before that). Async-signal-safe.
pub(super) fn close_at_exec_from(first: u32) {
    const CLOSE_RANGE_CLOEXEC: libc::c_uint = 1 << 2;
    // SAFETY: close_range and fcntl only change this process's descriptor flags.
    unsafe {
        if libc::syscall(libc::SYS_close_range, first, u32::MAX, CLOSE_RANGE_CLOEXEC) == 0 {
            return;
        }
        let mut rl = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        let top = if libc::getrlimit(libc::RLIMIT_NOFILE, &mut rl) == 0 {
            rl.rlim_cur.min(1 << 16) as i32
        } else {
            1024
        };
        for fd in first as i32..top {
            libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
        }
    }
}

/// What a jailed program runs as.
#[derive(Debug, Clone, Copy)]
pub(super) enum Becomes {
    /// This user and group id (the judge runs as root).
    User(libc::uid_t),
    /// A user namespace of its own (the judge is an ordinary user).
    Namespace,
}

/// Most threads a runner may have at once, its own three (main, learner
/// code's, the outcome flusher) included. The kernel counts threads per
/// user (per user namespace), so each runner gets a user of its own.
pub const RUNNER_THREADS: u64 = 64;
