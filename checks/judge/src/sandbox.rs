//! Confinement of learner code. Every build of a learner's crate and every
//! runner is started inside a jail that the kernel enforces from before the
//! first instruction of the new program (learner code placed in
//! `.init_array` included):
//!
//! - Landlock: the files it may read and execute, the one folder it may
//!   write, no TCP (a port for `try`), and no signal or abstract socket
//!   outside its own domain, so it cannot stop or kill the judge;
//! - rlimits: address space, file size, CPU time, threads, no core files;
//! - an empty environment plus only what the program needs;
//! - for a runner: a seccomp filter (no process, no other program, no
//!   socket but TCP in `try`, no io_uring, …), a user (or user namespace)
//!   of its own, the descriptors it is handed and no other, and a fresh
//!   folder of its own with a quota ([`RunnerHome`]).
//!
//! The ruleset is built in the judge before the fork; the child only makes
//! async-signal-safe system calls between fork and exec. `--unsandboxed`
//! (or a kernel without Landlock) leaves the filesystem, network and signal
//! rules off; rlimits and the environment are always applied.

use std::ffi::OsString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

static UNSANDBOXED: AtomicBool = AtomicBool::new(false);

/// `--unsandboxed`: run learner code without Landlock (rlimits stay).
pub fn set_unsandboxed(off: bool) {
    UNSANDBOXED.store(off, Ordering::SeqCst);
}

pub fn unsandboxed() -> bool {
    UNSANDBOXED.load(Ordering::SeqCst)
}

/// Sets the jail's mode for this run from `limits`, and says what the
/// learner should know: under `--unsandboxed`, or where the kernel lacks
/// part of the jail, one line on stderr. `strict` (grading) refuses a
/// partial jail unless `--unsandboxed` was given: the `Err` is that refusal.
pub fn enter(limits: &crate::limits::Limits, strict: bool, target: &Path) -> Result<(), String> {
    use crate::catalog::{t, tr};
    set_unsandboxed(limits.unsandboxed);
    if limits.unsandboxed {
        eprintln!("lab: {}", t("sandbox.off"));
        return Ok(());
    }
    let missing = missing_in(target);
    if missing.is_empty() {
        return Ok(());
    }
    let what = missing.join(", ");
    if strict {
        return Err(tr("sandbox.refused", &[("what", &what)]));
    }
    eprintln!("lab: {}", tr("sandbox.partial", &[("what", &what)]));
    Ok(())
}

/// The Landlock ABI version the kernel offers (0: none). The kit's own
/// tests may lower it with LAB_PRETEND_LANDLOCK_ABI, to see how an older
/// kernel is met; it can never raise it.
pub fn abi() -> i32 {
    static ABI_VERSION: OnceLock<i32> = OnceLock::new();
    *ABI_VERSION.get_or_init(|| {
        let pretend = std::env::var("LAB_PRETEND_LANDLOCK_ABI")
            .ok()
            .and_then(|v| v.parse::<i32>().ok())
            .unwrap_or(i32::MAX);
        kernel_abi().min(pretend)
    })
}

fn kernel_abi() -> i32 {
    {
        const LANDLOCK_CREATE_RULESET_VERSION: libc::c_long = 1;
        // SAFETY: landlock_create_ruleset(NULL, 0, VERSION) only returns a number.
        let v = unsafe {
            libc::syscall(
                libc::SYS_landlock_create_ruleset,
                std::ptr::null::<u8>(),
                0usize,
                LANDLOCK_CREATE_RULESET_VERSION,
            )
        };
        i32::try_from(v).unwrap_or(0).max(0)
    }
}

/// A protection and the Landlock ABI (with the first Linux release) it needs.
const FEATURES: [(&str, i32, &str); 3] = [
    ("filesystem rules", 1, "5.13"),
    ("TCP rules", 4, "6.7"),
    ("signal scoping", 6, "6.12"),
];

/// The protections this kernel cannot give, each with the Linux release
/// that brings it; empty when the jail is whole.
pub fn missing() -> Vec<String> {
    let mut missing = missing_at(abi(), has_filter());
    if !thread_cap() {
        missing.push(THREAD_CAP.to_string());
    }
    missing
}

/// [`missing`], and what a kit whose target folder is `target` cannot
/// give: as root, runners run as users of their own, which must be let
/// through every folder down to the runners' binaries in it.
pub fn missing_in(target: &Path) -> Vec<String> {
    let mut missing = missing();
    // SAFETY: geteuid only returns a number.
    let root = unsafe { libc::geteuid() } == 0;
    // Runners are started from the kit's target folder, or else from a
    // stage folder in the judge's TMPDIR.
    if root && !unsandboxed() && !reachable(target, &std::env::temp_dir()) {
        missing.push(THREAD_CAP_ROOT.to_string());
    }
    missing
}

/// How a cap on runners' threads that the kit's folders prevent is named.
const THREAD_CAP_ROOT: &str =
    "a cap on each runner's threads (as root, runners run as users of their own: every folder above the kit's target folder, or above TMPDIR, must let others through, chmod o+x)";

/// Whether a runner with a user of its own can reach its binary: in the
/// kit's `target` folder, or staged in the judge's `tmp`.
fn reachable(target: &Path, tmp: &Path) -> bool {
    others_may_enter(target) || others_may_enter(tmp)
}

/// Whether others may pass through `dir` and every folder above it (those
/// that exist yet).
fn others_may_enter(dir: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    dir.ancestors()
        .filter_map(|a| std::fs::metadata(a).ok())
        .all(|m| m.permissions().mode() & 0o001 != 0)
}

/// How a missing cap on runners' threads is named.
const THREAD_CAP: &str = "a cap on each runner's threads (user namespaces, Linux 3.8)";

/// Whether runners get their thread cap: the judge runs as root (each
/// runner gets a user of its own), or this system lets an ordinary user
/// make a user namespace (tried once, in a child).
fn thread_cap() -> bool {
    static CAN: OnceLock<bool> = OnceLock::new();
    *CAN.get_or_init(|| {
        // SAFETY: geteuid only returns a number. The child of fork only
        // calls unshare and _exit, both async-signal-safe, and the parent
        // reaps it.
        unsafe {
            if libc::geteuid() == 0 {
                return true;
            }
            let pid = libc::fork();
            if pid == 0 {
                libc::_exit(if libc::unshare(libc::CLONE_NEWUSER) == 0 {
                    0
                } else {
                    1
                });
            }
            if pid < 0 {
                return false;
            }
            let mut status = 0;
            libc::waitpid(pid, &mut status, 0) == pid
                && libc::WIFEXITED(status)
                && libc::WEXITSTATUS(status) == 0
        }
    })
}

/// Without Landlock's signal scoping, the runners' seccomp filter (which
/// lets a runner signal only itself) stands in for it: builds run no
/// learner code that could send a signal.
fn missing_at(abi: i32, filter: bool) -> Vec<String> {
    FEATURES
        .iter()
        .filter(|(what, needs, _)| abi < *needs && !(filter && *what == "signal scoping"))
        .map(|(what, _, linux)| format!("{what} (Landlock, Linux {linux})"))
        .collect()
}

/// What a jailed program may touch.
#[derive(Debug, Default, Clone)]
pub struct Policy {
    /// Read and execute, files or whole folders.
    pub read: Vec<PathBuf>,
    /// Everything, beneath these folders (or on these files).
    pub write: Vec<PathBuf>,
    /// TCP ports it may connect to (none: no TCP at all).
    pub connect: Vec<u16>,
    /// Execute only what `read` names: the system's libraries may be
    /// loaded but not run as programs, and nothing beneath `write` may be
    /// run (a runner). A build runs the linker's helpers and the build
    /// scripts it compiles, so it leaves this off.
    pub execute_only_read: bool,
}

/// Resource limits of a jailed program.
#[derive(Debug, Clone, Copy)]
pub struct Rlimits {
    pub address_space: u64,
    pub file_size: u64,
    pub cpu_seconds: u64,
}

/// A seccomp program and the place of the instruction that must hold the
/// filtered process's own pid.
pub struct Filter {
    program: Vec<libc::sock_filter>,
    pid_at: usize,
}

