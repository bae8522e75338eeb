//! How much a runner's folder holds, measured against its quota.

use std::path::Path;
use std::time::Duration;

/// How often a runner's folder is measured against its quota.
pub(crate) const FOLDER_EVERY: Duration = Duration::from_millis(50);

/// Most files and folders a runner's folder may hold; more counts as past
/// its quota.
pub(crate) const FOLDER_ENTRIES: usize = 10_000;

/// The bytes `dir` takes on disk, everything beneath it counted (a sparse
/// file by its length), links not followed; `u64::MAX` when it holds more
/// than `entries` files and folders.
pub fn folder_bytes(dir: &Path, entries: usize) -> u64 {
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
            total = total.saturating_add(meta.len().max(blocks(&meta)));
            if meta.is_dir() {
                stack.push(entry.path());
            }
        }
    }
    total
}

/// The bytes a file's blocks take, where the platform says.
fn blocks(meta: &std::fs::Metadata) -> u64 {
    #[cfg(unix)]
    {
        std::os::unix::fs::MetadataExt::blocks(meta) * 512
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        0
    }
}
