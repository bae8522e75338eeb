//! Starting a child without copying the judge. `fork` copies the judge's
//! page tables (tens of MiB while it grades) and the child tears them down
//! again when it execs: a third of the judge's processor time in grading,
//! most of it the kernel's. Here the child is made with `clone(CLONE_VM |
//! CLONE_VFORK)`, as `posix_spawn` does: it runs on a stack of its own in
//! the judge's memory while the spawning thread waits, applies the steps
//! it is given (its session, its jail) with system calls only, and execs.
//!
//! Everything the child needs is made before the clone: in the child
//! nothing may allocate, take a lock or touch what another thread of the
//! judge uses. Signals are blocked around the clone and every handler the
//! judge installed is put back to its default in the child before any is
//! unblocked, so no handler of the judge's ever runs there.

use std::ffi::{CString, OsStr, OsString};
use std::io;
use std::os::fd::{AsRawFd, RawFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, ExitStatus};

/// One thing the child does between the clone and the exec: system calls
/// only, no allocation (see the module's comment).
pub(super) type Step = Box<dyn FnMut() -> io::Result<()> + Send>;

/// A child this module started: its pid, and its status once reaped.
pub(super) struct Launched {
    pid: libc::pid_t,
    status: Option<ExitStatus>,
    /// A descriptor that becomes readable when the child ends (Linux 5.3
    /// and later), so that a pause between two looks at it ends then.
    pidfd: Option<std::os::fd::OwnedFd>,
}

impl Launched {
    pub(super) fn id(&self) -> u32 {
        self.pid as u32
    }

    /// Its status if it has ended (and then it is reaped).
    pub(super) fn try_wait(&mut self) -> io::Result<Option<ExitStatus>> {
        self.reap(libc::WNOHANG)
    }

    /// Waits up to `pause`, or less if the child ends meanwhile.
    pub(super) fn pause(&self, pause: std::time::Duration) {
        let Some(fd) = self.pidfd.as_ref().filter(|_| self.status.is_none()) else {
            std::thread::sleep(pause);
            return;
        };
        let mut poll = libc::pollfd {
            fd: fd.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        let timeout = libc::timespec {
            tv_sec: pause.as_secs() as libc::time_t,
            tv_nsec: pause.subsec_nanos() as libc::c_long,
        };
        // SAFETY: ppoll on one descriptor of ours, for at most `pause`.
        if unsafe { libc::ppoll(&mut poll, 1, &timeout, std::ptr::null()) } < 0 {
            std::thread::sleep(pause);
        }
    }

    /// Kills it, if it has not been reaped yet.
    pub(super) fn kill(&mut self) {
        if self.status.is_none() {
            // SAFETY: kill(2) on our own unreaped child: its pid is still ours.
            unsafe {
                libc::kill(self.pid, libc::SIGKILL);
            }
        }
    }

    /// Waits until it ends.
    pub(super) fn wait(&mut self) -> io::Result<ExitStatus> {
        loop {
            if let Some(status) = self.reap(0)? {
                return Ok(status);
            }
        }
    }

    fn reap(&mut self, flags: libc::c_int) -> io::Result<Option<ExitStatus>> {
        if let Some(status) = self.status {
            return Ok(Some(status));
        }
        let mut raw = 0;
        loop {
            // SAFETY: waitpid on our own child, writing into `raw`.
            let got = unsafe { libc::waitpid(self.pid, &mut raw, flags) };
            if got == 0 {
                return Ok(None);
            }
            if got < 0 {
                let e = io::Error::last_os_error();
                if e.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(e);
            }
            let status = ExitStatus::from_raw(raw);
            self.status = Some(status);
            return Ok(Some(status));
        }
    }
}

/// The stack the child runs on until it execs, with a guard page below.
struct Stack {
    base: *mut libc::c_void,
    len: usize,
}

impl Stack {
    const LEN: usize = 512 << 10;