/// A prepared jail: the ruleset (already built), limits and environment.
pub struct Jail {
    ruleset: Option<OwnedFd>,
    limits: Rlimits,
    env: Vec<(OsString, OsString)>,
    /// A seccomp filter that refuses new processes (threads stay allowed).
    no_fork: Option<Filter>,
    /// Descriptors the program gets, each under its number; every other
    /// descriptor above 2 is closed when it starts.
    handed: Vec<(OwnedFd, i32)>,
    /// Who the program runs as: a user of its own, or a user namespace of
    /// its own (see [`Identity`]); `None` leaves it as the judge is.
    identity: Option<Becomes>,
    /// Most threads (and processes) the program may have at once.
    threads: Option<u64>,
    /// The folder it writes in and the most bytes it may hold, watched by
    /// `spawn::supervise` (no file system here gives a folder a quota).
    quota: Option<(PathBuf, u64)>,
}

/// Folders every dynamically linked program needs to start.
const SYSTEM_LIBS: [&str; 4] = ["/lib", "/lib64", "/usr/lib", "/usr/lib64"];

impl Jail {
    /// A jail for `policy`; Landlock is left out under `--unsandboxed` or
    /// where the kernel has none.
    pub fn new(
        policy: &Policy,
        limits: Rlimits,
        env: Vec<(OsString, OsString)>,
    ) -> io::Result<Jail> {
        let ruleset = if unsandboxed() || abi() < 1 {
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

    /// Applies the jail to `cmd`: a cleared environment, then, in the child
    /// between fork and exec, rlimits, no-new-privileges and Landlock.
    pub fn apply(self, cmd: &mut Command) {
        cmd.env_clear();
        cmd.envs(self.env);
        let Jail {
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
        // SAFETY: the closure only makes system calls (fcntl, dup2,
        // close_range, setrlimit, setgroups, setgid, setuid, unshare, prctl,
        // landlock_restrict_self), all async-signal-safe; it allocates nothing.
        unsafe {
            cmd.pre_exec(move || {
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
                    if libc::setgroups(0, std::ptr::null()) != 0
                        || libc::setgid(id) != 0
                        || libc::setuid(id) != 0
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
                Ok(())
            });
        }
    }
}

/// Marks every descriptor from `first` up to be closed when the program
/// starts (close_range, Linux 5.11; one by one before that). Async-signal-safe.
fn close_at_exec_from(first: u32) {
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
enum Becomes {
    /// This user and group id (the judge runs as root).
    User(libc::uid_t),
    /// A user namespace of its own (the judge is an ordinary user).
    Namespace,
}

/// Most threads a runner may have at once, its own three (main, learner
/// code's, the outcome flusher) included. The kernel counts threads per
/// user (per user namespace), so each runner gets a user of its own.
pub const RUNNER_THREADS: u64 = 64;

/// A user id of the judge's own for one runner while it lives (the judge
/// runs as root). Ids are taken from a block this judge chose at random far
/// above the system's users, one per runner alive at once, and given back
/// when dropped (after the runner and every thread of it are gone).
pub struct Identity {
    pub uid: libc::uid_t,
    slot: usize,
}

static IDENTITIES: [AtomicBool; 256] = [const { AtomicBool::new(false) }; 256];

fn identity_base() -> libc::uid_t {
    static BASE: OnceLock<libc::uid_t> = OnceLock::new();
    *BASE.get_or_init(|| {
        // 0x2000_0000 to 0x6000_0000, a multiple of 256: no system user
        // and no container's mapped range lives there.
        0x2000_0000 + (crate::rng::fresh_seed() % 0x40_0000) as libc::uid_t * 256
    })
}

impl Identity {
    fn take() -> Option<Identity> {
        let slot = IDENTITIES.iter().position(|s| {
            s.compare_exchange(false, true, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
        })?;
        Some(Identity {
            uid: identity_base() + slot as libc::uid_t,
            slot,
        })
    }
}

impl Drop for Identity {
    fn drop(&mut self) {
        IDENTITIES[self.slot].store(false, Ordering::SeqCst);
    }
}

/// Whether every folder above `path` lets others through and `path` lets
/// others read and run it: what a runner with a user of its own needs to
/// start `path`.
fn others_may_run(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o005 == 0o005)
        && path.parent().is_some_and(others_may_enter)
}

/// Where runner binaries are staged for runners with users of their own
/// when the kit's folders do not let other users through: a folder of the
/// judge's that others may pass through but not list (0711), removed by
/// [`remove_stage`].
static STAGE: std::sync::Mutex<Option<Stage>> = std::sync::Mutex::new(None);

/// The stage folder and what it holds: each binary, its [`StageKey`] and
/// where it is staged.
type Stage = (PathBuf, Vec<(PathBuf, StageKey, PathBuf)>);

/// A built binary, as staged: its length and modification time.
type StageKey = (u64, Option<std::time::SystemTime>);

/// `exe` at a path that other users may reach and run: a hard link to it
/// (or, across file systems, a copy) in the judge's stage folder, made
/// once per built binary.
fn staged(exe: &Path) -> io::Result<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::metadata(exe)?;
    let key: StageKey = (meta.len(), meta.modified().ok());
    let mut stage = STAGE.lock().unwrap_or_else(|e| e.into_inner());
    if stage.is_none() {
        let dir = tempfile::Builder::new()
            .prefix("retry-lab-stage-")
            .tempdir()?
            .keep();
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o711))?;
        *stage = Some((dir, Vec::new()));
    }
    let Some((dir, known)) = stage.as_mut() else {
        return Err(io::Error::other("no stage folder"));
    };
    if let Some((_, _, at)) = known.iter().find(|(p, k, _)| p == exe && *k == key) {
        return Ok(at.clone());
    }
    let at = dir.join(format!("runner-{}", known.len()));
    if std::fs::hard_link(exe, &at).is_err() {
        std::fs::copy(exe, &at)?;
    }
    std::fs::set_permissions(&at, std::fs::Permissions::from_mode(0o755))?;
    known.push((exe.to_path_buf(), key, at.clone()));
    Ok(at)
}

/// Removes the stage folder, if this judge made one (at its end).
pub fn remove_stage() {
    let mut stage = STAGE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((dir, _)) = stage.take() {
        let _ = std::fs::remove_dir_all(dir);
    }
}

/// A runner's own folder: fresh and empty, its current directory and
/// TMPDIR, the only place it may write. It sits inside a folder of the
/// judge's that only the judge may enter, and, where the runner gets a user
/// of its own, belongs to that user. Dropped (and removed) after the runner.
pub struct RunnerHome {
    pub dir: PathBuf,
    /// The binary to start: the runner itself, or its staged link.
    pub program: PathBuf,
    becomes: Option<Becomes>,
    _identity: Option<Identity>,
    _top: tempfile::TempDir,
}

impl RunnerHome {
    /// A home for a runner that will start `exe`.
    pub fn new(exe: &Path) -> io::Result<RunnerHome> {
        let top = tempfile::Builder::new()
            .prefix("retry-lab-run-")
            .tempdir()?;
        let dir = top.path().join("home");
        std::fs::create_dir(&dir)?;
        // SAFETY: geteuid only returns a number.
        let root = unsafe { libc::geteuid() } == 0;
        let mut program = exe.to_path_buf();
        let identity = if root && !unsandboxed() {
            if !others_may_run(&program) {
                program = staged(exe)?;
            }
            others_may_run(&program).then(Identity::take).flatten()
        } else {
            None
        };
        let becomes = match &identity {
            Some(id) => {
                std::os::unix::fs::chown(&dir, Some(id.uid), Some(id.uid))?;
                Some(Becomes::User(id.uid))
            }
            // Root without a usable user still loses its capabilities in a
            // namespace of its own (its threads are then not counted apart).
            None if !unsandboxed() => Some(Becomes::Namespace),
            None => None,
        };
        Ok(RunnerHome {
            dir,
            program,
            becomes,
            _identity: identity,
            _top: top,
        })
    }
}

/// Landlock's interface (linux/landlock.h), spoken through libc's
/// `syscall`: the kit needs four calls, and the crate that wraps them cost a
/// cold build two proc-macro stacks.
mod landlock {
    pub const EXECUTE: u64 = 1 << 0;
    pub const WRITE_FILE: u64 = 1 << 1;
    pub const READ_FILE: u64 = 1 << 2;
    pub const READ_DIR: u64 = 1 << 3;
    /// REMOVE_DIR to MAKE_SYM: the rest of ABI 1's rights.
    pub const WRITE_V1: u64 = WRITE_FILE | (0b1_1111_1111 << 4);
    pub const REFER: u64 = 1 << 13;
    pub const TRUNCATE: u64 = 1 << 14;
    pub const IOCTL_DEV: u64 = 1 << 15;
    pub const NET_BIND_TCP: u64 = 1 << 0;
    pub const NET_CONNECT_TCP: u64 = 1 << 1;
    pub const SCOPE_ABSTRACT_UNIX_SOCKET: u64 = 1 << 0;
    pub const SCOPE_SIGNAL: u64 = 1 << 1;
    pub const RULE_PATH_BENEATH: libc::c_long = 1;
    pub const RULE_NET_PORT: libc::c_long = 2;

