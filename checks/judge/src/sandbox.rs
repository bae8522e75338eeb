//! Confinement of learner code. Every build of a learner's crate and every
//! runner is started inside a jail that the kernel enforces from before the
//! first instruction of the new program (learner code placed in
//! `.init_array` included):
//!
//! - Landlock: the files it may read and execute, the one folder it may
//!   write, no TCP (a port for `try`), and no signal or abstract socket
//!   outside its own domain, so it cannot stop or kill the judge;
//! - rlimits: address space, file size, CPU time, no core files;
//! - an empty environment plus only what the program needs.
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
pub fn enter(limits: &crate::limits::Limits, strict: bool) -> Result<(), String> {
    use crate::catalog::{t, tr};
    set_unsandboxed(limits.unsandboxed);
    if limits.unsandboxed {
        eprintln!("lab: {}", t("sandbox.off"));
        return Ok(());
    }
    let missing = missing();
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
    missing_at(abi(), has_filter())
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
        })
    }

    /// Refuses the jailed program every new process (threads stay allowed),
    /// where seccomp filters are known for this architecture.
    pub fn without_new_processes(mut self) -> Jail {
        let filter = no_fork_filter();
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
            ..
        } = self;
        // SAFETY: the closure only makes system calls (setrlimit, prctl,
        // landlock_restrict_self), all async-signal-safe; it allocates nothing.
        unsafe {
            cmd.pre_exec(move || {
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
    let mut read_paths: Vec<PathBuf> = SYSTEM_LIBS.iter().map(PathBuf::from).collect();
    read_paths.push("/etc/ld.so.cache".into());
    read_paths.extend(policy.read.iter().cloned());
    beneath(&read_paths, READ)?;
    let mut write_paths = policy.write.clone();
    write_paths.push("/dev/null".into());
    beneath(&write_paths, all(abi))?;
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

/// A seccomp program for runners. It answers EPERM to every way of
/// starting a new process (fork, vfork, clone without CLONE_THREAD) and to
/// changing a file's times, mode, owner or extended attributes (which
/// Landlock does not govern: a runner could otherwise date a slot's cargo
/// fingerprints into the future, or take the execute bit off the judge),
/// and ENOSYS to clone3, whose flags it cannot see (the C library then
/// falls back to clone for threads). System calls of another ABI are refused.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
fn no_fork_filter() -> Filter {
    use libc::*;
    const ARCH: u32 = if cfg!(target_arch = "x86_64") {
        0xC000_003E // AUDIT_ARCH_X86_64
    } else {
        0xC000_00B7 // AUDIT_ARCH_AARCH64
    };
    /// fchmodat2 has one number on every architecture (Linux 6.6).
    const SYS_FCHMODAT2: c_long = 452;
    #[cfg(target_arch = "x86_64")]
    let refused: Vec<c_long> = vec![
        SYS_fork,
        SYS_vfork,
        SYS_utime,
        SYS_utimes,
        SYS_futimesat,
        SYS_utimensat,
        SYS_chmod,
        SYS_fchmod,
        SYS_fchmodat,
        SYS_FCHMODAT2,
        SYS_chown,
        SYS_fchown,
        SYS_lchown,
        SYS_fchownat,
        SYS_setxattr,
        SYS_lsetxattr,
        SYS_fsetxattr,
        SYS_removexattr,
        SYS_lremovexattr,
        SYS_fremovexattr,
    ];
    #[cfg(target_arch = "aarch64")]
    let refused: Vec<c_long> = vec![
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
    ];
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
fn no_fork_filter() -> Filter {
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

/// Limits of a runner: 2 GiB of address space, 64 MiB per file, `cpu`
/// seconds of CPU time.
pub fn runner_limits(cpu_seconds: u64) -> Rlimits {
    Rlimits {
        address_space: 2 << 30,
        file_size: RUNNER_FILE_SIZE,
        cpu_seconds,
    }
}

/// The jail of a runner: it may execute `exe`, read the system's shared
/// libraries, and read and write `dir` (its own fresh folder, which is
/// also its TMPDIR); TCP only to the ports in `connect` (none at all when
/// it is empty), and no binding of any port.
pub fn runner(exe: &Path, dir: &Path, connect: &[u16], limits: Rlimits) -> io::Result<Jail> {
    let policy = Policy {
        read: vec![exe.to_path_buf()],
        write: vec![dir.to_path_buf()],
        connect: connect.to_vec(),
    };
    Ok(Jail::new(
        &policy,
        limits,
        vec![("TMPDIR".into(), dir.as_os_str().to_os_string())],
    )?
    .without_new_processes())
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
        use crate::spawn::{self, Watch};
        let logs = tempfile::tempdir().unwrap();
        let watch = Watch {
            idle: std::time::Duration::from_secs(20),
            deadline: std::time::Instant::now() + std::time::Duration::from_secs(20),
            output_cap: 1 << 20,
        };
        let mut cmd = Command::new("/bin/sh");
        cmd.args(["-c", script]);
        let (exit, captured) =
            spawn::supervise(&mut cmd, logs.path(), "t", watch, Some(jail), || false).unwrap();
        let text = spawn::excerpt(&captured.stdout, 4096) + &captured.stderr_excerpt(4096);
        (exit, text)
    }

    /// Runs `script` in a jail that may read /bin, /usr and `read`, and
    /// write `write`; returns (exit code, stdout+stderr).
    fn jailed(script: &str, read: &Path, write: &Path, no_fork: bool) -> (i32, String) {
        use crate::spawn::Exit;
        let policy = Policy {
            read: vec!["/bin".into(), "/usr".into(), read.to_path_buf()],
            write: vec![write.to_path_buf()],
            connect: Vec::new(),
        };
        let mut jail = Jail::new(&policy, limits(), Vec::new()).unwrap();
        if no_fork {
            jail = jail.without_new_processes();
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
            };
            if filter {
                jail = jail.without_new_processes();
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