    fn new() -> io::Result<Stack> {
        // SAFETY: a fresh private anonymous mapping, and mprotect of its
        // lowest page; both only touch this new mapping.
        unsafe {
            let base = libc::mmap(
                std::ptr::null_mut(),
                Self::LEN,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_STACK,
                -1,
                0,
            );
            if base == libc::MAP_FAILED {
                return Err(io::Error::last_os_error());
            }
            let stack = Stack {
                base,
                len: Self::LEN,
            };
            if libc::mprotect(base, 4096, libc::PROT_NONE) != 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(stack)
        }
    }

    /// The top of the stack (it grows down), 16-byte aligned.
    fn top(&self) -> *mut libc::c_void {
        // SAFETY: one past the end of our own mapping.
        unsafe { (self.base as *mut u8).add(self.len) as *mut libc::c_void }
    }
}

impl Drop for Stack {
    fn drop(&mut self) {
        // SAFETY: our own mapping, no longer used: the child has exec'd or
        // ended before the clone returned (CLONE_VFORK).
        unsafe {
            libc::munmap(self.base, self.len);
        }
    }
}

/// What the child reads (made before the clone) and the one thing it writes.
struct Child<'a> {
    program: &'a CString,
    argv: &'a [*const libc::c_char],
    envp: &'a [*const libc::c_char],
    cwd: Option<&'a CString>,
    stdio: [RawFd; 3],
    steps: &'a mut [Step],
    /// `NOT_STARTED` until the child reaches its exec; then 0, or the
    /// errno of the step or exec that failed.
    error: i32,
}

/// The child died before it reached its exec (a signal, say).
const NOT_STARTED: i32 = -1;

/// Starts `cmd`'s program with `cmd`'s arguments, folder and environment
/// (only what `cmd` sets when `env_cleared`), `arg0` as its argv[0] when
/// given, stdin from /dev/null, stdout and stderr on the given descriptors,
/// after `steps` in the child. An error of a step or of the exec is
/// returned here, and the child is reaped.
pub(super) fn launch(
    cmd: &Command,
    env_cleared: bool,
    arg0: Option<&OsStr>,
    stdout: RawFd,
    stderr: RawFd,
    steps: &mut [Step],
) -> io::Result<Launched> {
    let env = environment(cmd, env_cleared);
    let program = c_string(resolve(cmd.get_program(), &env)?.as_os_str())?;
    let argv_owned = std::iter::once(arg0.unwrap_or(cmd.get_program()))
        .chain(cmd.get_args())
        .map(c_string)
        .collect::<io::Result<Vec<_>>>()?;
    let env_owned = env
        .iter()
        .map(|(k, v)| {
            let mut kv = k.clone();
            kv.push("=");
            kv.push(v);
            c_string(&kv)
        })
        .collect::<io::Result<Vec<_>>>()?;
    let argv = pointers(&argv_owned);
    let envp = pointers(&env_owned);
    let cwd = cmd
        .get_current_dir()
        .map(|d| c_string(d.as_os_str()))
        .transpose()?;
    let null = std::fs::File::open("/dev/null")?;
    let stack = Stack::new()?;
    let mut child = Child {
        program: &program,
        argv: &argv,
        envp: &envp,
        cwd: cwd.as_ref(),
        stdio: [null.as_raw_fd(), stdout, stderr],
        steps,
        error: NOT_STARTED,
    };
    // SAFETY: sigfillset and pthread_sigmask on local sets; clone with a
    // stack of our own and a pointer to `child`, which outlives the child's
    // use of it (CLONE_VFORK: the clone returns only once the child has
    // exec'd or ended); the old mask is put back right after.
    let pid = unsafe {
        let mut all: libc::sigset_t = std::mem::zeroed();
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_SETMASK, &all, &mut old);
        let pid = libc::clone(
            child_main,
            stack.top(),
            libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
            &mut child as *mut Child as *mut libc::c_void,
        );
        let cloned = io::Error::last_os_error();
        libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
        if pid < 0 {
            return Err(cloned);
        }
        pid
    };
    drop(stack);
    // SAFETY: the child wrote `error` before it exec'd or ended; the
    // volatile read keeps the compiler from assuming it unchanged.
    let error = unsafe { std::ptr::read_volatile(&child.error) };
    // SAFETY: pidfd_open on our own child, not yet reaped; the descriptor
    // it returns is ours alone (close-on-exec by default).
    let pidfd = unsafe {
        let fd = libc::syscall(libc::SYS_pidfd_open, pid, 0) as RawFd;
        (fd >= 0).then(|| std::os::fd::FromRawFd::from_raw_fd(fd))
    };
    let mut launched = Launched {
        pid,
        status: None,
        pidfd,
    };
    if error != 0 {
        launched.wait()?;
        return Err(if error == NOT_STARTED {
            io::Error::other("the child ended before it started its program")
        } else {
            io::Error::from_raw_os_error(error)
        });
    }
    Ok(launched)
}

