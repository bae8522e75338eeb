//! Linking the core runner again without rustc. The core runner's `main`
//! only hands the learner's eight functions to `lab_runner_core`, so once
//! rustc has compiled it, a new build of the learner's crate needs only the
//! link: the same linker command with the same objects, and the new
//! `libstudent.rlib` in its place. That spares a compiler start, the
//! reading of every library's metadata and the main's codegen at each save
//! and for each submission graded.
//!
//! Why the old objects stay right: the main refers to each of the learner's
//! functions by its symbol, and rustc's (legacy) symbol names hash the
//! function's path and its signature. A function moved, renamed, made
//! generic or given another signature has another name, which the new
//! crate's symbol table shows: no kept link fits, and rustc builds the
//! main and says what the learner sees. Kept only when the
//! main's objects define none of the learner's code themselves (no generic
//! or inlined copy of it), and used only when the learner's sources name no
//! attribute that acts at link time (an allocator, an exported or placed
//! symbol, a native library), whose effect rustc's link could differ in.

use super::files::{digest, own_file};
use super::recipe::Recipe;
use super::unit::Unit;
use crate::compile::{jail_reading, BuildError};
use crate::limits::Limits;
use crate::spawn::{self, Exit};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The folder, beside the core runner, that keeps its links: one folder
/// each, named by the learner's symbols it needs.
const KEPT: &str = "link";

/// The file in a kept link's folder that says how to link.
const SAVED: &str = "link.json";

/// Most links kept. rustc's symbol names also hash the numbering of
/// anonymous lifetimes, which a closure taking a reference in the body of
/// a function shifts: submissions of one class need a few different sets
/// of names. The oldest link goes first.
const MOST_KEPT: usize = 6;

/// Words whose attribute acts at link time, or on how a function is called
/// without changing its signature (`track_caller` adds a hidden argument;
/// a safe `target_feature` function may not become a function pointer): a
/// learner's source naming one (outside a comment) is always built by
/// rustc.
const LINK_LEVEL: [&str; 13] = [
    "track_caller",
    "target_feature",
    "global_allocator",
    "panic_handler",
    "no_mangle",
    "export_name",
    "link_section",
    "link_name",
    "linkage",
    "used",
    "link",
    "global_asm",
    "naked",
];

/// A kept link: for which recipe and arguments, the learner's symbols it
/// needs, and the command.
#[derive(Debug, Serialize, Deserialize, PartialEq)]
struct Saved {
    key: String,
    needs: Vec<String>,
    env: Vec<(String, String)>,
    program: String,
    args: Vec<String>,
}

/// What a kept link is good for: the recipe and rustc's arguments.
pub(super) fn key(recipe: &Recipe, args: &[String]) -> String {
    let recipe = serde_json::to_string(recipe).unwrap_or_default();
    digest(format!("{recipe}\n{}", args.join("\n")).as_bytes())
}

/// Links the core runner in the build folder `out` with a link kept
/// beside it, if one for `key` needs only symbols the new
/// `libstudent.rlib` defines, and the learner's sources (in `dir`) allow
/// it. `Ok(false)`: not linked, to be built by rustc (a failed link
/// included).
pub(super) fn relink(
    key: &str,
    recipe: &Recipe,
    dir: &Path,
    target: &Path,
    out: &Path,
    limits: &Limits,
) -> Result<bool, BuildError> {
    let (binary, (rlib, student_d)) = (Unit::CoreMain.outputs(out).0, Unit::Student.outputs(out));
    let Some(folder) = binary.parent() else {
        return Ok(false);
    };
    let Some(defined) = std::fs::symlink_metadata(&rlib)
        .ok()
        .filter(|m| m.is_file())
        .and_then(|_| std::fs::read(&rlib).ok())
        .and_then(|bytes| archive_symbols(&bytes))
    else {
        return Ok(false);
    };
    let Some(saved) = kept_links(&folder.join(KEPT))
        .into_iter()
        .map(|(_, saved)| saved)
        .find(|s| s.key == key && s.needs.iter().all(|n| defined.contains(n)))
    else {
        return Ok(false);
    };
    if !plain_sources(dir, &student_d) {
        return Ok(false);
    }
    let mut cmd = Command::new(&saved.program);
    cmd.current_dir(dir).args(&saved.args);
    let mut jail = jail_reading(dir, target, &[&recipe.deps], limits.confinement)?;
    for (name, value) in &saved.env {
        jail = jail.env(name, value);
    }
    let started = std::time::Instant::now();
    let (exit, _) = spawn::run_tool(&mut cmd, limits.build, Some(jail))?;
    crate::timing::phase("relink CoreMain", started);
    Ok(exit == Exit::Success && binary.is_file())
}

