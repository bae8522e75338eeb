//! The kit's documents name only what exists. Reads README.md, CONTRACT.md,
//! every `docs/**/*.md` and the `//!` head of `checks/judge/src/lib.rs`, and
//! checks four simple rules:
//!
//! - **Paths.** In a code span (`` `…` ``, split at spaces) and in a
//!   Markdown link's target, a word that looks like a file or folder of
//!   the kit must exist. It looks like one when it starts with `checks/`,
//!   `fixtures/`, `solutions/`, `student/`, `docs/`, `examples/` or `.ci/`
//!   (found from the kit's root), or ends in `.rs`, `.sh`, `.md`, `.json`,
//!   `.toml` or `.yml` (found from the kit's root, from the document's
//!   folder, or as the end of some file's path: `compile/mod.rs` is found
//!   as `checks/judge/src/compile/mod.rs`). `{a,b}` is expanded, `NN`
//!   stands for any two digits and `0N` for `01`…`09`. Not checked: words
//!   with other placeholders (`<`, `*`, `[`, `…`, `$`, a folder written in
//!   capitals such as `DIR/`), bare extensions (`.md`), absolute paths and
//!   URLs. A link to a Markdown file's `#anchor` (or to `#anchor` in the
//!   same file) must name one of its headings, slugged as GitHub does.
//! - **Commands.** In code spans and code blocks (fenced, or a line
//!   indented by four spaces that runs `cargo` or `lab.sh`), every
//!   `lab.sh COMMAND` (after any `--lang X`) names a command listed in
//!   `checks/judge/src/usage.txt`. Commands written in prose are not
//!   checked.
//! - **Modules.** In code spans, a path `a::b::c` whose first name is a
//!   crate of the kit (`crate` and `lab_judge` are the judge, `wire` is
//!   `lab_wire`, as the judge imports it) or a
//!   top-level module of `checks/judge/src` resolves, name by name, to a
//!   module file or folder (`b.rs`, `b/mod.rs`, `b/`), or else to an item
//!   declared in the module reached so far: a line declaring a `fn`,
//!   `struct`, `enum`, `const`, `static`, `trait`, `type`, `union`, `mod`
//!   or `macro_rules!` of that name, or a `use` that brings it (for glob
//!   re-exports, a declaration in a file of the module's own folder counts
//!   too). Checking stops at the first item: what follows it (a method, a
//!   variant) is not checked. Names holding `NN` are placeholders; paths
//!   starting anywhere else (`std::`, `Gen::fork`) are not checked.
//! - **The judge's own map.** In the `//!` head of `lib.rs`, every code
//!   span that is one plain lower-case name must be a module `lib.rs`
//!   declares.
//!
//! `EXCEPTIONS` lists the few words that look like kit paths but are not,
//! and the module paths this test cannot resolve, each with its reason. Each rule is proved able to fail by a unit test
//! on a small text at the end of this file.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// Words that look like kit paths but name something else, and module
/// paths this test cannot resolve; each with its reason.
const EXCEPTIONS: &[(&str, &str)] = &[
    (
        ".lab/state.json",
        "the learner's state, written at run time",
    ),
    ("summary.json", "a file `grade` writes"),
    ("result.json", "a file `grade` writes"),
    ("similarity.json", "a file `grade` writes"),
    ("results.json", "a file `grade` or Gradescope writes"),
    ("gradescope/results.json", "a file `grade` writes"),
    ("exercism/results.json", "a file `grade` writes"),
    ("prairielearn/results.json", "a file `grade` writes"),
    ("info.json", "a file `prairielearn DIR` writes"),
    (
        "fixtures/visibility.json",
        "the instructor's own file, read by `grade` when present",
    ),
    ("regrade.json", "a file `grade --previous` writes"),
    ("state.json", "the learner's state, written at run time"),
    (
        "student/src/advanced.rs",
        "the learner's bonus file, created by `reset --advanced`",
    ),
    (
        ".cargo/config.toml",
        "cargo's configuration, which the kit does not ship (a slot copies it when present)",
    ),
    (
        "credentials.toml",
        "cargo's file in CARGO_HOME, which a build never reads",
    ),
    (
        "../advanced.rs",
        "the `[lib] path` of solutions/advanced/Cargo.toml, relative to that file",
    ),
    (
        "wire::parse_outcome",
        "declared by lab-wire's `line_type!` macro, which this test does not expand",
    ),
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// Every file and folder of the kit, relative to its root, `/`-separated;
/// folders end in `/`. Build outputs and git's own files are left out.
fn kit_entries(root: &Path) -> BTreeSet<String> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeSet<String>) {
        let Ok(entries) = fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let rel = path.strip_prefix(root).unwrap().to_string_lossy();
            let rel = rel.replace('\\', "/");
            if ["target", ".git", ".lab"].contains(&rel.as_str()) {
                continue;
            }
            if path.is_dir() {
                out.insert(format!("{rel}/"));
                walk(root, &path, out);
            } else {
                out.insert(rel);
            }
        }
    }
    let mut out = BTreeSet::new();
    walk(root, root, &mut out);
    out
}

