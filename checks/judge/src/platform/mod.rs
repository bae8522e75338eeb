//! The judge's one platform layer: how a child (a build, a runner) is
//! started, confined or not, watched against its limits, killed with
//! everything it started, and how its output is read back. Nothing outside
//! this folder names a call of one operating system only (a test in
//! `tests.rs` keeps it so).
//!
//! Two implementations sit behind this interface:
//!
//! - `linux/`: the jail (`linux/sandbox`: Landlock, seccomp, namespaces,
//!   rlimits) and the spawner (`linux/spawn`: clone, the subreaper, pidfd,
//!   descriptor passing), used on Linux;
//! - `portable/`: the standard library, plus what POSIX has on macOS
//!   (process groups, `kill`, rlimits, descriptors handed by number) in
//!   `portable/unix.rs`, or Windows' equivalents (`Child::kill`, handles
//!   handed by value) in `portable/windows.rs`. It confines nothing: a
//!   learner's own check runs the learner's own code on the learner's own
//!   machine, with the same contract, limits, reruns and messages.
//!
//! Which one runs is decided once per process ([`layer`]): the portable
//! layer off Linux, and on Linux when `LAB_PLATFORM=portable` (so that it
//! is tested here too).

mod folder;
pub mod fs;
#[cfg(unix)]
mod groups;
#[cfg(target_os = "linux")]
pub mod linux;
mod output;
pub mod portable;
#[cfg(test)]
mod tests;

pub use folder::folder_bytes;
pub use output::{excerpt, private_file, size, slice, Captured};

use crate::limits::Confinement;
use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Which implementation of this layer the process uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layer {
    /// The Linux jail and spawner.
    Linux,
    /// The standard library and POSIX or Windows calls; no jail.
    Portable,
}

/// The variable that chooses the portable layer on Linux.
pub const CHOOSE: &str = "LAB_PLATFORM";

/// This process's layer: portable off Linux, and on Linux when
/// `LAB_PLATFORM=portable`; Linux otherwise.
pub fn layer() -> Layer {
    static LAYER: OnceLock<Layer> = OnceLock::new();
    *LAYER.get_or_init(|| {
        if cfg!(target_os = "linux") && std::env::var(CHOOSE).as_deref() != Ok("portable") {
            Layer::Linux
        } else {
            Layer::Portable
        }
    })
}

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
    /// What it wrote in its own folder grew past its quota.
    FolderFull,
    /// Stopped by its supervisor for what it wrote (see [`Heard::Stop`]).
    Stopped,
}

/// What a supervisor's poll of a child's answers found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Heard {
    /// Nothing new.
    Nothing,
    /// Progress: the case limit starts again.
    Progress,
    /// Something that ends the child at once (a line that does not belong,
    /// answers past their cap).
    Stop,
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

/// Resource limits of a confined program.
#[derive(Debug, Clone, Copy)]
pub struct Rlimits {
    pub address_space: u64,
    pub file_size: u64,
    pub cpu_seconds: u64,
}

/// Most bytes of any one file a runner writes: its outcomes file (a step's
/// every check, one line each, when failures are pinned one by one, is a
/// few MiB), its stdout and stderr (the judge stops a flood at the output
/// cap long before), and anything learner code writes in its folder.
pub const RUNNER_FILE_SIZE: u64 = 64 << 20;

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

/// How much wall-clock time a tool gets for each second of its limit: a
/// build that waits without using the processor (blocked on a lock, say)
/// still ends.
pub const TOOL_WALL_FACTOR: u32 = 3;

/// What a child is handed under a number (a file, a listening socket): a
/// descriptor on Unix, a handle on Windows.
#[cfg(unix)]
pub type Handed = std::os::fd::OwnedFd;
/// What a child is handed under a number (a file, a listening socket): a
/// descriptor on Unix, a handle on Windows.
#[cfg(windows)]
pub type Handed = std::os::windows::io::OwnedHandle;

/// A second, write-only descriptor of one of the judge's files, in append
/// mode: what a child is handed to write its outcomes (and its output)
/// through, so that every byte it writes lands at the end.
pub fn appending(file: &std::fs::File) -> io::Result<Handed> {
    #[cfg(target_os = "linux")]
    if layer() == Layer::Linux {
        return Ok(linux::spawn::appending(file)?.into());
    }
    Ok(portable::appending(file)?.into())
}

