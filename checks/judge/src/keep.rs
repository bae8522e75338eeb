//! What `reset N` must keep of an advanced step's section: the learner's
//! own top-level items (helpers, types, constants, `use` lines) that the
//! stubs of that section lack and that the rest of the file uses. Putting
//! the stubs back without them would leave a file that no longer compiles.
//!
//! Items are read at column 0, as rustfmt writes them: doc comments and
//! attributes, then `fn`, `struct`, `enum`, `union`, `trait`, `type`,
//! `const`, `static`, `mod`, `impl`, `use` or `macro_rules!`, maybe after
//! `pub`/`pub(…)`, `const`, `async`, `unsafe` or `extern "…"`, up to the
//! brace or semicolon that closes it (strings, characters and comments
//! skipped). "Used" means the name appears as a whole word: a mention in a
//! comment keeps an item too, which is harmless.

use crate::sections::comment_end;

/// One top-level item of a section.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    /// What it defines; for an `impl`, the type it is for; for a `use`,
    /// the names it brings in (none for a glob).
    pub names: Vec<String>,
    pub kind: Kind,
    /// Its text, leading doc comments and attributes included.
    pub text: String,
    /// For an inherent `impl`, the names of its functions.
    pub methods: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A type: `struct`, `enum`, `union`, `trait` or `type`.
    Type,
    /// Any other definition: `fn`, `const`, `static`, `mod`, a macro.
    Value,
    /// An `impl` block, inherent or of a trait.
    Impl,
    Use,
}

/// What a reset of one section keeps, or why it cannot be done safely.
#[derive(Debug, PartialEq)]
pub enum Plan {
    /// Items of the learner's section to put back after the stubs, in the
    /// file's order (empty: the stubs alone).
    Keep(Vec<Item>),
    /// The rest of the file uses `used`, which belongs to the section and
    /// cannot simply be kept: it works on `replaced`, which the reset
    /// replaces by the stubs' own.
    Refuse { used: String, replaced: String },
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Whether `word` occurs in `text` as a whole identifier.
pub fn uses(text: &str, word: &str) -> bool {
    let bytes = text.as_bytes();
    text.match_indices(word).any(|(i, _)| {
        let before = i.checked_sub(1).map(|j| bytes[j]);
        let after = bytes.get(i + word.len()).copied();
        !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
    })
}

/// The byte after the string, raw string or character literal that starts
/// at `i`, or `None` when none starts there (a lifetime is no literal).
fn literal_end(bytes: &[u8], i: usize) -> Option<usize> {
    let prev_ident = i.checked_sub(1).is_some_and(|j| is_ident(bytes[j]));
    match bytes[i] {
        b'"' => {
            let mut j = i + 1;
            while j < bytes.len() && bytes[j] != b'"' {
                j += if bytes[j] == b'\\' { 2 } else { 1 };
            }
            Some((j + 1).min(bytes.len()))
        }
        b'r' if !prev_ident || (bytes[i - 1] == b'b' && (i < 2 || !is_ident(bytes[i - 2]))) => {
            let hashes = bytes[i + 1..].iter().take_while(|&&b| b == b'#').count();
            if bytes.get(i + 1 + hashes) != Some(&b'"') {
                return None;
            }
            let close: Vec<u8> = std::iter::once(b'"')
                .chain(std::iter::repeat_n(b'#', hashes))
                .collect();
            let from = i + 2 + hashes;
            let end = bytes[from..]
                .windows(close.len())
                .position(|w| w == close.as_slice())
                .map_or(bytes.len(), |k| from + k + close.len());
            Some(end)
        }
        b'\'' => {
            if bytes.get(i + 1) == Some(&b'\\') {
                let close = bytes[i + 2..].iter().position(|&b| b == b'\'')?;
                return Some(i + 3 + close);
            }
            let first = *bytes.get(i + 1)?;
            let width = match first {
                0x00..=0x7f => 1,
                0xc0..=0xdf => 2,
                0xe0..=0xef => 3,
                _ => 4,
            };
            (bytes.get(i + 1 + width) == Some(&b'\'')).then_some(i + 2 + width)
        }
        _ => None,
    }
}

/// Where an item ends.
#[derive(Clone, Copy, PartialEq)]
enum End {
    /// At the `;` at depth 0 (`const`, `static`, `type`, `use`).
    Semicolon,
    /// At that `;`, or at the `}` that brings the depth back to 0.
    Brace,
    /// At the first bracket that brings the depth back to 0 (an
    /// attribute).
    Bracket,
}

/// The byte after the end of the item whose head starts at `start`
/// (`None` if it never ends).
fn item_end(bytes: &[u8], start: usize, end: End) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = start;
    while i < bytes.len() {
        if let Some(end) = comment_end(bytes, i) {
            i = end;
            continue;
        }
        if let Some(end) = literal_end(bytes, i) {
            i = end;
            continue;
        }
        match bytes[i] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 && end == End::Bracket {
                    return Some(i + 1);
                }
            }
            b'}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 && end != End::Semicolon {
                    return Some(i + 1);
                }
            }
            b';' if depth == 0 => return Some(i + 1),
            _ => {}
        }
        i += 1;
    }
    None
}

