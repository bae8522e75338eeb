//! `lab.sh handout DIR`: the learner's kit, without what only instructors
//! may see (solutions, mutants, alternatives, sample submissions) and without
//! the maintainers' tests that need them.

use crate::catalog::tr;
use crate::status;
use std::io;
use std::path::Path;

/// Paths (relative to the kit's root) that never go into a handout, with
/// all they hold. A `*` stands for any one name of a path (see
/// [`withheld`]): every step folder's mutants and alternatives.
pub const WITHHELD: [&str; 18] = [
    ".git",
    ".lab",
    "target",
    "solutions",
    "checks/judge/src/suites/*/mutants",
    "checks/judge/src/suites/*/alternatives",
    "fixtures/alternatives",
    "fixtures/submissions",
    "fixtures/hostile",
    // A disguised copy of the reference answers, for the similarity tests.
    "fixtures/similarity",
    "checks/judge/tests",
    "checks/dev/tests",
    "examples",
    "docs/MUTANTS.md",
    "docs/ADVANCED.md",
    // An instructor's own try at the advanced track; learners opt in with
    // `reset --advanced`.
    "student/src/advanced.rs",
    ".ci",
    "grades",
];

/// Whether `rel` (a path relative to the kit's root) is one of `pattern`'s:
/// as many names, each equal to the pattern's, or the pattern's is `*`.
pub fn matches(pattern: &str, rel: &Path) -> bool {
    let mut names = rel.components().map(|c| c.as_os_str());
    let mut parts = pattern.split('/');
    loop {
        match (parts.next(), names.next()) {
            (None, None) => return true,
            (Some(part), Some(name)) if part == "*" || name == part => {}
            _ => return false,
        }
    }
}

/// Whether `rel` stays out of a handout: it matches an entry of
/// [`WITHHELD`] (what it holds goes with it: the walk does not descend).
pub fn withheld(rel: &Path) -> bool {
    WITHHELD.iter().any(|w| matches(w, rel))
}

/// The workspace manifest without the withheld crates.
pub fn handout_manifest(text: &str) -> String {
    let kept: Vec<String> = crate::files::members(text)
        .into_iter()
        .filter(|m| !m.starts_with("solutions"))
        .collect();
    let kept: Vec<&str> = kept.iter().map(String::as_str).collect();
    crate::files::with_members(text, &kept)
}

/// Writes the handout into `dir` (which may not exist yet).
pub fn write(root: &Path, dir: &Path) -> io::Result<()> {
    std::fs::create_dir_all(dir)?;
    crate::files::copy_tree(root, dir, &withheld)?;
    let manifest = std::fs::read_to_string(root.join("Cargo.toml"))?;
    std::fs::write(dir.join("Cargo.toml"), handout_manifest(&manifest))?;
    std::fs::copy(
        root.join("fixtures/pristine/lib.rs"),
        dir.join("student/src/lib.rs"),
    )?;
    Ok(())
}

pub fn run(root: &Path, dir: &Path) -> u8 {
    if dir.exists()
        && std::fs::read_dir(dir)
            .map(|mut d| d.next().is_some())
            .unwrap_or(true)
    {
        eprintln!(
            "lab: {}",
            tr("error.handout_exists", &[("path", &dir.display())])
        );
        return status::USAGE;
    }
    match write(root, dir) {
        Ok(()) => {
            println!("{}", tr("run.handout_written", &[("path", &dir.display())]));
            status::PASSED
        }
        Err(e) => {
            eprintln!("lab: {}", tr("error.kit", &[("what", &e)]));
            status::KIT_ERROR
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_star_stands_for_one_name_and_nothing_else() {
        let pattern = "checks/judge/src/suites/*/mutants";
        for (rel, wanted) in [
            ("checks/judge/src/suites/s01/mutants", true),
            ("checks/judge/src/suites/s13/mutants", true),
            ("checks/judge/src/suites/mutants", false),
            ("checks/judge/src/suites/s01/mutants.rs", false),
            ("checks/judge/src/suites/s01/mutants/01-x.rs", false),
            ("checks/judge/src/suites/s01/view/mutants", false),
            ("checks/judge/src/suites/s01", false),
            ("checks/judge/src/other/s01/mutants", false),
        ] {
            assert_eq!(matches(pattern, Path::new(rel)), wanted, "{rel}");
        }
        assert!(matches("solutions", Path::new("solutions")));
        assert!(!matches("solutions", Path::new("solutions2")));
        assert!(!matches("fixtures/hostile", Path::new("fixtures")));
        assert!(withheld(Path::new(
            "checks/judge/src/suites/s09/alternatives"
        )));
        assert!(!withheld(Path::new(
            "checks/judge/src/suites/s09/cases.json"
        )));
    }

    #[test]
    fn the_handout_manifest_drops_the_solutions() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let text = handout_manifest(&std::fs::read_to_string(root.join("Cargo.toml")).unwrap());
        let start = text.find("members").unwrap();
        let members = &text[start..start + text[start..].find(']').unwrap()];
        assert!(!members.contains("solutions") && members.contains("student"));
        assert!(members.contains("checks/runner-advanced") && members.contains("checks/harness"));
        assert!(!text.contains("\"solutions"));
        // Every other member stays (runner builds in a kit name lab-deps).
        let kit = std::fs::read_to_string(root.join("Cargo.toml")).unwrap();
        let kept: Vec<String> = crate::files::members(&kit)
            .into_iter()
            .filter(|m| !m.starts_with("solutions"))
            .collect();
        assert_eq!(crate::files::members(&text), kept);
    }

    #[test]
    fn a_handout_holds_no_instructor_material_and_starts_from_stubs() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .canonicalize()
            .unwrap();
        let out = tempfile::tempdir().unwrap();
        let dir = out.path().join("kit");
        assert_eq!(run(&root, &dir), status::PASSED);
        for w in [
            "solutions",
            "fixtures/alternatives",
            "fixtures/submissions",
            "fixtures/hostile",
            "checks/judge/tests",
        ] {
            assert!(!dir.join(w).exists(), "{w} leaked into the handout");
        }
        // Every step's folder is there, with its texts but without its
        // mutants and alternatives.
        for entry in crate::suites::REGISTRY {
            let folder = dir.join(entry.dir());
            assert!(folder.join("text.en.md").is_file(), "{}", entry.dir());
            assert!(root.join(entry.dir()).join("mutants").is_dir());
            for w in ["mutants", "alternatives"] {
                assert!(!folder.join(w).exists(), "{}/{w} leaked", entry.dir());
            }
        }
        assert!(dir.join("lab.sh").is_file() && dir.join("checks/08-contract.sh").is_file());
        assert!(dir.join("fixtures/pristine/advanced.rs").is_file());
        // The editor's tasks, and the events' schema the judge embeds.
        for kept in [".vscode/tasks.json", "docs/events.schema.json"] {
            assert_eq!(
                std::fs::read(dir.join(kept)).ok(),
                std::fs::read(root.join(kept)).ok(),
                "{kept}"
            );
        }
        assert!(!dir.join("student/src/advanced.rs").exists());
        let stub = std::fs::read(dir.join("student/src/lib.rs")).unwrap();
        assert_eq!(
            stub,
            std::fs::read(root.join("fixtures/pristine/lib.rs")).unwrap()
        );
        assert_eq!(
            run(&root, &dir),
            status::USAGE,
            "a second handout into a full folder is refused"
        );
    }
}
