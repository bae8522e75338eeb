//! The processes the judge's process groups left behind: killed and
//! reaped as orphans (the groups themselves are registered in
//! `platform::groups`, shared with the portable layer).

use crate::platform::groups::{is_live_group, kill_live, spawning};

/// Kills every live child's process group and every orphan (the
/// watchdog's way out).
pub fn kill_all() {
    kill_live();
    reap_orphans();
}

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
    children.retain(|pid| !is_live_group(*pid));
    children
}

/// Kills and reaps every orphan, and the orphans those leave, until none is
/// left (bounded, so a judge bug cannot spin here).
pub fn reap_orphans() {
    let _guard = spawning();
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
