//! What an editor needs from the kit's layout, proved on `cargo metadata`
//! without rust-analyzer (the selftest's `editor` stage asks rust-analyzer
//! itself). rust-analyzer analyses a file only inside a crate's module tree
//! and follows a `#[path]` module only within the package folder the file
//! lives in, so each learner file must be in the module tree of a target of
//! the `student` package: lib.rs as the library's root, advanced.rs as the
//! module `advanced` of an example rooted at student/editor/advanced.rs.
//! That example must be a target cargo never builds unasked: a learner
//! without the file, or with a broken one, builds and checks steps 01–08
//! exactly as before.

use serde_json::Value;
use std::path::Path;
use std::process::Command;

fn cargo() -> Command {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
}

fn kit() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
}

/// The `student` package of the kit's `cargo metadata`.
fn student() -> Value {
    let out = cargo()
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .current_dir(kit())
        .output()
        .expect("cargo metadata runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: Value = serde_json::from_slice(&out.stdout).unwrap();
    meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "student")
        .expect("a student package")
        .clone()
}

/// The target of `package` whose root is `file` (relative to the kit).
fn target_rooted_at<'a>(package: &'a Value, file: &str) -> Option<&'a Value> {
    package["targets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| Path::new(t["src_path"].as_str().unwrap()).ends_with(file))
}

#[test]
fn both_learner_files_are_in_module_trees_of_the_student_package() {
    let student = student();
    let lib = target_rooted_at(&student, "student/src/lib.rs").expect("lib.rs is a root");
    assert_eq!(lib["kind"], serde_json::json!(["lib"]));
    let advanced = target_rooted_at(&student, "student/editor/advanced.rs")
        .expect("an example rooted at student/editor/advanced.rs");
    assert_eq!(advanced["kind"], serde_json::json!(["example"]));
    // Its root declares advanced.rs as a module, by a path relative to
    // its own folder.
    let root = std::fs::read_to_string(kit().join("student/editor/advanced.rs")).unwrap();
    let declared = root
        .lines()
        .map(str::trim)
        .skip_while(|l| *l != "#[path = \"../src/advanced.rs\"]")
        .nth(1);
    assert_eq!(declared, Some("mod advanced;"), "{root}");
    // Built only with a feature nothing turns on by default.
    let required: Vec<&str> = advanced["required-features"]
        .as_array()
        .expect("required-features")
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    assert!(!required.is_empty(), "{advanced}");
    let default = student["features"]["default"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    for feature in &required {
        assert!(
            !default.iter().any(|d| d == feature),
            "{feature} is on by default"
        );
    }
}

/// What `cargo check --all-targets` of the student package compiles: the
/// library and its test build, never advanced.rs (present or not).
#[test]
fn cargo_never_builds_the_advanced_file_for_the_student_package() {
    let out = cargo()
        .args([
            "check",
            "--quiet",
            "-p",
            "student",
            "--all-targets",
            "--message-format",
            "json",
        ])
        .current_dir(kit())
        .output()
        .expect("cargo check runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    let roots: Vec<String> = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|m| {
            m["reason"] == "compiler-artifact"
                && m["package_id"].as_str().unwrap_or("").contains("student")
        })
        .map(|m| m["target"]["src_path"].as_str().unwrap_or("").to_string())
        .collect();
    assert!(roots.iter().any(|r| r.ends_with("lib.rs")), "{roots:?}");
    assert!(
        !roots.iter().any(|r| r.ends_with("advanced.rs")),
        "{roots:?}"
    );
}
