//! Splicing a part into a reference file, by two rules.
//!
//! **Sections** (advanced.rs). `student/src/advanced.rs` (and the reference
//! and the stubs) hold one section per advanced step, each opened by a
//! marker line such as `// ===== step 10: parse_retry_after =====` and
//! running to the next marker or the end of the file. `reset N` puts one
//! section of the stubs back; the self-test builds an advanced mutant or
//! alternative by putting its one section into the reference
//! ([`splice`]).
//!
//! **Items** (lib.rs, which has no markers). A core mutant is header comment
//! lines (`// mutant: …`, `// caught-by: …`), then one or more top-level
//! items: a `fn`, `const` or `static` (maybe `pub` or `pub(…)`) at column 0,
//! with the `///` doc comments and `#[…]` attributes right above it. An item
//! ends at the first line from its opening one that starts at column 0 and
//! ends in `}` or `;` (its closing brace, for a function). Each item replaces
//! the reference's item of the same name, found by the same rule; an item
//! the reference lacks is appended. The result starts with the part's header
//! lines, kept as comments. Any other line after the header (a `use`, a
//! `struct`, an indented line outside an item, a doc comment that no item
//! follows) is an error ([`splice_items`]).

/// The marker line that opens a step's section of an advanced.rs, e.g.
/// `// ===== step 10: parse_retry_after =====`; returns the step.
pub fn section_mark(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("// ===== step ")?;
    let step = rest.get(..2)?;
    step.bytes().all(|b| b.is_ascii_digit()).then_some(step)
}

/// `base` with the section of `part` put in place of the same step's
/// section. `part` is a mutant or alternative file: header comments, then
/// a marker line, then the section; a section runs to the next marker line
/// or the end of the file.
pub fn splice(base: &str, part: &str) -> Result<String, String> {
    let start = part
        .lines()
        .position(|l| section_mark(l).is_some())
        .ok_or("no `// ===== step NN: … =====` line")?;
    let section: Vec<&str> = part.lines().skip(start).collect();
    let step = section_mark(section[0]).unwrap_or_default();
    let lines: Vec<&str> = base.lines().collect();
    let from = lines
        .iter()
        .position(|l| section_mark(l) == Some(step))
        .ok_or_else(|| format!("the reference has no section {step}"))?;
    let to = lines[from + 1..]
        .iter()
        .position(|l| section_mark(l).is_some())
        .map_or(lines.len(), |k| from + 1 + k);
    let mut out: Vec<&str> = lines[..from].to_vec();
    out.extend(section.iter().copied());
    if to < lines.len() {
        if out.last().is_some_and(|l| !l.trim().is_empty()) {
            out.push("");
        }
        out.extend(&lines[to..]);
    }
    Ok(out.join("\n") + "\n")
}

/// A top-level item of a lib.rs: lines `start..end` of its file, its
/// leading doc comments and attributes included.
struct Item<'a> {
    name: &'a str,
    start: usize,
    end: usize,
}

/// The name of the `fn`, `const` or `static` item that `line` opens at
/// column 0, maybe after `pub` or `pub(…)`.
fn item_name(line: &str) -> Option<&str> {
    let rest = match line.strip_prefix("pub") {
        Some(r) if r.starts_with('(') => r.split_once(") ")?.1,
        Some(r) => r.strip_prefix(' ')?,
        None => line,
    };
    let rest = ["const fn ", "fn ", "const ", "static "]
        .iter()
        .find_map(|k| rest.strip_prefix(k))?;
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(rest.len());
    (end > 0).then(|| &rest[..end])
}

/// The items of `lines`, and the lines outside them that are not blank.
fn items<'a>(lines: &[&'a str]) -> Result<(Vec<Item<'a>>, Vec<usize>), String> {
    let (mut found, mut stray) = (Vec::new(), Vec::new());
    let mut lead: Option<usize> = None;
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        if line.starts_with("///") || line.starts_with("#[") {
            lead.get_or_insert(i);
        } else if let Some(name) = item_name(line) {
            let closes = |l: &&str| {
                let l = l.trim_end();
                !l.starts_with(char::is_whitespace) && (l.ends_with('}') || l.ends_with(';'))
            };
            let end = i
                + 1
                + lines[i..]
                    .iter()
                    .position(closes)
                    .ok_or_else(|| format!("line {}: `{name}` never ends", i + 1))?;
            found.push(Item {
                name,
                start: lead.take().unwrap_or(i),
                end,
            });
            i = end;
            continue;
        } else {
            // Doc comments or attributes that no item follows are stray too.
            stray.extend(lead.take());
            if !line.trim().is_empty() {
                stray.push(i);
            }
        }
        i += 1;
    }
    stray.extend(lead);
    Ok((found, stray))
}

