//! The process groups the judge started, and the processes their members
//! left behind: killed when the judge is stopped, and reaped as orphans.

use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Mutex;

/// Process groups alive right now, so that a judge stopped by Ctrl-C or
/// SIGTERM kills them on its way out (they are not in the terminal's
/// foreground group and would not get the signal themselves).
pub(super) static LIVE_GROUPS: [AtomicI32; 256] = [const { AtomicI32::new(0) }; 256];

pub(super) fn register(pgid: i32) -> Option<usize> {
    LIVE_GROUPS.iter().position(|slot| {
        slot.compare_exchange(0, pgid, Ordering::SeqCst, Ordering::SeqCst)
            .is_ok()
    })
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

/// Kills every live child's process group and every orphan (the
/// watchdog's way out).
pub fn kill_all() {
    for slot in &LIVE_GROUPS {
        let pgid = slot.swap(0, Ordering::SeqCst);
        if pgid > 0 {
            // SAFETY: kill(2) on a process group this judge started.
            unsafe {
                libc::kill(-pgid, libc::SIGKILL);
            }
        }
    }
    reap_orphans();
}

/// Installs the Ctrl-C / SIGTERM / SIGHUP handler that kills live groups.
pub fn kill_children_on_stop() {
    let handler = on_stop_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
    for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
        // SAFETY: installing a handler that only does async-signal-safe work.
        unsafe {
            libc::signal(signal, handler);
        }
    }
}

/// Held while a child is being started and while orphans are collected, so
/// that a child not yet registered is never taken for an orphan.
pub(super) static SPAWNING: Mutex<()> = Mutex::new(());

/// Makes the judge a child subreaper (see the module's comment).
pub fn become_subreaper() {
    // SAFETY: prctl with integer arguments.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    }
}

/// The judge's children that it did not start itself: descendants of a
/// child that outlived their parent. /proc/self/task/*/children where the
/// kernel has it, else a scan of /proc.
fn orphans() -> Vec<i32> {
    let mine: Vec<i32> = LIVE_GROUPS
        .iter()
        .map(|g| g.load(Ordering::SeqCst))
        .filter(|g| *g > 0)
        .collect();
    let mut children = Vec::new();
    let tasks = std::fs::read_dir("/proc/self/task")
        .into_iter()
        .flatten()
        .flatten();
    let mut listed = false;
    for task in tasks {
        if let Ok(text) = std::fs::read_to_string(task.path().join("children")) {
            listed = true;
            children.extend(
                text.split_whitespace()
                    .filter_map(|p| p.parse::<i32>().ok()),
            );
        }
    }
    if !listed {
        let me = std::process::id() as i32;
        for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<i32>().ok())
            else {
                continue;
            };
            let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
            // Field 4, after the parenthesised command name.
            let ppid = stat
                .rsplit_once(')')
                .and_then(|(_, rest)| rest.split_whitespace().nth(1))
                .and_then(|p| p.parse::<i32>().ok());
            if ppid == Some(me) {
                children.push(pid);
            }
        }
    }
    children.retain(|pid| !mine.contains(pid));
    children
}

/// Kills and reaps every orphan, and the orphans those leave, until none is
/// left (bounded, so a judge bug cannot spin here).
pub fn reap_orphans() {
    let _guard = SPAWNING.lock().unwrap_or_else(|e| e.into_inner());
    for _ in 0..1000 {
        let pids = orphans();
        if pids.is_empty() {
            return;
        }
        for pid in pids {
            // SAFETY: kill and waitpid on a child of this process that no
            // other part of the judge waits for.
            unsafe {
                libc::kill(pid, libc::SIGKILL);
                libc::waitpid(pid, std::ptr::null_mut(), 0);
            }
        }
    }
}
