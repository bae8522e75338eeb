//! The subjects selftest checks (the reference, the stubs, every mutant
//! and alternative), and what each must come to. Mutants and an advanced
//! step's alternatives are found in each registered step's folder
//! (`mutants/`, `alternatives/`); the core alternatives, whole `lib.rs`
//! files spanning every core step, in `fixtures/alternatives/`.

use super::SelftestArgs;
use lab_judge::suites::{Track, REGISTRY};
use std::path::{Path, PathBuf};

#[derive(Debug, Clone)]
pub(super) enum Expectation {
    /// Passes every one of these steps under each of these seeds.
    PassAll(Vec<u64>, Vec<&'static str>),
    /// Every one of these steps fails with every clause "not implemented yet".
    NotStarted(Vec<&'static str>),
    /// Fails its step, and the named clause is among the failures.
    Caught { clause: String },
}

/// A subject's lib.rs or advanced.rs.
#[derive(Debug, Clone)]
pub(super) enum SourceFile {
    Whole(PathBuf),
    /// The reference with this file's items (lib.rs) or its one step's
    /// section (advanced.rs) put in.
    Spliced(PathBuf),
}

#[derive(Debug, Clone)]
pub(super) struct Subject {
    pub(super) kind: &'static str,
    pub(super) name: String,
    pub(super) lib: SourceFile,
    pub(super) advanced: Option<SourceFile>,
    pub(super) expect: Expectation,
}

/// Reads `// caught-by: 04/attempt-above-30` from a mutant's header.
pub fn caught_by(source: &str) -> Option<String> {
    source
        .lines()
        .take_while(|l| l.starts_with("//"))
        .find_map(|l| l.strip_prefix("// caught-by:"))
        .map(|s| s.trim().to_string())
}

fn rs_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "rs"));
    files.sort();
    files
}