/// The links kept in `kept`, each with its folder, newest first.
fn kept_links(kept: &Path) -> Vec<(PathBuf, Saved)> {
    let Ok(entries) = std::fs::read_dir(kept) else {
        return Vec::new();
    };
    let mut links: Vec<(std::time::SystemTime, PathBuf, Saved)> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter(|e| !e.file_name().to_string_lossy().ends_with(".partial"))
        .filter_map(|e| {
            let saved = own_file(&e.path().join(SAVED))
                .and_then(|text| serde_json::from_str::<Saved>(&text).ok())?;
            let when = e.metadata().ok()?.modified().ok()?;
            Some((when, e.path(), saved))
        })
        .collect();
    links.sort_by_key(|l| std::cmp::Reverse(l.0));
    links.into_iter().map(|(_, p, s)| (p, s)).collect()
}

/// Whether every source of the learner's crate (listed in `student_d`,
/// rustc's dependency file, relative to `dir`) can be read and names no
/// attribute that acts at link time.
fn plain_sources(dir: &Path, student_d: &Path) -> bool {
    let Some(sources) = own_file(student_d).map(|d| super::note::sources_read(&d)) else {
        return false;
    };
    sources.iter().all(|source| {
        let at = dir.join(source);
        std::fs::metadata(&at)
            .ok()
            .filter(|m| m.is_file())
            .and_then(|_| std::fs::read(&at).ok())
            .is_some_and(|text| !names_link_level(&String::from_utf8_lossy(&text)))
    })
}

/// Empties a core runner's folder `folder` for a slot's next subject, but
/// for its kept links.
pub(super) fn clear(folder: &Path) -> std::io::Result<()> {
    for entry in std::fs::read_dir(folder)? {
        let entry = entry?;
        let kept = entry.file_name() == KEPT && entry.file_type().is_ok_and(|t| t.is_dir());
        if !kept {
            remove(&entry.path())?;
        }
    }
    Ok(())
}

/// After rustc built the core runner in the build folder `out` with its
/// objects kept (`-C save-temps`) and printed its linker command
/// (`printed`): keeps the objects and the command beside the runner for
/// [`relink`], when the objects define none of the learner's code, in a
/// folder named by the learner's symbols they need (replacing the link
/// kept for the same symbols, and the oldest beyond [`MOST_KEPT`]), and
/// removes what else rustc left there. Nothing is kept when anything is
/// not as expected, or when the learner's sources (in `dir`) name an
/// attribute that acts at link time.
pub(super) fn keep(key: String, printed: &str, dir: &Path, out: &Path) {
    let (binary, student_d) = (Unit::CoreMain.outputs(out).0, Unit::Student.outputs(out).1);
    let binary = binary.as_path();
    if let Some(folder) = binary.parent() {
        if plain_sources(dir, &student_d) {
            let _ = save(key, printed, binary, folder);
        }
    }
    tidy(binary);
}

