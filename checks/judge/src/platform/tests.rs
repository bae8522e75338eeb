//! The platform layer's own rule: no file of the judge, the harness, the
//! runners or the wire outside this folder names a call or constant of
//! Linux alone.

use std::path::{Path, PathBuf};

/// Names that belong to Linux alone (its system calls, their flags, its
/// security modules), as they would appear in Rust.
const LINUX_ONLY: &[&str] = &[
    "prctl",
    "PR_SET_",
    "memfd",
    "MFD_",
    "F_ADD_SEALS",
    "F_SEAL_",
    "landlock",
    "seccomp",
    "SECCOMP_",
    "sock_fprog",
    "sock_filter",
    "close_range",
    "O_TMPFILE",
    "pidfd",
    "unshare",
    "CLONE_",
    "libc::clone",
    "SYS_",
    "dup3",
    "ppoll",
    "gettid",
    "mallopt",
    "/proc/self/fd",
    "RLIMIT_NPROC",
    "SIGRTMAX",
];

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The lines of `text` that are code: what comes before a `//` comment.
fn code_lines(text: &str) -> Vec<(usize, String)> {
    text.lines()
        .enumerate()
        .map(|(n, line)| (n + 1, line.split("//").next().unwrap_or("").to_string()))
        .collect()
}

#[test]
fn no_file_outside_the_platform_folder_names_a_linux_only_call() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .canonicalize()
        .unwrap();
    let mut files = Vec::new();
    // The judge, and every crate that runs beside it or in a runner.
    let checks = root.parent().unwrap();
    for dir in std::fs::read_dir(checks).unwrap().flatten() {
        if dir.path().join("src").is_dir() {
            sources(&dir.path().join("src"), &mut files);
        }
    }
    // Each crate's own platform folder (the judge's, the harness's) is
    // where such names belong.
    let in_platform = |f: &Path| {
        f.strip_prefix(checks).is_ok_and(|rel| {
            rel.components()
                .nth(2)
                .is_some_and(|c| c.as_os_str() == "platform")
        })
    };
    let mut found = Vec::new();
    for file in files.iter().filter(|f| !in_platform(f)) {
        let text = std::fs::read_to_string(file).unwrap();
        for (n, code) in code_lines(&text) {
            for name in LINUX_ONLY {
                if code.contains(name) {
                    found.push(format!("{}:{n}: {name}", file.display()));
                }
            }
        }
    }
    assert!(files.len() > 50, "{} files read", files.len());
    assert!(
        found.is_empty(),
        "Linux-only names outside the platform folders (put them behind the platform layer):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_rule_reads_code_and_not_comments() {
    let text =
        "fn a() {\n    unsafe { libc::prctl(1) };\n}\n// close_range in a comment\nfn c() {}\n";
    let lines = code_lines(text);
    assert!(lines.iter().any(|(n, l)| *n == 2 && l.contains("prctl")));
    assert!(!lines.iter().any(|(_, l)| l.contains("close_range")));
}