fn stem(p: &Path) -> String {
    p.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The `.rs` files of every registered step's folder `kind` (`mutants` or
/// `alternatives`), in the registry's order, each with whether its step is
/// advanced.
pub(super) fn per_step(root: &Path, kind: &str) -> Vec<(PathBuf, bool)> {
    REGISTRY
        .iter()
        .flat_map(|e| {
            let advanced = e.track == Track::Advanced;
            rs_files(&root.join(e.dir()).join(kind))
                .into_iter()
                .map(move |file| (file, advanced))
        })
        .collect()
}

/// Every mutant's id as a known mistake (its file stem), core and advanced.
pub(super) fn mutant_ids(root: &Path) -> Vec<String> {
    per_step(root, "mutants")
        .iter()
        .map(|(p, _)| stem(p))
        .collect()
}

pub(super) fn subjects(root: &Path, args: &SelftestArgs, seed: u64) -> Vec<Subject> {
    let seeds: Vec<u64> = (0..u64::from(args.seeds))
        .map(|i| seed.wrapping_add(i))
        .collect();
    let few = vec![seed, seed.wrapping_add(1), seed.wrapping_add(2)];
    let core = lab_judge::suites::core_ids();
    let advanced = lab_judge::suites::advanced_ids();
    let every: Vec<&'static str> = core.iter().chain(&advanced).copied().collect();
    let reference = root.join("solutions/src/lib.rs");
    let mut out = vec![
        Subject {
            kind: "solutions",
            name: "solutions (+ advanced.rs)".into(),
            lib: SourceFile::Whole(reference.clone()),
            advanced: Some(SourceFile::Whole(root.join("solutions/advanced.rs"))),
            expect: Expectation::PassAll(seeds, every.clone()),
        },
        Subject {
            kind: "stubs",
            name: "pristine stubs (+ advanced.rs)".into(),
            lib: SourceFile::Whole(root.join("fixtures/pristine/lib.rs")),
            advanced: Some(SourceFile::Whole(
                root.join("fixtures/pristine/advanced.rs"),
            )),
            expect: Expectation::NotStarted(every),
        },
    ];
    for lib in rs_files(&root.join("fixtures/alternatives")) {
        out.push(Subject {
            kind: "alternative",
            name: stem(&lib),
            advanced: None,
            expect: Expectation::PassAll(few.clone(), core.clone()),
            lib: SourceFile::Whole(lib),
        });
    }
    // A core step's alternatives are the whole files above (the registry
    // check names an `alternatives/` folder of a core step).
    for (part, _) in per_step(root, "alternatives")
        .into_iter()
        .filter(|(_, a)| *a)
    {
        out.push(Subject {
            kind: "alternative",
            name: format!("advanced/{}", stem(&part)),
            lib: SourceFile::Whole(reference.clone()),
            advanced: Some(SourceFile::Spliced(part)),
            expect: Expectation::PassAll(few.clone(), advanced.clone()),
        });
    }
    for (file, is_advanced) in per_step(root, "mutants") {
        let source = std::fs::read_to_string(&file).unwrap_or_default();
        let clause = caught_by(&source).unwrap_or_default();
        out.push(if is_advanced {
            Subject {
                kind: "mutant",
                name: format!("advanced/{}", stem(&file)),
                lib: SourceFile::Whole(reference.clone()),
                advanced: Some(SourceFile::Spliced(file)),
                expect: Expectation::Caught { clause },
            }
        } else {
            Subject {
                kind: "mutant",
                name: stem(&file),
                lib: SourceFile::Spliced(file),
                advanced: None,
                expect: Expectation::Caught { clause },
            }
        });
    }
    if let Some(only) = &args.only {
        out.retain(|s| s.kind.starts_with(only.as_str()) || s.name.contains(only.as_str()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_caught_by_header_is_read_from_the_leading_comments_only() {
        let src = "// mutant: x\n// caught-by: 04/attempt-above-30\npub use lab_api::*;\n// caught-by: 01/nope\n";
        assert_eq!(caught_by(src).as_deref(), Some("04/attempt-above-30"));
        assert_eq!(caught_by("pub use lab_api::*;\n// caught-by: 01/x"), None);
    }

    #[test]
    fn mutants_and_alternatives_are_found_in_their_steps_folders() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let args = SelftestArgs {
            seed: None,
            seeds: 1,
            jobs: 1,
            only: None,
            write_mistakes: false,
        };
        let all = subjects(&root, &args, 1);
        let named = |kind: &str, name: &str| {
            all.iter()
                .find(|s| s.kind == kind && s.name == name)
                .unwrap_or_else(|| panic!("{kind} {name} not found"))
        };
        // A core mutant is spliced into lib.rs, an advanced one (and an
        // advanced alternative) into advanced.rs; a core alternative is a
        // whole lib.rs.
        let core = named("mutant", "01-408-retryable");
        assert!(matches!(core.lib, SourceFile::Spliced(_)) && core.advanced.is_none());
        for (kind, name) in [
            ("mutant", "advanced/09-lazy-start"),
            ("alternative", "advanced/13-x2-atomic-catch-unwind"),
        ] {
            let advanced = named(kind, name);
            assert!(matches!(advanced.lib, SourceFile::Whole(_)));
            assert!(matches!(advanced.advanced, Some(SourceFile::Spliced(_))));
        }
        let whole = named("alternative", "a1-extra-clock-reads");
        assert!(matches!(whole.lib, SourceFile::Whole(_)) && whole.advanced.is_none());
        // Every step's folder gives its own, and ids stay file stems.
        let count = |kind| all.iter().filter(|s| s.kind == kind).count();
        let mutants: usize = REGISTRY
            .iter()
            .map(|e| rs_files(&root.join(e.dir()).join("mutants")).len())
            .sum();
        assert_eq!(count("mutant"), mutants);
        assert_eq!(mutant_ids(&root).len(), mutants);
        assert!(mutant_ids(&root).contains(&"13-hostile-own-threads".to_string()));
        let advanced_alternatives = per_step(&root, "alternatives").len();
        let core_alternatives = rs_files(&root.join("fixtures/alternatives")).len();
        assert_eq!(
            count("alternative"),
            core_alternatives + advanced_alternatives
        );
        assert!(mutants >= 200 && advanced_alternatives >= 10 && core_alternatives >= 5);
    }

    #[test]
    fn every_advanced_step_has_a_section_in_the_reference_and_the_stubs() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        for file in ["solutions/advanced.rs", "fixtures/pristine/advanced.rs"] {
            let text = std::fs::read_to_string(root.join(file)).unwrap();
            let marks: Vec<&str> = text
                .lines()
                .filter_map(lab_judge::sections::section_mark)
                .collect();
            assert_eq!(marks, lab_judge::suites::advanced_ids(), "{file}");
        }
    }

    #[test]
    fn the_pristine_stubs_are_the_students_starting_point() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let pristine = std::fs::read(root.join("fixtures/pristine/lib.rs")).unwrap();
        let student = std::fs::read(root.join("student/src/lib.rs")).unwrap();
        assert!(
            pristine == student,
            "student/src/lib.rs differs from fixtures/pristine/lib.rs"
        );
    }
}
