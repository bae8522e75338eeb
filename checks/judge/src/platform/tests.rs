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

/// The lines of `text` that are code: comments (after `//`) left out, and
/// what a `#[cfg(target_os = "linux")]` item or block holds (the line that
/// names the cfg and up to where its braces close).
fn code_lines(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut gated: Option<i32> = None;
    let mut pending = false;
    for (n, line) in text.lines().enumerate() {
        let code = line.split("//").next().unwrap_or("");
        if code.contains("target_os = \"linux\"") && !code.contains("not(") {
            pending = true;
            continue;
        }
        if pending || gated.is_some() {
            let depth = gated.get_or_insert(0);
            *depth += code.matches('{').count() as i32 - code.matches('}').count() as i32;
            let opened = code.contains('{') || code.trim_end().ends_with(';');
            if pending && opened {
                pending = false;
            }
            if !pending && *depth <= 0 {
                gated = None;
            }
            continue;
        }
        out.push((n + 1, code.to_string()));
    }
    out
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
    let platform = root.join("src/platform");
    let mut found = Vec::new();
    for file in files.iter().filter(|f| !f.starts_with(&platform)) {
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
        "Linux-only names outside src/platform (put them behind the platform layer, or under #[cfg(target_os = \"linux\")]):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_rule_sees_a_linux_only_call_and_skips_what_linux_alone_compiles() {
    let text = "fn a() {\n    unsafe { libc::prctl(1) };\n}\n#[cfg(target_os = \"linux\")]\nfn b() {\n    libc::memfd_create();\n}\n// close_range in a comment\nfn c() {}\n";
    let lines = code_lines(text);
    let joined: Vec<&str> = lines.iter().map(|(_, l)| l.as_str()).collect();
    assert!(joined.iter().any(|l| l.contains("prctl")));
    assert!(!joined.iter().any(|l| l.contains("memfd")));
    assert!(!joined.iter().any(|l| l.contains("close_range")));
    assert!(joined.iter().any(|l| l.contains("fn c()")));
}