/// A listening socket as something a child can be handed, where the
/// platform can hand one (`try 13`'s front).
pub fn handed_socket(listener: std::net::TcpListener) -> io::Result<Handed> {
    #[cfg(unix)]
    {
        Ok(listener.into())
    }
    #[cfg(windows)]
    {
        portable::socket_handle(listener)
    }
}

/// What a child gets beyond its command: its confinement (a jail on the
/// Linux layer), its limits, environment, argv[0] and handed descriptors.
pub struct Jail(Confine);

enum Confine {
    #[cfg(target_os = "linux")]
    Linux(linux::sandbox::Jail),
    Portable(portable::Plan),
}

impl Jail {
    /// Hands `what` to the program under number `at` (3 and up).
    pub fn hand(self, what: Handed, at: i32) -> Jail {
        Jail(match self.0 {
            #[cfg(target_os = "linux")]
            Confine::Linux(j) => Confine::Linux(j.hand(what, at)),
            Confine::Portable(p) => Confine::Portable(p.hand(what, at)),
        })
    }

    /// One more variable in the program's environment.
    pub fn env(self, name: &str, value: impl Into<OsString>) -> Jail {
        Jail(match self.0 {
            #[cfg(target_os = "linux")]
            Confine::Linux(j) => Confine::Linux(j.env(name, value)),
            Confine::Portable(p) => Confine::Portable(p.env(name, value)),
        })
    }

    /// The program's argv[0] instead of its path.
    pub fn named(self, arg0: &str) -> Jail {
        Jail(match self.0 {
            #[cfg(target_os = "linux")]
            Confine::Linux(j) => Confine::Linux(j.named(arg0)),
            Confine::Portable(p) => Confine::Portable(p.named(arg0)),
        })
    }
}

/// A runner's fresh, empty folder of its own, and the binary to start.
pub struct RunnerHome {
    pub dir: PathBuf,
    /// The binary to start: the runner itself, or a copy others may reach.
    pub program: PathBuf,
    kept: Home,
}

enum Home {
    #[cfg(target_os = "linux")]
    Linux(linux::sandbox::RunnerHome),
    Portable(#[allow(dead_code)] tempfile::TempDir),
}

impl RunnerHome {
    /// A home for a runner that will start `exe`, confined or not.
    pub fn new(exe: &Path, confinement: Confinement) -> io::Result<RunnerHome> {
        #[cfg(target_os = "linux")]
        if layer() == Layer::Linux {
            let home = linux::sandbox::RunnerHome::new(exe, confinement)?;
            return Ok(RunnerHome {
                dir: home.dir.clone(),
                program: home.program.clone(),
                kept: Home::Linux(home),
            });
        }
        let _ = confinement;
        let (dir, program, top) = portable::home(exe)?;
        Ok(RunnerHome {
            dir,
            program,
            kept: Home::Portable(top),
        })
    }
}

/// The confinement of a runner that starts `exe` in `home`: TCP only to
/// `connect` (in `try`), `limits`.
pub fn runner(exe: &Path, home: &RunnerHome, connect: &[u16], limits: Rlimits) -> io::Result<Jail> {
    match &home.kept {
        #[cfg(target_os = "linux")]
        Home::Linux(h) => Ok(Jail(Confine::Linux(linux::sandbox::runner(
            exe, h, connect, limits,
        )?))),
        Home::Portable(_) => {
            let _ = (exe, connect);
            Ok(Jail(Confine::Portable(portable::Plan::runner(
                &home.dir, limits,
            ))))
        }
    }
}

/// The confinement of one build command: it reads the toolchain and
/// `sources` (and `also` beside them), and writes `target` (TMPDIR `tmp`).
pub fn build(
    sources: &[PathBuf],
    target: &Path,
    tmp: &Path,
    also: &[PathBuf],
    confinement: Confinement,
) -> io::Result<Jail> {
    #[cfg(target_os = "linux")]
    if layer() == Layer::Linux {
        return Ok(Jail(Confine::Linux(linux::sandbox::build(
            sources,
            target,
            tmp,
            also,
            confinement,
        )?)));
    }
    let _ = (sources, also, confinement);
    Ok(Jail(Confine::Portable(portable::Plan::build(target, tmp))))
}

#[cfg(target_os = "linux")]
fn linux_jail(jail: Option<Jail>) -> Option<linux::sandbox::Jail> {
    jail.map(|j| match j.0 {
        Confine::Linux(j) => j,
        Confine::Portable(_) => unreachable!("a portable plan on the Linux layer"),
    })
}

fn portable_plan(jail: Option<Jail>) -> Option<portable::Plan> {
    jail.map(|j| match j.0 {
        Confine::Portable(p) => p,
        #[cfg(target_os = "linux")]
        Confine::Linux(_) => unreachable!("a Linux jail on the portable layer"),
    })
}

/// Runs `cmd` under `watch`. `progress` is polled often and says whether the
/// child made progress since the last poll; it is polled once more after the
/// child ends, however it ends (stopped at a limit too), so nothing it wrote
/// before that is missed. Everything the child started is killed.
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
    supervise_heard(cmd, watch, jail, heard)
}