/// The documents read, relative to the root.
fn documents(root: &Path) -> Vec<String> {
    let mut docs = vec!["README.md".to_string(), "CONTRACT.md".to_string()];
    docs.extend(
        kit_entries(root)
            .into_iter()
            .filter(|p| p.starts_with("docs/") && p.ends_with(".md")),
    );
    docs
}

/// The `//!` lines at the top of a Rust file, without their `//!`.
fn module_head(source: &str) -> String {
    source
        .lines()
        .take_while(|l| l.starts_with("//!"))
        .map(|l| l.trim_start_matches("//!"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A document cut in three: the inline code spans, the fenced code blocks,
/// and the prose left over (code replaced by spaces).
struct Parts {
    spans: Vec<String>,
    fenced: Vec<String>,
    prose: String,
}

fn parts(text: &str) -> Parts {
    let mut fenced = Vec::new();
    let mut rest = String::new();
    let mut fence: Option<String> = None;
    let (mut previous_blank, mut previous_code) = (true, false);
    for line in text.lines() {
        let trimmed = line.trim_start();
        if let Some(open) = &fence {
            if trimmed.starts_with(open.as_str()) {
                fence = None;
            } else {
                fenced.push(line.to_string());
            }
            rest.push('\n');
            continue;
        }
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fence = Some(trimmed[..3].to_string());
            rest.push('\n');
            continue;
        }
        // An indented code block: Markdown's rule wants a blank line (or
        // another such line) before it, and a list's continuation is
        // indented too, so only the kit's one style counts: four spaces and
        // a command.
        let command = trimmed.starts_with("cargo ") || trimmed.contains("lab.sh ");
        if line.starts_with("    ") && command && (previous_blank || previous_code) {
            fenced.push(line.to_string());
            rest.push('\n');
            previous_code = true;
            previous_blank = false;
            continue;
        }
        previous_code = false;
        previous_blank = trimmed.is_empty();
        rest.push_str(line);
        rest.push('\n');
    }
    let mut spans = Vec::new();
    let mut prose = String::new();
    let bytes = rest.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'`' {
            let run = bytes[i..].iter().take_while(|&&b| b == b'`').count();
            let delimiter = "`".repeat(run);
            let body_start = i + run;
            let mut j = body_start;
            let mut close = None;
            while let Some(found) = rest[j..].find(&delimiter) {
                let at = j + found;
                let len = bytes[at..].iter().take_while(|&&b| b == b'`').count();
                if len == run {
                    close = Some(at);
                    break;
                }
                j = at + len;
            }
            match close {
                Some(at) => {
                    spans.push(rest[body_start..at].replace('\n', " ").trim().to_string());
                    prose.push(' ');
                    i = at + run;
                }
                None => {
                    prose.push_str(&delimiter);
                    i = body_start;
                }
            }
        } else {
            let ch = rest[i..].chars().next().unwrap();
            prose.push(ch);
            i += ch.len_utf8();
        }
    }
    Parts {
        spans,
        fenced,
        prose,
    }
}

/// The targets of Markdown links `[text](target)` in prose.
fn link_targets(prose: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = prose;
    while let Some(at) = rest.find("](") {
        let after = &rest[at + 2..];
        if let Some(end) = after.find(')') {
            let target = after[..end].split_whitespace().next().unwrap_or("");
            out.push(target.to_string());
            rest = &after[end..];
        } else {
            break;
        }
    }
    out
}

/// GitHub's anchor for a heading.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

fn anchors(text: &str) -> BTreeSet<String> {
    let mut in_fence = false;
    let mut out = BTreeSet::new();
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if !in_fence && line.starts_with('#') {
            out.insert(slug(line.trim_start_matches('#')));
        }
    }
    out
}

