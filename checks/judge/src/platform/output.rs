//! Where a child's output goes: two unnamed files of the judge's own, and
//! how the judge reads them back.

use std::fs::File;
use std::io;

/// Where a child's output went: two unnamed files of the judge's own (see
/// [`private_file`]), read back only through these descriptors. The child
/// writes through its copies of them; the judge never moves their offset.
pub struct Captured {
    pub stdout: File,
    pub stderr: File,
}

impl Captured {
    pub(crate) fn new() -> io::Result<Captured> {
        Ok(Captured {
            stdout: private_file()?,
            stderr: private_file()?,
        })
    }

    /// Up to `cap` bytes of stderr, lossily decoded, for display only.
    pub fn stderr_excerpt(&self, cap: usize) -> String {
        excerpt(&self.stderr, cap)
    }

    pub fn bytes(&self) -> u64 {
        size(&self.stdout) + size(&self.stderr)
    }
}

/// A file of the judge's own that has no name: no other process can
/// open, replace or redirect it (`O_TMPFILE` in the judge's TMPDIR, or a
/// file created there with `O_EXCL` and unlinked at once; on Windows, one
/// deleted when its last handle closes). Only the descriptors the judge
/// holds and hands out reach it.
pub fn private_file() -> io::Result<File> {
    tempfile::tempfile()
}

/// Up to `cap` bytes of `file` from its start, lossily decoded.
pub fn excerpt(file: &File, cap: usize) -> String {
    slice(file, 0, u64::MAX, cap as u64).0
}

/// Up to `cap` bytes of `file` from byte `from` to byte `to`, lossily
/// decoded, and whether more was there. Positioned reads: the offset a
/// child shares with the judge's descriptor stays where the child left it
/// (on Windows, where a positioned read moves it, the child's writes
/// append all the same).
pub fn slice(file: &File, from: u64, to: u64, cap: u64) -> (String, bool) {
    let to = to.min(size(file).max(from));
    let want = to.saturating_sub(from);
    let mut buf = vec![0u8; want.min(cap) as usize];
    let mut got = 0;
    while got < buf.len() {
        match read_at(file, &mut buf[got..], from + got as u64) {
            Ok(0) | Err(_) => break,
            Ok(n) => got += n,
        }
    }
    buf.truncate(got);
    (String::from_utf8_lossy(&buf).into_owned(), want > cap)
}

/// A read of `file` at `at`.
pub fn read_at(file: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::read_at(file, buf, at)
    }
    #[cfg(windows)]
    {
        std::os::windows::fs::FileExt::seek_read(file, buf, at)
    }
}

/// The size of one of the judge's files, read through its descriptor.
pub fn size(file: &File) -> u64 {
    file.metadata().map_or(0, |m| m.len())
}
