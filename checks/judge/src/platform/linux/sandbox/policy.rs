//! What a jail allows, as data: the folders it may read, run and write,
//! its sockets, and whether its seccomp filter is on.

use std::path::PathBuf;

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

/// A seccomp program and the place of the instruction that must hold the
/// filtered process's own pid.
pub struct Filter {
    pub(super) program: Vec<libc::sock_filter>,
    pub(super) pid_at: usize,
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

/// Folders every dynamically linked program needs to start.
pub(super) const SYSTEM_LIBS: [&str; 4] = ["/lib", "/lib64", "/usr/lib", "/usr/lib64"];