/// `a{b,c}d` → `abd`, `acd` (one pair of braces at a time).
fn expand_braces(word: &str) -> Vec<String> {
    let (Some(open), Some(close)) = (word.find('{'), word.find('}')) else {
        return vec![word.to_string()];
    };
    if close < open {
        return vec![word.to_string()];
    }
    word[open + 1..close]
        .split(',')
        .flat_map(|alt| expand_braces(&format!("{}{alt}{}", &word[..open], &word[close + 1..])))
        .collect()
}

const PREFIXES: &[&str] = &[
    "checks/",
    "fixtures/",
    "solutions/",
    "student/",
    "docs/",
    "examples/",
    ".ci/",
];
const EXTENSIONS: &[&str] = &[".rs", ".sh", ".md", ".json", ".toml", ".yml"];

/// The words of a code span that look like kit paths, cleaned of the
/// punctuation around them.
fn path_words(span: &str) -> Vec<String> {
    span.split_whitespace()
        .map(|w| {
            w.trim_start_matches(['(', '"', '\'', '['])
                .trim_end_matches([',', '.', ';', ':', ')', '"', '\'', ']'])
                .to_string()
        })
        .filter(|w| looks_like_kit_path(w))
        .collect()
}

fn looks_like_kit_path(word: &str) -> bool {
    let base = word.split('#').next().unwrap_or("");
    let bare_extension = base.starts_with('.') && !base[1..].contains(['.', '/']);
    !base.is_empty()
        && !bare_extension
        && !base.contains("://")
        && !base.starts_with('/')
        && !base.starts_with('~')
        && !base.starts_with("../../")
        && (PREFIXES.iter().any(|p| base.starts_with(p))
            || EXTENSIONS.iter().any(|e| base.ends_with(e)))
}

/// Whether `word` names an entry of the kit, read from a document in
/// `doc_dir` (relative to the root, `""` for the root).
fn path_exists(word: &str, doc_dir: &str, kit: &BTreeSet<String>) -> bool {
    if ['<', '*', '[', '…', '$', '%']
        .iter()
        .any(|c| word.contains(*c))
        || word.contains("...")
    {
        return true; // a placeholder, not checked
    }
    if EXCEPTIONS.iter().any(|(e, _)| *e == word) {
        return true;
    }
    let folders = word.trim_end_matches('/').split('/').rev().skip(1);
    if folders
        .into_iter()
        .any(|f| f.len() > 1 && f.chars().all(|c| c.is_ascii_uppercase()))
    {
        return true; // `DIR/…`, `FOLDER/…`: a placeholder
    }
    expand_braces(word).iter().all(|w| {
        if w.contains("NN") {
            return (0..100)
                .any(|n| one_exists(&w.replace("NN", &format!("{n:02}")), doc_dir, kit));
        }
        if w.contains("0N") {
            return (1..10).any(|n| one_exists(&w.replace("0N", &format!("0{n}")), doc_dir, kit));
        }
        one_exists(w, doc_dir, kit)
    })
}

fn one_exists(word: &str, doc_dir: &str, kit: &BTreeSet<String>) -> bool {
    let word = word.trim_start_matches("./");
    let as_dir = format!("{}/", word.trim_end_matches('/'));
    let has = |p: &str| kit.contains(p) || kit.contains(&format!("{}/", p.trim_end_matches('/')));
    if has(word) || has(&as_dir) {
        return true;
    }
    if let Some(p) = normalise(&format!("{doc_dir}/{word}")) {
        if has(&p) {
            return true;
        }
    }
    if PREFIXES.iter().any(|p| word.starts_with(p)) {
        return false;
    }
    let tail = format!("/{}", word.trim_end_matches('/'));
    kit.iter().any(|p| p.trim_end_matches('/').ends_with(&tail))
}

/// `a/b/../c` → `a/c`; `None` when it climbs above the root.
fn normalise(path: &str) -> Option<String> {
    let mut out: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                out.pop()?;
            }
            p => out.push(p),
        }
    }
    let mut s = out.join("/");
    if path.ends_with('/') {
        s.push('/');
    }
    Some(s)
}

