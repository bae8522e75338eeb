//! Everything the reports take from the rest of the judge besides the result
//! model (`mod.rs`): the words of the message catalog, the display of
//! learner text made safe ([`visible`]), and three facts of the step
//! registry. The formats import these from here and from nothing else of
//! the judge, so this file is the whole of what joins `report/` to it (a
//! test below holds every other file's non-test code to that).

pub(crate) use crate::catalog::{lookup, t, tr};
pub(crate) use crate::visible;

/// Whether `step` is an advanced (bonus) step of the registry.
pub(crate) fn is_advanced(step: &str) -> bool {
    crate::suites::is_advanced(step)
}

/// The advanced steps as a range for a learner to read, such as "09–12".
pub(crate) fn advanced_range() -> String {
    crate::suites::range(crate::suites::Track::Advanced)
}

/// The learner items a step checks, as trial names show them ("" for a
/// step the registry does not know).
pub(crate) fn items_of(step: &str) -> &'static str {
    crate::suites::all_steps()
        .find(|(id, _)| *id == step)
        .map_or("", |(_, items)| items)
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    /// Every `.rs` file under `dir`.
    fn sources(dir: &Path) -> Vec<PathBuf> {
        let mut all = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                all.extend(sources(&path));
            } else if path.extension().is_some_and(|e| e == "rs") {
                all.push(path);
            }
        }
        all
    }

    /// The lines of a file's code that reach into the judge: `crate::`
    /// outside comments, before its test module (files that are tests
    /// throughout are left out by the caller).
    fn reaching(code: &str) -> Vec<&str> {
        let end = code.find("#[cfg(test)]\nmod tests").unwrap_or(code.len());
        code[..end]
            .lines()
            .filter(|l| !l.trim_start().starts_with("//") && l.contains("crate::"))
            .collect()
    }

    #[test]
    fn the_formats_reach_the_judge_only_through_this_file() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/report");
        let tests_only = ["tests.rs", "test_support.rs", "snapshot.rs", "outside.rs"];
        let files = sources(&dir);
        assert!(files.len() >= 10, "{files:?}");
        for path in files {
            let name = path.file_name().unwrap().to_str().unwrap();
            if tests_only.contains(&name) {
                continue;
            }
            let code = std::fs::read_to_string(&path).unwrap();
            assert_eq!(reaching(&code), [] as [&str; 0], "{}", path.display());
        }
        let sample = "use crate::visible;\n// crate::x\n#[cfg(test)]\nmod tests { crate::y }";
        assert_eq!(reaching(sample), ["use crate::visible;"]);
    }
}
