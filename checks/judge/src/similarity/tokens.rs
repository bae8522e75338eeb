//! A small Rust tokenizer for the similarity stage: bytes in, normalised
//! tokens out, each with its line. It never fails and never panics: any
//! byte sequence (unbalanced quotes or comments, bytes that are not UTF-8)
//! reads as some tokens, and at most [`MAX_TOKENS`] of them.
//!
//! Normalisation, as MOSS does: comments and layout are dropped; every
//! number, string and character literal reads as one token of its kind;
//! an identifier reads as "an identifier", except keywords (kept as they
//! are) and names reached through `.` or next to `::` (methods, fields,
//! paths such as `f64::INFINITY`), kept too: a copier renames variables
//! and helpers, not the standard library's methods, and keeping them tells
//! independent solutions apart better.

use crate::hash::fnv1a;

/// Most tokens read from one file; the rest of the file is left out.
pub const MAX_TOKENS: usize = 400_000;

/// One token: its normalised kind (a hash), the hash of its raw text when
/// it is an identifier (0 otherwise), and its 1-based line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Token {
    pub norm: u64,
    pub ident: u64,
    pub line: u32,
}

/// The normalised kinds that are not a name's own hash (a name's hash is
/// 64 bits of FNV-1a: meeting one of these small numbers is negligible).
const STR: u64 = 1;
const CHR: u64 = 2;
const NUM: u64 = 3;
const LIFETIME: u64 = 4;
const IDENT: u64 = 5;
/// Punctuation `c` reads as `PUNCT + c`.
const PUNCT: u64 = 0x100;

impl Token {
    /// The punctuation token `c`, as [`tokenize`] makes it.
    pub fn is_punct(&self, c: u8) -> bool {
        self.norm == PUNCT + u64::from(c) && self.ident == 0
    }
}

const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
    "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type",
    "unsafe", "use", "where", "while", "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16",
    "i32", "i64", "i128", "isize", "f32", "f64", "bool", "char", "str", "Some", "None", "Ok",
    "Err",
];

/// The hashes of [`KEYWORDS`], sorted: a name is looked up by the hash
/// it gets anyway.
fn keyword_hashes() -> &'static [u64] {
    static HASHES: std::sync::OnceLock<Vec<u64>> = std::sync::OnceLock::new();
    HASHES.get_or_init(|| {
        let mut h: Vec<u64> = KEYWORDS.iter().map(|k| fnv1a(k.as_bytes())).collect();
        h.sort_unstable();
        h
    })
}

fn is_ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b >= 0x80
}

fn is_ident_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80
}

