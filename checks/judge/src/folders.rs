//! The name of each submission's report folder under `grade --out`.
//!
//! A submission's name is its folder's name in the class, which may hold any
//! character a file system allows: quotes, `<`, `|`, spaces, Chinese, a
//! leading dot. Report folders must pass every tool they travel through
//! (GitHub's artifact upload refuses `" : < > | * ? \r \n`; Windows refuses
//! `CON` and names ending in a dot; a case-insensitive disk merges `Alice`
//! and `alice`), so each gets a folder name of its own:
//!
//! - a name made only of ASCII letters, digits, `.`, `_` and `-`, at most
//!   [`MAX_LEN`] bytes, not starting with `.` or `-`, not ending with `.`,
//!   not a Windows device name, not starting with `summary.` (the class's own
//!   files) and not ending like a mapped folder (`-` and 16 hex digits,
//!   optionally `-N`), is its own folder;
//! - any other name, and every name that differs from another of the class
//!   only in letter case, becomes its portable characters (each run of other
//!   characters one `_`, leading and trailing `.`, `_`, `-` removed, at most
//!   [`STEM_LEN`] bytes; `submission` when nothing is left), `-`, and the
//!   64-bit FNV-1a hash of the whole name in 16 lowercase hex digits;
//! - should two folders still be equal (ignoring case), which only a hash
//!   collision can cause, the later name in byte order gets `-2`, `-3`, ….
//!
//! The mapping depends only on the names of the whole class, never on a
//! shard, so every shard and the merge agree; `summary.json` records each
//! submission's `folder`. Reports themselves always carry the real name.

use crate::hash::fnv1a;
use std::collections::{BTreeMap, BTreeSet};

/// Longest folder name, in bytes.
pub const MAX_LEN: usize = 64;
/// Longest readable part of a mapped folder name, in bytes.
pub const STEM_LEN: usize = 40;
const HASH_HEX: usize = 16;

fn portable_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-')
}

/// Windows device names, which no folder may be called, with or without an
/// extension, in any case.
fn windows_device(name: &str) -> bool {
    let base = name.split('.').next().unwrap_or("").to_ascii_lowercase();
    matches!(base.as_str(), "con" | "prn" | "aux" | "nul")
        || ((base.starts_with("com") || base.starts_with("lpt"))
            && base.len() == 4
            && base.as_bytes()[3].is_ascii_digit())
}