    #[repr(C)]
    pub struct RulesetAttr {
        pub handled_access_fs: u64,
        pub handled_access_net: u64,
        pub scoped: u64,
    }

    #[repr(C, packed)]
    pub struct PathBeneathAttr {
        pub allowed_access: u64,
        pub parent_fd: i32,
    }

    #[repr(C)]
    pub struct NetPortAttr {
        pub allowed_access: u64,
        pub port: u64,
    }

    /// Read and execute: what `read` paths get.
    pub const READ: u64 = EXECUTE | READ_FILE | READ_DIR;

    /// Every filesystem right this ABI knows (as the kit handles them; a
    /// newer kernel's extra rights are left to it).
    pub fn all(abi: i32) -> u64 {
        let mut all = READ | WRITE_V1;
        if abi >= 2 {
            all |= REFER;
        }
        if abi >= 3 {
            all |= TRUNCATE;
        }
        if abi >= 5 {
            all |= IOCTL_DEV;
        }
        all
    }

    /// The rights that mean something on a file that is not a folder.
    pub fn file(abi: i32) -> u64 {
        all(abi) & (EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV)
    }
}

fn ruleset(policy: &Policy) -> Result<OwnedFd, String> {
    build_ruleset(policy, abi()).map_err(|e| e.to_string())
}

/// The ruleset for `policy` on a kernel of Landlock ABI `abi` (at least 1):
/// every filesystem right handled, TCP bind and connect handled from ABI 4,
/// signals and abstract sockets scoped from ABI 6; what the kernel cannot
/// handle is left out, as the ABI table in [`FEATURES`] says.
fn build_ruleset(policy: &Policy, abi: i32) -> io::Result<OwnedFd> {
    use landlock::*;
    use std::os::unix::fs::OpenOptionsExt;
    let attr = RulesetAttr {
        handled_access_fs: all(abi),
        handled_access_net: if abi >= 4 {
            NET_BIND_TCP | NET_CONNECT_TCP
        } else {
            0
        },
        scoped: if abi >= 6 {
            SCOPE_SIGNAL | SCOPE_ABSTRACT_UNIX_SOCKET
        } else {
            0
        },
    };
    // Older kernels read only the fields they know.
    let size = match abi {
        1..=3 => 8,
        4 | 5 => 16,
        _ => std::mem::size_of::<RulesetAttr>(),
    };
    // SAFETY: `attr` lives across the call and `size` does not exceed it.
    let fd = unsafe { libc::syscall(libc::SYS_landlock_create_ruleset, &attr, size, 0u32) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the kernel just returned this descriptor to us alone.
    let ruleset = unsafe { OwnedFd::from_raw_fd(fd as i32) };
    let add = |kind: libc::c_long, rule: *const libc::c_void| {
        // SAFETY: `rule` points at a live attribute of the type `kind` names.
        let r = unsafe {
            libc::syscall(
                libc::SYS_landlock_add_rule,
                ruleset.as_raw_fd(),
                kind,
                rule,
                0u32,
            )
        };
        if r != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    };
    let beneath = |paths: &[PathBuf], access: u64| -> io::Result<()> {
        for path in paths {
            // A path that is not there is simply not granted.
            let Ok(opened) = std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_PATH)
                .open(path)
            else {
                continue;
            };
            let access = if path.is_dir() {
                access
            } else {
                access & file(abi)
            };
            let rule = PathBeneathAttr {
                allowed_access: access,
                parent_fd: opened.as_raw_fd(),
            };
            add(RULE_PATH_BENEATH, (&rule as *const PathBeneathAttr).cast())?;
        }
        Ok(())
    };
    let mut libraries: Vec<PathBuf> = SYSTEM_LIBS.iter().map(PathBuf::from).collect();
    libraries.push("/etc/ld.so.cache".into());
    let (libraries_access, write_access) = if policy.execute_only_read {
        (READ_FILE | READ_DIR, all(abi) & !EXECUTE)
    } else {
        (READ, all(abi))
    };
    beneath(&libraries, libraries_access)?;
    beneath(&policy.read, READ)?;
    let mut write_paths = policy.write.clone();
    write_paths.push("/dev/null".into());
    beneath(&write_paths, write_access)?;
    if abi >= 4 {
        for port in &policy.connect {
            let rule = NetPortAttr {
                allowed_access: NET_CONNECT_TCP,
                port: u64::from(*port),
            };
            add(RULE_NET_PORT, (&rule as *const NetPortAttr).cast())?;
        }
    }
    Ok(ruleset)
}

/// Which sockets a runner may open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sockets {
    /// None at all: no UDP, no Unix sockets (pathname or abstract), no
    /// TCP, no raw or netlink sockets.
    None,
    /// TCP over IPv4 or IPv6 only (Landlock then limits the ports).
    Tcp,
}