/// The end of a quoted literal starting at `i` (at the quote), past its
/// closing `quote`; at the end of the text when it never closes.
fn quoted_end(bytes: &[u8], mut i: usize, quote: u8) -> usize {
    i += 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b if b == quote => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// The end of a raw string `r#*"…"#*` whose `r` is at `i`, if one starts
/// there.
fn raw_string_end(bytes: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    let mut hashes = 0;
    while bytes.get(j) == Some(&b'#') {
        hashes += 1;
        j += 1;
    }
    if bytes.get(j) != Some(&b'"') {
        return None;
    }
    j += 1;
    while j < bytes.len() {
        if bytes[j] == b'"'
            && bytes[j + 1..]
                .iter()
                .take(hashes)
                .filter(|b| **b == b'#')
                .count()
                == hashes
        {
            return Some(j + 1 + hashes);
        }
        j += 1;
    }
    Some(bytes.len())
}

/// The normalised tokens of `bytes`.
pub fn tokenize(bytes: &[u8]) -> Vec<Token> {
    let mut out: Vec<Token> = Vec::new();
    let keywords = keyword_hashes();
    let mut line: u32 = 1;
    let mut i = 0;
    let n = bytes.len();
    let lines_in = |a: usize, b: usize| bytes[a..b].iter().filter(|c| **c == b'\n').count() as u32;
    while i < n && out.len() < MAX_TOKENS {
        let b = bytes[i];
        let start = i;
        let here = line;
        match b {
            b'\n' => {
                line += 1;
                i += 1;
                continue;
            }
            _ if b.is_ascii_whitespace() => {
                i += 1;
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < n && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                // Nested, as Rust's are; an unclosed one runs to the end.
                let mut depth = 0usize;
                while i < n {
                    if bytes[i..].starts_with(b"/*") {
                        depth += 1;
                        i += 2;
                    } else if bytes[i..].starts_with(b"*/") {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
                line += lines_in(start, i.min(n));
                continue;
            }
            b'"' => {
                i = quoted_end(bytes, i, b'"');
                out.push(Token {
                    norm: STR,
                    ident: 0,
                    line: here,
                });
                line += lines_in(start, i);
                continue;
            }
            b'b' if bytes.get(i + 1) == Some(&b'"') => {
                i = quoted_end(bytes, i + 1, b'"');
                out.push(Token {
                    norm: STR,
                    ident: 0,
                    line: here,
                });
                line += lines_in(start, i);
                continue;
            }
            b'r' | b'b'
                if {
                    let at = if b == b'b' && bytes.get(i + 1) == Some(&b'r') {
                        i + 1
                    } else {
                        i
                    };
                    bytes[at] == b'r' && raw_string_end(bytes, at).is_some()
                } =>
            {
                let at = if b == b'b' { i + 1 } else { i };
                i = raw_string_end(bytes, at).unwrap_or(n);
                out.push(Token {
                    norm: STR,
                    ident: 0,
                    line: here,
                });
                line += lines_in(start, i);
                continue;
            }
            b'\'' => {
                // A character literal ('x', '\n', '\u{..}') or a lifetime.
                let is_char = match (bytes.get(i + 1), bytes.get(i + 2)) {
                    (Some(b'\\'), _) => true,
                    (Some(_), Some(b'\'')) => true,
                    (Some(c), _) if *c >= 0x80 => true,
                    _ => false,
                };
                if is_char {
                    let end = quoted_end(bytes, i, b'\'');
                    // A stray quote must not swallow the file: at most a
                    // short escape.
                    i = if end - i <= 12 { end } else { i + 1 };
                    out.push(Token {
                        norm: CHR,
                        ident: 0,
                        line: here,
                    });
                } else {
                    i += 1;
                    while i < n && is_ident_byte(bytes[i]) {
                        i += 1;
                    }
                    out.push(Token {
                        norm: LIFETIME,
                        ident: 0,
                        line: here,
                    });
                }
                line += lines_in(start, i);
                continue;
            }
            _ if b.is_ascii_digit() => {
                while i < n
                    && (is_ident_byte(bytes[i])
                        || (bytes[i] == b'.' && bytes.get(i + 1).is_some_and(u8::is_ascii_digit)))
                {
                    i += 1;
                }
                out.push(Token {
                    norm: NUM,
                    ident: 0,
                    line: here,
                });
                continue;
            }
            _ if is_ident_start(b) => {
                while i < n && is_ident_byte(bytes[i]) {
                    i += 1;
                }
                let text = &bytes[start..i];
                let raw = fnv1a(text);
                let keyword = keywords.binary_search(&raw).is_ok();
                let after_path = out
                    .last()
                    .is_some_and(|t| t.is_punct(b'.') || t.is_punct(b':'));
                let before_path = bytes[i..].starts_with(b"::");
                let norm = if keyword || after_path || before_path {
                    raw
                } else {
                    IDENT
                };
                out.push(Token {
                    norm,
                    ident: raw,
                    line: here,
                });
                continue;
            }
            _ => {
                i += 1;
                out.push(Token {
                    norm: PUNCT + u64::from(b),
                    ident: 0,
                    line: here,
                });
            }
        }
    }
    out
}