/// Ends like a mapped folder: `-` and 16 hex digits, optionally `-N`.
fn looks_mapped(name: &str) -> bool {
    let name = match name.rsplit_once('-') {
        Some((head, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => head,
        _ => name,
    };
    match name.rsplit_once('-') {
        Some((_, hex)) => hex.len() == HASH_HEX && hex.bytes().all(|b| b.is_ascii_hexdigit()),
        None => false,
    }
}

/// Whether `name` can be its own report folder (see the module's rules).
pub fn is_portable(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_LEN
        && name.bytes().all(portable_byte)
        && !name.starts_with(['.', '-'])
        && !name.ends_with('.')
        && !name.to_ascii_lowercase().starts_with("summary.")
        && !windows_device(name)
        && !looks_mapped(name)
}

/// Whether `folder` is safe to join under an output folder: one plain,
/// portable path component. `--merge` refuses any other folder a
/// summary.json names.
pub fn is_safe_folder(folder: &str) -> bool {
    !folder.is_empty()
        && folder.len() <= MAX_LEN
        && folder.bytes().all(portable_byte)
        && !folder.starts_with(['.', '-'])
}

/// The readable part of a mapped folder name.
fn stem(name: &str) -> String {
    let mut out = String::new();
    let mut gap = false;
    for c in name.chars() {
        if c.is_ascii() && portable_byte(c as u8) {
            if gap && !out.is_empty() {
                out.push('_');
            }
            gap = false;
            out.push(c);
        } else {
            gap = true;
        }
    }
    let trim = |c: char| matches!(c, '.' | '_' | '-');
    let mut out = out.trim_start_matches(trim).to_string();
    out.truncate(STEM_LEN); // ASCII only: every index is a char boundary
    let out = out.trim_end_matches(trim);
    if out.is_empty() {
        "submission".to_string()
    } else {
        out.to_string()
    }
}

/// The mapped folder of `name`: its stem, `-`, its hash.
pub fn mapped(name: &str) -> String {
    format!("{}-{:016x}", stem(name), fnv1a(name.as_bytes()))
}

/// The report folder of every name of a class (see the module's rules).
pub fn folders<'a>(names: impl IntoIterator<Item = &'a str>) -> BTreeMap<String, String> {
    folders_with(names, mapped)
}

/// [`folders`] with another mapping of non-portable names (tests force
/// collisions with it).
fn folders_with<'a>(
    names: impl IntoIterator<Item = &'a str>,
    map: impl Fn(&str) -> String,
) -> BTreeMap<String, String> {
    let names: BTreeSet<&str> = names.into_iter().collect();
    let mut kept_case: BTreeMap<String, usize> = BTreeMap::new();
    for name in names.iter().filter(|n| is_portable(n)) {
        *kept_case.entry(name.to_ascii_lowercase()).or_default() += 1;
    }
    let mut used = BTreeSet::new();
    let mut out = BTreeMap::new();
    for name in names {
        let first = if is_portable(name) && kept_case[&name.to_ascii_lowercase()] == 1 {
            name.to_string()
        } else {
            map(name)
        };
        let mut folder = first.clone();
        let mut n = 2;
        while !used.insert(folder.to_ascii_lowercase()) {
            folder = format!("{first}-{n}");
            n += 1;
        }
        out.insert(name.to_string(), folder);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What every tool accepts: the characters, the length, the start.
    fn assert_portable_folder(folder: &str) {
        assert!(!folder.is_empty() && folder.len() <= 64, "{folder:?}");
        assert!(
            folder
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c)),
            "{folder:?}"
        );
        assert!(
            !folder.starts_with('.') && !folder.starts_with('-'),
            "{folder:?}"
        );
        assert!(!folder.ends_with('.'), "{folder:?}");
    }

    fn one(name: &str) -> String {
        folders([name])[name].clone()
    }

    /// The characters GitHub's artifact upload refuses, and a few more.
    const HOSTILE: [&str; 12] = [
        "a\"b", "a:b", "a<b", "a>b", "a|b", "a*b", "a?b", "a\rb", "a\nb", "a/b", "a\\b", "a b",
    ];

    #[test]
    fn a_portable_name_is_its_own_folder() {
        for name in [
            "alice",
            "correct-00",
            "Bob_2",
            "x.y",
            "0",
            "mutant-04-off-by-one",
        ] {
            assert_eq!(one(name), name);
        }
        let longest = "a".repeat(64);
        assert_eq!(one(&longest), longest);
    }

    #[test]
    fn forbidden_characters_never_reach_a_folder() {
        for name in HOSTILE {
            let folder = one(name);
            assert_portable_folder(&folder);
            assert!(folder.starts_with("a_b-"), "{name:?} → {folder:?}");
        }
    }

    #[test]
    fn the_names_of_a_real_class_map_to_readable_folders() {
        let class = ["王小明", "Li \"Lee\" =cmd", "张 三,2 & <x>"];
        let map = folders(class);
        for name in class {
            assert_portable_folder(&map[name]);
        }
        assert!(map["王小明"].starts_with("submission-"), "{map:?}");
        assert!(map["Li \"Lee\" =cmd"].starts_with("Li_Lee_cmd-"), "{map:?}");
        assert!(map["张 三,2 & <x>"].starts_with("2_x-"), "{map:?}");
        let distinct: BTreeSet<&String> = map.values().collect();
        assert_eq!(distinct.len(), 3);
    }

    #[test]
    fn leading_dots_and_dashes_and_the_class_files_are_mapped() {
        for name in [
            ".hidden",
            "..",
            "-rf",
            "--help",
            "summary.json",
            "Summary.CSV",
            "summary.html",
            "trailing.",
            "CON",
            "nul.txt",
            "com1",
            "=cmd",
        ] {
            let folder = one(name);
            assert_ne!(folder, name);
            assert_portable_folder(&folder);
            let lower = folder.to_ascii_lowercase();
            let class_files = ["summary.json", "summary.csv", "summary.md", "summary.html"];
            assert!(!class_files.contains(&lower.as_str()));
        }
        assert!(one(".hidden").starts_with("hidden-"));
        assert!(one("-rf").starts_with("rf-"));
        assert!(one("=cmd").starts_with("cmd-"));
        assert!(one("CON").starts_with("CON-"));
        // Not device names: kept.
        assert_eq!(one("console"), "console");
        assert_eq!(one("com10"), "com10");
    }

    #[test]
    fn very_long_names_are_cut_and_stay_distinct() {
        let a = format!("{}-a", "x".repeat(300));
        let b = format!("{}-b", "x".repeat(300));
        let wide = "长".repeat(200);
        let map = folders([a.as_str(), b.as_str(), wide.as_str()]);
        for folder in map.values() {
            assert_portable_folder(folder);
        }
        assert_ne!(map[&a], map[&b]);
        assert_eq!(map[&a].len(), STEM_LEN + 1 + 16);
        // 65 portable bytes: one too many to be kept.
        let long = "a".repeat(65);
        assert_ne!(one(&long), long);
    }

    #[test]
    fn names_that_would_share_a_folder_get_distinct_ones() {
        // The same portable characters once the rest is dropped.
        let same_stem = ["a\"b", "a<b", "a>b", "a b", "a_b-x"];
        let map = folders(same_stem);
        let distinct: BTreeSet<String> = map.values().map(|f| f.to_ascii_lowercase()).collect();
        assert_eq!(distinct.len(), same_stem.len(), "{map:?}");
        // Names that differ only in case: both mapped, distinct on any disk.
        let map = folders(["Alice", "alice", "bob"]);
        assert_ne!(
            map["Alice"].to_ascii_lowercase(),
            map["alice"].to_ascii_lowercase()
        );
        assert!(map["Alice"].starts_with("Alice-") && map["alice"].starts_with("alice-"));
        assert_eq!(map["bob"], "bob");
        // A name that looks like a mapped folder is mapped itself, so it
        // can never take another name's folder.
        let lookalike = mapped("a\"b");
        let map = folders(["a\"b", lookalike.as_str()]);
        assert_ne!(map["a\"b"], map[&lookalike]);
        assert_ne!(map[&lookalike], lookalike);
        let numbered = format!("{lookalike}-2");
        assert_ne!(one(&numbered), numbered);
    }

    #[test]
    fn a_hash_collision_still_gives_distinct_folders() {
        // Two different names with one mapped folder can only come from a
        // 64-bit collision: force one with a mapping that ignores the name.
        let map = folders_with(["b<", "a>", "c|"], |_| "same-0123456789abcdef".to_string());
        assert_eq!(
            map["a>"], "same-0123456789abcdef",
            "the first in byte order keeps it"
        );
        assert_eq!(map["b<"], "same-0123456789abcdef-2");
        assert_eq!(map["c|"], "same-0123456789abcdef-3");
        // Ignoring case too.
        let map = folders_with(["a>", "b<"], |n| {
            if n == "a>" {
                "X-0123456789abcdef"
            } else {
                "x-0123456789ABCDEF"
            }
            .to_string()
        });
        assert_eq!(map["b<"], "x-0123456789ABCDEF-2");
    }

    #[test]
    fn the_mapping_is_deterministic_and_independent_of_order_and_shard() {
        let class = ["王小明", "Li \"Lee\" =cmd", "张 三,2 & <x>", "alice", ".x"];
        let forward = folders(class);
        let backward = folders(class.iter().rev().copied());
        assert_eq!(forward, backward);
        assert_eq!(forward, folders(class));
        // A name's mapped folder does not depend on its classmates (only a
        // case-twin or a collision changes it).
        for name in class {
            assert_eq!(forward[name], one(name), "{name:?}");
        }
        // Fixed across releases: FNV-1a 64 of the empty string and of "a".
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn only_plain_components_are_safe_to_join() {
        for bad in ["", "..", ".", "../x", "a/b", "/abs", "a\\b", "-x", ".git"] {
            assert!(!is_safe_folder(bad), "{bad:?}");
        }
        for good in ["alice", "Li_Lee_cmd-0123456789abcdef", "x.y"] {
            assert!(is_safe_folder(good), "{good:?}");
        }
    }
}
