//! Text as a person may safely be shown it: what a terminal, a spreadsheet
//! or a web page would act on instead of showing (control characters, and
//! the bidirectional controls that reorder what is read) becomes a visible
//! escape in Rust's style (`\u{1b}`, `\u{202e}`, `\n`, `\t`, `\r`). Every
//! human-readable output of the kit passes submission names and the
//! learner's text through here; machine JSON keeps them exact. A leaf: it
//! imports nothing of the judge.

use std::borrow::Cow;
use std::fmt::Write as _;

/// One line, such as a submission's name: every character [`hidden`]
/// escaped, line ends and tabs too.
pub fn line(text: &str) -> Cow<'_, str> {
    escaped(text, false)
}

/// Text of several lines, such as a message or what the learner's code
/// printed: as [`line`], but line feeds and tabs are kept.
pub fn text(text: &str) -> Cow<'_, str> {
    escaped(text, true)
}

/// Whether `c` is acted on rather than shown: a C0 control, DEL, a C1
/// control, or a bidirectional control (U+061C, U+200E, U+200F,
/// U+202A–U+202E, U+2066–U+2069).
pub fn hidden(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{1f}'
        | '\u{7f}'..='\u{9f}'
        | '\u{61c}'
        | '\u{200e}'
        | '\u{200f}'
        | '\u{202a}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}')
}

/// `text` with every [`hidden`] character escaped, but for line feeds and
/// tabs when `keep_lines`; borrowed when nothing needs escaping.
fn escaped(text: &str, keep_lines: bool) -> Cow<'_, str> {
    let escape = |c: char| hidden(c) && !(keep_lines && matches!(c, '\n' | '\t'));
    let Some(first) = text.find(escape) else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len() + 8);
    out.push_str(&text[..first]);
    for c in text[first..].chars() {
        match c {
            c if !escape(c) => out.push(c),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c => {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            }
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_borrowed_as_it_is() {
        for plain in ["", "alice", "王小明", "-bob, \"the\" | 2nd", "a\\u{1b}b"] {
            assert!(matches!(line(plain), Cow::Borrowed(s) if s == plain));
            assert!(matches!(text(plain), Cow::Borrowed(s) if s == plain));
        }
        assert!(matches!(text("two\n\tlines"), Cow::Borrowed(_)));
    }

    #[test]
    fn controls_and_bidi_controls_become_rust_escapes() {
        let name = "\u{1b}[2J\u{7}王小明\u{202e}\u{2066}x\u{85}\u{9f}\u{7f}\u{0}";
        assert_eq!(
            line(name),
            "\\u{1b}[2J\\u{7}王小明\\u{202e}\\u{2066}x\\u{85}\\u{9f}\\u{7f}\\u{0}"
        );
        assert_eq!(
            line("\u{61c}\u{200e}\u{200f}\u{202a}\u{202b}\u{202c}\u{202d}\u{2067}\u{2068}\u{2069}"),
            "\\u{61c}\\u{200e}\\u{200f}\\u{202a}\\u{202b}\\u{202c}\\u{202d}\\u{2067}\\u{2068}\\u{2069}"
        );
        // Neighbours of the ranges stay as they are.
        let near = "\u{20}~\u{a0}\u{61b}\u{200d}\u{2029}\u{202f}\u{2065}\u{206a}";
        assert_eq!(line(near), near);
    }

    #[test]
    fn a_line_escapes_line_ends_and_text_keeps_them() {
        let printed = "one\n\ttwo\r\n\u{1b}[31mred";
        assert_eq!(line(printed), "one\\n\\ttwo\\r\\n\\u{1b}[31mred");
        assert_eq!(text(printed), "one\n\ttwo\\r\n\\u{1b}[31mred");
    }

    #[test]
    fn nothing_hidden_is_left() {
        let every: String = ('\u{0}'..='\u{2100}').collect();
        for shown in [line(&every), text(&every)] {
            assert!(!shown.chars().any(|c| hidden(c) && c != '\n' && c != '\t'));
        }
        assert!(!line(&every).contains(['\n', '\t']));
    }
}