/// `base` (a whole lib.rs) with each item of `part` put in place of the
/// item of the same name, or appended when `base` has none; see the module
/// doc for the rule.
pub fn splice_items(base: &str, part: &str) -> Result<String, String> {
    let part: Vec<&str> = part.lines().collect();
    let header = part
        .iter()
        .take_while(|l| l.starts_with("//") && !l.starts_with("///") && !l.starts_with("//!"))
        .count();
    let (new, stray) = items(&part)?;
    if let Some(&k) = stray.iter().find(|&&k| k >= header) {
        return Err(format!(
            "line {}: `{}` is not part of a top-level `fn`, `const` or `static`",
            k + 1,
            part[k].trim()
        ));
    }
    if new.is_empty() {
        return Err("no top-level `fn`, `const` or `static` after the header".into());
    }
    for (k, item) in new.iter().enumerate() {
        if new[..k].iter().any(|n| n.name == item.name) {
            return Err(format!("`{}` stands twice", item.name));
        }
    }
    let body = |item: &Item| &part[item.start..item.end];
    let lines: Vec<&str> = base.lines().collect();
    let (old, _) = items(&lines).map_err(|e| format!("the reference, {e}"))?;
    let mut out: Vec<&str> = part[..header].to_vec();
    let mut at = 0;
    for item in &old {
        if let Some(replacement) = new.iter().find(|n| n.name == item.name) {
            out.extend(&lines[at..item.start]);
            out.extend(body(replacement));
            at = item.end;
        }
    }
    out.extend(&lines[at..]);
    for item in new.iter().filter(|n| old.iter().all(|o| o.name != n.name)) {
        if out.last().is_some_and(|l| !l.trim().is_empty()) {
            out.push("");
        }
        out.extend(body(item));
    }
    Ok(out.join("\n") + "\n")
}

/// Step `step`'s section of `text`, marker line included.
pub fn section(text: &str, step: &str) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let from = lines.iter().position(|l| section_mark(l) == Some(step))?;
    let to = lines[from + 1..]
        .iter()
        .position(|l| section_mark(l).is_some())
        .map_or(lines.len(), |k| from + 1 + k);
    Some(lines[from..to].join("\n") + "\n")
}

