//! The judge must never link learner code or the reference answers: a bug
//! shared by the oracle and the solutions would be invisible, and learner
//! code inside the judge could forge verdicts. Proved on `cargo metadata`.

use serde_json::Value;
use std::collections::{BTreeSet, HashMap};
use std::process::Command;

fn transitive_dependencies(package: &str) -> BTreeSet<String> {
    dependencies(package, true)
}

/// What building `package` compiles: its dependencies, but for the
/// dev-dependencies (which only its tests use).
fn built_dependencies(package: &str) -> BTreeSet<String> {
    dependencies(package, false)
}

/// `package`'s dependencies, transitively; with `dev`, its tests' too.
fn dependencies(package: &str, dev: bool) -> BTreeSet<String> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["metadata", "--format-version", "1"])
        .current_dir(root)
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: HashMap<&str, &str> = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["id"].as_str().unwrap(), p["name"].as_str().unwrap()))
        .collect();
    let nodes: HashMap<&str, Vec<&str>> = meta["resolve"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            let deps = n["deps"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| {
                    dev || d["dep_kinds"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .any(|k| k["kind"] != "dev")
                })
                .map(|d| d["pkg"].as_str().unwrap())
                .collect();
            (n["id"].as_str().unwrap(), deps)
        })
        .collect();
    let start = names
        .iter()
        .find(|(_, n)| **n == package)
        .map(|(id, _)| *id)
        .expect("package exists");
    let (mut seen, mut todo) = (BTreeSet::new(), vec![start]);
    while let Some(id) = todo.pop() {
        for dep in &nodes[id] {
            if seen.insert(names[dep].to_string()) {
                todo.push(dep);
            }
        }
    }
    seen
}

#[test]
fn the_judge_depends_on_neither_student_nor_solutions() {
    let deps = transitive_dependencies("lab-judge");
    assert!(deps.contains("lab-api"), "{deps:?}");
    assert!(
        !deps.contains("student") && !deps.contains("solutions"),
        "{deps:?}"
    );
}

#[test]
fn the_runner_links_the_student_crate_and_not_the_solutions() {
    let deps = transitive_dependencies("lab-runner");
    assert!(
        deps.contains("student") && !deps.contains("solutions"),
        "{deps:?}"
    );
}

#[test]
fn the_judge_links_no_runner_and_no_advanced_reference() {
    let deps = transitive_dependencies("lab-judge");
    for crate_name in [
        "lab-harness",
        "lab-runner",
        "lab-runner-advanced",
        "solutions-advanced",
    ] {
        assert!(!deps.contains(crate_name), "{crate_name} in {deps:?}");
    }
}

#[test]
fn the_advanced_runner_stands_alone() {
    // It compiles only student/src/advanced.rs: neither the learner's core
    // crate (so one file's mistakes never block the other's steps) nor any
    // reference answers.
    let deps = transitive_dependencies("lab-runner-advanced");
    assert!(deps.contains("lab-harness"), "{deps:?}");
    for crate_name in ["student", "solutions", "solutions-advanced"] {
        assert!(!deps.contains(crate_name), "{crate_name} in {deps:?}");
    }
    let harness = transitive_dependencies("lab-harness");
    assert!(
        !harness.contains("student") && !harness.contains("solutions"),
        "{harness:?}"
    );
}

/// lab.sh builds the judge and the runner's core (`cargo build -p lab-judge
/// -p lab-runner-core`): the crates only the judge's tests use (the XML and
/// HTML parsers that read its reports back) cost a learner nothing.
#[test]
fn lab_sh_builds_no_test_only_crate() {
    for package in ["lab-judge", "lab-runner-core"] {
        let built = built_dependencies(package);
        assert!(built.contains("serde_json") || package != "lab-judge");
        for test_only in ["scraper", "html5ever", "roxmltree"] {
            assert!(!built.contains(test_only), "{package} builds {test_only}");
        }
    }
    let tests = transitive_dependencies("lab-judge");
    assert!(tests.contains("scraper") && tests.contains("roxmltree"));
}

/// The maintainers' tools (selftest, bench, new-step and the registry
/// check) are lab-dev's (checks/dev), which depends on the judge: the
/// judge's build, the one `./lab.sh check` runs, compiles none of them.
#[test]
fn the_judge_builds_no_maintainers_tool() {
    assert!(!transitive_dependencies("lab-judge").contains("lab-dev"));
    assert!(built_dependencies("lab-dev").contains("lab-judge"));
    let src = concat!(env!("CARGO_MANIFEST_DIR"), "/src");
    let lib = std::fs::read_to_string(format!("{src}/lib.rs")).unwrap();
    for tool in ["selftest", "bench", "scaffold", "audit"] {
        assert!(
            !lib.contains(&format!("mod {tool};")),
            "lib.rs declares {tool}"
        );
        for file in [format!("{src}/{tool}.rs"), format!("{src}/{tool}/mod.rs")] {
            assert!(!std::path::Path::new(&file).exists(), "{file}");
        }
    }
}
