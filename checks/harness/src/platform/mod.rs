//! The harness's platform layer: what the runner does differently on
//! Linux (the runner's own part of the jail, in `linux.rs`), on Unix and on
//! Windows (how it takes the files the judge hands it). Nothing outside this
//! folder names a call of one operating system only.

#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
pub(crate) use linux::{refuse_other_programs, yield_to_the_flusher};

#[cfg(windows)]
use lab_wire as wire;

/// Elsewhere the judge's jail has no runner's part: nothing to refuse.
#[cfg(not(target_os = "linux"))]
pub(crate) fn refuse_other_programs() {}

/// Elsewhere the learner's thread keeps its priority.
#[cfg(not(target_os = "linux"))]
pub(crate) fn yield_to_the_flusher() {}

/// A descriptor the judge handed this runner, taken over (`None` when that
/// number is not open, as in the live modes, which get no cases).
#[cfg(unix)]
pub(crate) fn handed(fd: i32) -> Option<std::fs::File> {
    use std::os::fd::FromRawFd;
    // SAFETY: F_GETFD only asks whether the number is open.
    if unsafe { libc::fcntl(fd, libc::F_GETFD) } < 0 {
        return None;
    }
    // SAFETY: the judge opened `fd` for this process alone, and nothing
    // else in the runner owns it.
    Some(unsafe { std::fs::File::from_raw_fd(fd) })
}

/// A handle the judge handed this runner under number `fd` (Windows hands
/// no descriptor by number: the inherited handle's value is in
/// `LAB_HANDLE_<fd>`), taken over; `None` when there is none.
#[cfg(windows)]
pub(crate) fn handed(fd: i32) -> Option<std::fs::File> {
    use std::os::windows::io::FromRawHandle;
    let raw: usize = std::env::var(format!("{}{fd}", wire::HANDLE_VAR))
        .ok()?
        .parse()
        .ok()?;
    // SAFETY: the judge made this handle inheritable for this process
    // alone, and nothing else in the runner owns it.
    Some(unsafe { std::fs::File::from_raw_handle(raw as _) })
}
