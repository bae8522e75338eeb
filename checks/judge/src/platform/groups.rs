//! The process groups the judge started, on either layer (Unix): one
//! register, so that a judge stopped by Ctrl-C or SIGTERM kills them on its
//! way out (they are not in the terminal's foreground group and would not
//! get the signal themselves), and so that the Linux layer, collecting
//! orphans, never takes a child of the portable layer for one.

use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Mutex, MutexGuard};

/// Process groups alive right now (their ids; 0 is a free slot).
pub(super) static LIVE_GROUPS: [AtomicI32; 256] = [const { AtomicI32::new(0) }; 256];

/// Held while a child is being started (and while the Linux layer collects
/// orphans), so that a child not yet registered is never taken for an
/// orphan and no other spawn's descriptors are in the middle of being
/// handed.
static SPAWNING: Mutex<()> = Mutex::new(());

/// Takes the spawning lock (a panic elsewhere does not poison it).
pub(super) fn spawning() -> MutexGuard<'static, ()> {
    SPAWNING.lock().unwrap_or_else(|e| e.into_inner())
}

/// Registers a live group; the slot it took, if one was free.
pub(super) fn register(pgid: i32) -> Option<usize> {
    LIVE_GROUPS.iter().position(|slot| {
        slot.compare_exchange(0, pgid, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    })
}

/// Frees a slot `register` gave (its group is dead).
pub(super) fn release(slot: Option<usize>) {
    if let Some(i) = slot {
        LIVE_GROUPS[i].store(0, Ordering::SeqCst);
    }
}

/// Whether `pid` leads a group the judge registered (the Linux layer's
/// collector of orphans asks).
#[cfg(target_os = "linux")]
pub(super) fn is_live_group(pid: i32) -> bool {
    pid > 0 && LIVE_GROUPS.iter().any(|g| g.load(Ordering::SeqCst) == pid)
}

/// Kills every registered group and frees its slot (the watchdog's way
/// out).
pub(super) fn kill_live() {
    for slot in &LIVE_GROUPS {
        let pgid = slot.swap(0, Ordering::SeqCst);
        if pgid > 0 {
            // SAFETY: kill(2) on a process group this judge started.
            unsafe {
                libc::kill(-pgid, libc::SIGKILL);
            }
        }
    }
}

extern "C" fn on_stop_signal(signal: libc::c_int) {
    // A terminal `watch` took out of line mode gets its settings back.
    crate::keys::restore(libc::STDIN_FILENO);
    for slot in &LIVE_GROUPS {
        let pgid = slot.load(Ordering::SeqCst);
        if pgid > 0 {
            // SAFETY: kill(2) is async-signal-safe.
            unsafe {
                libc::kill(-pgid, libc::SIGKILL);
            }
        }
    }
    // SAFETY: restoring the default action and re-raising are async-signal-safe.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        libc::raise(signal);
    }
}

/// Installs the Ctrl-C / SIGTERM / SIGHUP handler that kills live groups.
pub(super) fn kill_children_on_stop() {
    let handler = on_stop_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: installing a handler that only does async-signal-safe work.
        unsafe {
            libc::signal(signal, handler);
        }
    }
}
