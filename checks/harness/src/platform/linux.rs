//! The runner's side of the Linux jail: its own seccomp filter against
//! every later program, and its learner thread's lower priority.

/// Lowers this thread (the one that runs learner code) to the lowest
/// priority, once the outcome flusher has started at the usual one. Every
/// thread the learner's code starts inherits it, so threads that spin for
/// ever can no longer crowd the flusher out: on a loaded machine they did,
/// and the outcomes of finished cases stayed unwritten past the case limit.
/// Priorities weigh only among this runner's own threads (the kernel shares
/// the processor between sessions first, and each runner is a session of
/// its own), and the judge's case clock leaves out the time the learner's
/// thread waits for a processor, so no verdict depends on it. Where the
/// call fails, the runner goes on as it was.
pub(crate) fn yield_to_the_flusher() {
    // SAFETY: gettid and setpriority only read and change this thread's
    // own scheduling priority (on Linux, a thread's nice value is its own).
    unsafe {
        let tid = libc::gettid();
        libc::setpriority(libc::PRIO_PROCESS, tid as libc::id_t, 19);
    }
}

/// Refuses this process every later execve and execveat (EPERM), before
/// any learner code is called: the judge's jail already lets a runner
/// execute only its own binary and its dynamic loader, and this closes the
/// loader too (which would start any file the runner can read). The judge
/// sets no-new-privileges before the runner starts, which this needs; where
/// the filter cannot be installed the jail's other layers remain.
pub(crate) fn refuse_other_programs() {
    #[cfg(all(
        target_os = "linux",
        any(target_arch = "x86_64", target_arch = "aarch64")
    ))]
    {
        use libc::*;
        const ARCH: u32 = if cfg!(target_arch = "x86_64") {
            0xC000_003E
        } else {
            0xC000_00B7
        };
        let stmt = |code: u32, k: u32| sock_filter {
            code: code as u16,
            jt: 0,
            jf: 0,
            k,
        };
        let jeq = |k: u32, jt: u8, jf: u8| sock_filter {
            code: (BPF_JMP | BPF_JEQ | BPF_K) as u16,
            jt,
            jf,
            k,
        };
        let mut program = [
            stmt(BPF_LD | BPF_W | BPF_ABS, 4),
            jeq(ARCH, 0, 4),
            stmt(BPF_LD | BPF_W | BPF_ABS, 0),
            jeq(SYS_execve as u32, 2, 0),
            jeq(SYS_execveat as u32, 1, 0),
            stmt(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
            stmt(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM as u32),
        ];
        let fprog = sock_fprog {
            len: program.len() as u16,
            filter: program.as_mut_ptr(),
        };
        // SAFETY: the program lives across the call; the kernel copies it.
        unsafe {
            prctl(
                PR_SET_SECCOMP,
                SECCOMP_MODE_FILTER,
                &fprog as *const sock_fprog,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    /// This thread's nice value.
    fn nice() -> i32 {
        // SAFETY: gettid and getpriority only read this thread's priority.
        unsafe {
            *libc::__errno_location() = 0;
            libc::getpriority(libc::PRIO_PROCESS, libc::gettid() as libc::id_t)
        }
    }

    /// The thread that runs learner code gives way to the flusher started
    /// before it, and every thread it starts afterwards (the learner's own)
    /// inherits the lowest priority, while the flusher keeps its own.
    #[test]
    fn learner_threads_run_below_the_flusher() {
        std::thread::spawn(|| {
            let before = nice();
            let flusher = std::thread::spawn(move || {
                std::thread::sleep(std::time::Duration::from_millis(50));
                nice()
            });
            super::yield_to_the_flusher();
            assert_eq!(nice(), 19);
            let spinner = std::thread::spawn(nice).join().unwrap();
            assert_eq!(spinner, 19, "a thread the learner starts inherits it");
            assert_eq!(flusher.join().unwrap(), before, "the flusher keeps its own");
        })
        .join()
        .unwrap();
    }
}