/// Problems with paths and links in one document.
fn path_problems(doc: &str, text: &str, kit: &BTreeSet<String>, root: &Path) -> Vec<String> {
    let doc_dir = doc.rsplit_once('/').map(|(d, _)| d).unwrap_or("");
    let p = parts(text);
    let mut out = Vec::new();
    for span in &p.spans {
        for word in path_words(span) {
            if !path_exists(&word, doc_dir, kit) {
                out.push(format!("{doc}: `{word}` is no file or folder of the kit"));
            }
        }
    }
    for target in link_targets(&p.prose) {
        if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        let (file, anchor) = match target.split_once('#') {
            Some((f, a)) => (f, Some(a)),
            None => (target.as_str(), None),
        };
        let file_path = if file.is_empty() {
            Some(doc.to_string())
        } else {
            normalise(&format!("{doc_dir}/{file}"))
        };
        let Some(file_path) = file_path else {
            out.push(format!("{doc}: link `{target}` leaves the kit"));
            continue;
        };
        let exists = kit.contains(&file_path)
            || kit.contains(&format!("{}/", file_path.trim_end_matches('/')));
        if !exists {
            out.push(format!("{doc}: link `{target}` names no file of the kit"));
            continue;
        }
        if let (Some(anchor), true) = (anchor, file_path.ends_with(".md")) {
            let target_text = if file.is_empty() {
                text.to_string()
            } else {
                fs::read_to_string(root.join(&file_path)).unwrap_or_default()
            };
            if !anchors(&target_text).contains(anchor) {
                out.push(format!("{doc}: link `{target}`: no such heading"));
            }
        }
    }
    out
}

/// The commands `usage.txt` lists: the first word of each indented line
/// that starts with a lower-case word.
fn usage_commands(usage: &str) -> BTreeSet<String> {
    usage
        .lines()
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|w| w.chars().all(|c| c.is_ascii_lowercase() || c == '-'))
        .map(str::to_string)
        .collect()
}

/// Problems with `lab.sh COMMAND` in one document's code.
fn command_problems(doc: &str, text: &str, commands: &BTreeSet<String>) -> Vec<String> {
    let p = parts(text);
    let mut out = Vec::new();
    for code in p.spans.iter().chain(&p.fenced) {
        let words: Vec<&str> = code
            .split_whitespace()
            .map(|w| w.trim_start_matches(['(', '`', '"', '\'']))
            .collect();
        for (i, w) in words.iter().enumerate() {
            if !(*w == "lab.sh" || w.ends_with("/lab.sh")) {
                continue;
            }
            let mut k = i + 1;
            while let Some(next) = words.get(k) {
                if *next == "--lang" {
                    k += 2;
                } else if next.starts_with("--lang=") {
                    k += 1;
                } else {
                    break;
                }
            }
            let Some(command) = words.get(k) else {
                continue;
            };
            let command = command.trim_end_matches([',', '.', ';', ')', '"', '\'']);
            if command.starts_with('-')
                || command.is_empty()
                || !command.chars().next().unwrap().is_ascii_lowercase()
            {
                continue; // an option (`--help`) or a placeholder (`COMMAND`)
            }
            if !commands.contains(command) {
                out.push(format!(
                    "{doc}: `lab.sh {command}` is no command of usage.txt"
                ));
            }
        }
    }
    out
}

/// Where the kit's crates keep their sources, by the name code uses.
const CRATES: &[(&str, &str)] = &[
    ("crate", "checks/judge/src"),
    ("lab_judge", "checks/judge/src"),
    ("lab_api", "checks/api/src"),
    ("lab_wire", "checks/wire/src"),
    ("wire", "checks/wire/src"), // the judge's `use lab_wire as wire`
    ("lab_scripts", "checks/scripts/src"),
    ("lab_harness", "checks/harness/src"),
    ("lab_runner_core", "checks/runner-core/src"),
];

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The `a::b::c` paths in a code span.
fn module_paths(span: &str) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let chars: Vec<char> = span.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        if is_ident_char(chars[i])
            && (i == 0 || !(is_ident_char(chars[i - 1]) || chars[i - 1] == ':'))
        {
            let mut segments = Vec::new();
            let mut j = i;
            loop {
                let start = j;
                while j < chars.len() && is_ident_char(chars[j]) {
                    j += 1;
                }
                segments.push(chars[start..j].iter().collect::<String>());
                if chars.get(j) == Some(&':')
                    && chars.get(j + 1) == Some(&':')
                    && chars.get(j + 2).is_some_and(|c| is_ident_char(*c))
                {
                    j += 2;
                } else {
                    break;
                }
            }
            if segments.len() > 1 {
                out.push(segments);
            }
            i = j.max(i + 1);
        } else {
            i += 1;
        }
    }
    out
}

