//! The jail of a runner: its limits, the interpreter it may need, and
//! the policy around its binary and home.

use super::home::RunnerHome;
use super::jail::RUNNER_THREADS;
use super::jail::{Jail, Rlimits};
use super::policy::Policy;
use super::policy::Sockets;
use std::io;
use std::path::{Path, PathBuf};

pub use crate::platform::{runner_limits, RUNNER_FOLDER_BYTES};

/// The ELF interpreter `exe` names (its dynamic loader), if any: the one
/// file besides `exe` that starting it executes.
pub(super) fn interpreter(exe: &Path) -> Option<PathBuf> {
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
        home.confinement,
    )?
    .without_new_processes(sockets);
    jail.identity = home.becomes;
    jail.threads = Some(RUNNER_THREADS);
    jail.quota = Some((home.dir.clone(), RUNNER_FOLDER_BYTES));
    Ok(jail)
}

#[cfg(test)]
mod tests;