/// Removes what rustc left beside `binary` besides the binary, its
/// dependency file, its note and the kept links.
pub(super) fn tidy(binary: &Path) {
    let (Some(folder), Some(name)) = (binary.parent(), binary.file_name()) else {
        return;
    };
    let name = name.to_string_lossy();
    let keep = [
        name.to_string(),
        format!("{name}.d"),
        format!("{name}.built"),
        KEPT.to_string(),
    ];
    if let Ok(entries) = std::fs::read_dir(folder) {
        for entry in entries.flatten() {
            if !keep
                .iter()
                .any(|k| entry.file_name().to_string_lossy() == *k)
            {
                let _ = remove(&entry.path());
            }
        }
    }
}

fn remove(path: &Path) -> std::io::Result<()> {
    crate::compile::remove(path)
}

/// Keeps the link rustc printed: every file the command names in `folder`
/// (rustc's objects of the main, its temporary folder) copied into a
/// folder of [`KEPT`], and the command naming the copies.
fn save(key: String, printed: &str, binary: &Path, folder: &Path) -> Option<()> {
    let Printed { env, mut words } = parse_printed(printed)?;
    if words.is_empty() {
        return None;
    }
    let program = words.remove(0);
    let program = if program.contains('/') {
        program
    } else {
        let path = &env.iter().find(|(k, _)| k == "PATH")?.1;
        std::env::split_paths(path)
            .map(|dir| dir.join(&program))
            .find(|p| p.is_file())?
            .to_string_lossy()
            .into_owned()
    };
    // The files to keep, read first: what they need of the learner's code
    // names the folder they go to.
    let mut files = Vec::new();
    let mut needs = Vec::new();
    for word in &words {
        let path = Path::new(word);
        let Some(rel) = path.strip_prefix(folder).ok().filter(|_| path != binary) else {
            continue;
        };
        // A folder rustc names but did not make (one for libraries it
        // would write) stays unmade.
        let Ok(meta) = std::fs::symlink_metadata(path) else {
            continue;
        };
        if meta.is_dir() {
            files.push((rel.to_path_buf(), None));
        } else if meta.is_file() {
            let bytes = std::fs::read(path).ok()?;
            let symbols = learners_symbols(&bytes)?;
            if symbols.defines {
                return None;
            }
            needs.extend(symbols.needs);
            files.push((rel.to_path_buf(), Some(bytes)));
        } else {
            return None;
        }
    }
    needs.sort();
    needs.dedup();
    // The main calls the learner's functions: objects that need none of
    // them were not read as they should be.
    if needs.is_empty() {
        return None;
    }
    let links = folder.join(KEPT);
    let name = digest(needs.join("\n").as_bytes());
    let (kept, partial) = (links.join(&name), links.join(format!("{name}.partial")));
    let _ = remove(&partial);
    std::fs::create_dir_all(&partial).ok()?;
    let made = (|| {
        for (rel, bytes) in &files {
            let copy = partial.join(rel);
            match bytes {
                None => std::fs::create_dir_all(&copy).ok()?,
                Some(bytes) => {
                    std::fs::create_dir_all(copy.parent()?).ok()?;
                    std::fs::write(&copy, bytes).ok()?;
                }
            }
        }
        let args = words
            .into_iter()
            .map(|word| {
                let path = Path::new(&word);
                match path.strip_prefix(folder) {
                    Ok(rel) if path != binary => kept.join(rel).to_string_lossy().into_owned(),
                    _ => word,
                }
            })
            .collect();
        let saved = Saved {
            key,
            needs,
            env,
            program,
            args,
        };
        let text = serde_json::to_string(&saved).ok()?;
        std::fs::write(partial.join(SAVED), text).ok()?;
        if std::fs::symlink_metadata(&kept).is_ok() {
            remove(&kept).ok()?;
        }
        std::fs::rename(&partial, &kept).ok()
    })();
    if made.is_none() {
        let _ = remove(&partial);
        return None;
    }
    // The oldest beyond MOST_KEPT go, and anything else there.
    let fresh: Vec<PathBuf> = kept_links(&links)
        .into_iter()
        .take(MOST_KEPT)
        .map(|(dir, _)| dir)
        .collect();
    for entry in std::fs::read_dir(&links).ok()?.flatten() {
        if !fresh.contains(&entry.path()) {
            let _ = remove(&entry.path());
        }
    }
    Some(())
}

