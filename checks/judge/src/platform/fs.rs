//! The few file operations whose calls differ between Unix and Windows:
//! permission bits, links, advisory locks and positioned reads.

use std::fs::File;
use std::io;
use std::path::Path;

pub use super::output::read_at;

/// A file's permission bits (on Windows: 0o444 or 0o644 by its read-only
/// flag, which is all it keeps).
pub fn mode(meta: &std::fs::Metadata) -> u32 {
    #[cfg(unix)]
    {
        std::os::unix::fs::PermissionsExt::mode(&meta.permissions())
    }
    #[cfg(not(unix))]
    {
        if meta.permissions().readonly() {
            0o444
        } else {
            0o644
        }
    }
}

/// Sets a file's permission bits (on Windows, only whether others may
/// write it: nothing is executable by its bits there).
pub fn set_mode(path: &Path, mode: u32) -> io::Result<()> {
    #[cfg(unix)]
    {
        std::fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(mode))
    }
    #[cfg(not(unix))]
    {
        let mut permissions = std::fs::metadata(path)?.permissions();
        permissions.set_readonly(mode & 0o200 == 0);
        std::fs::set_permissions(path, permissions)
    }
}

/// A symbolic link at `at` to `to` (on Windows, a link to a folder or to a
/// file by what `to` is, which needs Developer Mode or an administrator).
pub fn symlink(to: &Path, at: &Path) -> io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink(to, at)
    }
    #[cfg(windows)]
    {
        let target = at.parent().map_or(to.to_path_buf(), |up| up.join(to));
        if target.is_dir() {
            std::os::windows::fs::symlink_dir(to, at)
        } else {
            std::os::windows::fs::symlink_file(to, at)
        }
    }
}

/// Opens the lock file at `path` for writing (made when missing), not
/// through a link where the system can refuse one, and without blocking
/// on a FIFO planted there.
pub fn open_lock(path: &Path) -> io::Result<File> {
    let mut options = std::fs::OpenOptions::new();
    options.create(true).truncate(false).write(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(
        &mut options,
        libc::O_NOFOLLOW | libc::O_NONBLOCK,
    );
    options.open(path)
}

/// Waits for `file`'s advisory lock to become exclusive or shared.
pub fn lock(file: &File, exclusive: bool) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::fd::AsRawFd;
        let op = if exclusive {
            libc::LOCK_EX
        } else {
            libc::LOCK_SH
        };
        loop {
            // SAFETY: flock on a descriptor we own; released when `file` closes.
            if unsafe { libc::flock(file.as_raw_fd(), op) } == 0 {
                return Ok(());
            }
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::Interrupted {
                return Err(e);
            }
        }
    }
    #[cfg(not(unix))]
    {
        // A shared lock taken while the exclusive one is held would wait
        // for itself: give it back first.
        let _ = file.unlock();
        if exclusive {
            file.lock()
        } else {
            file.lock_shared()
        }
    }
}