/// A seccomp program for runners. It answers EPERM to every way of
/// starting a new process (fork, vfork, clone without CLONE_THREAD) or
/// another program from a descriptor (execveat, memfd_create), to io_uring
/// (whose operations no filter sees), to changing a file's times, mode,
/// owner or extended attributes (which Landlock does not govern: a runner
/// could otherwise date a slot's cargo fingerprints into the future, or
/// take the execute bit off the judge), to namespaces, mounts, tracing,
/// other processes' memory, BPF, kernel keys and modules, to raising its
/// priority or setting a resource limit (reading one stays allowed), and to
/// every socket `sockets` does not allow; ENOSYS to clone3, whose flags it
/// cannot see (the C library then falls back to clone for threads). System
/// calls of another ABI are refused.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
fn no_fork_filter(sockets: Sockets) -> Filter {
    use libc::*;
    const ARCH: u32 = if cfg!(target_arch = "x86_64") {
        0xC000_003E // AUDIT_ARCH_X86_64
    } else {
        0xC000_00B7 // AUDIT_ARCH_AARCH64
    };
    /// fchmodat2 has one number on every architecture (Linux 6.6).
    const SYS_FCHMODAT2: c_long = 452;
    /// Numbers shared by every architecture since Linux 5.1.
    const SYS_IO_URING_SETUP: c_long = 425;
    const SYS_IO_URING_ENTER: c_long = 426;
    const SYS_IO_URING_REGISTER: c_long = 427;
    const SYS_OPEN_TREE: c_long = 428;
    const SYS_MOVE_MOUNT: c_long = 429;
    const SYS_FSOPEN: c_long = 430;
    const SYS_FSCONFIG: c_long = 431;
    const SYS_FSMOUNT: c_long = 432;
    const SYS_FSPICK: c_long = 433;
    const SYS_MOUNT_SETATTR: c_long = 442;
    const SYS_MEMFD_SECRET: c_long = 447;
    // The same on both architectures (their own numbers, libc's names).
    let mut refused: Vec<c_long> = vec![
        SYS_execveat,
        SYS_memfd_create,
        SYS_MEMFD_SECRET,
        SYS_IO_URING_SETUP,
        SYS_IO_URING_ENTER,
        SYS_IO_URING_REGISTER,
        SYS_utimensat,
        SYS_fchmod,
        SYS_fchmodat,
        SYS_FCHMODAT2,
        SYS_fchown,
        SYS_fchownat,
        SYS_setxattr,
        SYS_lsetxattr,
        SYS_fsetxattr,
        SYS_removexattr,
        SYS_lremovexattr,
        SYS_fremovexattr,
        SYS_unshare,
        SYS_setns,
        SYS_mount,
        SYS_umount2,
        SYS_pivot_root,
        SYS_chroot,
        SYS_OPEN_TREE,
        SYS_MOVE_MOUNT,
        SYS_FSOPEN,
        SYS_FSCONFIG,
        SYS_FSMOUNT,
        SYS_FSPICK,
        SYS_MOUNT_SETATTR,
        SYS_ptrace,
        SYS_process_vm_readv,
        SYS_process_vm_writev,
        SYS_bpf,
        SYS_perf_event_open,
        SYS_userfaultfd,
        SYS_keyctl,
        SYS_add_key,
        SYS_request_key,
        SYS_name_to_handle_at,
        SYS_open_by_handle_at,
        SYS_init_module,
        SYS_finit_module,
        SYS_delete_module,
        SYS_kexec_load,
        SYS_setpriority,
        SYS_sched_setscheduler,
        SYS_sched_setparam,
        SYS_sched_setattr,
        SYS_socketpair,
    ];
    #[cfg(target_arch = "x86_64")]
    refused.extend([
        SYS_fork,
        SYS_vfork,
        SYS_utime,
        SYS_utimes,
        SYS_futimesat,
        SYS_chmod,
        SYS_chown,
        SYS_lchown,
        SYS_setrlimit,
    ]);
    let stmt = |code: u32, k: u32| sock_filter {
        code: code as u16,
        jt: 0,
        jf: 0,
        k,
    };
    let jump = |op: u32, k: u32, jt: u8, jf: u8| sock_filter {
        code: (BPF_JMP | op | BPF_K) as u16,
        jt,
        jf,
        k,
    };
    let load = |offset: u32| stmt(BPF_LD | BPF_W | BPF_ABS, offset);
    let errno = |e: i32| stmt(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | e as u32);
    let allow = stmt(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
    // seccomp_data: nr at 0, arch at 4, args[0] at 16 (low half first).
    let mut program = vec![
        load(4),
        jump(BPF_JEQ, ARCH, 1, 0),
        errno(ENOSYS),
        load(0),
        // x32 system calls (bit 30) are another ABI.
        jump(BPF_JGE, 0x4000_0000, 0, 1),
        errno(ENOSYS),
    ];
    for nr in refused {
        program.push(jump(BPF_JEQ, nr as u32, 0, 1));
        program.push(errno(EPERM));
    }
    // Signals go only to the runner itself (its pid, or 0: its own group,
    // which it leads), so the judge cannot be stopped or killed even where
    // Landlock has no signal scoping. The jumps to that check are patched
    // below, once its place is known.
    let mut to_self = Vec::new();
    for nr in [
        SYS_kill,
        SYS_tgkill,
        SYS_rt_sigqueueinfo,
        SYS_rt_tgsigqueueinfo,
    ] {
        program.push(jump(BPF_JEQ, nr as u32, 0, 1));
        to_self.push(program.len());
        program.push(stmt(BPF_JMP | BPF_JA, 0));
    }
    for nr in [SYS_tkill, SYS_pidfd_send_signal] {
        program.push(jump(BPF_JEQ, nr as u32, 0, 1));
        program.push(errno(EPERM));
    }
    // prlimit64 only reads (its new limit is NULL): the C library asks for
    // the stack's limit when it starts.
    program.extend([
        jump(BPF_JEQ, SYS_prlimit64 as u32, 0, 6),
        load(32),
        jump(BPF_JEQ, 0, 0, 2),
        load(36),
        jump(BPF_JEQ, 0, 1, 0),
        errno(EPERM),
        allow,
    ]);
    // socket: nothing, or TCP only (a stream socket of IPv4 or IPv6).
    match sockets {
        Sockets::None => program.extend([jump(BPF_JEQ, SYS_socket as u32, 0, 1), errno(EPERM)]),
        Sockets::Tcp => program.extend([
            jump(BPF_JEQ, SYS_socket as u32, 0, 7),
            load(16),
            jump(BPF_JEQ, AF_INET as u32, 1, 0),
            jump(BPF_JEQ, AF_INET6 as u32, 0, 3),
            load(24),
            // The type without SOCK_NONBLOCK and SOCK_CLOEXEC.
            stmt(BPF_ALU | BPF_AND | BPF_K, 0xF),
            jump(BPF_JEQ, SOCK_STREAM as u32, 1, 0),
            errno(EPERM),
        ]),
    }
    // After the socket check the accumulator may hold an argument: load the
    // number again.
    program.push(load(0));
    program.extend([
        jump(BPF_JEQ, SYS_clone3 as u32, 0, 1),
        errno(ENOSYS),
        jump(BPF_JEQ, SYS_clone as u32, 1, 0),
        allow,
        load(16),
        jump(BPF_JSET, CLONE_THREAD as u32, 0, 1),
        allow,
        errno(EPERM),
    ]);
    let check = program.len();
    for at in to_self {
        program[at].k = (check - at - 1) as u32;
    }
    program.extend([
        load(16),
        // The runner's pid, written in by the child itself (see `apply`).
        jump(BPF_JEQ, 0, 2, 0),
        jump(BPF_JEQ, 0, 1, 0),
        errno(EPERM),
        allow,
    ]);
    Filter {
        pid_at: check + 1,
        program,
    }
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
fn no_fork_filter(_: Sockets) -> Filter {
    Filter {
        program: Vec::new(),
        pid_at: 0,
    }
}

/// Whether this architecture has the runners' seccomp filter.
pub fn has_filter() -> bool {
    cfg!(any(target_arch = "x86_64", target_arch = "aarch64"))
}

/// Most bytes of any one file a runner writes: its outcomes file (a step's
/// every check, one line each, when failures are pinned one by one, is a
/// few MiB), its stdout and stderr (the judge stops a flood at the output
/// cap long before), and anything learner code writes in its folder.
const RUNNER_FILE_SIZE: u64 = 64 << 20;

/// Most bytes a runner's own folder may hold, all its files together.
pub const RUNNER_FOLDER_BYTES: u64 = 256 << 20;

/// Limits of a runner: 2 GiB of address space, 64 MiB per file, `cpu`
/// seconds of CPU time.
pub fn runner_limits(cpu_seconds: u64) -> Rlimits {
    Rlimits {
        address_space: 2 << 30,
        file_size: RUNNER_FILE_SIZE,
        cpu_seconds,
    }
}

/// The ELF interpreter `exe` names (its dynamic loader), if any: the one
/// file besides `exe` that starting it executes.
fn interpreter(exe: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::FileExt;
    let file = std::fs::File::open(exe).ok()?;
    let mut head = [0u8; 64];
    file.read_exact_at(&mut head, 0).ok()?;
    // A little-endian ELF64 file (x86-64, AArch64).
    if &head[..4] != b"\x7fELF" || head[4] != 2 || head[5] != 1 {
        return None;
    }
    let u16_at = |b: &[u8], at: usize| u16::from_le_bytes([b[at], b[at + 1]]);
    let u64_at =
        |b: &[u8], at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap_or([0; 8]));
    let (phoff, phentsize, phnum) = (
        u64_at(&head, 0x20),
        u16_at(&head, 0x36),
        u16_at(&head, 0x38),
    );
    if phentsize < 56 {
        return None;
    }
    for i in 0..u64::from(phnum) {
        let mut ph = [0u8; 56];
        file.read_exact_at(&mut ph, phoff + i * u64::from(phentsize))
            .ok()?;
        const PT_INTERP: u32 = 3;
        if u32::from_le_bytes([ph[0], ph[1], ph[2], ph[3]]) == PT_INTERP {
            let (offset, size) = (u64_at(&ph, 8), u64_at(&ph, 32));
            let mut name = vec![0u8; size.min(4096) as usize];
            file.read_exact_at(&mut name, offset).ok()?;
            let end = name.iter().position(|b| *b == 0).unwrap_or(name.len());
            use std::os::unix::ffi::OsStrExt;
            return Some(PathBuf::from(std::ffi::OsStr::from_bytes(&name[..end])));
        }
    }
    None
}

/// The jail of a runner started from `exe` in `home`: it may execute `exe`
/// and its dynamic loader and nothing else (the system's shared libraries
/// are loaded, never run; nothing it writes can be run), read and write
/// its own folder (also its TMPDIR), and no other file. With ports in
/// `connect` it may open TCP sockets and connect to those ports only;
/// with none it may open no socket at all. It starts no process, runs as
/// a user (or in a user namespace) of its own with at most
/// [`RUNNER_THREADS`] threads, and gets no descriptor of the judge's but
/// those handed to it.
pub fn runner(exe: &Path, home: &RunnerHome, connect: &[u16], limits: Rlimits) -> io::Result<Jail> {
    let mut read = vec![exe.to_path_buf()];
    read.extend(interpreter(exe));
    let policy = Policy {
        read,
        write: vec![home.dir.clone()],
        connect: connect.to_vec(),
        execute_only_read: true,
    };
    let sockets = if connect.is_empty() {
        Sockets::None
    } else {
        Sockets::Tcp
    };
    let mut jail = Jail::new(
        &policy,
        limits,
        vec![("TMPDIR".into(), home.dir.as_os_str().to_os_string())],
    )?
    .without_new_processes(sockets);
    jail.identity = home.becomes;
    jail.threads = Some(RUNNER_THREADS);
    jail.quota = Some((home.dir.clone(), RUNNER_FOLDER_BYTES));
    Ok(jail)
}

/// Where the Rust toolchain lives, for a build's jail and environment.
struct Toolchain {
    read: Vec<PathBuf>,
    env: Vec<(OsString, OsString)>,
}

/// What a build reads of the system besides the shared libraries (which
/// every jail gets: [`SYSTEM_LIBS`] and `/etc/ld.so.cache`): the programs
/// (`cc`, `ld`), the compilers' helpers where a distribution keeps them in
/// `/usr/libexec` (gcc's `collect2`, mold's `ld`), libraries the linker
/// cache may name in `/usr/local/lib`, the files of `/etc` that tell a
/// linker where libraries are, and rustup's system-wide settings. Nothing
/// else of `/etc`, `/opt`, `/usr/share`, `/proc` or `/sys`: cargo and rustc
/// count the CPUs without them (`sched_getaffinity`).
const BUILD_SYSTEM: [&str; 7] = [
    "/usr/bin",
    "/bin",
    "/usr/libexec",
    "/usr/local/lib",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/rustup",
];

/// Folders a PATH entry (or the folder of cargo or rustc) may never be nor
/// lie beneath: configuration, the kernel's views, devices, runtime state.
const NEVER_WHOLE: [&str; 6] = ["/etc", "/proc", "/sys", "/dev", "/run", "/boot"];

fn toolchain() -> &'static Toolchain {
    static TOOLCHAIN: OnceLock<Toolchain> = OnceLock::new();
    TOOLCHAIN.get_or_init(|| toolchain_for(&|name| std::env::var_os(name)))
}