/// The first identifier of `s` (after spaces).
fn ident(s: &str) -> Option<&str> {
    let s = s.trim_start();
    let n = s.bytes().take_while(|&b| is_ident(b)).count();
    (n > 0).then(|| &s[..n])
}

/// `head` without a leading `pub`/`pub(…)` and the qualifiers before an
/// item's keyword.
fn strip_qualifiers(mut head: &str) -> &str {
    loop {
        let before = head;
        if let Some(r) = head.strip_prefix("pub(") {
            head = r.split_once(')').map_or("", |(_, r)| r).trim_start();
        }
        if head.starts_with("const fn") {
            head = &head["const ".len()..];
        }
        for word in ["pub ", "async ", "unsafe ", "default "] {
            if let Some(r) = head.strip_prefix(word) {
                head = r.trim_start();
            }
        }
        if let Some(r) = head.strip_prefix("extern ") {
            head = r.trim_start();
            if let Some(r) = head.strip_prefix('"') {
                head = r.split_once('"').map_or("", |(_, r)| r).trim_start();
            }
        }
        if head == before {
            return head;
        }
    }
}

/// Skips a generic list `<…>` at the start of `s`.
fn skip_generics(s: &str) -> &str {
    let s = s.trim_start();
    if !s.starts_with('<') {
        return s;
    }
    let mut depth = 0;
    for (i, c) in s.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => {
                depth -= 1;
                if depth == 0 {
                    return &s[i + 1..];
                }
            }
            _ => {}
        }
    }
    ""
}

/// The type an `impl` head (after `impl`) is for, and whether it is a
/// trait's impl.
fn impl_target(rest: &str) -> (String, bool) {
    let rest = skip_generics(rest);
    let upto = rest.find('{').unwrap_or(rest.len());
    let head = &rest[..upto];
    let (target, of_trait) = match head.find(" for ") {
        Some(k) => (&head[k + 5..], true),
        None => (head, false),
    };
    // The last path segment before any generics: `a::B<'x>` is `B`.
    let path = target.split('<').next().unwrap_or("").trim();
    let last = path.rsplit("::").next().unwrap_or("").trim();
    let last = last.trim_start_matches(['&', '*']).trim();
    (ident(last).unwrap_or("").to_string(), of_trait)
}