extern "C" fn child_main(arg: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `arg` is the parent's `Child`, alive while the parent waits.
    let child = unsafe { &mut *(arg as *mut Child) };
    // SAFETY: system calls only, on this child's own state (see `prepare`).
    let error = unsafe { prepare(child) };
    // SAFETY: a write the parent reads after the clone returns.
    unsafe { std::ptr::write_volatile(&mut child.error, error) };
    if error == 0 {
        // SAFETY: the program, argv and envp were made NUL-terminated, each
        // list ending in a null pointer.
        unsafe {
            libc::execve(
                child.program.as_ptr(),
                child.argv.as_ptr(),
                child.envp.as_ptr(),
            );
            let errno = io::Error::last_os_error()
                .raw_os_error()
                .unwrap_or(libc::EINVAL);
            std::ptr::write_volatile(&mut child.error, errno);
        }
    }
    // SAFETY: ends this child only; no exit handler of the judge's runs.
    unsafe { libc::_exit(127) }
}

/// The child's side up to its exec: default handlers, then what std's
/// `Command` does (stdio, folder, an empty signal mask, SIGPIPE back to its
/// default), then the steps. Returns 0 or an errno.
unsafe fn prepare(child: &mut Child) -> i32 {
    let errno = || {
        io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EINVAL)
    };
    let mut dfl: libc::sigaction = std::mem::zeroed();
    dfl.sa_sigaction = libc::SIG_DFL;
    for signal in 1..libc::SIGRTMAX() {
        if signal == libc::SIGKILL || signal == libc::SIGSTOP {
            continue;
        }
        let mut old: libc::sigaction = std::mem::zeroed();
        if libc::sigaction(signal, std::ptr::null(), &mut old) == 0
            && old.sa_sigaction != libc::SIG_DFL
            && (old.sa_sigaction != libc::SIG_IGN || signal == libc::SIGPIPE)
        {
            libc::sigaction(signal, &dfl, std::ptr::null_mut());
        }
    }
    for (to, fd) in child.stdio.into_iter().enumerate() {
        if libc::dup2(fd, to as i32) < 0 {
            return errno();
        }
    }
    if let Some(cwd) = child.cwd {
        if libc::chdir(cwd.as_ptr()) != 0 {
            return errno();
        }
    }
    let mut none: libc::sigset_t = std::mem::zeroed();
    libc::sigemptyset(&mut none);
    if libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut()) != 0 {
        return errno();
    }
    for step in child.steps.iter_mut() {
        if let Err(e) = step() {
            return e.raw_os_error().unwrap_or(libc::EINVAL);
        }
    }
    0
}