/// [`supervise`], with a poll that may also stop the child at once
/// ([`Heard::Stop`], which ends it as [`Exit::Stopped`]).
pub fn supervise_heard(
    cmd: &mut Command,
    watch: Watch,
    jail: Option<Jail>,
    heard: impl FnMut() -> Heard,
) -> io::Result<(Exit, Captured)> {
    #[cfg(target_os = "linux")]
    if layer() == Layer::Linux {
        return linux::spawn::supervise_heard(cmd, watch, linux_jail(jail), heard);
    }
    portable::supervise(cmd, watch, portable_plan(jail), heard)
}

/// Runs a tool (cargo) to completion under a limit of processor time where
/// the layer can count it (the Linux layer: its whole session's), else of
/// the wall clock; at most [`TOOL_WALL_FACTOR`] times as long on the wall
/// clock either way. Output in unnamed files.
pub fn run_tool(
    cmd: &mut Command,
    limit: Duration,
    jail: Option<Jail>,
) -> io::Result<(Exit, Captured)> {
    #[cfg(target_os = "linux")]
    if layer() == Layer::Linux {
        return linux::spawn::run_tool(cmd, limit, linux_jail(jail));
    }
    let watch = Watch {
        idle: limit * TOOL_WALL_FACTOR,
        deadline: Instant::now() + limit * TOOL_WALL_FACTOR,
        output_cap: 256 << 20,
    };
    portable::supervise(cmd, watch, portable_plan(jail), || Heard::Nothing)
}

/// Runs a trusted helper program (git, tar, an independent reader in a
/// test) to completion and collects its output, with no limit: registered
/// as the judge's own child (Unix: in a process group of its own), so that
/// the Linux layer, collecting orphans, never kills it.
pub fn plain_output(cmd: &mut Command) -> io::Result<std::process::Output> {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let (child, slot) = {
            let _guard = groups::spawning();
            let child = cmd.spawn()?;
            let slot = groups::register(child.id() as i32);
            (child, slot)
        };
        let output = child.wait_with_output();
        groups::release(slot);
        output
    }
    #[cfg(not(unix))]
    cmd.output()
}

/// Runs a trusted helper program (rust-analyzer in the self-test) with the
/// output `cmd` was given (a file: nothing is read from it here),
/// registered as [`plain_output`] registers its child, for at most
/// `limit`: its exit status, or `None` when it was stopped at the limit
/// (Unix: with its whole process group).
pub fn plain_status_within(
    cmd: &mut Command,
    limit: std::time::Duration,
) -> io::Result<Option<std::process::ExitStatus>> {
    #[cfg(unix)]
    use std::os::unix::process::CommandExt;
    #[cfg(unix)]
    cmd.process_group(0);
    cmd.stdin(std::process::Stdio::null());
    #[cfg(unix)]
    let (mut child, slot) = {
        let _guard = groups::spawning();
        let child = cmd.spawn()?;
        let slot = groups::register(child.id() as i32);
        (child, slot)
    };
    #[cfg(not(unix))]
    let mut child = cmd.spawn()?;
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break Some(status);
        }
        if started.elapsed() > limit {
            #[cfg(unix)]
            // SAFETY: killpg takes no pointers; the group is the child's
            // own (process_group(0) above), still registered, so not reaped.
            unsafe {
                libc::killpg(child.id() as i32, libc::SIGKILL);
            }
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    #[cfg(unix)]
    groups::release(slot);
    Ok(status)
}