/// The names a `use` item brings in: an identifier right before `,`, `}`
/// or `;`, or right after `as` (`_` and `self` excepted).
fn use_names(text: &str) -> Vec<String> {
    let body = text.trim_start();
    let body = strip_qualifiers(body);
    let body = body.strip_prefix("use").unwrap_or(body);
    let mut names = Vec::new();
    let bytes = body.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if is_ident(bytes[i]) && (i == 0 || !is_ident(bytes[i - 1])) {
            let n = bytes[i..].iter().take_while(|&&b| is_ident(b)).count();
            let word = &body[i..i + n];
            let next = body[i + n..].trim_start();
            let prev = body[..i].trim_end();
            let last = next.starts_with([',', '}', ';']) || next.is_empty();
            let alias = prev.ends_with(" as") || prev.ends_with("\tas");
            if word == "self" && last {
                // `a::b::{self, …}` brings in `b`.
                let parent = body[..i].rfind("::{").map(|k| &body[..k]);
                let parent = parent.and_then(|p| p.rsplit([':', ' ', '{', ',']).next());
                if let Some(p) = parent.filter(|p| !p.is_empty()) {
                    names.push(p.to_string());
                }
            } else if word != "as" && word != "_" && word != "self" && (last || alias) {
                names.push(word.to_string());
            }
            i += n;
        } else {
            i += 1;
        }
    }
    names
}

/// The function names of an `impl` block's body.
fn fn_names(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| {
            let l = strip_qualifiers(l.trim_start());
            l.strip_prefix("fn ").and_then(ident).map(str::to_string)
        })
        .collect()
}

/// The top-level items of `section` (a marker line and what follows it).
pub fn items(section: &str) -> Result<Vec<Item>, String> {
    let bytes = section.as_bytes();
    let mut out = Vec::new();
    let mut at = 0;
    // Where the doc comments and attributes of the next item begin.
    let mut lead: Option<usize> = None;
    while at < section.len() {
        let line_end = section[at..].find('\n').map_or(section.len(), |k| at + k);
        let line = &section[at..line_end];
        let next = (line_end + 1).min(section.len());
        if line.starts_with("///") || line.starts_with("#[") {
            if line.starts_with("#[") {
                // An attribute may run over several lines.
                let end = item_end(bytes, at, End::Bracket).unwrap_or(line_end);
                lead.get_or_insert(at);
                at = section[end..]
                    .find('\n')
                    .map_or(section.len(), |k| end + k + 1);
                continue;
            }
            lead.get_or_insert(at);
            at = next;
            continue;
        }
        if line.trim().is_empty() || line.starts_with("//") || line.starts_with(' ') {
            lead = None;
            at = next;
            continue;
        }
        let head = strip_qualifiers(line);
        let keyword = ident(head).unwrap_or("");
        let rest = &head[keyword.len()..];
        let (kind, names, to) = match keyword {
            "fn" | "mod" => (Kind::Value, ident(rest).into_iter().collect(), End::Brace),
            "const" | "static" => {
                let rest = rest.trim_start();
                let rest = rest.strip_prefix("mut ").unwrap_or(rest);
                (
                    Kind::Value,
                    ident(rest).into_iter().collect(),
                    End::Semicolon,
                )
            }
            "struct" | "enum" | "union" | "trait" => {
                (Kind::Type, ident(rest).into_iter().collect(), End::Brace)
            }
            "type" => (
                Kind::Type,
                ident(rest).into_iter().collect(),
                End::Semicolon,
            ),
            "macro_rules" => (
                Kind::Value,
                ident(rest.trim_start_matches('!')).into_iter().collect(),
                End::Brace,
            ),
            "impl" => (Kind::Impl, Vec::new(), End::Brace),
            "use" => (Kind::Use, Vec::new(), End::Semicolon),
            _ => {
                lead = None;
                at = next;
                continue;
            }
        };
        let Some(end) = item_end(bytes, at, to) else {
            return Err(line.to_string());
        };
        let start = lead.take().unwrap_or(at);
        let text = section[start..end].to_string();
        let (names, methods) = match kind {
            Kind::Impl => {
                let (target, of_trait) = impl_target(rest);
                let methods = if of_trait {
                    Vec::new()
                } else {
                    fn_names(&section[at..end])
                };
                (vec![target], methods)
            }
            Kind::Use => (use_names(&section[at..end]), Vec::new()),
            _ => (names.into_iter().map(str::to_string).collect(), Vec::new()),
        };
        out.push(Item {
            names,
            kind,
            text,
            methods,
        });
        at = section[end..]
            .find('\n')
            .map_or(section.len(), |k| end + k + 1);
    }
    Ok(out)
}

