//! The learner's manifest (`student/Cargo.toml`), read as TOML: the crates
//! it adds besides `lab-api`, which the kit's offline builds and grading
//! (with the kit's own manifest and lock file) never have.

use crate::catalog::tr;
use toml::de::{DeTable, DeValue};

/// The tables of a manifest that name dependencies, at its top or under
/// `[target.SOMETHING]`; cargo still takes the spellings with `_`.
const KINDS: [&str; 5] = [
    "dependencies",
    "dev-dependencies",
    "build-dependencies",
    "dev_dependencies",
    "build_dependencies",
];

/// A manifest that is not TOML: where the parser stopped (from 1), and why,
/// in one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotToml {
    pub line: usize,
    pub column: usize,
    pub what: String,
}

impl NotToml {
    /// The learner's words for it, one line.
    pub fn message(&self) -> String {
        tr(
            "build.manifest_not_toml",
            &[
                ("line", &self.line),
                ("column", &self.column),
                ("what", &self.what),
            ],
        )
    }
}

/// The most of a manifest that is read: cargo's own are a few hundred
/// bytes, and a learner's file must not cost the judge its memory.
const MANIFEST_CAP: u64 = 1 << 20;

/// The text of the manifest at `path` when it is a regular file (a link
/// too with `follow_links`) of at most [`MANIFEST_CAP`] bytes: a FIFO, a
/// device, a folder or anything bigger is not read (`None`), so reading it
/// can neither block nor take more than the cap.
pub fn read_manifest(path: &std::path::Path, follow_links: bool) -> Option<String> {
    use std::io::Read;
    let meta = if follow_links {
        std::fs::metadata(path)
    } else {
        std::fs::symlink_metadata(path)
    }
    .ok()?;
    if !meta.is_file() || meta.len() > MANIFEST_CAP {
        return None;
    }
    let mut text = String::new();
    std::fs::File::open(path)
        .ok()?
        .take(MANIFEST_CAP + 1)
        .read_to_string(&mut text)
        .ok()?;
    (text.len() as u64 <= MANIFEST_CAP).then_some(text)
}

/// The dependencies `manifest` (a student/Cargo.toml) declares besides
/// `lab-api`, in the order they first appear, each once: any entry of
/// `[dependencies]`, `[dev-dependencies]` or `[build-dependencies]`, at the
/// top or a target's, however it is spelt (`[dependencies.NAME]`,
/// `dependencies.NAME = …`, inline tables, quoted keys). Only an entry whose
/// value is a string or a table counts: anything else is cargo's to name.
/// The kit builds the learner's code offline against its own lock file,
/// and grading with its own manifest, which have none of them.
pub fn extra_dependencies(manifest: &str) -> Result<Vec<String>, NotToml> {
    let doc = DeTable::parse(manifest).map_err(|e| not_toml(manifest, &e))?;
    let root = doc.get_ref();
    let mut tables = vec![root];
    if let Some(targets) = root.get("target").and_then(|t| t.get_ref().as_table()) {
        tables.extend(targets.values().filter_map(|t| t.get_ref().as_table()));
    }
    let mut found: Vec<(usize, &str)> = Vec::new();
    for table in tables {
        for kind in KINDS {
            let Some(deps) = table.get(kind).and_then(|d| d.get_ref().as_table()) else {
                continue;
            };
            for (name, spec) in deps {
                if matches!(spec.get_ref(), DeValue::String(_) | DeValue::Table(_)) {
                    found.push((name.span().start, name.get_ref()));
                }
            }
        }
    }
    found.sort_by_key(|(at, _)| *at);
    let mut out: Vec<String> = Vec::new();
    for (_, name) in found {
        if name != "lab-api" && !name.is_empty() && !out.iter().any(|n| n == name) {
            out.push(name.to_string());
        }
    }
    Ok(out)
}

