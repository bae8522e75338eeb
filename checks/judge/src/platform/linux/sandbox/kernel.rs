//! What this kernel can give the jail (Landlock's ABI, the seccomp filter,
//! a cap on threads).

use crate::limits::Confinement;
use std::path::Path;
use std::sync::OnceLock;

/// The Landlock ABI version the kernel offers (0: none). The kit's own
/// tests may lower it with LAB_PRETEND_LANDLOCK_ABI, to see how an older
/// kernel is met; it can never raise it.
pub fn abi() -> i32 {
    static ABI_VERSION: OnceLock<i32> = OnceLock::new();
    *ABI_VERSION.get_or_init(|| {
        let pretend = std::env::var("LAB_PRETEND_LANDLOCK_ABI")
            .ok()
            .and_then(|v| v.parse::<i32>().ok())
            .unwrap_or(i32::MAX);
        kernel_abi().min(pretend)
    })
}

pub(super) fn kernel_abi() -> i32 {
    {
        const LANDLOCK_CREATE_RULESET_VERSION: libc::c_long = 1;
        // SAFETY: landlock_create_ruleset(NULL, 0, VERSION) only returns a number.
        let v = unsafe {
            libc::syscall(
                libc::SYS_landlock_create_ruleset,
                std::ptr::null::<u8>(),
                0usize,
                LANDLOCK_CREATE_RULESET_VERSION,
            )
        };
        i32::try_from(v).unwrap_or(0).max(0)
    }
}

/// A protection and the Landlock ABI (with the first Linux release) it needs.
pub(super) const FEATURES: [(&str, i32, &str); 3] = [
    ("filesystem rules", 1, "5.13"),
    ("TCP rules", 4, "6.7"),
    ("signal scoping", 6, "6.12"),
];

/// The protections this kernel cannot give, each with the Linux release
/// that brings it; empty when the jail is whole.
pub fn missing() -> Vec<String> {
    let mut missing = missing_at(abi(), has_filter());
    if !thread_cap() {
        missing.push(THREAD_CAP.to_string());
    }
    missing
}

/// [`missing`], and what a kit whose target folder is `target` cannot
/// give: as root, runners run as users of their own, which must be let
/// through every folder down to the runners' binaries in it.
pub fn missing_in(target: &Path, confinement: Confinement) -> Vec<String> {
    let mut missing = missing();
    // SAFETY: geteuid only returns a number.
    let root = unsafe { libc::geteuid() } == 0;
    // Runners are started from the kit's target folder, or else from a
    // stage folder in the judge's TMPDIR.
    if root && confinement == Confinement::Jail && !reachable(target, &std::env::temp_dir()) {
        missing.push(THREAD_CAP_ROOT.to_string());
    }
    missing
}

/// How a cap on runners' threads that the kit's folders prevent is named.
pub(super) const THREAD_CAP_ROOT: &str =
    "a cap on each runner's threads (as root, runners run as users of their own: every folder above the kit's target folder, or above TMPDIR, must let others through, chmod o+x)";

/// Whether a runner with a user of its own can reach its binary: in the
/// kit's `target` folder, or staged in the judge's `tmp`.
pub(super) fn reachable(target: &Path, tmp: &Path) -> bool {
    others_may_enter(target) || others_may_enter(tmp)
}

/// Whether others may pass through `dir` and every folder above it (those
/// that exist yet).
pub(super) fn others_may_enter(dir: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    dir.ancestors()
        .filter_map(|a| std::fs::metadata(a).ok())
        .all(|m| m.permissions().mode() & 0o001 != 0)
}

/// How a missing cap on runners' threads is named.
pub(super) const THREAD_CAP: &str = "a cap on each runner's threads (user namespaces, Linux 3.8)";

/// Whether runners get their thread cap: the judge runs as root (each
/// runner gets a user of its own), or this system lets an ordinary user
/// make a user namespace (tried once, in a child).
pub(super) fn thread_cap() -> bool {
    static CAN: OnceLock<bool> = OnceLock::new();
    *CAN.get_or_init(|| {
        // SAFETY: geteuid only returns a number. The child of fork only
        // calls unshare and _exit, both async-signal-safe, and the parent
        // reaps it.
        unsafe {
            if libc::geteuid() == 0 {
                return true;
            }
            let pid = libc::fork();
            if pid == 0 {
                libc::_exit(if libc::unshare(libc::CLONE_NEWUSER) == 0 {
                    0
                } else {
                    1
                });
            }
            if pid < 0 {
                return false;
            }
            let mut status = 0;
            libc::waitpid(pid, &mut status, 0) == pid
                && libc::WIFEXITED(status)
                && libc::WEXITSTATUS(status) == 0
        }
    })
}

/// Without Landlock's signal scoping, the runners' seccomp filter (which
/// lets a runner signal only itself) stands in for it: builds run no
/// learner code that could send a signal.
pub(super) fn missing_at(abi: i32, filter: bool) -> Vec<String> {
    FEATURES
        .iter()
        .filter(|(what, needs, _)| abi < *needs && !(filter && *what == "signal scoping"))
        .map(|(what, _, linux)| format!("{what} (Landlock, Linux {linux})"))
        .collect()
}

/// Whether this architecture has the runners' seccomp filter.
pub fn has_filter() -> bool {
    cfg!(any(target_arch = "x86_64", target_arch = "aarch64"))
}
