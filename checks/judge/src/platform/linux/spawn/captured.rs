//! The descriptor a child writes its output through.

use std::fs::File;
use std::io;

/// A second, write-only descriptor of one of the judge's files, in append
/// mode: what a child is handed. Every write through it lands at the end
/// (`pwrite` too), it cannot be mapped for writing, and with the runners'
/// filter (no ftruncate, fallocate or F_SETFL) nothing written can be taken
/// back: the file's size is every byte the child wrote. Opened again
/// through `/proc/self/fd`, so the judge's own descriptor stays as it was;
/// where that fails, the same description is put in append mode.
pub fn appending(file: &File) -> io::Result<File> {
    use std::os::fd::AsRawFd;
    use std::os::unix::fs::OpenOptionsExt;
    let path = format!("/proc/self/fd/{}", file.as_raw_fd());
    if let Ok(f) = std::fs::OpenOptions::new()
        .append(true)
        .custom_flags(libc::O_CLOEXEC)
        .open(path)
    {
        return Ok(f);
    }
    let f = file.try_clone()?;
    // SAFETY: fcntl on a descriptor this process owns.
    unsafe {
        let flags = libc::fcntl(f.as_raw_fd(), libc::F_GETFL);
        if flags < 0 || libc::fcntl(f.as_raw_fd(), libc::F_SETFL, flags | libc::O_APPEND) < 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(f)
}
