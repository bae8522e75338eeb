//! Landlock: the ruleset of a jail (what it may read, run and write, its
//! TCP ports, and its signal and socket scoping).

use super::kernel::abi;
use super::policy::Policy;
use super::policy::SYSTEM_LIBS;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::PathBuf;

/// Landlock's interface (linux/landlock.h), spoken through libc's
/// `syscall`: the kit needs four calls, and the crate that wraps them cost a
/// cold build two proc-macro stacks.
mod landlock {
    pub const EXECUTE: u64 = 1 << 0;
    pub const WRITE_FILE: u64 = 1 << 1;
    pub const READ_FILE: u64 = 1 << 2;
    pub const READ_DIR: u64 = 1 << 3;
    /// REMOVE_DIR to MAKE_SYM: the rest of ABI 1's rights.
    pub const WRITE_V1: u64 = WRITE_FILE | (0b1_1111_1111 << 4);
    pub const REFER: u64 = 1 << 13;
    pub const TRUNCATE: u64 = 1 << 14;
    pub const IOCTL_DEV: u64 = 1 << 15;
    pub const NET_BIND_TCP: u64 = 1 << 0;
    pub const NET_CONNECT_TCP: u64 = 1 << 1;
    pub const SCOPE_ABSTRACT_UNIX_SOCKET: u64 = 1 << 0;
    pub const SCOPE_SIGNAL: u64 = 1 << 1;
    pub const RULE_PATH_BENEATH: libc::c_long = 1;
    pub const RULE_NET_PORT: libc::c_long = 2;

    #[repr(C)]
    pub struct RulesetAttr {
        pub handled_access_fs: u64,
        pub handled_access_net: u64,
        pub scoped: u64,
    }

    #[repr(C, packed)]
    pub struct PathBeneathAttr {
        pub allowed_access: u64,
        pub parent_fd: i32,
    }

    #[repr(C)]
    pub struct NetPortAttr {
        pub allowed_access: u64,
        pub port: u64,
    }

    /// Read and execute: what `read` paths get.
    pub const READ: u64 = EXECUTE | READ_FILE | READ_DIR;

    /// Every filesystem right this ABI knows (as the kit handles them; a
    /// newer kernel's extra rights are left to it).
    pub fn all(abi: i32) -> u64 {
        let mut all = READ | WRITE_V1;
        if abi >= 2 {
            all |= REFER;
        }
        if abi >= 3 {
            all |= TRUNCATE;
        }
        if abi >= 5 {
            all |= IOCTL_DEV;
        }
        all
    }

    /// The rights that mean something on a file that is not a folder.
    pub fn file(abi: i32) -> u64 {
        all(abi) & (EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV)
    }
}

pub(super) fn ruleset(policy: &Policy) -> Result<OwnedFd, String> {
    build_ruleset(policy, abi()).map_err(|e| e.to_string())
}

/// The ruleset for `policy` on a kernel of Landlock ABI `abi` (at least 1):
/// every filesystem right handled, TCP bind and connect handled from ABI 4,
/// signals and abstract sockets scoped from ABI 6; what the kernel cannot
/// handle is left out, as the ABI table in [`FEATURES`] says.
pub(super) fn build_ruleset(policy: &Policy, abi: i32) -> io::Result<OwnedFd> {
    use landlock::*;
    use std::os::unix::fs::OpenOptionsExt;
    let attr = RulesetAttr {
        handled_access_fs: all(abi),
        handled_access_net: if abi >= 4 {
            NET_BIND_TCP | NET_CONNECT_TCP
        } else {
            0
        },
        scoped: if abi >= 6 {
            SCOPE_SIGNAL | SCOPE_ABSTRACT_UNIX_SOCKET
        } else {
            0
        },
    };
    // Older kernels read only the fields they know.
    let size = match abi {
        1..=3 => 8,
        4 | 5 => 16,
        _ => std::mem::size_of::<RulesetAttr>(),
    };
    // SAFETY: `attr` lives across the call and `size` does not exceed it.
    let fd = unsafe { libc::syscall(libc::SYS_landlock_create_ruleset, &attr, size, 0u32) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: the kernel just returned this descriptor to us alone.
    let ruleset = unsafe { OwnedFd::from_raw_fd(fd as i32) };
    let add = |kind: libc::c_long, rule: *const libc::c_void| {
        // SAFETY: `rule` points at a live attribute of the type `kind` names.
        let r = unsafe {
            libc::syscall(
                libc::SYS_landlock_add_rule,
                ruleset.as_raw_fd(),
                kind,
                rule,
                0u32,
            )
        };
        if r != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    };
    let beneath = |paths: &[PathBuf], access: u64| -> io::Result<()> {
        for path in paths {
            // A path that is not there is simply not granted.
            let Ok(opened) = std::fs::OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_PATH)
                .open(path)
            else {
                continue;
            };
            let access = if path.is_dir() {
                access
            } else {
                access & file(abi)
            };
            let rule = PathBeneathAttr {
                allowed_access: access,
                parent_fd: opened.as_raw_fd(),
            };
            add(RULE_PATH_BENEATH, (&rule as *const PathBeneathAttr).cast())?;
        }
        Ok(())
    };
    let mut libraries: Vec<PathBuf> = SYSTEM_LIBS.iter().map(PathBuf::from).collect();
    libraries.push("/etc/ld.so.cache".into());
    let (libraries_access, write_access) = if policy.execute_only_read {
        (READ_FILE | READ_DIR, all(abi) & !EXECUTE)
    } else {
        (READ, all(abi))
    };
    beneath(&libraries, libraries_access)?;
    beneath(&policy.read, READ)?;
    let mut write_paths = policy.write.clone();
    write_paths.push("/dev/null".into());
    beneath(&write_paths, write_access)?;
    if abi >= 4 {
        for port in &policy.connect {
            let rule = NetPortAttr {
                allowed_access: NET_CONNECT_TCP,
                port: u64::from(*port),
            };
            add(RULE_NET_PORT, (&rule as *const NetPortAttr).cast())?;
        }
    }
    Ok(ruleset)
}