/// The top-level modules `lib.rs` declares.
fn judge_modules(root: &Path) -> BTreeSet<String> {
    let lib = fs::read_to_string(root.join("checks/judge/src/lib.rs")).unwrap();
    lib.lines()
        .filter_map(|l| {
            l.trim()
                .strip_prefix("pub mod ")
                .or(l.trim().strip_prefix("mod "))
        })
        .map(|l| l.trim_end_matches(';').trim().to_string())
        .collect()
}

/// Whether `source` declares or brings in `name`.
fn declares(source: &str, name: &str) -> bool {
    let word_at = |line: &str, prefix: &str| {
        line.match_indices(prefix).any(|(at, _)| {
            let before_ok = at == 0 || !line[..at].ends_with(is_ident_char);
            let after = &line[at + prefix.len()..];
            before_ok && after.starts_with(name) && !after[name.len()..].starts_with(is_ident_char)
        })
    };
    let keywords = [
        "fn ",
        "struct ",
        "enum ",
        "const ",
        "static ",
        "trait ",
        "type ",
        "mod ",
        "macro_rules! ",
        "union ",
    ];
    if source
        .lines()
        .any(|l| keywords.iter().any(|k| word_at(l, k)))
    {
        return true;
    }
    // A `use` (or `pub use`) statement naming it, up to its `;`.
    let mut rest = source;
    while let Some(at) = rest.find("use ") {
        let after = &rest[at + 4..];
        let end = after.find(';').unwrap_or(after.len());
        let statement = &after[..end];
        let named = statement
            .split(|c: char| !is_ident_char(c))
            .any(|w| w == name);
        if named {
            return true;
        }
        rest = &after[end..];
    }
    false
}

/// Problems with one `a::b::c` path, or `None` when it is not the kit's.
fn module_problem(segments: &[String], root: &Path, modules: &BTreeSet<String>) -> Option<String> {
    if segments.iter().any(|s| s.contains("NN")) {
        return None;
    }
    let whole = segments.join("::");
    if EXCEPTIONS.iter().any(|(e, _)| *e == whole) {
        return None;
    }
    let (mut dir, rest) = if let Some((_, src)) = CRATES.iter().find(|(c, _)| *c == segments[0]) {
        (root.join(src), &segments[1..])
    } else if modules.contains(&segments[0]) {
        (root.join("checks/judge/src"), segments)
    } else {
        return None;
    };
    // The module reached so far: its file (if any) and the folder of its
    // children.
    let mut file = if dir.join("lib.rs").exists() {
        Some(dir.join("lib.rs"))
    } else {
        None
    };
    for segment in rest {
        let as_file = dir.join(format!("{segment}.rs"));
        let as_mod = dir.join(segment).join("mod.rs");
        let as_dir = dir.join(segment);
        if as_file.is_file() {
            file = Some(as_file);
            dir = as_dir;
        } else if as_mod.is_file() {
            file = Some(as_mod);
            dir = as_dir;
        } else if as_dir.is_dir() {
            file = None;
            dir = as_dir;
        } else {
            let in_file = |f: &Path| fs::read_to_string(f).is_ok_and(|s| declares(&s, segment));
            let found = file.as_deref().is_some_and(in_file)
                || fs::read_dir(&dir).is_ok_and(|entries| {
                    entries.flatten().any(|e| {
                        e.path().extension().is_some_and(|x| x == "rs") && in_file(&e.path())
                    })
                });
            return if found {
                None
            } else {
                Some(format!(
                    "`{}`: no module or item `{segment}`",
                    segments.join("::")
                ))
            };
        }
    }
    None
}

fn all_module_problems(
    doc: &str,
    text: &str,
    root: &Path,
    modules: &BTreeSet<String>,
) -> Vec<String> {
    parts(text)
        .spans
        .iter()
        .flat_map(|span| module_paths(span))
        .filter_map(|segments| module_problem(&segments, root, modules))
        .map(|problem| format!("{doc}: {problem}"))
        .collect()
}