/// The child's environment: the judge's with `cmd`'s changes, or only what
/// `cmd` sets when the environment was cleared.
fn environment(cmd: &Command, cleared: bool) -> Vec<(OsString, OsString)> {
    let mut env: Vec<(OsString, OsString)> = if cleared {
        Vec::new()
    } else {
        std::env::vars_os().collect()
    };
    for (key, value) in cmd.get_envs() {
        env.retain(|(k, _)| k != key);
        if let Some(value) = value {
            env.push((key.to_os_string(), value.to_os_string()));
        }
    }
    env
}

/// The program to exec: a name with a slash as it is (relative to the
/// child's folder, as with `Command`), a bare name looked up in the
/// child's PATH (the system's default without one), as `execvp` would.
fn resolve(program: &OsStr, env: &[(OsString, OsString)]) -> io::Result<OsString> {
    if program.as_bytes().contains(&b'/') {
        return Ok(program.to_os_string());
    }
    let path = env
        .iter()
        .find(|(k, _)| k == "PATH")
        .map_or_else(|| OsString::from("/bin:/usr/bin"), |(_, v)| v.clone());
    for dir in path.as_bytes().split(|b| *b == b':') {
        let dir = if dir.is_empty() { b".".as_slice() } else { dir };
        let candidate = Path::new(OsStr::from_bytes(dir)).join(program);
        if is_executable(&candidate) {
            return Ok(candidate.into_os_string());
        }
    }
    Err(io::Error::new(
        io::ErrorKind::NotFound,
        format!("{} not found on PATH", program.to_string_lossy()),
    ))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

fn c_string(s: &OsStr) -> io::Result<CString> {
    CString::new(s.to_os_string().into_vec()).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{s:?} holds a NUL byte"),
        )
    })
}

