//! Where a step's learner function starts in the learner's file: the line
//! and column (from 1, in characters) of its name, found by a bounded scan
//! of the text, for the `file:line:col` locators of `check`'s report, its
//! JSON events and its GitHub annotations. Learner text is untrusted: the
//! scan reads at most [`SCAN_BYTES`], never panics on any text and falls
//! back to line 1, column 1.

use std::io::Read;
use std::path::Path;

/// The most of a file the scan reads.
pub const SCAN_BYTES: usize = 1 << 20;

/// A place in a learner's file, as editors count it (from 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Locator {
    pub file: String,
    pub line: usize,
    pub column: usize,
}

impl std::fmt::Display for Locator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

/// At most [`SCAN_BYTES`] of a regular file (never through a link, never a
/// FIFO); empty when it cannot be read.
pub fn read_bounded(path: &Path) -> String {
    let regular = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_file());
    let mut bytes = Vec::new();
    if regular {
        if let Ok(file) = std::fs::File::open(path) {
            let _ = file.take(SCAN_BYTES as u64).read_to_end(&mut bytes);
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

fn ident(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The line and column of the first item a step names (`items` as the
/// registry writes them: `admit, execute_admitted` looks for `admit`)
/// declared as `fn`, `struct`, `enum`, `trait` or `type` outside a line
/// comment; (1, 1) when there is none.
pub fn position(source: &str, items: &str) -> (usize, usize) {
    let name = items.split(',').next().unwrap_or("").trim();
    if name.is_empty() || !name.chars().all(ident) {
        return (1, 1);
    }
    let mut cut = source.len().min(SCAN_BYTES);
    while !source.is_char_boundary(cut) {
        cut -= 1;
    }
    for (n, line) in source[..cut].lines().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.starts_with('*') || trimmed.starts_with("/*") {
            continue;
        }
        let code = line.find("//").map_or(line, |i| &line[..i]);
        for keyword in ["fn ", "struct ", "enum ", "trait ", "type "] {
            let mut from = 0;
            while let Some(k) = code[from..].find(keyword) {
                let at = from + k;
                let after = at + keyword.len();
                from = after;
                if code[..at].chars().next_back().is_some_and(ident) {
                    continue;
                }
                let rest = code[after..].trim_start_matches(' ');
                let Some(tail) = rest.strip_prefix(name) else {
                    continue;
                };
                if tail.chars().next().is_some_and(ident) {
                    continue;
                }
                let start = code.len() - rest.len();
                return (n + 1, code[..start].chars().count() + 1);
            }
        }
    }
    (1, 1)
}

/// The locator of a step's items in `source`, read from `file`.
pub fn locate(file: &str, source: &str, items: &str) -> Locator {
    let (line, column) = position(source, items);
    Locator {
        file: file.to_string(),
        line,
        column,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_name_of_a_function_or_type_after_comments() {
        let src = "// fn remaining is below\n/* fn remaining */\n\npub fn remaining_x() {}\n    pub fn remaining(a: f64) -> f64 {\n";
        assert_eq!(position(src, "remaining"), (5, 12));
        assert_eq!(position("pub struct Deadline {\n", "Deadline"), (1, 12));
        assert_eq!(
            position("fn x() {}\npub fn admit(\n", "admit, execute"),
            (2, 8)
        );
        // Characters, not bytes: editors count columns so.
        assert_eq!(position("/*é*/ fn 一(x: u8)\nfn é()", "é"), (2, 4));
        assert_eq!(position("const É: u8 = 1; pub fn é() {}", "é"), (1, 25));
    }

    #[test]
    fn falls_back_to_the_first_line_on_any_text() {
        assert_eq!(position("", "remaining"), (1, 1));
        assert_eq!(position("fn remaining", ""), (1, 1));
        assert_eq!(position("fn remaining", "?"), (1, 1));
        assert_eq!(position("fn fn fn fnfn fn", "remaining"), (1, 1));
        // Beyond the scanned bytes, and a multi-byte character on the cut.
        let mut long = "é".repeat(SCAN_BYTES / 2 + 1);
        long += "\nfn remaining()";
        assert_eq!(position(&long, "remaining"), (1, 1));
        let hostile: String = (0..5000)
            .map(|i| char::from_u32(i * 97 % 0x10ffff).unwrap_or('x'))
            .collect();
        let _ = position(&hostile, "remaining");
    }

    #[test]
    fn reads_no_link_and_no_more_than_the_bound() {
        let dir = std::env::temp_dir().join(format!("lab-locate-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let big = dir.join("big.rs");
        std::fs::write(&big, vec![b'a'; SCAN_BYTES + 10]).unwrap();
        assert_eq!(read_bounded(&big).len(), SCAN_BYTES);
        assert_eq!(read_bounded(&dir), "");
        #[cfg(unix)]
        {
            let link = dir.join("link.rs");
            let _ = std::fs::remove_file(&link);
            std::os::unix::fs::symlink(&big, &link).unwrap();
            assert_eq!(read_bounded(&link), "");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
