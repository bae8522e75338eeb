//! What a build reads of a file: its length and modification time, a hash
//! of its contents, and the judge's own files, only as regular files.

use std::path::Path;

/// A file's length and modification time (in nanoseconds), if it exists.
pub(super) fn seen(path: &Path) -> Option<(u64, u128)> {
    let meta = std::fs::metadata(path).ok()?;
    let mtime = meta.modified().ok()?;
    let nanos = mtime
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    Some((meta.len(), nanos))
}

/// A file's length and a hash of its bytes, as text; `None` when it
/// cannot be read.
pub(super) fn contents(path: &Path) -> Option<String> {
    // A regular file only (through a link or not): reading a FIFO a source
    // names would wait for a writer.
    if !std::fs::metadata(path).ok()?.is_file() {
        return None;
    }
    let bytes = std::fs::read(path).ok()?;
    Some(format!("{} {}", bytes.len(), digest(&bytes)))
}

/// A file of the judge's own (a note, rustc's dependency file, the recipe)
/// as text: only when it is a regular file itself, never through a link.
pub(super) fn own_file(path: &Path) -> Option<String> {
    std::fs::symlink_metadata(path)
        .ok()
        .filter(|m| m.is_file())
        .and_then(|_| std::fs::read_to_string(path).ok())
}

/// A hash of `bytes`, as text.
pub(super) fn digest(bytes: &[u8]) -> String {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::hash::DefaultHasher::new();
    bytes.hash(&mut hasher);
    format!("{:016x}", hasher.finish())
}
