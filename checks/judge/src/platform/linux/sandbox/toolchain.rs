//! The jail of a build: the toolchain's folders found from rustc and
//! cargo, the system's tools, and the one folder a build may write.

use super::jail::Jail;
use super::jail::Rlimits;
use super::policy::Policy;
use crate::limits::Confinement;
use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Where the Rust toolchain lives, for a build's jail and environment.
pub(super) struct Toolchain {
    pub(super) read: Vec<PathBuf>,
    pub(super) env: Vec<(OsString, OsString)>,
}

/// What a build reads of the system besides the shared libraries (which
/// every jail gets: [`SYSTEM_LIBS`] and `/etc/ld.so.cache`): the programs
/// (`cc`, `ld`), the compilers' helpers where a distribution keeps them in
/// `/usr/libexec` (gcc's `collect2`, mold's `ld`), libraries the linker
/// cache may name in `/usr/local/lib`, the files of `/etc` that tell a
/// linker where libraries are, and rustup's system-wide settings. Nothing
/// else of `/etc`, `/opt`, `/usr/share`, `/proc` or `/sys`: cargo and rustc
/// count the CPUs without them (`sched_getaffinity`).
pub(super) const BUILD_SYSTEM: [&str; 7] = [
    "/usr/bin",
    "/bin",
    "/usr/libexec",
    "/usr/local/lib",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/rustup",
];

/// The programs a build starts by name: cargo, rustc, and the C compiler
/// and linker rustc links with.
const BUILD_PROGRAMS: [&str; 6] = ["cargo", "rustc", "cc", "gcc", "ld", "as"];

/// Folders a PATH entry (or the folder of cargo or rustc) may never be nor
/// lie beneath: configuration, the kernel's views, devices, runtime state.
pub(super) const NEVER_WHOLE: [&str; 6] = ["/etc", "/proc", "/sys", "/dev", "/run", "/boot"];

pub(super) fn toolchain() -> &'static Toolchain {
    static TOOLCHAIN: OnceLock<Toolchain> = OnceLock::new();
    TOOLCHAIN.get_or_init(|| toolchain_for(&|name| std::env::var_os(name)))
}

/// The toolchain as the environment `var` describes it: the toolchain
/// homes, the folders of PATH that hold a program a build runs (see
/// [`BUILD_PROGRAMS`] and [`program_folder`]),
/// the folders of the cargo and rustc actually run and that rustc's
/// sysroot libraries — all found from paths, without starting a program.
/// PATH is passed on with only the folders granted, in its order.
pub(super) fn toolchain_for(var: &dyn Fn(&str) -> Option<OsString>) -> Toolchain {
    let home = var("HOME").map(PathBuf::from);
    let cargo_home = var("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(".cargo")));
    let rustup_home = var("RUSTUP_HOME")
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(".rustup")));
    let mut read: Vec<PathBuf> = BUILD_SYSTEM.iter().map(PathBuf::from).collect();
    let mut env = Vec::new();
    if let Some(home) = &cargo_home {
        for sub in ["bin", "registry", "git"] {
            read.push(home.join(sub));
        }
        env.push(("CARGO_HOME".into(), home.clone().into_os_string()));
    }
    if let Some(home) = &rustup_home {
        read.push(home.clone());
        env.push(("RUSTUP_HOME".into(), home.clone().into_os_string()));
    }
    // The home folder and CARGO_HOME (credentials.toml) are never granted
    // whole, nor is any folder above them.
    let held: Vec<PathBuf> = [home, cargo_home]
        .into_iter()
        .flatten()
        .filter_map(|p| p.canonicalize().ok())
        .collect();
    let mut path = Vec::new();
    if let Some(value) = var("PATH") {
        for entry in std::env::split_paths(&value) {
            // Only folders of the programs a build runs: the rest of a
            // grader's PATH (its language managers, its own tools) is none
            // of a build's business, and would be compiled into any
            // submission that reads `option_env!("PATH")`.
            let used = BUILD_PROGRAMS.iter().any(|p| entry.join(p).is_file());
            if let Some(dir) = (entry.is_absolute() && used)
                .then(|| program_folder(&entry, &held))
                .flatten()
            {
                read.push(dir);
                path.push(entry);
            }
        }
    }
    // The cargo the judge runs and the rustc it finds, wherever they really
    // are (a symlink into a toolchain outside the usual places), and that
    // rustc's sysroot libraries (`lib` beside its `bin`, if it has a rustlib).
    let cargo = var("CARGO")
        .map(PathBuf::from)
        .or_else(|| on_path("cargo", &path));
    let rustc = on_path("rustc", &path);
    for (program, sysroot) in [(cargo, false), (rustc, true)] {
        let Some(real) = program.and_then(|p| p.canonicalize().ok()) else {
            continue;
        };
        let Some(bin) = real.parent() else {
            continue;
        };
        read.extend(program_folder(bin, &held));
        let lib = bin.join("../lib");
        if sysroot && lib.join("rustlib").is_dir() {
            read.extend(program_folder(&lib, &held));
        }
    }
    if let Ok(joined) = std::env::join_paths(&path) {
        env.push(("PATH".into(), joined));
    }
    for name in [
        "RUSTUP_TOOLCHAIN",
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "CARGO_INCREMENTAL",
    ] {
        if let Some(v) = var(name) {
            env.push((name.into(), v));
        }
    }
    Toolchain { read, env }
}

