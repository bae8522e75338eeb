//! `lab.sh handout DIR`: the learner's kit, without what only instructors
//! may see (solutions, mutants, alternatives, sample submissions) and without
//! the maintainers' tests that need them.

use crate::catalog::tr;
use crate::status;
use std::io;
use std::path::Path;

/// Paths (relative to the kit's root) that never go into a handout.
pub const WITHHELD: [&str; 16] = [
    ".git",
    ".lab",
    "target",
    "solutions",
    "fixtures/mutants",
    "fixtures/alternatives",
    "fixtures/submissions",
    "fixtures/hostile",
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
    crate::files::copy_tree(root, dir, &|rel| {
        WITHHELD.iter().any(|w| rel == Path::new(w))
    })?;
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
            "fixtures/mutants",
            "fixtures/alternatives",
            "fixtures/submissions",
            "fixtures/hostile",
            "checks/judge/tests",
        ] {
            assert!(!dir.join(w).exists(), "{w} leaked into the handout");
        }
        assert!(dir.join("lab.sh").is_file() && dir.join("checks/08-contract.sh").is_file());
        assert!(dir.join("fixtures/pristine/advanced.rs").is_file());
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
