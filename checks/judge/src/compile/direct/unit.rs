//! The compiler runs a build makes, and rustc's arguments for each.

use super::recipe::Recipe;
use super::INCREMENTAL;
use crate::compile::BuildError;
use std::path::{Path, PathBuf};

/// The edition of the learner's crate and both runners: the workspace's
/// (a unit test compares).
const EDITION: &str = "2021";

/// What the learner's crate links: its manifest's one dependency.
const STUDENT_LINKS: [&str; 1] = ["lab_api"];

/// What the core runner's `main` links besides the learner's crate.
const CORE_LINKS: [&str; 1] = ["lab_runner_core"];

/// What the advanced runner links: its manifest's dependencies.
const ADVANCED_LINKS: [&str; 6] = [
    "lab_api",
    "lab_wire",
    "lab_scripts",
    "lab_harness",
    "serde",
    "serde_json",
];

/// The core runner's folder in a build folder.
pub(super) const CORE: &str = "core";

/// One of the compiler runs a build makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Unit {
    /// The learner's crate, `student/src/lib.rs`.
    Student,
    /// The core runner's `main`, linking the learner's crate.
    CoreMain,
    /// The advanced runner, with the learner's advanced.rs inside.
    Advanced,
}

impl Unit {
    /// The package and target cargo would name in "could not compile".
    pub(super) fn cargo_name(self) -> &'static str {
        match self {
            Unit::Student => "`student` (lib)",
            Unit::CoreMain => "`lab-runner` (bin \"lab-runner\")",
            Unit::Advanced => "`lab-runner-advanced` (bin \"lab-runner-advanced\")",
        }
    }

    /// Whether rustc keeps an incremental cache for it. The advanced runner
    /// does: its glue, most of what it compiles, is the same from one
    /// build to the next. The learner's crate does in the kit, where one
    /// save changes a little of it; not in a slot, where each subject is
    /// another file and keeping the cache cost more than it saved (eight
    /// different submissions: 0.94 s of processor time with it, 0.78 s
    /// without). The one-file core main compiles in a moment.
    fn incremental(self, in_kit: bool) -> bool {
        match self {
            Unit::Student => in_kit,
            Unit::CoreMain => false,
            Unit::Advanced => true,
        }
    }

    /// rustc's arguments for this unit, built from `recipe` into `out`,
    /// for the kit itself (`in_kit`) or a slot.
    pub(super) fn args(
        self,
        recipe: &Recipe,
        out: &Path,
        in_kit: bool,
    ) -> Result<Vec<String>, BuildError> {
        let (name, root, kind, links): (&str, &str, &str, &[&str]) = match self {
            Unit::Student => ("student", "student/src/lib.rs", "lib", &STUDENT_LINKS),
            Unit::CoreMain => (
                "lab_runner",
                "checks/runner/src/main.rs",
                "bin",
                &CORE_LINKS,
            ),
            Unit::Advanced => (
                "lab_runner_advanced",
                "checks/runner-advanced/src/main.rs",
                "bin",
                &ADVANCED_LINKS,
            ),
        };
        let mut args: Vec<String> = [
            "--crate-name",
            name,
            &format!("--edition={EDITION}"),
            root,
            "--crate-type",
            kind,
            "--emit=link,dep-info",
            "--color",
            "never",
            // Diagnostics as data, one JSON object a line, each with the
            // text rustc would print (see blame.rs).
            "--error-format=json",
            // Learner code runs unoptimised, with overflow checks on, as
            // in the dev profile.
            "-C",
            "opt-level=0",
            "-C",
            "debug-assertions=on",
            "-C",
            "overflow-checks=on",
            "-C",
            "embed-bitcode=no",
            // Nothing reads a runner's debug information (a panic's place
            // is compiled in), and linking without it is faster.
            "-C",
            "debuginfo=0",
            "--check-cfg",
            "cfg(docsrs,test)",
            "--check-cfg",
            "cfg(feature, values())",
            "-L",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        args.push(format!("dependency={}", recipe.deps.display()));
        for link in links {
            args.push("--extern".into());
            args.push(format!("{link}={}", recipe.lib(link)?.display()));
        }
        let out_s = out.display();
        match self {
            Unit::Student => {
                args.extend(["--out-dir".into(), out_s.to_string()]);
            }
            Unit::CoreMain => {
                args.push("--extern".into());
                args.push(format!("student={out_s}/libstudent.rlib"));
            }
            Unit::Advanced => {
                args.extend(["--cfg".into(), "lab_advanced".into()]);
                args.extend([
                    "--check-cfg".into(),
                    "cfg(lab_advanced, lab_reference)".into(),
                ]);
            }
        }
        if self.incremental(in_kit) {
            args.extend(["-C".into(), format!("incremental={out_s}/{INCREMENTAL}")]);
        }
        if self == Unit::CoreMain {
            // Its objects and linker command, kept for the next build to
            // link without rustc (see relink.rs).
            args.extend(["-C".into(), "save-temps".into()]);
            args.extend(["--print".into(), "link-args".into()]);
        }
        if self != Unit::Student {
            args.extend(["-C".into(), "strip=debuginfo".into()]);
            let (binary, _) = self.outputs(out);
            args.extend(["-o".into(), binary.display().to_string()]);
        }
        Ok(args)
    }

    /// The file it makes, in the build folder `out`, and the file where
    /// rustc lists the sources it read for it.
    pub(super) fn outputs(self, out: &Path) -> (PathBuf, PathBuf) {
        match self {
            Unit::Student => (out.join("libstudent.rlib"), out.join("student.d")),
            // A folder of its own: rustc leaves its objects beside it.
            Unit::CoreMain => (
                out.join(CORE).join("lab-runner"),
                out.join(CORE).join("lab-runner.d"),
            ),
            Unit::Advanced => (
                out.join("lab-runner-advanced"),
                out.join("lab-runner-advanced.d"),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::recipe::LINKED;
    use super::*;

    /// The crates a manifest's `[dependencies]` names, as rustc names them.
    fn dependencies(manifest: &str) -> Vec<String> {
        let mut names: Vec<String> = crate::compile::dependency_names(manifest)
            .iter()
            .map(|n| n.replace('-', "_"))
            .collect();
        names.sort();
        names
    }

    fn read(path: &str) -> String {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        std::fs::read_to_string(root.join(path)).unwrap()
    }

    #[test]
    fn each_unit_links_what_its_manifest_names_in_the_workspaces_edition() {
        let sorted = |links: &[&str]| {
            let mut v: Vec<String> = links.iter().map(|s| s.to_string()).collect();
            v.sort();
            v
        };
        assert_eq!(
            dependencies(&read("student/Cargo.toml")),
            sorted(&STUDENT_LINKS)
        );
        let mut core = sorted(&CORE_LINKS);
        core.push("student".into());
        core.sort();
        assert_eq!(dependencies(&read("checks/runner/Cargo.toml")), core);
        assert_eq!(
            dependencies(&read("checks/runner-advanced/Cargo.toml")),
            sorted(&ADVANCED_LINKS)
        );
        for link in STUDENT_LINKS
            .iter()
            .chain(&CORE_LINKS)
            .chain(&ADVANCED_LINKS)
        {
            assert!(LINKED.contains(link), "{link}");
        }
        assert!(read("Cargo.toml").contains(&format!("edition = \"{EDITION}\"")));
        assert!(read("student/Cargo.toml").contains("edition.workspace = true"));
    }

    #[test]
    fn each_unit_s_arguments_link_what_it_needs_and_keep_a_cache_where_it_pays() {
        let libs = LINKED
            .iter()
            .map(|name| {
                (
                    name.to_string(),
                    (PathBuf::from(format!("/d/lib{name}.rlib")), None),
                )
            })
            .collect();
        let recipe = Recipe {
            stamp: String::new(),
            rustc: "rustc".into(),
            rustc_seen: None,
            libs,
            deps: "/d".into(),
        };
        let out = Path::new("/t/lab-direct");
        let args = |unit: Unit, in_kit: bool| unit.args(&recipe, out, in_kit).unwrap().join(" ");
        let cached = "-C incremental=/t/lab-direct/incremental";
        assert!(args(Unit::Student, true).contains(cached));
        assert!(!args(Unit::Student, false).contains(cached));
        assert!(!args(Unit::CoreMain, true).contains(cached));
        assert!(args(Unit::Advanced, false).contains(cached));
        let student = args(Unit::Student, false);
        assert!(student.contains("--extern lab_api=/d/liblab_api.rlib"));
        assert!(student.contains("--out-dir /t/lab-direct") && !student.contains("strip"));
        let main = args(Unit::CoreMain, false);
        assert!(main.contains("--extern student=/t/lab-direct/libstudent.rlib"));
        assert!(
            main.contains("-o /t/lab-direct/core/lab-runner") && main.contains("strip=debuginfo")
        );
        assert!(main.contains("-C save-temps --print link-args"), "{main}");
        let advanced = args(Unit::Advanced, true);
        assert!(advanced.contains("--cfg lab_advanced") && !advanced.contains("student="));
        for unit in [Unit::Student, Unit::CoreMain, Unit::Advanced] {
            let all = args(unit, true);
            assert!(
                all.contains("opt-level=0") && all.contains("overflow-checks=on"),
                "{all}"
            );
            assert!(all.contains("--error-format=json"), "{all}");
        }
    }
}