/// What resetting a section to `stubs` must keep of `mine` (the learner's
/// section), given `elsewhere`, the rest of the learner's file.
pub fn plan(mine: &str, stubs: &str, elsewhere: &str) -> Plan {
    let (Ok(mine), Ok(stubs)) = (items(mine), items(stubs)) else {
        // An item we cannot read: nothing is kept, as before.
        return Plan::Keep(Vec::new());
    };
    let stub_names: Vec<&str> = stubs
        .iter()
        .filter(|i| i.kind != Kind::Impl)
        .flat_map(|i| i.names.iter().map(String::as_str))
        .collect();
    let stub_types: Vec<&str> = stubs
        .iter()
        .filter(|i| i.kind == Kind::Type)
        .flat_map(|i| i.names.iter().map(String::as_str))
        .collect();
    let stub_methods: Vec<&str> = stubs
        .iter()
        .flat_map(|i| i.methods.iter().map(String::as_str))
        .collect();
    let stub_text: Vec<&str> = stubs.iter().map(|i| i.text.trim()).collect();
    // A function of the learner's own in an impl of a stub type, used
    // elsewhere: it cannot be kept apart from the type it belongs to.
    for item in mine.iter().filter(|i| i.kind == Kind::Impl) {
        let target = item.names.first().map_or("", String::as_str);
        if !stub_names.contains(&target) {
            continue;
        }
        if let Some(m) = item
            .methods
            .iter()
            .find(|m| !stub_methods.contains(&m.as_str()) && uses(elsewhere, m))
        {
            return Plan::Refuse {
                used: format!("{target}::{m}"),
                replaced: target.to_string(),
            };
        }
    }
    let own = |i: &Item| match i.kind {
        Kind::Use => !stub_text.contains(&i.text.trim()),
        Kind::Impl => false,
        _ => i.names.iter().all(|n| !stub_names.contains(&n.as_str())),
    };
    let mut keep = vec![false; mine.len()];
    let mut needed_by = elsewhere.to_string();
    loop {
        let mut grew = false;
        for (k, item) in mine.iter().enumerate() {
            if keep[k] || !own(item) {
                continue;
            }
            if item.names.iter().any(|n| uses(&needed_by, n)) {
                keep[k] = true;
                needed_by.push('\n');
                needed_by.push_str(&item.text);
                grew = true;
            }
        }
        // The impls of kept types come with them.
        for (k, item) in mine.iter().enumerate() {
            if !keep[k] && item.kind == Kind::Impl {
                let target = item.names.first().map_or("", String::as_str);
                let kept_type = mine
                    .iter()
                    .zip(&keep)
                    .any(|(i, &kept)| kept && i.kind == Kind::Type && i.names[..] == [target]);
                if kept_type {
                    keep[k] = true;
                    needed_by.push('\n');
                    needed_by.push_str(&item.text);
                    grew = true;
                }
            }
        }
        if !grew {
            break;
        }
    }
    let kept: Vec<Item> = mine
        .into_iter()
        .zip(keep)
        .filter_map(|(i, k)| k.then_some(i))
        .collect();
    // A kept item that works on a type the stubs replace would not
    // compile against the stubs' version of it.
    for item in &kept {
        if item.kind == Kind::Use {
            continue;
        }
        if let Some(t) = stub_types.iter().find(|t| uses(&item.text, t)) {
            return Plan::Refuse {
                used: item.names.join(", "),
                replaced: t.to_string(),
            };
        }
    }
    Plan::Keep(kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINE: &str = "// ===== step 11: admit =====\n\nuse std::collections::HashMap;\nuse std::fmt::{self, Write as _};\n\n/// Doc.\n#[allow(dead_code)]\npub fn admit(x: &str) -> bool {\n    let c = '}';\n    let s = \"}{\";\n    // }\n    helper(x) && c != ' ' && !s.is_empty()\n}\n\nfn helper<'a>(x: &'a str) -> bool {\n    LIMIT > x.len() && Budget::new().0 > 0\n}\n\nconst LIMIT: usize = [1, 2][1];\n\nstruct Budget(u8);\n\nimpl Budget {\n    fn new() -> Budget {\n        Budget(1)\n    }\n}\n\nfn unused() {}\n";

    const STUBS: &str =
        "// ===== step 11: admit =====\n\n/// Doc.\npub fn admit(x: &str) -> bool {\n    todo!()\n}\n";

    #[test]
    fn items_are_read_with_their_docs_and_closing_brace() {
        let items = items(MINE).unwrap();
        let names: Vec<Vec<String>> = items.iter().map(|i| i.names.clone()).collect();
        let want: Vec<Vec<&str>> = vec![
            vec!["HashMap"],
            vec!["fmt"],
            vec!["admit"],
            vec!["helper"],
            vec!["LIMIT"],
            vec!["Budget"],
            vec!["Budget"],
            vec!["unused"],
        ];
        assert_eq!(names, want);
        assert!(items[2]
            .text
            .starts_with("/// Doc.\n#[allow(dead_code)]\npub fn admit"));
        assert!(items[2].text.ends_with("!s.is_empty()\n}"));
        assert_eq!(items[6].methods, vec!["new".to_string()]);
    }

    #[test]
    fn what_other_sections_use_is_kept_with_what_it_needs() {
        let Plan::Keep(kept) = plan(MINE, STUBS, "fn twelve() { helper(\"x\"); }") else {
            panic!("refused");
        };
        let names: Vec<&str> = kept.iter().map(|i| i.names[0].as_str()).collect();
        // helper needs LIMIT and Budget; Budget's impl comes with it.
        assert_eq!(names, ["helper", "LIMIT", "Budget", "Budget"]);
        let Plan::Keep(kept) = plan(MINE, STUBS, "fn twelve() {}") else {
            panic!("refused");
        };
        assert!(kept.is_empty());
    }

    #[test]
    fn a_helper_on_a_type_the_stubs_replace_is_refused() {
        let mine = "// ===== step 09: D =====\npub struct Deadline {\n    at: f64,\n}\n\nimpl Deadline {\n    pub fn new() -> Deadline {\n        Deadline { at: 0.0 }\n    }\n    pub fn at(&self) -> f64 {\n        self.at\n    }\n}\n\nfn peek(d: &Deadline) -> f64 {\n    d.at\n}\n";
        let stubs = "// ===== step 09: D =====\npub struct Deadline {\n    _todo: (),\n}\n\nimpl Deadline {\n    pub fn new() -> Deadline {\n        todo!()\n    }\n}\n";
        assert_eq!(
            plan(mine, stubs, "fn x(d: &Deadline) -> f64 { d.at() }"),
            Plan::Refuse {
                used: "Deadline::at".into(),
                replaced: "Deadline".into()
            }
        );
        assert_eq!(
            plan(mine, stubs, "fn x(d: &Deadline) -> f64 { peek(d) }"),
            Plan::Refuse {
                used: "peek".into(),
                replaced: "Deadline".into()
            }
        );
    }

    #[test]
    fn lifetimes_are_not_characters() {
        let s = "fn f<'a, 'b>(x: &'a str, y: &'b str) -> &'a str {\n    x\n}\nfn g() {}\n";
        let items = items(s).unwrap();
        assert_eq!(items.len(), 2);
        assert_eq!(items[1].names, vec!["g".to_string()]);
    }
}