/// NUL-terminated pointers to `strings`, for execve.
fn pointers(strings: &[CString]) -> Vec<*const libc::c_char> {
    strings
        .iter()
        .map(|s| s.as_ptr())
        .chain(std::iter::once(std::ptr::null()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Seek};

    /// What a child started by [`launch`] did, once it ended.
    struct Ended {
        pid: u32,
        status: ExitStatus,
        stdout: String,
        stderr: String,
    }

    fn text(mut f: &std::fs::File) -> String {
        f.rewind().unwrap();
        let mut s = String::new();
        f.read_to_string(&mut s).unwrap();
        s
    }

    /// [`launch`] with two fresh files for stdout and stderr: the child's
    /// end, or the error of its start.
    fn started(
        cmd: &Command,
        cleared: bool,
        arg0: Option<&str>,
        steps: &mut [Step],
    ) -> io::Result<Ended> {
        use crate::platform::groups::{register, release, spawning};
        let (out, err) = (tempfile::tempfile()?, tempfile::tempfile()?);
        let arg0 = arg0.map(OsStr::new);
        // Registered as `spawn::start` does, so that a test beside this one
        // that collects orphans does not take this child for one.
        let (mut child, slot) = {
            let _guard = spawning();
            let child = launch(cmd, cleared, arg0, out.as_raw_fd(), err.as_raw_fd(), steps)?;
            let slot = register(child.id() as i32);
            (child, slot)
        };
        let status = child.wait();
        release(slot);
        let status = status?;
        Ok(Ended {
            pid: child.id(),
            status,
            stdout: text(&out),
            stderr: text(&err),
        })
    }

    #[test]
    fn a_child_gets_its_arguments_folder_environment_and_name() {
        let dir = tempfile::tempdir().unwrap();
        let mut cmd = Command::new("sh");
        cmd.args([
            "-c",
            "tr '\\0' ' ' < /proc/$$/cmdline; echo; pwd; read x; echo \"[$x]\" >&2",
            "one",
        ])
        .current_dir(dir.path());
        // sh is found on the system's default PATH: the environment is empty.
        let ended = started(&cmd, true, Some("named"), &mut []).unwrap();
        assert!(ended.status.success());
        let folder = dir.path().canonicalize().unwrap();
        let want = format!(
            "named -c tr '\\0' ' ' < /proc/$$/cmdline; echo; pwd; read x; echo \"[$x]\" >&2 one \n{}\n",
            folder.display()
        );
        assert_eq!(ended.stdout, want);
        // stdin is /dev/null: read finds nothing.
        assert_eq!(ended.stderr, "[]\n");
    }

    #[test]
    fn the_environment_is_the_judges_with_changes_or_only_what_is_set() {
        let mut cmd = Command::new("/usr/bin/env");
        cmd.env("ONLY", "this");
        let ended = started(&cmd, true, None, &mut []).unwrap();
        assert!(ended.status.success());
        assert_eq!(ended.stdout, "ONLY=this\n");
        // Not cleared: cargo sets CARGO_MANIFEST_DIR for a test, and PATH
        // is taken away.
        cmd.env_remove("PATH");
        let ended = started(&cmd, false, None, &mut []).unwrap();
        assert!(ended.status.success());
        let seen = ended.stdout;
        assert!(seen.lines().any(|l| l == "ONLY=this"), "{seen}");
        assert!(
            seen.lines().any(|l| l.starts_with("CARGO_MANIFEST_DIR=")),
            "{seen}"
        );
        assert!(!seen.lines().any(|l| l.starts_with("PATH=")), "{seen}");
    }

    #[test]
    fn a_failing_step_or_a_missing_program_is_an_error() {
        let failed = |program: &str, steps: &mut [Step]| {
            started(&Command::new(program), false, None, steps)
                .err()
                .expect("an error")
        };
        let mut refused: Vec<Step> =
            vec![Box::new(|| Err(io::Error::from_raw_os_error(libc::EPERM)))];
        assert_eq!(
            failed("true", &mut refused).raw_os_error(),
            Some(libc::EPERM)
        );
        assert_eq!(
            failed("/no/such/program", &mut []).raw_os_error(),
            Some(libc::ENOENT)
        );
        assert_eq!(
            failed("no-such-program-here", &mut []).kind(),
            io::ErrorKind::NotFound
        );
    }

    #[test]
    fn steps_run_in_the_child_and_change_nothing_in_the_judge() {
        let mut steps: Vec<Step> = vec![Box::new(|| {
            // SAFETY: setsid in the child, which is not yet a group leader.
            if unsafe { libc::setsid() } < 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        })];
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "cut -d' ' -f6 /proc/$$/stat; echo $$"]);
        let ended = started(&cmd, false, None, &mut steps).unwrap();
        assert!(ended.status.success());
        let lines: Vec<&str> = ended.stdout.lines().map(str::trim).collect();
        let pid = ended.pid.to_string();
        // The child leads a session of its own; the judge's session is as it was.
        assert_eq!(lines, [pid.as_str(), pid.as_str()]);
        // SAFETY: getsid(0) reads this process's session.
        assert_ne!(unsafe { libc::getsid(0) }, ended.pid as i32);
    }

    #[test]
    fn a_step_can_enter_a_user_namespace_of_its_own() {
        // Where the system allows user namespaces at all (the jail of a judge
        // that is not root relies on one).
        let allowed = Command::new("unshare")
            .args(["-U", "true"])
            .status()
            .is_ok_and(|s| s.success());
        if !allowed {
            eprintln!("no user namespaces here: nothing to test");
            return;
        }
        let mut steps: Vec<Step> = vec![Box::new(|| {
            // SAFETY: unshare in the child, which is alone in its thread group.
            if unsafe { libc::unshare(libc::CLONE_NEWUSER) } != 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        })];
        let mut cmd = Command::new("readlink");
        cmd.arg("/proc/self/ns/user");
        let ended = started(&cmd, false, None, &mut steps).unwrap();
        assert!(ended.status.success());
        let mine = std::fs::read_link("/proc/self/ns/user").unwrap();
        assert!(ended.stdout.starts_with("user:["), "{}", ended.stdout);
        assert_ne!(ended.stdout.trim(), mine.to_string_lossy());
    }
}
