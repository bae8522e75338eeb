//! The registry check, run first by the self-test (like rustlings' `dev
//! check`): every registered step has all of its files, and every per-step
//! file belongs to a registered step. A step's files live in its folder,
//! `checks/judge/src/suites/sNN/` (see `Entry::dir`), beside its contract
//! script `checks/NN-contract.sh`. The case table and the words of a step
//! are embedded by its registry line, so the compiler already refuses a step
//! without them; this check covers the files read at run time, the
//! self-test's corpus (`mutants/`, `alternatives/`, each file named after
//! its step) and per-step files left in the folders that held them before
//! the steps had folders of their own.

use lab_judge::suites::{text_file, Track, REGISTRY, SUITES};
use std::path::Path;

/// At least this many mutants per step: one wrong solution is not a proof.
pub const MUTANTS_PER_STEP: usize = 5;
/// At least this many correct alternatives per step.
pub const ALTERNATIVES_PER_STEP: usize = 2;

/// The folders that held the steps' files before each step had a folder
/// of its own: a per-step file there (one named `NN…`, say from a branch
/// of that time) would be read by nothing.
const FORMER: [&str; 8] = [
    "fixtures/cases",
    "fixtures/i18n/en",
    "fixtures/i18n/zh",
    "fixtures/steps/en",
    "fixtures/steps/zh",
    "fixtures/mutants",
    "fixtures/mutants/advanced",
    "fixtures/alternatives/advanced",
];

/// The step a per-step file is named after: its first two characters when
/// they are digits.
fn step_of(name: &str) -> Option<&str> {
    let step = name.get(..2)?;
    step.bytes().all(|b| b.is_ascii_digit()).then_some(step)
}

/// The entries of `dir` of one kind (files, or with `folders` folders):
/// sorted names, none when it does not exist.
fn entries(dir: &Path, folders: bool) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| {
            e.file_type()
                .is_ok_and(|t| t.is_dir() == folders && (folders || t.is_file()))
        })
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    out.sort();
    out
}

/// The plain files of `dir` (sorted names; none when it does not exist).
fn names(dir: &Path) -> Vec<String> {
    entries(dir, false)
}

