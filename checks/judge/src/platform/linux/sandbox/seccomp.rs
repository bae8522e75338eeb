//! The runners' seccomp filter: no new process or program, no socket but
//! TCP in `try`, no io_uring; assembled as a classic BPF program.

use super::policy::Filter;
use super::policy::Sockets;

/// A seccomp program for runners. It answers EPERM to every way of
/// starting a new process (fork, vfork, clone without CLONE_THREAD) or
/// another program from a descriptor (execveat, memfd_create), to io_uring
/// (whose operations no filter sees), to changing a file's times, mode,
/// owner or extended attributes (which Landlock does not govern: a runner
/// could otherwise date a slot's cargo fingerprints into the future, or
/// take the execute bit off the judge), to namespaces, mounts, tracing,
/// other processes' memory, BPF, kernel keys and modules, to raising its
/// priority or setting a resource limit (reading one stays allowed), to
/// shrinking a file or punching holes in it (ftruncate, truncate,
/// fallocate) and to changing a descriptor's status flags (fcntl's
/// F_SETFL, which could take O_APPEND off stdout), and to
/// every socket `sockets` does not allow; ENOSYS to clone3, whose flags it
/// cannot see (the C library then falls back to clone for threads). System
/// calls of another ABI are refused.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(super) fn no_fork_filter(sockets: Sockets) -> Filter {
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
        // What was printed stays: no file shrinks, none loses its bytes.
        SYS_ftruncate,
        SYS_truncate,
        SYS_fallocate,
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
    // fcntl may not change a descriptor's status flags (F_SETFL): the
    // judge hands stdout, stderr and the outcomes as append-only
    // descriptors, and O_APPEND must stay on.
    program.extend([
        jump(BPF_JEQ, SYS_fcntl as u32, 0, 3),
        load(24),
        jump(BPF_JEQ, F_SETFL as u32, 0, 1),
        errno(EPERM),
        load(0),
    ]);
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
pub(super) fn no_fork_filter(_: Sockets) -> Filter {
    Filter {
        program: Vec::new(),
        pid_at: 0,
    }
}