/// Where and why `manifest` failed to parse, in one line.
fn not_toml(manifest: &str, error: &toml::de::Error) -> NotToml {
    let at = error.span().map_or(manifest.len(), |s| s.start);
    let before = manifest.get(..at).unwrap_or(manifest);
    let what: Vec<&str> = error
        .message()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    NotToml {
        line: before.matches('\n').count() + 1,
        column: before.rsplit('\n').next().unwrap_or("").chars().count() + 1,
        what: what.join("; "),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const KIT: &str = "[package]\nname = \"student\"\n\n[dependencies]\nlab-api.workspace = true\n";

    /// The names `extra` (appended to the kit's manifest) adds.
    fn added(extra: &str) -> Vec<String> {
        extra_dependencies(&format!("{KIT}{extra}")).unwrap()
    }

    #[test]
    fn the_kits_own_manifest_adds_nothing() {
        assert_eq!(extra_dependencies(KIT).unwrap(), Vec::<String>::new());
        assert!(extra_dependencies("").unwrap().is_empty());
        // lab-api however it is spelt.
        let spelt = "[dependencies]\n\"lab-api\" = { workspace = true }\n";
        assert!(extra_dependencies(spelt).unwrap().is_empty());
        let dotted = "dependencies.lab-api.workspace = true\n";
        assert!(extra_dependencies(dotted).unwrap().is_empty());
    }

    #[test]
    fn dependencies_grading_will_not_have_are_named() {
        let more = "rand = \"0.8\"\nserde = { version = \"1\" }\n# a comment\n\n\
             [dev-dependencies]\nproptest = \"1\"\n\n[dependencies.regex]\nversion = \"1\"\n\n\
             [target.'cfg(unix)'.dependencies]\nlibc = \"0.2\"\n";
        assert_eq!(added(more), ["rand", "serde", "proptest", "regex", "libc"]);
        let build = "\n[build-dependencies]\ncc = \"1\"\n\n[dev-dependencies.quickcheck]\n\
             version = \"1\"\n\n[target.'cfg(unix)'.dev-dependencies]\nnix = \"0.29\"\n";
        assert_eq!(added(build), ["cc", "quickcheck", "nix"]);
        // Other tables whose names hold the word are not dependencies.
        let other = "\n[package.metadata.dependencies-note]\ntext = \"x\"\n\n\
             [package.metadata.dependencies]\ny = \"1\"\n\n[workspace.dependencies]\nz = \"1\"\n";
        assert!(added(other).is_empty(), "{other}");
    }

    #[test]
    fn dotted_keys_at_the_top_name_dependencies() {
        let dotted = "dependencies.itoa = \"1\"\ndev-dependencies.ryu.version = \"1\"\n\n[package]\nname = \"student\"\n";
        assert_eq!(extra_dependencies(dotted).unwrap(), ["itoa", "ryu"]);
        let target = "target.'cfg(unix)'.build-dependencies.cc = \"1\"\n";
        assert_eq!(extra_dependencies(target).unwrap(), ["cc"]);
        // A target's table whose header carries a comment.
        let commented = "\n[target.'cfg(unix)'.dev-dependencies] # unix only\nnix = \"0.29\"\n";
        assert_eq!(added(commented), ["nix"]);
    }

    #[test]
    fn tables_and_inline_tables_name_dependencies() {
        // A dependency's own table, with a comment on its header.
        assert_eq!(
            added("\n[dependencies.regex] # for parsing\nversion = \"1\"\n"),
            ["regex"]
        );
        // The whole table inline, at the top.
        let inline = "dependencies = { itoa = \"1\", serde = { version = \"1\" } }\n";
        assert_eq!(extra_dependencies(inline).unwrap(), ["itoa", "serde"]);
        // The targets' tables inline.
        let targets = "target = { 'cfg(unix)' = { dependencies = { libc = \"0.2\" } } }\n";
        assert_eq!(extra_dependencies(targets).unwrap(), ["libc"]);
        // A header with a comment and spaces.
        assert_eq!(
            added("[ dev-dependencies ] # tests\nproptest = '1'\n"),
            ["proptest"]
        );
        // The kit's own crate in a table of its own adds nothing; a crate in
        // a target's dev-dependencies table, with a quoted key, is named.
        let own = "[package]\nname = \"student\"\n\n[dependencies.lab-api]\nworkspace = true\n";
        assert!(extra_dependencies(own).unwrap().is_empty());
        assert_eq!(
            added("[target.'cfg(unix)'.dev-dependencies.\"rand\"]\nversion = \"0.8\"\n"),
            ["rand"]
        );
    }

    #[test]
    fn quoting_and_comments_do_not_hide_a_name() {
        assert_eq!(
            added("\"itoa\" = \"1\" # fast\n'ryu' = { version = \"1\" }\n"),
            ["itoa", "ryu"]
        );
        // A name that only shows up inside a comment or string is none.
        assert!(added("# rand = \"0.8\"\n").is_empty());
        let string = "\n[package.metadata]\nnote = \"\"\"\n[dependencies]\nrand = \"1\"\n\"\"\"\n";
        assert!(added(string).is_empty(), "{string}");
        // A target whose name is quoted with a dot in it.
        let target = "\n[target.\"x86_64-unknown-linux-gnu\".dependencies]\nlibc = \"0.2\"\n";
        assert_eq!(added(target), ["libc"]);
    }

    #[test]
    fn the_old_spellings_with_underscores_count() {
        let old = "\n[dev_dependencies]\nproptest = \"1\"\n\n[build_dependencies]\ncc = \"1\"\n";
        assert_eq!(added(old), ["proptest", "cc"]);
    }

    #[test]
    fn each_name_is_told_once_in_the_order_it_first_appears() {
        let twice = "zeta = \"1\"\n\n[dev-dependencies]\nalpha = \"1\"\nzeta = \"1\"\n\n\
             [target.'cfg(unix)'.dependencies]\nzeta = \"1\"\n";
        assert_eq!(added(twice), ["zeta", "alpha"]);
    }

    #[test]
    fn entries_that_are_not_a_dependency_are_cargos_to_name() {
        // Neither a version string nor a table.
        assert!(added("oops = 1\nalso = [\"1\"]\n").is_empty());
        // A dependencies "table" that is not one.
        assert!(extra_dependencies("dependencies = \"itoa\"\n")
            .unwrap()
            .is_empty());
    }

    #[test]
    fn a_manifest_that_is_not_toml_is_told_in_one_line() {
        let broken = format!("{KIT}oops = [\n");
        let not = extra_dependencies(&broken).unwrap_err();
        assert_eq!(not.line, 6, "{not:?}");
        assert!(!not.what.is_empty() && !not.what.contains('\n'), "{not:?}");
        // The same key twice is not TOML either.
        let twice = extra_dependencies(&format!("{KIT}itoa = \"1\"\nitoa = \"2\"\n")).unwrap_err();
        assert_eq!((twice.line, twice.column), (7, 1), "{twice:?}");
        let line = not.message();
        assert!(
            line.contains("student/Cargo.toml") && line.contains("line 6"),
            "{line}"
        );
        assert!(!line.contains('\n'), "{line}");
    }

    /// The parser's own depth limit holds: a manifest nested two hundred
    /// thousand deep is told as not TOML, and the judge's stack survives.
    #[test]
    fn a_manifest_nested_without_end_is_not_toml_and_costs_no_stack() {
        let arrays = format!(
            "{KIT}[package.metadata]\nx = {}{}\n",
            "[".repeat(200_000),
            "]".repeat(200_000)
        );
        let tables = format!(
            "{KIT}[package.metadata]\nx = {}1{}\n",
            "{a=".repeat(200_000),
            "}".repeat(200_000)
        );
        for text in [arrays, tables] {
            let err = extra_dependencies(&text).expect_err("refused");
            assert!(err.message().contains("line 7"), "{}", err.message());
        }
    }

    /// Only a regular file within the cap is read: never a FIFO (which
    /// would block), a link when links are not followed, or a huge file.
    #[cfg(unix)]
    #[test]
    fn only_a_regular_manifest_within_the_cap_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("Cargo.toml");
        std::fs::write(&file, KIT).unwrap();
        assert_eq!(read_manifest(&file, false).as_deref(), Some(KIT));
        let link = dir.path().join("link.toml");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        assert_eq!(read_manifest(&link, false), None);
        assert_eq!(read_manifest(&link, true).as_deref(), Some(KIT));
        let fifo = dir.path().join("fifo.toml");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo with a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert_eq!(read_manifest(&fifo, true), None);
        let big = dir.path().join("big.toml");
        std::fs::write(&big, "#".repeat(MANIFEST_CAP as usize + 1)).unwrap();
        assert_eq!(read_manifest(&big, true), None);
    }
}