/// Where the comment that starts at byte `i` of Rust source `bytes` ends
/// (the byte after it; block comments nest; one never closed runs to the
/// end), or `None` when no comment starts there. A line comment ends at
/// its newline, which is not part of it.
pub fn comment_end(bytes: &[u8], i: usize) -> Option<usize> {
    if bytes.get(i) != Some(&b'/') {
        return None;
    }
    match bytes.get(i + 1) {
        Some(b'/') => Some(
            bytes[i..]
                .iter()
                .position(|&b| b == b'\n')
                .map_or(bytes.len(), |n| i + n),
        ),
        Some(b'*') => {
            let (mut at, mut depth) = (i, 0usize);
            while at < bytes.len() {
                if bytes[at] == b'/' && bytes.get(at + 1) == Some(&b'*') {
                    depth += 1;
                    at += 2;
                } else if bytes[at] == b'*' && bytes.get(at + 1) == Some(&b'/') {
                    depth -= 1;
                    at += 2;
                    if depth == 0 {
                        return Some(at);
                    }
                } else {
                    at += 1;
                }
            }
            Some(bytes.len())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_comment_ends_after_its_line_or_its_outermost_close() {
        let at = |text: &str, i: usize| comment_end(text.as_bytes(), i);
        assert_eq!(at("a // b\nc", 2), Some(6));
        assert_eq!(at("a // b", 2), Some(6));
        assert_eq!(at("/* a /* b */ c */d", 0), Some(17));
        assert_eq!(at("/* a /* b */ c", 0), Some(14));
        assert_eq!(at("/**/x", 0), Some(4));
        assert_eq!(at("a / b", 2), None);
        assert_eq!(at("ab", 0), None);
        assert_eq!(at("/", 0), None);
    }

    #[test]
    fn splice_replaces_exactly_one_section() {
        let base = "//! top\nuse x;\n\n// ===== step 09: A =====\nfn a() {}\n\n// ===== step 10: B =====\nfn b() {}\n";
        let part = "// mutant: m\n// caught-by: 09/x\n// ===== step 09: A =====\nfn a() { 1 }\n";
        let out = splice(base, part).unwrap();
        assert_eq!(
            out,
            "//! top\nuse x;\n\n// ===== step 09: A =====\nfn a() { 1 }\n\n// ===== step 10: B =====\nfn b() {}\n"
        );
        let last = "// ===== step 10: B =====\nfn c() {}\n";
        assert!(splice(base, last)
            .unwrap()
            .ends_with("fn a() {}\n\n// ===== step 10: B =====\nfn c() {}\n"));
        assert!(splice(base, "fn x() {}").is_err());
        let ten = section(base, "10").unwrap();
        assert_eq!(ten, "// ===== step 10: B =====\nfn b() {}\n");
        assert_eq!(splice(base, &section(base, "09").unwrap()).unwrap(), base);
        assert_eq!(section(base, "11"), None);
        assert!(splice(base, "// ===== step 12: C =====\n").is_err());
    }

    const LIB: &str = "pub use x::*;\n\n/// A.\npub fn a() -> u8 {\n    1\n}\n\nfn helper(x: u8) -> u8 {\n    x\n}\n\n/// B.\n#[inline]\npub fn b(\n    y: u8,\n) -> u8 {\n    helper(y)\n}\n";

    #[test]
    fn splice_items_replaces_items_by_name_with_their_docs() {
        let part = "// mutant: m\n// caught-by: 02/x\n\n/// B, broken.\npub fn b(\n    y: u8,\n) -> u8 {\n    y + 1\n}\n";
        assert_eq!(
            splice_items(LIB, part).unwrap(),
            "// mutant: m\n// caught-by: 02/x\npub use x::*;\n\n/// A.\npub fn a() -> u8 {\n    1\n}\n\nfn helper(x: u8) -> u8 {\n    x\n}\n\n/// B, broken.\npub fn b(\n    y: u8,\n) -> u8 {\n    y + 1\n}\n"
        );
        // Three items: one without the doc comment it replaces, a one-line
        // helper, and a const the reference lacks (appended).
        let part = "// h\nfn helper(x: u8) -> u8 { x * 2 }\nconst K: u8 = 3;\npub fn a() -> u8 {\n    K\n}\n";
        let out = splice_items(LIB, part).unwrap();
        assert!(out.starts_with("// h\npub use x::*;\n\npub fn a() -> u8 {\n    K\n}\n\nfn helper(x: u8) -> u8 { x * 2 }\n\n/// B.\n#[inline]\npub fn b("));
        assert!(out.ends_with("    helper(y)\n}\n\nconst K: u8 = 3;\n"));
        // A part that is the reference's own items gives the reference back.
        assert_eq!(splice_items(LIB, &LIB[15..]).unwrap(), LIB);
    }

    #[test]
    fn splice_items_rejects_what_it_does_not_understand() {
        let cases = [
            (
                "// m\npub use y::*;\npub fn a() -> u8 {\n    2\n}\n",
                "line 2: `pub use y::*;`",
            ),
            (
                "// m\npub struct S {\n    x: u8,\n}\n",
                "line 2: `pub struct S {`",
            ),
            (
                "// m\n/// dangling\n\npub fn a() {}\n",
                "line 2: `/// dangling`",
            ),
            (
                "// m\npub fn a() -> u8 {\n    2\n}\n    stray\n",
                "line 5: `stray`",
            ),
            (
                "// m\npub fn a() -> u8 {\n    2\n",
                "line 2: `a` never ends",
            ),
            ("// m\nfn a() {}\nfn a() {}\n", "`a` stands twice"),
            ("// m\n// caught-by: 01/x\n", "no top-level"),
        ];
        for (part, error) in cases {
            let got = splice_items(LIB, part).unwrap_err();
            assert!(got.starts_with(error), "{part:?}: {got}");
        }
    }

    #[test]
    fn every_core_mutant_is_items_that_differ_from_the_reference() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let base = std::fs::read_to_string(root.join("solutions/src/lib.rs")).unwrap();
        let lines: Vec<&str> = base.lines().collect();
        let (reference, _) = items(&lines).unwrap();
        // Code without comments or whitespace.
        let code = |lines: &[&str]| -> String {
            let lines = lines.iter().filter(|l| !l.trim_start().starts_with("///"));
            let code = lines.map(|l| l.split("//").next().unwrap_or_default());
            code.flat_map(|l| l.split_whitespace()).collect()
        };
        let mut count = 0;
        let folders = crate::suites::REGISTRY
            .iter()
            .filter(|e| e.track == crate::suites::Track::Core)
            .map(|e| root.join(e.dir()).join("mutants"));
        for entry in folders.flat_map(|d| std::fs::read_dir(d).unwrap()) {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            splice_items(&base, &text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let part: Vec<&str> = text.lines().collect();
            for item in items(&part).unwrap().0 {
                let same = reference.iter().find(|r| r.name == item.name);
                let same = same.map(|r| code(&lines[r.start..r.end]));
                assert!(
                    same != Some(code(&part[item.start..item.end])),
                    "{}: `{}` is the reference's",
                    path.display(),
                    item.name
                );
            }
            count += 1;
        }
        assert!(count >= 100, "{count} core mutants");
    }
}
