//! The Linux layer: the jail (`sandbox`) and the spawner (`spawn`), and the
//! sealed memory file a step's cases travel in.

pub mod sandbox;
pub mod spawn;

use std::io;

/// A file in memory with no name (memfd), which can be sealed.
pub(super) fn memory_file() -> io::Result<std::fs::File> {
    use std::os::fd::FromRawFd;
    // SAFETY: memfd_create returns a new descriptor that only we hold.
    let fd = unsafe {
        libc::memfd_create(
            c"retry-lab-cases".as_ptr(),
            libc::MFD_CLOEXEC | libc::MFD_ALLOW_SEALING,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` is open and owned by nobody else.
    Ok(unsafe { std::fs::File::from_raw_fd(fd) })
}

/// Seals a memory file for good: no process, the judge included, can
/// write, grow or shrink it any more, through any descriptor.
pub(super) fn seal(file: &std::fs::File) -> io::Result<()> {
    use std::os::fd::AsRawFd;
    let seals = libc::F_SEAL_SEAL | libc::F_SEAL_SHRINK | libc::F_SEAL_GROW | libc::F_SEAL_WRITE;
    // SAFETY: fcntl on a descriptor we own.
    if unsafe { libc::fcntl(file.as_raw_fd(), libc::F_ADD_SEALS, seals) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}
