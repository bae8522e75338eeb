//! What a build's jail may read: the sources of the workspace it builds
//! in, and the kit's own cargo configuration above it.

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

/// The kit's own cargo configuration (`.cargo/config.toml`, its `cargo
/// lab` alias) in every kit folder above `dir`. Cargo reads the
/// configuration of every folder above the one it builds in, and stops
/// with an error at one it may not read, so a slot inside the kit's
/// target folder must be let read the kit's file. That file alone, not its
/// folder: it is the kit's (a slot holds a copy of it anyway), never a
/// submission's.
pub(super) fn kit_configs_above(dir: &Path) -> Vec<PathBuf> {
    dir.ancestors()
        .skip(1)
        .filter(|a| is_kit(a))
        .map(|a| a.join(".cargo").join("config.toml"))
        .filter(|f| f.is_file())
        .collect()
}

/// Whether `dir` is the kit itself (its target folder is the one lab.sh
/// builds the judge in), not a slot.
pub(super) fn is_kit(dir: &Path) -> bool {
    dir.join("lab.sh").is_file()
}
