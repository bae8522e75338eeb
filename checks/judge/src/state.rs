//! What the kit remembers for a learner between runs, in `.lab/state.json`
//! at the kit's root: each step's last verdict and when, and how many hints
//! were revealed. Losing the file loses nothing that matters.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct State {
    #[serde(default)]
    pub steps: BTreeMap<String, StepState>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct StepState {
    /// "passed", "failing" or "not-started"; absent when never checked.
    #[serde(default)]
    pub last: Option<String>,
    /// Seconds since the Unix epoch of the last check.
    #[serde(default)]
    pub checked_at: Option<u64>,
    /// A hash of student/src/lib.rs at that check, to tell "changed since".
    #[serde(default)]
    pub source_hash: Option<String>,
    #[serde(default)]
    pub hints_shown: usize,
}

/// Where the state lives: LAB_STATE_DIR when set (tests), else `.lab/`.
pub fn dir(root: &Path) -> PathBuf {
    std::env::var_os("LAB_STATE_DIR").map_or_else(|| root.join(".lab"), PathBuf::from)
}

fn path(root: &Path) -> PathBuf {
    dir(root).join("state.json")
}

pub fn load(root: &Path) -> State {
    std::fs::read_to_string(path(root))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default()
}

pub fn save(root: &Path, state: &State) -> std::io::Result<()> {
    let text = serde_json::to_string_pretty(state).map_err(std::io::Error::other)?;
    crate::files::write_atomically(&path(root), &(text + "\n"))
}

/// FNV-1a of a file's bytes, as hex; empty when unreadable.
pub fn source_hash(file: &Path) -> String {
    let bytes = std::fs::read(file).unwrap_or_default();
    format!("{:016x}", crate::hash::fnv1a(&bytes))
}

pub fn now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A Unix instant as `YYYYMMDD-HHMMSS` in UTC, for names a person reads
/// and sorts.
pub fn stamp(unix: u64) -> String {
    let secs = unix % 86_400;
    let (year, month, day) = crate::calendar::civil_from_days((unix / 86_400) as i64);
    format!(
        "{year:04}{month:02}{day:02}-{:02}{:02}{:02}",
        secs / 3_600,
        secs % 3_600 / 60,
        secs % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stamps_read_as_utc_dates() {
        assert_eq!(stamp(0), "19700101-000000");
        assert_eq!(stamp(1_000_000_000), "20010909-014640");
        assert_eq!(stamp(951_782_400), "20000229-000000");
        assert_eq!(stamp(951_868_799), "20000229-235959");
    }

    #[test]
    fn state_survives_a_round_trip_and_a_missing_file_is_empty() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(load(dir.path()), State::default());
        let mut s = State::default();
        s.steps.entry("03".into()).or_default().hints_shown = 2;
        save(dir.path(), &s).unwrap();
        assert_eq!(load(dir.path()), s);
        std::fs::write(path(dir.path()), "not json").unwrap();
        assert_eq!(load(dir.path()), State::default());
    }

    #[test]
    fn the_hash_changes_with_the_content() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("a");
        std::fs::write(&f, "x").unwrap();
        let a = source_hash(&f);
        std::fs::write(&f, "y").unwrap();
        assert_ne!(a, source_hash(&f));
    }
}