/// Everything wrong with the registry and the kit's per-step files under
/// `root`, one line each; empty when all is well.
pub fn problems(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let core_alternatives = names(&root.join("fixtures/alternatives"))
        .iter()
        .filter(|n| n.ends_with(".rs"))
        .count();
    for entry in REGISTRY {
        let (id, dir) = (entry.id, entry.dir());
        let mut needed = vec![format!("checks/{id}-contract.sh")];
        for kind in ["text", "hints"] {
            for lang in ["en", "zh"] {
                needed.push(format!("{dir}/{}", text_file(kind, lang)));
            }
        }
        for file in needed {
            if !root.join(&file).is_file() {
                out.push(format!("step {id}: {file} is missing"));
            }
        }
        // A step's mutants and alternatives: `.rs` files named after it.
        let mut corpus = |kind: &str| {
            let files = names(&root.join(&dir).join(kind));
            let (own, stray): (Vec<&String>, Vec<&String>) = files
                .iter()
                .partition(|n| step_of(n) == Some(id) && n.ends_with(".rs"));
            for name in stray {
                out.push(format!("{dir}/{kind}/{name} is not named {id}-….rs"));
            }
            own.len()
        };
        let mutants = corpus("mutants");
        let alternatives = match entry.track {
            Track::Advanced => corpus("alternatives"),
            Track::Core => {
                if root.join(&dir).join("alternatives").exists() {
                    out.push(format!(
                        "{dir}/alternatives: a core step's alternatives are whole files in fixtures/alternatives"
                    ));
                }
                core_alternatives
            }
        };
        if mutants < MUTANTS_PER_STEP {
            out.push(format!(
                "step {id}: {mutants} mutants, at least {MUTANTS_PER_STEP} are needed"
            ));
        }
        if alternatives < ALTERNATIVES_PER_STEP {
            out.push(format!(
                "step {id}: {alternatives} alternatives, at least {ALTERNATIVES_PER_STEP} are needed"
            ));
        }
    }
    let registered = |step: &str| REGISTRY.iter().any(|e| e.id == step);
    for name in names(&root.join("checks")) {
        if step_of(&name).is_some_and(|step| !registered(step)) {
            out.push(format!("checks/{name} belongs to no registered step"));
        }
    }
    for folder in entries(&root.join(SUITES), true) {
        let step = folder.strip_prefix('s').and_then(step_of);
        if step.is_some_and(|step| !registered(step)) {
            out.push(format!("{SUITES}/{folder} belongs to no registered step"));
        }
    }
    for dir in FORMER {
        for name in names(&root.join(dir)) {
            if step_of(&name).is_some() {
                out.push(format!(
                    "{dir}/{name}: a step's files live in its folder, {SUITES}/sNN"
                ));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kit() -> std::path::PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
    }

    #[test]
    fn the_readme_is_the_learners_page_on_two_screens_and_its_links_hold() {
        let readme = std::fs::read_to_string(kit().join("README.md")).unwrap();
        // Two screens of a terminal of 50 rows.
        let lines = readme.lines().count();
        assert!(lines <= 100, "README.md has {lines} lines");
        for command in ["./lab.sh check", "watch", "show", "hint", "status", "reset"] {
            assert!(readme.contains(command), "{command}");
        }
        for link in readme.split("](").skip(1) {
            let target = link.split(')').next().unwrap();
            if !target.starts_with("http") {
                assert!(kit().join(target).is_file(), "a link to {target}");
            }
        }
    }

    /// A copy of the kit's fixtures and check scripts (the judge's sources
    /// hold the steps' folders).
    fn copy() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for part in ["fixtures", "checks"] {
            let skip = |p: &Path| p.ends_with("target");
            lab_judge::files::copy_tree(&kit().join(part), &dir.path().join(part), &skip).unwrap();
        }
        dir
    }

    #[test]
    fn the_kit_has_every_file_of_every_step_and_no_stray_one() {
        assert_eq!(problems(&kit()), Vec::<String>::new());
    }

    #[test]
    fn a_missing_file_and_stray_ones_are_all_named() {
        let dir = copy();
        let first = &REGISTRY[0];
        let (id, folder) = (first.id, first.dir());
        let at = |rel: &str| dir.path().join(rel);
        std::fs::remove_file(at(&format!("{folder}/hints.zh.md"))).unwrap();
        std::fs::write(at("checks/98-contract.sh"), "stray").unwrap();
        std::fs::create_dir_all(at(&format!("{SUITES}/s99"))).unwrap();
        std::fs::write(at(&format!("{folder}/mutants/99-elsewhere.rs")), "").unwrap();
        std::fs::write(at(&format!("{folder}/mutants/{id}-notes.txt")), "").unwrap();
        std::fs::create_dir_all(at(&format!("{folder}/alternatives"))).unwrap();
        std::fs::create_dir_all(at("fixtures/steps/en")).unwrap();
        std::fs::write(at("fixtures/steps/en/14.md"), "stray").unwrap();
        let found = problems(dir.path());
        assert_eq!(
            found,
            vec![
                format!("step {id}: {folder}/hints.zh.md is missing"),
                format!("{folder}/mutants/{id}-notes.txt is not named {id}-….rs"),
                format!("{folder}/mutants/99-elsewhere.rs is not named {id}-….rs"),
                format!(
                    "{folder}/alternatives: a core step's alternatives are whole files in fixtures/alternatives"
                ),
                "checks/98-contract.sh belongs to no registered step".to_string(),
                format!("{SUITES}/s99 belongs to no registered step"),
                format!("fixtures/steps/en/14.md: a step's files live in its folder, {SUITES}/sNN"),
            ]
        );
    }

    #[test]
    fn too_few_mutants_and_alternatives_are_named() {
        let dir = copy();
        let last = REGISTRY.last().unwrap();
        assert_eq!(last.track, Track::Advanced);
        for kind in ["mutants", "alternatives"] {
            std::fs::remove_dir_all(dir.path().join(last.dir()).join(kind)).unwrap();
        }
        let found = problems(dir.path());
        let id = last.id;
        assert_eq!(
            found,
            vec![
                format!("step {id}: 0 mutants, at least {MUTANTS_PER_STEP} are needed"),
                format!("step {id}: 0 alternatives, at least {ALTERNATIVES_PER_STEP} are needed"),
            ]
        );
    }
}
