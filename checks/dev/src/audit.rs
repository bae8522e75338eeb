//! The registry check, run first by the self-test (like rustlings' `dev
//! check`): every registered step has all of its files, and every per-step
//! file belongs to a registered step. The case table and the words of a step
//! are embedded by its registry line, so the compiler already refuses a step
//! without them; this check covers the files read at run time and the
//! self-test's corpus.

use lab_judge::suites::{Track, REGISTRY};
use std::path::Path;

/// At least this many mutants per step: one wrong solution is not a proof.
pub const MUTANTS_PER_STEP: usize = 5;
/// At least this many correct alternatives per step.
pub const ALTERNATIVES_PER_STEP: usize = 2;

/// The folders whose files are named after a step (`NN.md`, `NN-…`), with
/// the track whose steps they hold (`None`: any step).
const PER_STEP: [(&str, Option<Track>); 9] = [
    ("fixtures/cases", None),
    ("fixtures/i18n/en", None),
    ("fixtures/i18n/zh", None),
    ("fixtures/steps/en", None),
    ("fixtures/steps/zh", None),
    ("fixtures/mutants", Some(Track::Core)),
    ("fixtures/mutants/advanced", Some(Track::Advanced)),
    ("fixtures/alternatives/advanced", Some(Track::Advanced)),
    ("checks", None),
];

/// The step a per-step file is named after: its first two characters when
/// they are digits.
fn step_of(name: &str) -> Option<&str> {
    let step = name.get(..2)?;
    step.bytes().all(|b| b.is_ascii_digit()).then_some(step)
}

/// The plain files of `dir` (sorted names; none when it does not exist).
fn names(dir: &Path) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    out.sort();
    out
}

/// Everything wrong with the registry and the kit's per-step files under
/// `root`, one line each; empty when all is well.
pub fn problems(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let count = |dir: &str, step: &str| {
        names(&root.join(dir))
            .iter()
            .filter(|n| step_of(n) == Some(step) && n.ends_with(".rs"))
            .count()
    };
    let core_alternatives = names(&root.join("fixtures/alternatives"))
        .iter()
        .filter(|n| n.ends_with(".rs"))
        .count();
    for entry in REGISTRY {
        let id = entry.id;
        let mut needed = vec![format!("checks/{id}-contract.sh")];
        for lang in ["en", "zh"] {
            needed.push(format!("fixtures/steps/{lang}/{id}.md"));
            needed.push(format!("fixtures/steps/{lang}/{id}-hints.md"));
        }
        for file in needed {
            if !root.join(&file).is_file() {
                out.push(format!("step {id}: {file} is missing"));
            }
        }
        let (mutants, alternatives) = match entry.track {
            Track::Core => (count("fixtures/mutants", id), core_alternatives),
            Track::Advanced => (
                count("fixtures/mutants/advanced", id),
                count("fixtures/alternatives/advanced", id),
            ),
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
    let registered = |step: &str, track: Option<Track>| {
        REGISTRY
            .iter()
            .any(|e| e.id == step && track.is_none_or(|t| t == e.track))
    };
    for (dir, track) in PER_STEP {
        for name in names(&root.join(dir)) {
            if let Some(step) = step_of(&name) {
                if !registered(step, track) {
                    out.push(format!("{dir}/{name} belongs to no registered step"));
                }
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

    /// A copy of the kit's fixtures and check scripts.
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
    fn a_missing_file_and_a_stray_one_are_both_named() {
        let dir = copy();
        let first = REGISTRY[0].id;
        std::fs::remove_file(
            dir.path()
                .join(format!("fixtures/steps/zh/{first}-hints.md")),
        )
        .unwrap();
        std::fs::write(dir.path().join("fixtures/steps/en/99.md"), "stray").unwrap();
        std::fs::write(dir.path().join("checks/98-contract.sh"), "stray").unwrap();
        let found = problems(dir.path());
        assert_eq!(
            found,
            vec![
                format!("step {first}: fixtures/steps/zh/{first}-hints.md is missing"),
                "fixtures/steps/en/99.md belongs to no registered step".to_string(),
                "checks/98-contract.sh belongs to no registered step".to_string(),
            ]
        );
    }

    #[test]
    fn too_few_mutants_are_named() {
        let dir = copy();
        let last = REGISTRY.last().unwrap().id;
        for name in names(&dir.path().join("fixtures/mutants/advanced")) {
            if step_of(&name) == Some(last) {
                std::fs::remove_file(dir.path().join("fixtures/mutants/advanced").join(name))
                    .unwrap();
            }
        }
        let found = problems(dir.path());
        assert_eq!(
            found,
            vec![format!(
                "step {last}: 0 mutants, at least {MUTANTS_PER_STEP} are needed"
            )]
        );
    }
}