/// A linker command as rustc prints it.
#[derive(Debug, PartialEq)]
struct Printed {
    /// The variables it sets.
    env: Vec<(String, String)>,
    /// The program, then its arguments.
    words: Vec<String>,
}

/// rustc's printed linker command (`--print link-args`): the variables it
/// sets, then the program and its arguments, each as a Rust string
/// literal would be written.
fn parse_printed(printed: &str) -> Option<Printed> {
    let mut env = Vec::new();
    let mut words = Vec::new();
    let mut chars = printed.trim().chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        match chars.peek() {
            None => break,
            Some('"') => {
                chars.next();
                words.push(literal(&mut chars)?);
            }
            Some(_) if words.is_empty() => {
                let mut name = String::new();
                while let Some(&c) = chars.peek() {
                    if c == '=' {
                        break;
                    }
                    if !(c.is_ascii_alphanumeric() || c == '_') {
                        return None;
                    }
                    name.push(c);
                    chars.next();
                }
                chars.next();
                if chars.next() != Some('"') {
                    return None;
                }
                env.push((name, literal(&mut chars)?));
            }
            Some(_) => return None,
        }
    }
    Some(Printed { env, words })
}

/// The rest of a string literal after its opening quote, unescaped.
fn literal(chars: &mut std::iter::Peekable<std::str::Chars>) -> Option<String> {
    let mut out = String::new();
    loop {
        match chars.next()? {
            '"' => return Some(out),
            '\\' => match chars.next()? {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'r' => out.push('\r'),
                '0' => out.push('\0'),
                '\\' => out.push('\\'),
                '"' => out.push('"'),
                '\'' => out.push('\''),
                'u' => {
                    if chars.next()? != '{' {
                        return None;
                    }
                    let mut hex = String::new();
                    loop {
                        match chars.next()? {
                            '}' => break,
                            c => hex.push(c),
                        }
                    }
                    out.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
                }
                _ => return None,
            },
            c => out.push(c),
        }
    }
}

/// Whether `source` names, outside its comments, one of [`LINK_LEVEL`] as
/// a word.
fn names_link_level(source: &str) -> bool {
    let bytes = source.as_bytes();
    let mut i = 0;
    let mut word = String::new();
    let mut found = false;
    let mut end_word = |word: &mut String| {
        if LINK_LEVEL.contains(&word.as_str()) {
            found = true;
        }
        word.clear();
    };
    while i < bytes.len() {
        let c = bytes[i];
        if let Some(end) = crate::sections::comment_end(bytes, i) {
            end_word(&mut word);
            i = end;
            continue;
        }
        if c.is_ascii_alphanumeric() || c == b'_' {
            word.push(c as char);
        } else {
            end_word(&mut word);
        }
        i += 1;
    }
    end_word(&mut word);
    found
}

/// What an object file of the main has to do with the learner's crate: its
/// symbols whose names hold `student`.
#[derive(Debug, PartialEq)]
struct LearnersSymbols {
    /// Whether it defines one: a copy of the learner's code.
    defines: bool,
    /// Those it needs from the learner's crate.
    needs: Vec<String>,
}