/// A file of the judge's own with no name that [`seal`] can close for
/// good (the Linux layer: a memfd; the portable one: a [`private_file`]).
pub fn sealable_file() -> io::Result<std::fs::File> {
    #[cfg(target_os = "linux")]
    if layer() == Layer::Linux {
        return linux::memory_file();
    }
    private_file()
}

/// Seals a [`sealable_file`], where the layer can: no process, the judge
/// included, can write, grow or shrink it any more.
pub fn seal(file: &std::fs::File) -> io::Result<()> {
    #[cfg(target_os = "linux")]
    if layer() == Layer::Linux {
        return linux::seal(file);
    }
    let _ = file;
    Ok(())
}

/// Keeps the judge's memory near what it holds, where the allocator can be
/// told how (glibc on Linux; see `linux::bounded_heap`). Called by `main`
/// before any thread starts, whichever the layer.
pub fn bounded_heap() {
    #[cfg(target_os = "linux")]
    linux::bounded_heap();
}

/// What the process does first: keeps the numbers children are handed
/// under taken, kills its children when it is stopped, and (Linux) becomes
/// a child subreaper. Called by `main` before any thread starts.
pub fn start_up() {
    #[cfg(target_os = "linux")]
    if layer() == Layer::Linux {
        linux::spawn::reserve_handed_numbers();
        groups::kill_children_on_stop();
        linux::spawn::become_subreaper();
        return;
    }
    portable::start_up();
}

/// What the process does last: removes what the layer left behind.
pub fn shut_down() {
    #[cfg(target_os = "linux")]
    if layer() == Layer::Linux {
        linux::sandbox::remove_stage();
    }
}

/// Kills every live child and everything it started (the watchdog's way
/// out).
pub fn kill_all() {
    #[cfg(target_os = "linux")]
    if layer() == Layer::Linux {
        linux::spawn::kill_all();
        return;
    }
    portable::kill_all();
}

/// What the portable layer lacks of the jail, as one protection's name.
fn no_jail() -> String {
    crate::catalog::t("sandbox.no_jail")
}

/// The protections this system cannot give learner code, when the kit's
/// target folder is `target`; empty when the jail is whole.
pub fn missing_in(target: &Path, confinement: Confinement) -> Vec<String> {
    #[cfg(target_os = "linux")]
    if layer() == Layer::Linux {
        return linux::sandbox::missing_in(target, confinement);
    }
    let _ = (target, confinement);
    vec![no_jail()]
}

/// Says what the learner should know of this run's confinement: under
/// `--unsandboxed`, where the kernel lacks part of the jail, or where there
/// is no jail at all (the portable layer, said once per process), one line
/// on stderr. `strict` (grading) refuses a partial or missing jail unless
/// `--unsandboxed` was given: the `Err` is that refusal.
pub fn enter(limits: &crate::limits::Limits, strict: bool, target: &Path) -> Result<(), String> {
    use crate::catalog::{t, tr};
    if limits.confinement == Confinement::Off {
        eprintln!("lab: {}", t("sandbox.off"));
        return Ok(());
    }
    if layer() == Layer::Portable {
        if strict {
            return Err(tr("sandbox.refused_portable", &[("what", &no_jail())]));
        }
        static SAID: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
        if !SAID.swap(true, std::sync::atomic::Ordering::SeqCst) {
            eprintln!("lab: {}", t("sandbox.unconfined"));
        }
        return Ok(());
    }
    let missing = missing_in(target, Confinement::Jail);
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

/// How a child's status reads as an [`Exit`].
pub(crate) fn exit_of(status: std::process::ExitStatus) -> Exit {
    #[cfg(unix)]
    let signal = std::os::unix::process::ExitStatusExt::signal(&status);
    #[cfg(not(unix))]
    let signal: Option<i32> = None;
    match (status.code(), signal) {
        (Some(0), _) => Exit::Success,
        (Some(code), _) => Exit::Failure(code),
        (None, Some(signal)) => Exit::Signalled(signal),
        (None, None) => Exit::Failure(-1),
    }
}

/// The signal that stops a process past its file-size limit, where there
/// is one: a stream that reached that limit is a flood.
pub const FILE_TOO_LARGE: i32 = {
    #[cfg(unix)]
    {
        libc::SIGXFSZ
    }
    #[cfg(not(unix))]
    {
        -1
    }
};