/// The toolchain as the environment `var` describes it: the toolchain
/// homes, the folders of PATH that hold programs (see [`program_folder`]),
/// the folders of the cargo and rustc actually run and that rustc's
/// sysroot libraries — all found from paths, without starting a program.
/// PATH is passed on with only the folders granted, in its order.
fn toolchain_for(var: &dyn Fn(&str) -> Option<OsString>) -> Toolchain {
    let home = var("HOME").map(PathBuf::from);
    let cargo_home = var("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(".cargo")));
    let rustup_home = var("RUSTUP_HOME")
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(".rustup")));
    let mut read: Vec<PathBuf> = BUILD_SYSTEM.iter().map(PathBuf::from).collect();
    let mut env = Vec::new();
    if let Some(home) = &cargo_home {
        for sub in ["bin", "registry", "git"] {
            read.push(home.join(sub));
        }
        env.push(("CARGO_HOME".into(), home.clone().into_os_string()));
    }
    if let Some(home) = &rustup_home {
        read.push(home.clone());
        env.push(("RUSTUP_HOME".into(), home.clone().into_os_string()));
    }
    // The home folder and CARGO_HOME (credentials.toml) are never granted
    // whole, nor is any folder above them.
    let held: Vec<PathBuf> = [home, cargo_home]
        .into_iter()
        .flatten()
        .filter_map(|p| p.canonicalize().ok())
        .collect();
    let mut path = Vec::new();
    if let Some(value) = var("PATH") {
        for entry in std::env::split_paths(&value) {
            if let Some(dir) = entry
                .is_absolute()
                .then(|| program_folder(&entry, &held))
                .flatten()
            {
                read.push(dir);
                path.push(entry);
            }
        }
    }
    // The cargo the judge runs and the rustc it finds, wherever they really
    // are (a symlink into a toolchain outside the usual places), and that
    // rustc's sysroot libraries (`lib` beside its `bin`, if it has a rustlib).
    let cargo = var("CARGO")
        .map(PathBuf::from)
        .or_else(|| on_path("cargo", &path));
    let rustc = on_path("rustc", &path);
    for (program, sysroot) in [(cargo, false), (rustc, true)] {
        let Some(real) = program.and_then(|p| p.canonicalize().ok()) else {
            continue;
        };
        let Some(bin) = real.parent() else {
            continue;
        };
        read.extend(program_folder(bin, &held));
        let lib = bin.join("../lib");
        if sysroot && lib.join("rustlib").is_dir() {
            read.extend(program_folder(&lib, &held));
        }
    }
    if let Ok(joined) = std::env::join_paths(&path) {
        env.push(("PATH".into(), joined));
    }
    for name in [
        "RUSTUP_TOOLCHAIN",
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "CARGO_INCREMENTAL",
    ] {
        if let Some(v) = var(name) {
            env.push((name.into(), v));
        }
    }
    Toolchain { read, env }
}

/// `dir` with its symbolic links resolved, when a build may read all of it:
/// it exists, and is neither `/` nor a top-level folder other than `/bin`
/// and `/sbin`, lies beneath none of [`NEVER_WHOLE`], and holds none of
/// `held`. So a PATH of `/`, `/etc`, `/usr`, `/opt`, `~` or `~/.cargo`
/// grants nothing, while `~/bin`, `~/.cargo/bin` or `/opt/rust/bin` do.
fn program_folder(dir: &Path, held: &[PathBuf]) -> Option<PathBuf> {
    let dir = dir.canonicalize().ok().filter(|d| d.is_dir())?;
    let top_level = dir.parent().is_none_or(|up| up == Path::new("/"));
    if top_level && !["/bin", "/sbin"].iter().any(|ok| dir == Path::new(ok)) {
        return None;
    }
    if NEVER_WHOLE.iter().any(|never| dir.starts_with(never)) {
        return None;
    }
    if held.iter().any(|h| h.starts_with(&dir)) {
        return None;
    }
    Some(dir)
}

/// The first `name` in the folders of `path`.
fn on_path(name: &str, path: &[PathBuf]) -> Option<PathBuf> {
    path.iter().map(|dir| dir.join(name)).find(|p| p.is_file())
}

