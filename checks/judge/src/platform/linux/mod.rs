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

/// Keeps the judge's memory near what it holds. glibc's allocator raises
/// its threshold for serving large blocks from the heap each time one is
/// freed, and gives each thread an arena of its own, so the outcome buffers
/// of steps graded side by side stay resident after they are dropped: the
/// hostile class with `--jobs 2` peaked at 120 MiB, 70 MiB with a fixed
/// 128 KiB threshold (large blocks mapped, and unmapped when freed) and
/// two arenas.
pub(super) fn bounded_heap() {
    #[cfg(target_env = "gnu")]
    // SAFETY: allocator settings at start-up, before any thread exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 128 << 10);
        libc::mallopt(libc::M_ARENA_MAX, 2);
    }
}