/// [`LearnersSymbols`] of the ELF object `bytes`; `None` when it is not a
/// 64-bit little-endian ELF file that can be read.
fn learners_symbols(bytes: &[u8]) -> Option<LearnersSymbols> {
    let u16_at = |at: usize| Some(u16::from_le_bytes(bytes.get(at..at + 2)?.try_into().ok()?));
    let u32_at = |at: usize| Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?));
    let u64_at =
        |at: usize| Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?) as usize);
    if bytes.get(..6)? != b"\x7fELF\x02\x01" {
        return None;
    }
    let (shoff, shentsize, shnum) = (u64_at(0x28)?, u16_at(0x3a)? as usize, u16_at(0x3c)?);
    let section = |i: usize| shoff.checked_add(i.checked_mul(shentsize)?);
    let mut found = LearnersSymbols {
        defines: false,
        needs: Vec::new(),
    };
    for i in 0..shnum as usize {
        let at = section(i)?;
        // SHT_SYMTAB
        if u32_at(at + 4)? != 2 {
            continue;
        }
        let (offset, size, link) = (u64_at(at + 0x18)?, u64_at(at + 0x20)?, u32_at(at + 0x28)?);
        let strings = section(link as usize)?;
        let (str_off, str_size) = (u64_at(strings + 0x18)?, u64_at(strings + 0x20)?);
        let names = bytes.get(str_off..str_off.checked_add(str_size)?)?;
        for sym in bytes
            .get(offset..offset.checked_add(size)?)?
            .chunks_exact(24)
        {
            let name_at = u32::from_le_bytes(sym[0..4].try_into().ok()?) as usize;
            let shndx = u16::from_le_bytes(sym[6..8].try_into().ok()?);
            let name = names.get(name_at..)?;
            let name = &name[..name.iter().position(|&b| b == 0)?];
            if !name.windows(7).any(|w| w == b"student") {
                continue;
            }
            if shndx != 0 {
                found.defines = true;
            } else {
                found.needs.push(String::from_utf8(name.to_vec()).ok()?);
            }
        }
    }
    Some(found)
}