/// The jail of a cargo build of learner code: it may read the toolchain,
/// the registry and `sources`, and write only `target` (where `tmp`, its
/// TMPDIR, lives too) and the files in `also`.
pub fn build(sources: &[PathBuf], target: &Path, tmp: &Path, also: &[PathBuf]) -> io::Result<Jail> {
    let tc = toolchain();
    let mut read = tc.read.clone();
    read.extend(sources.iter().cloned());
    let mut write = vec![target.to_path_buf(), tmp.to_path_buf()];
    write.extend(also.iter().cloned());
    let policy = Policy {
        read,
        write,
        connect: Vec::new(),
        execute_only_read: false,
    };
    let mut env = tc.env.clone();
    env.push(("CARGO_TARGET_DIR".into(), target.as_os_str().to_os_string()));
    env.push(("TMPDIR".into(), tmp.as_os_str().to_os_string()));
    let limits = Rlimits {
        address_space: 8 << 30,
        file_size: 2 << 30,
        cpu_seconds: 3600,
    };
    Jail::new(&policy, limits, env)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `cmd` under `jail` (or none) with a 20 s watch; returns how it
    /// ended and its stdout followed by its stderr.
    fn captured(cmd: &mut Command, jail: Option<Jail>) -> (crate::spawn::Exit, String) {
        use crate::spawn::{self, Watch};
        let watch = Watch {
            idle: std::time::Duration::from_secs(20),
            deadline: std::time::Instant::now() + std::time::Duration::from_secs(20),
            output_cap: 1 << 20,
        };
        let (exit, captured) = spawn::supervise(cmd, watch, jail, || false).unwrap();
        let text = spawn::excerpt(&captured.stdout, 4096) + &captured.stderr_excerpt(4096);
        (exit, text)
    }

    fn limits() -> Rlimits {
        Rlimits {
            address_space: 1 << 30,
            file_size: 1 << 20,
            cpu_seconds: 20,
        }
    }

    /// Runs `script` in sh inside a jail that may read /bin, /usr and `read`,
    /// and write `write`; returns (exit code or -signal, stdout+stderr).
    /// Runs `script` in sh inside `jail`; returns how it ended and its
    /// stdout followed by its stderr.
    fn in_jail(script: &str, jail: Jail) -> (crate::spawn::Exit, String) {
        let mut cmd = Command::new("/bin/sh");
        cmd.args(["-c", script]);
        captured(&mut cmd, Some(jail))
    }

    /// Runs `script` in a jail that may read /bin, /usr and `read`, and
    /// write `write`; returns (exit code, stdout+stderr).
    fn jailed(script: &str, read: &Path, write: &Path, no_fork: bool) -> (i32, String) {
        use crate::spawn::Exit;
        let policy = Policy {
            read: vec!["/bin".into(), "/usr".into(), read.to_path_buf()],
            write: vec![write.to_path_buf()],
            connect: Vec::new(),
            execute_only_read: false,
        };
        let mut jail = Jail::new(&policy, limits(), Vec::new()).unwrap();
        if no_fork {
            jail = jail.without_new_processes(Sockets::None);
        }
        match in_jail(script, jail) {
            (Exit::Success, text) => (0, text),
            (Exit::Failure(code), text) => (code, text),
            (other, text) => panic!("{other:?}: {text}"),
        }
    }

    fn folders() -> (tempfile::TempDir, PathBuf, PathBuf, PathBuf) {
        let top = tempfile::tempdir().unwrap();
        let (open, own, secret) = (
            top.path().join("open"),
            top.path().join("own"),
            top.path().join("secret"),
        );
        for d in [&open, &own, &secret] {
            std::fs::create_dir(d).unwrap();
            std::fs::write(d.join("f"), "words").unwrap();
        }
        (top, open, own, secret)
    }

    #[test]
    fn a_jailed_program_reads_and_writes_only_what_its_policy_names() {
        if abi() < 1 {
            eprintln!("skipped: this kernel has no Landlock");
            return;
        }
        let (_top, open, own, secret) = folders();
        let (code, text) = jailed(
            &format!(
                "cat {0}/f && echo new > {1}/g && cat {1}/g",
                open.display(),
                own.display()
            ),
            &open,
            &own,
            false,
        );
        assert_eq!((code, text.as_str()), (0, "wordsnew\n"));
        let (code, _) = jailed(&format!("cat {}/f", secret.display()), &open, &own, false);
        assert_ne!(code, 0, "read a folder outside the policy");
        let (code, _) = jailed(
            &format!("echo x > {}/f", open.display()),
            &open,
            &own,
            false,
        );
        assert_ne!(code, 0, "wrote into a read-only folder");
        assert_eq!(std::fs::read_to_string(open.join("f")).unwrap(), "words");
        let (code, _) = jailed("cat /proc/1/cmdline", &open, &own, false);
        assert_ne!(code, 0, "read /proc");
    }

    /// A jail whose ruleset is built for Landlock ABI `abi`.
    fn jail_at(abi: i32, policy: &Policy) -> Jail {
        Jail {
            ruleset: Some(build_ruleset(policy, abi).unwrap()),
            limits: limits(),
            env: Vec::new(),
            no_fork: None,
            handed: Vec::new(),
            identity: None,
            threads: None,
            quota: None,
        }
    }

    #[test]
    fn a_ruleset_for_every_older_abi_is_accepted_and_still_confines() {
        use crate::spawn::Exit;
        let (_top, open, own, secret) = folders();
        let policy = Policy {
            read: vec!["/bin".into(), "/usr".into(), open.clone()],
            write: vec![own.clone()],
            connect: Vec::new(),
            execute_only_read: false,
        };
        for abi in 1..=abi() {
            let script = format!("cat {}/f > {}/g", open.display(), own.display());
            let (exit, text) = in_jail(&script, jail_at(abi, &policy));
            assert_eq!(exit, Exit::Success, "ABI {abi}: {text}");
            let script = format!("cat {}/f", secret.display());
            let (exit, _) = in_jail(&script, jail_at(abi, &policy));
            assert_ne!(exit, Exit::Success, "ABI {abi}: read outside the policy");
        }
    }

    #[test]
    fn a_jailed_program_connects_only_to_the_ports_it_was_given() {
        use crate::spawn::Exit;
        if abi() < 4 {
            eprintln!("skipped: this kernel has no Landlock TCP rules");
            return;
        }
        if !Path::new("/usr/bin/python3").exists() {
            eprintln!("skipped: no /usr/bin/python3 to make the connections");
            return;
        }
        let given = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let other = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = |l: &std::net::TcpListener| l.local_addr().unwrap().port();
        let (_top, open, own, _) = folders();
        let policy = Policy {
            read: vec!["/bin".into(), "/usr".into(), open],
            write: vec![own],
            connect: vec![port(&given)],
            execute_only_read: false,
        };
        let connect = |p: u16| {
            let script = format!(
                "/usr/bin/python3 -c \"import socket; socket.create_connection(('127.0.0.1', {p}))\""
            );
            in_jail(&script, Jail::new(&policy, limits(), Vec::new()).unwrap())
        };
        let (exit, text) = connect(port(&given));
        assert_eq!(exit, Exit::Success, "{text}");
        let (exit, text) = connect(port(&other));
        assert_ne!(exit, Exit::Success, "connected to a port not given");
        assert!(text.contains("Permission"), "{text}");
    }

    #[test]
    fn a_jailed_program_cannot_signal_outside_its_domain() {
        if abi() < 6 {
            eprintln!("skipped: this kernel has no Landlock signal scoping");
            return;
        }
        let (_top, open, own, _) = folders();
        // Its parent is this test: kill -0 only asks whether signalling works.
        let (code, text) = jailed("kill -0 $PPID && echo reached", &open, &own, false);
        assert_ne!(code, 0, "{text}");
        assert!(!text.contains("reached"));
        let (code, _) = jailed("kill -0 $$ && echo self", &open, &own, false);
        assert_eq!(code, 0);
    }

    #[test]
    fn the_seccomp_filter_alone_lets_a_runner_signal_only_itself() {
        use crate::spawn::Exit;
        // No Landlock here: only the filter, as on a kernel without scoping.
        let run = |script: &str, filter: bool| {
            let mut jail = Jail {
                ruleset: None,
                limits: limits(),
                env: Vec::new(),
                no_fork: None,
                handed: Vec::new(),
                identity: None,
                threads: None,
                quota: None,
            };
            if filter {
                jail = jail.without_new_processes(Sockets::None);
            }
            in_jail(script, jail).0
        };
        // `exec kill`: the shell becomes kill, so no new process is needed;
        // $$ is then kill's own pid, $PPID this test.
        assert_ne!(run("exec kill -0 $PPID", true), Exit::Success);
        assert_eq!(run("exec kill -0 $$", true), Exit::Success);
        // Without the filter the same signal goes through: the test can tell.
        assert_eq!(run("exec kill -0 $PPID", false), Exit::Success);
    }

    #[test]
    fn a_jailed_program_starts_no_process_but_keeps_its_threads() {
        let (_top, open, own, _) = folders();
        let (code, text) = jailed("/bin/true && echo forked", &open, &own, true);
        assert_ne!(code, 0);
        assert!(!text.contains("forked"), "{text}");
        // Without the filter the same line runs: the test can tell.
        let (code, text) = jailed("/bin/true && echo forked", &open, &own, false);
        assert_eq!((code, text.trim()), (0, "forked"));
    }

    #[test]
    fn a_jailed_runner_cannot_change_the_times_or_mode_of_a_file_it_may_not_write() {
        let (_top, open, own, _) = folders();
        let f = open.join("f");
        let meta = || std::fs::metadata(&f).unwrap();
        let before = meta();
        // `exec`: the shell becomes the tool, no new process is needed.
        for script in [
            format!("exec touch -d 2099-01-01 {}", f.display()),
            format!("exec chmod 000 {}", f.display()),
        ] {
            let (code, text) = jailed(&script, &open, &own, true);
            assert_ne!(code, 0, "{script}: {text}");
        }
        assert_eq!(before.modified().unwrap(), meta().modified().unwrap());
        assert_eq!(before.permissions(), meta().permissions());
        // Landlock alone lets both through: the filter is what stops them.
        let (code, text) = jailed(
            &format!("exec touch -d 2099-01-01 {}", f.display()),
            &open,
            &own,
            false,
        );
        assert_eq!(code, 0, "{text}");
        assert_ne!(before.modified().unwrap(), meta().modified().unwrap());
    }

    #[test]
    fn a_file_past_the_size_limit_stops_the_writer() {
        let (_top, open, own, _) = folders();
        let (code, _) = jailed(
            &format!("yes | head -c 2000000 > {}/big", own.display()),
            &open,
            &own,
            false,
        );
        // head was killed by SIGXFSZ (25): sh says 128 + 25.
        assert_eq!(code, 128 + libc::SIGXFSZ);
        assert_eq!(std::fs::metadata(own.join("big")).unwrap().len(), 1 << 20);
    }

    /// Runs `script` with `python3 -S -c` as a runner would be run: the
    /// runner's jail for `/usr/bin/python3` (its binary and loader
    /// executable, the libraries readable), in a fresh home.
    fn as_runner(script: &str, sockets: &[u16], threads: bool) -> (crate::spawn::Exit, String) {
        as_runner_with(script, sockets, threads, true)
    }

    /// [`as_runner`], with the folder's quota watched or not.
    fn as_runner_with(
        script: &str,
        sockets: &[u16],
        threads: bool,
        quota: bool,
    ) -> (crate::spawn::Exit, String) {
        let python = Path::new("/usr/bin/python3");
        let home = RunnerHome::new(python).unwrap();
        // Room for 200 threads' stacks and arenas.
        let room = Rlimits {
            address_space: 16 << 30,
            ..limits()
        };
        let mut jail = runner(python, &home, sockets, room).unwrap();
        if !threads {
            jail.threads = None;
            jail.identity = None;
        }
        if !quota {
            jail.quota = None;
        }
        let mut cmd = Command::new(python);
        cmd.args(["-S", "-c", script]).current_dir(&home.dir);
        captured(&mut cmd, Some(jail))
    }

    fn has_python() -> bool {
        let there = Path::new("/usr/bin/python3").exists();
        if !there {
            eprintln!("skipped: no /usr/bin/python3 to play the runner");
        }
        there
    }

    #[test]
    fn a_runner_opens_no_socket_in_a_check_and_only_tcp_in_try() {
        if !has_python() {
            return;
        }
        let script = "import socket\nfor f, t in [(socket.AF_INET, socket.SOCK_DGRAM), (socket.AF_UNIX, socket.SOCK_STREAM), (socket.AF_INET, socket.SOCK_STREAM)]:\n    try:\n        socket.socket(f, t).close(); print('open', t)\n    except OSError as e:\n        print('refused', t, e.errno)";
        let (_, text) = as_runner(script, &[], true);
        assert_eq!(text.matches("refused").count(), 3, "{text}");
        // try: TCP only.
        let (_, text) = as_runner(script, &[9], true);
        assert_eq!(text.matches("refused").count(), 2, "{text}");
        assert!(
            text.contains("open 1") || text.contains("open SocketKind.SOCK_STREAM"),
            "{text}"
        );
        // Outside the jail all three open: the test can tell.
        let (_, text) = unjailed(script);
        assert_eq!(text.matches("open").count(), 3, "{text}");
    }

    /// Runs `script` with `python3 -S -c` in a fresh folder, with no jail.
    fn unjailed(script: &str) -> (crate::spawn::Exit, String) {
        let dir = tempfile::tempdir().unwrap();
        let mut cmd = Command::new("/usr/bin/python3");
        cmd.args(["-S", "-c", script]).current_dir(dir.path());
        captured(&mut cmd, None)
    }

    #[test]
    fn a_runner_starts_no_other_program_and_keeps_no_descriptor_of_the_judges() {
        if !has_python() || abi() < 1 {
            eprintln!("skipped: needs python3 and Landlock");
            return;
        }
        // A descriptor the judge holds open (not close-on-exec), as a
        // grader's environment may leave one: the runner must not get it.
        // SAFETY: dup of stdin onto a high number this test owns.
        let leaked = unsafe { libc::fcntl(0, libc::F_DUPFD, 900) };
        assert!(leaked >= 900);
        let script = format!(
            "import os\nopen('mine.sh','w').write('#!/bin/sh\\n')\nfor p in ['/bin/true', './mine.sh']:\n    try:\n        os.execv(p, [p])\n    except OSError as e:\n        print('refused', p, e.errno)\ntry:\n    os.fstat({leaked}); print('leaked open')\nexcept OSError:\n    print('leaked closed')\ntry:\n    os.memfd_create('x'); print('memfd open')\nexcept OSError:\n    print('memfd refused')\nimport ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\nlibc.syscall(425, 1, None)\nprint('io_uring errno', ctypes.get_errno())"
        );
        let (_, text) = as_runner(&script, &[], true);
        // SAFETY: closing the number this test opened.
        unsafe {
            libc::close(leaked);
        }
        assert!(text.contains("refused /bin/true"), "{text}");
        assert!(text.contains("refused ./mine.sh"), "{text}");
        assert!(text.contains("leaked closed"), "{text}");
        assert!(text.contains("memfd refused"), "{text}");
        assert!(text.contains("io_uring errno 1\n"), "EPERM: {text}");
        // Outside the jail the descriptor arrives, memfd works and the
        // program starts (replacing python, so nothing after it prints).
        // SAFETY: as above.
        let leaked = unsafe { libc::fcntl(0, libc::F_DUPFD, 900) };
        let (exit, text) = unjailed(&script.replace("{leaked}", &leaked.to_string()));
        let (_, more) = unjailed(&format!(
            "import os\ntry:\n    os.fstat({leaked}); print('leaked open')\nexcept OSError:\n    print('leaked closed')\nos.memfd_create('x'); print('memfd open')\nimport ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\nlibc.syscall(425, 1, None)\nprint('io_uring errno', ctypes.get_errno())"
        ));
        // SAFETY: closing the number this test opened.
        unsafe {
            libc::close(leaked);
        }
        assert_eq!(exit, crate::spawn::Exit::Success, "{text}");
        assert!(!text.contains("refused"), "{text}");
        assert!(
            more.contains("leaked open") && more.contains("memfd open"),
            "{more}"
        );
        // There io_uring_setup reaches the kernel, which finds no
        // parameters (EFAULT), not the filter's EPERM.
        assert!(!more.contains("io_uring errno 1\n"), "{more}");
    }

    #[test]
    fn a_runner_has_at_most_its_share_of_threads() {
        if !has_python() {
            return;
        }
        // SAFETY: geteuid only returns a number.
        if unsafe { libc::geteuid() } != 0 && !user_namespaces() {
            eprintln!("skipped: an ordinary user without user namespaces");
            return;
        }
        let script = "import threading, time\nn = 0\ntry:\n    for _ in range(200):\n        threading.Thread(target=time.sleep, args=(2,), daemon=True).start(); n += 1\nexcept RuntimeError:\n    pass\nprint('threads', n)";
        let count = |text: &str| -> u64 {
            text.split_whitespace()
                .skip_while(|w| *w != "threads")
                .nth(1)
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("{text}"))
        };
        let (_, text) = as_runner(script, &[], true);
        assert!(count(&text) < RUNNER_THREADS, "{text}");
        // Without the cap the same program starts them all: the test can tell.
        let (_, text) = as_runner(script, &[], false);
        assert_eq!(count(&text), 200, "{text}");
    }

    #[test]
    fn a_runner_that_fills_its_folder_past_the_quota_is_stopped() {
        if !has_python() {
            return;
        }
        // 300 files of just under 1 MiB each (the test's per-file limit).
        let script = "import time\nfor i in range(300):\n    open(f'f{i}', 'wb').write(b'x' * 1000000)\nprint('wrote all')\ntime.sleep(0.5)";
        let (exit, text) = as_runner(script, &[], true);
        assert_eq!(exit, crate::spawn::Exit::FolderFull, "{text}");
        assert!(!text.contains("wrote all"), "{text}");
        // Unwatched, the same program writes it all: the test can tell.
        let (exit, text) = as_runner_with(script, &[], true, false);
        assert_eq!(exit, crate::spawn::Exit::Success, "{text}");
    }

    /// Whether this system lets an ordinary user make a user namespace.
    fn user_namespaces() -> bool {
        std::fs::read_to_string("/proc/sys/user/max_user_namespaces").is_ok_and(|n| n.trim() != "0")
    }

    #[test]
    fn a_build_reads_the_linker_cache_but_no_other_file_of_etc_nor_a_folder_not_given() {
        if abi() < 1 {
            eprintln!("skipped: this kernel has no Landlock");
            return;
        }
        let (_top, open, own, secret) = folders();
        let tmp = own.join("lab-tmp");
        std::fs::create_dir(&tmp).unwrap();
        let jail = build(std::slice::from_ref(&open), &own, &tmp, &[]).unwrap();
        let mut files = vec![
            "/etc/ld.so.cache".to_string(),
            format!("{}/f", open.display()),
            format!("{}/f", secret.display()),
        ];
        // Whichever of these this machine has: none may be read.
        let refused = ["/etc/passwd", "/etc/hostname", "/etc/shadow", "/etc/hosts"];
        files.extend(
            refused
                .iter()
                .filter(|f| Path::new(f).is_file())
                .map(|f| f.to_string()),
        );
        let script = files
            .iter()
            .map(|f| {
                format!("if cat {f} >/dev/null; then echo read {f}; else echo refused {f}; fi")
            })
            .collect::<Vec<_>>()
            .join("; ");
        let (exit, text) = in_jail(&script, jail);
        assert_eq!(exit, crate::spawn::Exit::Success, "{text}");
        assert!(text.contains("read /etc/ld.so.cache\n"), "{text}");
        assert!(
            text.contains(&format!("read {}/f\n", open.display())),
            "{text}"
        );
        assert!(
            text.contains(&format!("refused {}/f\n", secret.display())),
            "{text}"
        );
        for f in &files[3..] {
            assert!(text.contains(&format!("refused {f}\n")), "{text}");
        }
        assert!(files.len() > 3, "no file of /etc to try");
    }

    #[test]
    fn a_path_of_wide_folders_grants_none_of_them() {
        let top = tempfile::tempdir().unwrap();
        let home = top.path().canonicalize().unwrap().join("home");
        for d in ["bin", ".cargo/bin", ".cargo/registry"] {
            std::fs::create_dir_all(home.join(d)).unwrap();
        }
        std::fs::write(home.join(".cargo/credentials.toml"), "token").unwrap();
        // A name for `/` that only resolving it shows.
        std::os::unix::fs::symlink("/", home.join("root-link")).unwrap();
        let entry = |p: &str| home.join(p).display().to_string();
        let path = [
            "/".to_string(),
            "/etc".into(),
            "/etc/alternatives".into(),
            "/usr".into(),
            "/opt".into(),
            "/proc/self".into(),
            top.path().display().to_string(),
            home.display().to_string(),
            entry(".cargo"),
            entry("root-link"),
            "relative/bin".into(),
            entry("bin"),
            entry(".cargo/bin"),
            "/usr/bin".into(),
        ]
        .join(":");
        let env = |name: &str| match name {
            "HOME" => Some(home.clone().into_os_string()),
            "PATH" => Some(OsString::from(&path)),
            _ => None,
        };
        let tc = toolchain_for(&env);
        for wide in ["/", "/etc", "/etc/alternatives", "/usr", "/opt", "/proc"] {
            assert!(
                !tc.read.iter().any(|r| r == Path::new(wide)),
                "{wide} granted: {:?}",
                tc.read
            );
        }
        for granted in &tc.read {
            let real = granted.canonicalize().unwrap_or(granted.clone());
            assert!(
                !home.starts_with(&real) && !home.join(".cargo").starts_with(&real),
                "{} holds the home or CARGO_HOME: {:?}",
                granted.display(),
                tc.read
            );
        }
        for given in [home.join("bin"), home.join(".cargo/bin")] {
            assert!(tc.read.contains(&given), "{:?}", tc.read);
        }
        let passed = tc.env.iter().find(|(k, _)| k == "PATH").unwrap();
        assert_eq!(
            passed.1,
            OsString::from(format!("{}:{}:/usr/bin", entry("bin"), entry(".cargo/bin")))
        );
    }

    #[test]
    fn as_root_a_runner_others_cannot_reach_is_staged_and_runs_as_a_user_of_its_own() {
        use std::os::unix::fs::PermissionsExt;
        // SAFETY: geteuid only returns a number.
        if unsafe { libc::geteuid() } != 0 || !Path::new("/bin/bash").exists() {
            eprintln!("skipped: needs root and /bin/bash");
            return;
        }
        let top = tempfile::tempdir().unwrap();
        std::fs::set_permissions(top.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
        let exe = top.path().join("bash");
        std::fs::copy("/bin/bash", &exe).unwrap();
        let home = RunnerHome::new(&exe).unwrap();
        assert_ne!(home.program, exe);
        assert!(others_may_run(&home.program));
        let jail = runner(&home.program, &home, &[], limits()).unwrap();
        let mut cmd = Command::new(&home.program);
        cmd.args(["-c", "echo uid=$EUID"]).current_dir(&home.dir);
        let (exit, text) = captured(&mut cmd, Some(jail));
        assert_eq!(exit, crate::spawn::Exit::Success, "{text}");
        let uid: u32 = text
            .trim()
            .trim_start_matches("uid=")
            .parse()
            .unwrap_or_else(|_| panic!("{text}"));
        assert!(uid >= 0x2000_0000, "{text}");
        // Staged once per built binary.
        assert_eq!(RunnerHome::new(&exe).unwrap().program, home.program);
    }

    #[test]
    fn a_kit_and_a_tmpdir_that_others_cannot_enter_lose_the_thread_cap() {
        use std::os::unix::fs::PermissionsExt;
        let top = tempfile::tempdir().unwrap();
        let (target, tmp) = (top.path().join("kit/target"), top.path().join("tmp"));
        std::fs::create_dir_all(&target).unwrap();
        std::fs::create_dir_all(&tmp).unwrap();
        let mode = |p: &Path, m: u32| {
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).unwrap()
        };
        mode(top.path(), 0o755);
        assert!(reachable(&target, &tmp));
        mode(&target, 0o700);
        assert!(reachable(&target, &tmp), "staged in tmp");
        mode(&tmp, 0o700);
        assert!(!reachable(&target, &tmp));
        mode(&target, 0o755);
        mode(&tmp, 0o755);
        mode(top.path(), 0o700);
        assert!(!reachable(&target, &tmp), "a folder above both");
    }

    #[test]
    fn each_missing_protection_is_named_with_the_linux_release_that_brings_it() {
        assert_eq!(missing_at(0, false).len(), 3);
        let first = &missing_at(0, false)[0];
        assert!(first.contains("filesystem") && first.contains("5.13"));
        assert_eq!(
            missing_at(4, false),
            vec!["signal scoping (Landlock, Linux 6.12)".to_string()]
        );
        // The runners' seccomp filter stands in for signal scoping.
        assert!(missing_at(4, true).is_empty());
        assert_eq!(
            missing_at(3, true),
            vec!["TCP rules (Landlock, Linux 6.7)".to_string()]
        );
        assert!(missing_at(6, false).is_empty() && missing_at(7, false).is_empty());
    }
}
