//! How much a jailed child's folder holds, measured against its quota.

use std::path::Path;
use std::time::Duration;

/// How often a jailed child's folder is measured against its quota.
pub(super) const FOLDER_EVERY: Duration = Duration::from_millis(50);

/// Most files and folders a jailed child's folder may hold; more counts
/// as past its quota.
pub(super) const FOLDER_ENTRIES: usize = 10_000;

/// The bytes `dir` takes on disk, everything beneath it counted (a sparse
/// file by its length), links not followed; `u64::MAX` when it holds more
/// than `entries` files and folders.
pub fn folder_bytes(dir: &Path, entries: usize) -> u64 {
    use std::os::unix::fs::MetadataExt;
    let (mut total, mut seen) = (0u64, 0usize);
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(list) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in list.flatten() {
            seen += 1;
            if seen > entries {
                return u64::MAX;
            }
            let Ok(meta) = entry.path().symlink_metadata() else {
                continue;
            };
            total = total.saturating_add(meta.len().max(meta.blocks() * 512));
            if meta.is_dir() {
                stack.push(entry.path());
            }
        }
    }
    total
}