/// The symbols an archive (an rlib) defines, from its symbol table (its
/// first member, `/` or `/SYM64/`, as GNU ar and rustc write it); `None`
/// when it has none that can be read.
fn archive_symbols(bytes: &[u8]) -> Option<std::collections::HashSet<String>> {
    if bytes.get(..8)? != b"!<arch>\n" {
        return None;
    }
    let header = bytes.get(8..68)?;
    let name = std::str::from_utf8(&header[..16]).ok()?.trim_end();
    let width = match name {
        "/" => 4,
        "/SYM64/" => 8,
        _ => return None,
    };
    let size: usize = std::str::from_utf8(&header[48..58])
        .ok()?
        .trim()
        .parse()
        .ok()?;
    let table = bytes.get(68..68usize.checked_add(size)?)?;
    let count = table.get(..width)?.iter().fold(0usize, |n, &b| {
        n.saturating_mul(256).saturating_add(b as usize)
    });
    let names = table.get(width.checked_add(count.checked_mul(width)?)?..)?;
    let all: Vec<&[u8]> = names.split(|&b| b == 0).take(count).collect();
    if all.len() < count {
        return None;
    }
    all.into_iter()
        .map(|n| String::from_utf8(n.to_vec()).ok())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_printed_linker_command_reads_back_as_its_variables_and_words() {
        let printed = r#"LC_ALL="C" PATH="/a b:/c" VSLANG="1033" "cc" "-m64" "/o/x \"y\".o" "-Wl,a\\b" "\u{e9}t\u{e9}""#;
        let Printed { env, words } = parse_printed(printed).unwrap();
        assert_eq!(
            env,
            [
                ("LC_ALL".to_string(), "C".to_string()),
                ("PATH".into(), "/a b:/c".into()),
                ("VSLANG".into(), "1033".into())
            ]
        );
        assert_eq!(words, ["cc", "-m64", "/o/x \"y\".o", "-Wl,a\\b", "été"]);
        assert_eq!(parse_printed("cc -m64"), None);
        assert_eq!(parse_printed(r#""cc" "unended"#), None);
        assert_eq!(parse_printed(r#"A="1" "cc" B="2""#), None);
    }

    #[test]
    fn an_attribute_that_acts_at_link_time_is_noticed_outside_comments() {
        for named in [
            "#[no_mangle]\npub fn f() {}",
            "#[unsafe(no_mangle)] pub fn f() {}",
            "#[used]\nstatic X: u8 = 0;",
            "#[cfg_attr(all(), link_section = \".init_array\")] static F: fn() = f;",
            "#[global_allocator] static A: System = System;",
            "#[link(name = \"m\")] extern \"C\" {}",
            "std::arch::global_asm!(\"\");",
            "macro_rules! m { ($a:meta) => { #[$a] static X: u8 = 0; } } m!(used);",
            "/* a */ #[export_name = \"x\"] fn f() {}",
            "#[track_caller]\npub fn retryable(status: u16) -> bool { true }",
            "#[target_feature(enable = \"avx2\")] pub fn remaining(a: f64, b: f64) -> f64 { a - b }",
        ] {
            assert!(names_link_level(named), "{named}");
        }
        for plain in [
            "pub fn retryable(status: u16) -> bool { status == 503 }",
            "// used by the caller; link to the docs\nfn f() {}",
            "/* no_mangle /* nested link */ used */ fn f() {}",
            "let unused = 1; let linked = 2; let used_up = 3;",
        ] {
            assert!(!names_link_level(plain), "{plain}");
        }
    }

    /// A 64-bit ELF object holding one symbol table: `symbols` as
    /// (name, defined).
    fn elf(symbols: &[(&str, bool)]) -> Vec<u8> {
        let mut names = vec![0u8];
        let mut table = vec![0u8; 24];
        for (name, defined) in symbols {
            let mut sym = vec![0u8; 24];
            sym[0..4].copy_from_slice(&(names.len() as u32).to_le_bytes());
            sym[6..8].copy_from_slice(&(if *defined { 1u16 } else { 0 }).to_le_bytes());
            table.extend(sym);
            names.extend(name.as_bytes());
            names.push(0);
        }
        let mut out = vec![0u8; 64];
        out[..6].copy_from_slice(b"\x7fELF\x02\x01");
        let names_at = out.len();
        out.extend(&names);
        let table_at = out.len();
        out.extend(&table);
        let shoff = out.len();
        out[0x28..0x30].copy_from_slice(&(shoff as u64).to_le_bytes());
        out[0x3a..0x3c].copy_from_slice(&64u16.to_le_bytes());
        out[0x3c..0x3e].copy_from_slice(&3u16.to_le_bytes());
        let header = |kind: u32, at: usize, size: usize, link: u32| {
            let mut h = vec![0u8; 64];
            h[4..8].copy_from_slice(&kind.to_le_bytes());
            h[0x18..0x20].copy_from_slice(&(at as u64).to_le_bytes());
            h[0x20..0x28].copy_from_slice(&(size as u64).to_le_bytes());
            h[0x28..0x2c].copy_from_slice(&link.to_le_bytes());
            h
        };
        out.extend(header(0, 0, 0, 0));
        out.extend(header(3, names_at, names.len(), 0));
        out.extend(header(2, table_at, table.len(), 1));
        out
    }

    #[test]
    fn an_object_defining_the_learners_code_is_told_from_one_that_refers_to_it() {
        let refers = elf(&[
            ("_ZN7student9retryable17he7987324cd156efeE", false),
            ("main", true),
            ("_ZN4core3fmt5write17h0123456789abcdefE", false),
        ]);
        assert_eq!(
            learners_symbols(&refers),
            Some(LearnersSymbols {
                defines: false,
                needs: vec!["_ZN7student9retryable17he7987324cd156efeE".into()]
            })
        );
        let defines = elf(&[
            ("main", true),
            ("_ZN7student7backoff17h586e8010fbdabaefE", true),
        ]);
        assert!(learners_symbols(&defines).unwrap().defines);
        assert_eq!(learners_symbols(b"\x7fELF\x01\x01"), None);
        assert_eq!(learners_symbols(&refers[..80]), None);
    }

    /// An archive whose first member is a GNU symbol table of `names`.
    fn archive(names: &[&str]) -> Vec<u8> {
        let mut table = (names.len() as u32).to_be_bytes().to_vec();
        for _ in names {
            table.extend(0u32.to_be_bytes());
        }
        for name in names {
            table.extend(name.as_bytes());
            table.push(0);
        }
        let mut out = b"!<arch>\n".to_vec();
        out.extend(
            format!(
                "{:<16}{:<12}{:<6}{:<6}{:<8}{:<10}`\n",
                "/",
                0,
                0,
                0,
                0,
                table.len()
            )
            .bytes(),
        );
        out.extend(table);
        out
    }

    #[test]
    fn an_rlib_s_symbol_table_says_what_it_defines() {
        let names = [
            "_ZN7student9retryable17he7987324cd156efeE",
            "rust_metadata_x",
        ];
        let read = archive_symbols(&archive(&names)).unwrap();
        assert!(names.iter().all(|n| read.contains(*n)) && read.len() == 2);
        assert_eq!(archive_symbols(b"!<arch>\n"), None);
        let mut cut = archive(&names);
        cut.truncate(cut.len() - 10);
        assert_eq!(archive_symbols(&cut), None);
        assert_eq!(archive_symbols(b"not an archive at all, not at all"), None);
    }

    #[test]
    fn a_link_is_kept_by_the_symbols_it_needs_and_the_oldest_goes() {
        let work = tempfile::tempdir().unwrap();
        let folder = work.path().join("core");
        let binary = folder.join("lab-runner");
        let link = |needs: &str, main: &[(&str, bool)]| {
            let temp = folder.join("rustcXyZ");
            std::fs::create_dir_all(&temp).unwrap();
            std::fs::write(folder.join("main.rcgu.o"), elf(main)).unwrap();
            std::fs::write(temp.join("symbols.o"), elf(&[(needs, false)])).unwrap();
            let printed = format!(
                r#"PATH="/bin" "/bin/cc" "{f}/rustcXyZ/symbols.o" "{f}/main.rcgu.o" "-L" "{f}/rustcXyZ/raw-dylibs" "-o" "{b}" "-lc""#,
                f = folder.display(),
                b = binary.display()
            );
            save("key".into(), &printed, &binary, &folder)
        };
        assert!(link("_ZN7student1a17hE", &[("main", true)]).is_some());
        let kept = kept_links(&folder.join(KEPT));
        assert_eq!(kept.len(), 1);
        let (dir, saved) = &kept[0];
        assert_eq!(saved.needs, ["_ZN7student1a17hE"]);
        assert_eq!(saved.program, "/bin/cc");
        let named = |rel: &str| dir.join(rel).display().to_string();
        assert_eq!(
            saved.args,
            [
                named("rustcXyZ/symbols.o"),
                named("main.rcgu.o"),
                "-L".into(),
                named("rustcXyZ/raw-dylibs"),
                "-o".into(),
                binary.display().to_string(),
                "-lc".into()
            ]
        );
        assert!(dir.join("main.rcgu.o").is_file() && dir.join("rustcXyZ/symbols.o").is_file());
        assert!(!dir.join("rustcXyZ/raw-dylibs").exists());
        // Objects that define the learner's code are never kept, nor
        // objects that need none of it (not read as they should be).
        assert!(link("_ZN7student1b17hE", &[("_ZN7student1b17hE", true)]).is_none());
        assert!(link("_ZN4core3fmt5write17hE", &[("main", true)]).is_none());
        assert_eq!(kept_links(&folder.join(KEPT)).len(), 1);
        // The same needs replace their link; others are kept beside it, up
        // to MOST_KEPT, the oldest going first.
        for i in 0..MOST_KEPT + 2 {
            std::thread::sleep(std::time::Duration::from_millis(20));
            assert!(link(&format!("_ZN7student1c{i}17hE"), &[("main", true)]).is_some());
        }
        let kept = kept_links(&folder.join(KEPT));
        assert_eq!(kept.len(), MOST_KEPT);
        let needs: Vec<&str> = kept.iter().map(|(_, s)| s.needs[0].as_str()).collect();
        assert_eq!(needs[0], format!("_ZN7student1c{}17hE", MOST_KEPT + 1));
        assert!(!needs.contains(&"_ZN7student1a17hE"));
    }
}