/// `dir` with its symbolic links resolved, when a build may read all of it:
/// it exists, and is neither `/` nor a top-level folder other than `/bin`
/// and `/sbin`, lies beneath none of [`NEVER_WHOLE`], and holds none of
/// `held`. So a PATH of `/`, `/etc`, `/usr`, `/opt`, `~` or `~/.cargo`
/// grants nothing, while `~/bin`, `~/.cargo/bin` or `/opt/rust/bin` do.
pub(super) fn program_folder(dir: &Path, held: &[PathBuf]) -> Option<PathBuf> {
    let dir = dir.canonicalize().ok().filter(|d| d.is_dir())?;
    let top_level = dir.parent().is_none_or(|up| up == Path::new("/"));
    if top_level && !["/bin", "/sbin"].iter().any(|ok| dir == Path::new(ok)) {
        return None;
    }
    if NEVER_WHOLE.iter().any(|never| dir.starts_with(never)) {
        return None;
    }
    if held.iter().any(|h| h.starts_with(&dir)) {
        return None;
    }
    Some(dir)
}

/// The first `name` in the folders of `path`.
pub(super) fn on_path(name: &str, path: &[PathBuf]) -> Option<PathBuf> {
    path.iter().map(|dir| dir.join(name)).find(|p| p.is_file())
}

/// The jail of a cargo build of learner code: it may read the toolchain,
/// the registry and `sources`, and write only `target` (where `tmp`, its
/// TMPDIR, lives too) and the files in `also`; Landlock only when
/// `confinement` says so.
pub fn build(
    sources: &[PathBuf],
    target: &Path,
    tmp: &Path,
    also: &[PathBuf],
    confinement: Confinement,
) -> io::Result<Jail> {
    let tc = toolchain();
    let mut read = tc.read.clone();
    read.extend(sources.iter().cloned());
    let mut write = vec![target.to_path_buf(), tmp.to_path_buf()];
    write.extend(also.iter().cloned());
    let policy = Policy {
        read,
        write,
        connect: Vec::new(),
        execute_only_read: false,
    };
    let mut env = tc.env.clone();
    env.push(("CARGO_TARGET_DIR".into(), target.as_os_str().to_os_string()));
    env.push(("TMPDIR".into(), tmp.as_os_str().to_os_string()));
    let limits = Rlimits {
        address_space: 8 << 30,
        file_size: 2 << 30,
        cpu_seconds: 3600,
    };
    Jail::new(&policy, limits, env, confinement)
}
