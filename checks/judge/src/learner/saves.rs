//! How `watch` sees a save: it reads the watched files every [`POLL`] and
//! compares what they hold, never asking the file system for events and
//! never trusting modification times. So it sees every save where events do
//! not arrive (WSL's /mnt/c, network shares, cloud-synced folders), where
//! times are coarse (FAT's two seconds) or are kept by a sync tool, and
//! whatever way an editor saves (in place, or a new file renamed over the
//! old one). There is no event source to fall back from.
//!
//! A required file that cannot be read for a moment (being replaced by an
//! editor or a sync client, or locked by one) counts as unchanged, and a
//! change is taken only once two reads [`SETTLE`] apart agree, so that a
//! file caught half-written is not checked.

use std::path::PathBuf;
use std::time::Duration;

/// How often the files are read.
pub const POLL: Duration = Duration::from_millis(400);

/// The pause between two reads that must agree before a change is taken.
pub const SETTLE: Duration = Duration::from_millis(100);

/// Reads tried for two that agree, before a change is taken as it stands.
const SETTLE_READS: usize = 20;

/// The files watched: `required` ones (the learner's lib.rs: one missing is
/// a moment of a save, not a change) and `optional` ones (advanced.rs:
/// whether it exists is part of what is compared).
#[derive(Debug, Clone)]
pub struct Watched {
    pub required: Vec<PathBuf>,
    pub optional: Vec<PathBuf>,
}

/// What the files held at the last check (`None`: check at the next look).
#[derive(Debug, Default)]
pub struct Saves {
    last: Option<String>,
}

/// The most of a file that is compared (a learner's file is far smaller).
const MAX_BYTES: u64 = 16 << 20;

/// One bounded read: a regular file's first [`MAX_BYTES`] (links followed,
/// as an editor follows them), `None` if it is missing, not a regular file
/// (a FIFO would block) or unreadable.
fn read(path: &std::path::Path) -> Option<Vec<u8>> {
    use std::io::Read;
    // Looked at before it is opened: opening a FIFO would block.
    if !std::fs::metadata(path).ok()?.is_file() {
        return None;
    }
    let file = std::fs::File::open(path).ok()?;
    let mut bytes = Vec::new();
    file.take(MAX_BYTES).read_to_end(&mut bytes).ok()?;
    Some(bytes)
}

/// What the files hold, as one string; `None` when a required one cannot be
/// read, or an optional one exists but cannot be read.
fn fingerprint(files: &Watched) -> Option<String> {
    let mut all = String::new();
    for path in &files.required {
        let bytes = read(path)?;
        all += &format!("{:016x};", crate::hash::fnv1a(&bytes));
    }
    for path in &files.optional {
        if std::fs::symlink_metadata(path).is_err() {
            all += "-;";
            continue;
        }
        let bytes = read(path)?;
        all += &format!("{:016x};", crate::hash::fnv1a(&bytes));
    }
    Some(all)
}

impl Saves {
    /// Whether the files changed since the last check (always, the first
    /// time and after [`Saves::forget`]); a change is taken once it settled.
    pub fn changed(&mut self, files: &Watched) -> bool {
        let Some(last) = &self.last else {
            self.last = Some(fingerprint(files).unwrap_or_default());
            return true;
        };
        let Some(mut now) = fingerprint(files) else {
            return false;
        };
        if now == *last {
            return false;
        }
        for _ in 0..SETTLE_READS {
            std::thread::sleep(SETTLE);
            match fingerprint(files) {
                Some(again) if again == now => break,
                Some(again) => now = again,
                // Gone again while being saved: look at the next poll.
                None => return false,
            }
        }
        if now == *last {
            return false;
        }
        self.last = Some(now);
        true
    }

    /// Checks again at the next look, changed or not.
    pub fn forget(&mut self) {
        self.last = None;
    }

    /// Whether the next look checks whatever the files hold.
    pub fn forgotten(&self) -> bool {
        self.last.is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::SystemTime;

    fn watched(dir: &std::path::Path) -> Watched {
        Watched {
            required: vec![dir.join("lib.rs")],
            optional: vec![dir.join("advanced.rs")],
        }
    }

    #[test]
    fn a_save_is_seen_by_content_even_with_its_old_time() {
        let dir = tempfile::tempdir().unwrap();
        let files = watched(dir.path());
        let lib = dir.path().join("lib.rs");
        std::fs::write(&lib, "fn a() {}\n").unwrap();
        let mut saves = Saves::default();
        assert!(saves.changed(&files), "the first look checks");
        assert!(!saves.changed(&files));
        // Same length, same modification time (a coarse clock, or a sync
        // tool that keeps times), through a new file renamed over the old.
        let time: SystemTime = std::fs::metadata(&lib).unwrap().modified().unwrap();
        let new = dir.path().join("lib.rs.new");
        std::fs::write(&new, "fn b() {}\n").unwrap();
        std::fs::rename(&new, &lib).unwrap();
        std::fs::File::options()
            .write(true)
            .open(&lib)
            .unwrap()
            .set_modified(time)
            .unwrap();
        assert!(saves.changed(&files));
        assert!(!saves.changed(&files));
        saves.forget();
        assert!(saves.forgotten());
        assert!(saves.changed(&files));
    }

    #[test]
    fn a_missing_lib_is_no_change_and_advanced_rs_coming_or_going_is_one() {
        let dir = tempfile::tempdir().unwrap();
        let files = watched(dir.path());
        let lib = dir.path().join("lib.rs");
        std::fs::write(&lib, "fn a() {}\n").unwrap();
        let mut saves = Saves::default();
        assert!(saves.changed(&files));
        std::fs::remove_file(&lib).unwrap();
        assert!(!saves.changed(&files), "a moment of a save, not a change");
        std::fs::write(&lib, "fn a() {}\n").unwrap();
        assert!(!saves.changed(&files), "back as it was");
        let advanced = dir.path().join("advanced.rs");
        std::fs::write(&advanced, "").unwrap();
        assert!(saves.changed(&files), "opted in");
        std::fs::remove_file(&advanced).unwrap();
        assert!(saves.changed(&files), "opted out");
    }
}