/// Problems with the plain names in the judge's own map.
fn map_problems(head: &str, modules: &BTreeSet<String>) -> Vec<String> {
    parts(head)
        .spans
        .iter()
        .filter(|s| !s.is_empty() && s.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
        .filter(|s| !modules.contains(s.as_str()))
        .map(|s| format!("lib.rs's map: `{s}` is no module of the judge"))
        .collect()
}

#[test]
fn the_documents_name_only_what_exists() {
    let root = root();
    let kit = kit_entries(&root);
    let commands =
        usage_commands(&fs::read_to_string(root.join("checks/judge/src/usage.txt")).unwrap());
    let modules = judge_modules(&root);
    let lib_head = module_head(&fs::read_to_string(root.join("checks/judge/src/lib.rs")).unwrap());
    let mut texts: Vec<(String, String)> = documents(&root)
        .into_iter()
        .map(|d| {
            let text = fs::read_to_string(root.join(&d)).unwrap();
            (d, text)
        })
        .collect();
    texts.push(("checks/judge/src/lib.rs".into(), lib_head.clone()));
    let mut problems = Vec::new();
    for (doc, text) in &texts {
        problems.extend(path_problems(doc, text, &kit, &root));
        problems.extend(command_problems(doc, text, &commands));
        problems.extend(all_module_problems(doc, text, &root, &modules));
    }
    problems.extend(map_problems(&lib_head, &modules));
    assert!(
        problems.is_empty(),
        "{} problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

// Each rule, shown failing (and passing) on a small text.

#[test]
fn a_missing_path_a_broken_link_and_a_missing_anchor_are_found() {
    let root = root();
    let kit = kit_entries(&root);
    let text = "See `checks/judge/src/no_such.rs`, `checks/judge/src/suites/sNN/cases.json`, \
                `compile/mod.rs`, `checks/judge/src/suites/sNN/words.{en,zh}.json`, \
                [the map](MAINTAINERS.md#no-such-heading), [x](gone.md) \
                and [y](../CONTRACT.md).\n";
    let problems = path_problems("docs/page.md", text, &kit, &root);
    assert_eq!(problems.len(), 3, "{problems:#?}");
    assert!(problems[0].contains("no_such.rs"));
    assert!(problems[1].contains("no such heading"));
    assert!(problems[2].contains("gone.md"));
    // `{en,zh}` expanded: one missing alternative is enough to fail.
    let problems = path_problems(
        "docs/page.md",
        "`checks/judge/src/suites/sNN/words.{en,fr}.json`",
        &kit,
        &root,
    );
    assert_eq!(problems.len(), 1, "{problems:#?}");
}

#[test]
fn an_unknown_command_is_found() {
    let commands: BTreeSet<String> = ["check", "selftest"].map(String::from).into();
    let text = "Run `./lab.sh check 03`, `./lab.sh --lang zh selftest`, \
                `lab.sh COMMAND --help` and\n\n```bash\n./lab.sh build\n```\n\n\
                or, indented:\n\n    ./lab.sh frobnicate --all\n";
    let problems = command_problems("x.md", text, &commands);
    assert_eq!(
        problems,
        [
            "x.md: `lab.sh build` is no command of usage.txt",
            "x.md: `lab.sh frobnicate` is no command of usage.txt"
        ]
    );
    let real =
        usage_commands(&fs::read_to_string(root().join("checks/judge/src/usage.txt")).unwrap());
    for c in [
        "check", "show", "try", "grade", "bench", "selftest", "new-step", "help",
    ] {
        assert!(real.contains(c), "{c} not read from usage.txt: {real:?}");
    }
}

#[test]
fn a_module_path_that_resolves_nowhere_is_found() {
    let root = root();
    let modules = judge_modules(&root);
    let text = "`compile::runners`, `suites::s13`, `lab_wire::Live::of_step`, \
                `crate::platform::supervise`, `Gen::fork`, `std::fs::nothing`, \
                `report::nowhere`, `lab_api::advanced::NoSuchType`, `build::runners`";
    let problems = all_module_problems("x.md", text, &root, &modules);
    assert_eq!(problems.len(), 2, "{problems:#?}");
    assert!(problems[0].contains("report::nowhere"));
    assert!(problems[1].contains("NoSuchType"));
    // `build` is no module of the judge: not the kit's path, not checked
    // here, but the map rule below finds it in lib.rs's head.
    assert_eq!(
        map_problems("`cli` parses, `build` compiles, `render` words", &modules),
        ["lib.rs's map: `build` is no module of the judge"]
    );
}
