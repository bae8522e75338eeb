//! What a build's jail may read: the sources of the workspace it builds
//! in, and the cargo configuration files cargo reads above it.

use super::RUNNER_CRATES;
use std::io;
use std::path::{Path, PathBuf};

/// What a build in workspace `dir` may read of it, and which of its files
/// it may write. A slot: read whole (it holds nothing else), and nothing
/// written (only rustc runs there). The kit: its manifests and the crates a
/// runner is built from — not `solutions/`, `fixtures/` or the judge — and
/// nothing written.
pub(super) fn sources(dir: &Path) -> io::Result<(Vec<PathBuf>, Vec<PathBuf>)> {
    if !is_kit(dir) {
        return Ok((vec![dir.to_path_buf()], Vec::new()));
    }
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml"))?;
    let mut out: Vec<PathBuf> = ["Cargo.toml", "Cargo.lock", ".cargo"]
        .iter()
        .map(|f| dir.join(f))
        .collect();
    for member in crate::files::members(&manifest) {
        out.push(dir.join(member).join("Cargo.toml"));
    }
    for crate_dir in RUNNER_CRATES.iter().chain(&["student", "checks/deps"]) {
        out.push(dir.join(crate_dir));
    }
    Ok((out, Vec::new()))
}

/// The cargo configuration files a build in `dir` reads besides its own
/// folder's: `.cargo/config.toml` (or the older `.cargo/config`) of every
/// folder above `dir` (the kit's own, with its `cargo lab` alias, when
/// `dir` is a slot in the kit's target folder) and of cargo's home
/// (`cargo_home`: a grader's registry mirror, say). Cargo reads them all
/// and stops with an error at one it may not read, so the jail lets the
/// build read these files, each alone: never their folders, never
/// `credentials.toml`.
pub(super) fn cargo_configs(dir: &Path, cargo_home: Option<&Path>) -> Vec<PathBuf> {
    let above = dir.ancestors().skip(1).map(|a| a.join(".cargo"));
    let mut out: Vec<PathBuf> = Vec::new();
    for folder in above.chain(cargo_home.map(Path::to_path_buf)) {
        for name in ["config.toml", "config"] {
            let file = folder.join(name);
            if file.is_file() && !out.contains(&file) {
                out.push(file);
            }
        }
    }
    out
}

/// Cargo's home as cargo finds it: `CARGO_HOME`, else `~/.cargo`.
pub(super) fn cargo_home() -> Option<PathBuf> {
    std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
}

/// Whether `dir` is the kit itself (its target folder is the one lab.sh
/// builds the judge in), not a slot.
pub(super) fn is_kit(dir: &Path) -> bool {
    dir.join("lab.sh").is_file()
}
