//! Gradescope's autograder: `lab.sh gradescope OUT.zip` writes the package
//! its "Zip file upload" takes, and `lab.sh autograde` is what that
//! package's `run_autograder` runs for each submission.
//!
//! The package holds `setup.sh` and `run_autograder` at its top and the
//! learner's kit (as `lab.sh handout` writes it: no reference answers, no
//! mutants, no sample submissions) in `kit/`. Gradescope unpacks it into
//! `/autograder/source`, runs `setup.sh` once while building its image
//! (installing the pinned toolchain and warming every build), then runs
//! `run_autograder` per submission.
//!
//! `autograde --root DIR` grades `DIR/submission` and writes
//! `DIR/results/results.json`, always: when grading could not finish, the
//! results say so with a score of 0. Where the container does not let the
//! kit confine learner code (no Landlock, or an older one), the submission
//! is graded with what confinement there is and the results name the
//! container as the boundary.

mod zip;

use crate::catalog::{t, tr};
use crate::grade::GradeArgs;
use crate::limits::Limits;
use crate::status;
use std::io;
use std::path::{Path, PathBuf};

/// The Rust toolchain `setup.sh` installs: the one the kit is tested with
/// (and the one the GitHub Actions example pins).
pub const TOOLCHAIN: &str = "1.95.0";

const SETUP: &str = include_str!("setup.sh");
const RUN: &str = include_str!("run_autograder");

/// A results.json with a score of 0 and `output` as its only words.
fn failed_results(output: &str) -> String {
    let v = serde_json::json!({
        "score": 0,
        "output": output,
        "output_format": "text",
    });
    v.to_string()
}

/// The package's files: the two scripts, then the kit's under `kit/`.
fn entries(root: &Path) -> io::Result<Vec<zip::Entry>> {
    let lang = crate::catalog::code(crate::catalog::active());
    // The fallback sits inside single quotes in the shell script; JSON
    // allows `'` only inside strings, where \u0027 means the same.
    let no_kit = failed_results(&t("autograde.no_kit")).replace('\'', "\\u0027");
    let mut out = vec![
        zip::Entry {
            name: "setup.sh".into(),
            mode: 0o755,
            data: SETUP.replace("{toolchain}", TOOLCHAIN).into_bytes(),
        },
        zip::Entry {
            name: "run_autograder".into(),
            mode: 0o755,
            data: RUN
                .replace("{lang}", lang)
                .replace("{no_kit}", &no_kit)
                .into_bytes(),
        },
    ];
    let work = tempfile::tempdir()?;
    let kit = work.path().join("kit");
    crate::handout::write(root, &kit)?;
    let mut files = Vec::new();
    crate::files::walk(&kit, &|_| false, &mut |rel, folder| {
        if !folder {
            files.push(rel.to_path_buf());
        }
        Ok(())
    })?;
    for rel in files {
        let path = kit.join(&rel);
        let mode = crate::platform::fs::mode(&std::fs::metadata(&path)?);
        let name = rel.to_str().ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidData,
                format!("{} is not UTF-8", rel.display()),
            )
        })?;
        out.push(zip::Entry {
            name: format!("kit/{name}"),
            mode: mode & 0o777,
            data: std::fs::read(&path)?,
        });
    }
    Ok(out)
}

/// `lab.sh gradescope OUT.zip`.
pub fn package(root: &Path, out: &Path) -> u8 {
    let written = entries(root).and_then(|entries| {
        let mut bytes = Vec::new();
        zip::write(&mut bytes, &entries)?;
        crate::files::write_atomically(out, &bytes)?;
        Ok((entries.len(), bytes.len()))
    });
    match written {
        Ok((files, bytes)) => {
            println!(
                "{}",
                tr(
                    "run.gradescope_written",
                    &[
                        ("path", &out.display()),
                        ("files", &files),
                        ("kib", &bytes.div_ceil(1024)),
                        ("toolchain", &TOOLCHAIN),
                    ],
                )
            );
            status::PASSED
        }
        Err(e) => {
            eprintln!("lab: {}", tr("error.kit", &[("what", &e)]));
            status::KIT_ERROR
        }
    }
}

/// The folder to grade for a Gradescope submission: the submission itself
/// when it holds `student/src/lib.rs` or `src/lib.rs` (a repository), or a
/// copy into `work/submission/src/` of a `lib.rs` (and `advanced.rs`)
/// uploaded on their own. A symbolic link is not copied (the grade then
/// finds no lib.rs).
pub(crate) fn staged(submission: &Path, work: &Path) -> io::Result<PathBuf> {
    if crate::compile::subject_lib(submission).is_ok() || !submission.join("lib.rs").exists() {
        return Ok(submission.to_path_buf());
    }
    let folder = work.join("submission");
    std::fs::create_dir_all(folder.join("src"))?;
    for file in ["lib.rs", "advanced.rs"] {
        if let Ok(bytes) = crate::compile::read_source(&submission.join(file)) {
            std::fs::write(folder.join("src").join(file), bytes)?;
        }
    }
    Ok(folder)
}

/// `lab.sh autograde [--root DIR]`: grades DIR/submission into
/// DIR/results/results.json (DIR defaults to /autograder).
pub fn run(root: &Path, autograder: &Path) -> u8 {
    let results = autograder.join("results/results.json");
    let write = |text: &str| {
        crate::files::write_atomically(&results, text).map_err(|e| {
            eprintln!("lab: {}", tr("error.kit", &[("what", &e)]));
        })
    };
    let graded = grade_one(root, &autograder.join("submission"));
    match graded {
        Ok(json) => match write(&json) {
            Ok(()) => status::PASSED,
            Err(()) => status::KIT_ERROR,
        },
        Err(code) => {
            let text = failed_results(&tr("autograde.failed", &[("code", &code)]));
            let _ = write(&text);
            status::KIT_ERROR
        }
    }
}

/// Grades one submission; its Gradescope results, with the container's
/// note when confinement is not whole, or the grade's exit status.
fn grade_one(root: &Path, submission: &Path) -> Result<String, u8> {
    let policy = crate::grade::policy::Policy::default();
    grade_staged(
        root,
        submission,
        &policy,
        "gradescope/results.json",
        "output",
    )
}

/// Grades one uploaded submission (staged as [`staged`] does) with
/// `policy`, in a folder of its own, and gives back its report at
/// `results` (a path in the submission's report folder) as JSON text, the
/// container's note put before its text field `field` when confinement is
/// not whole; or the grade's exit status when there is no such report.
/// Gradescope's and PrairieLearn's entrypoints both grade this way.
pub(crate) fn grade_staged(
    root: &Path,
    submission: &Path,
    policy: &crate::grade::policy::Policy,
    results: &str,
    field: &str,
) -> Result<String, u8> {
    let work = tempfile::tempdir().map_err(|_| status::KIT_ERROR)?;
    let folder = staged(submission, work.path()).map_err(|_| status::KIT_ERROR)?;
    let out = work.path().join("grades");
    let args = GradeArgs {
        out: out.clone(),
        seed: None,
        jobs: 1,
        shard: None,
        limits: Limits::default(),
        submissions: vec![folder],
        merge: Vec::new(),
        policy: Box::new(policy.clone()),
        extras: Default::default(),
        similarity: None,
    };
    let code = crate::grade::run_with(root, &args, false);
    let read = |path: PathBuf| -> Option<serde_json::Value> {
        serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()
    };
    let summary = read(out.join("summary.json")).ok_or(code)?;
    let report = summary["submissions"][0]["folder"]
        .as_str()
        .ok_or(code)?
        .to_string();
    let mut json = read(out.join(report).join(results)).ok_or(code)?;
    let missing =
        crate::platform::missing_in(&crate::compile::target_dir(root), args.limits.confinement);
    if !missing.is_empty() {
        let note = tr("autograde.container", &[("what", &missing.join(", "))]);
        let text = json[field].as_str().unwrap_or_default();
        json[field] = format!("{note}\n\n{text}").into();
    }
    serde_json::to_string_pretty(&json)
        .map(|s| s + "\n")
        .map_err(|_| status::KIT_ERROR)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kit_root() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../..")
            .canonicalize()
            .unwrap()
    }

    #[test]
    fn the_package_holds_the_scripts_and_the_kit_but_no_answers() {
        let entries = entries(&kit_root()).unwrap();
        let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(&names[..2], ["setup.sh", "run_autograder"]);
        assert!(entries[..2].iter().all(|e| e.mode == 0o755));
        for needed in [
            "kit/lab.sh",
            "kit/Cargo.toml",
            "kit/fixtures/pristine/lib.rs",
        ] {
            assert!(names.contains(&needed), "{needed} missing");
        }
        let lab = entries.iter().find(|e| e.name == "kit/lab.sh").unwrap();
        assert_eq!(lab.mode & 0o111, 0o111, "lab.sh stays executable");
        for withheld in [
            "kit/solutions/",
            "kit/fixtures/alternatives/",
            "kit/fixtures/submissions/",
            "kit/checks/judge/tests/",
            "kit/target/",
            "kit/.git/",
        ] {
            assert!(
                !names.iter().any(|n| n.starts_with(withheld)),
                "{withheld} leaked into the package"
            );
        }
        // No step folder's mutants or alternatives either.
        assert!(names.contains(&"kit/checks/judge/src/suites/s01/text.en.md"));
        for withheld in ["/mutants/", "/alternatives/"] {
            let leaked = names.iter().find(|n| n.contains(withheld));
            assert!(leaked.is_none(), "{leaked:?} leaked into the package");
        }
        let setup = std::str::from_utf8(&entries[0].data).unwrap();
        assert!(
            setup.contains(&format!("toolchain={TOOLCHAIN}\n")),
            "{setup}"
        );
        let run = std::str::from_utf8(&entries[1].data).unwrap();
        assert!(
            !run.contains("{lang}") && !run.contains("{no_kit}"),
            "{run}"
        );
        // Both scripts parse (setup.sh itself needs Gradescope's image).
        for script in &entries[..2] {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join(&script.name);
            std::fs::write(&path, &script.data).unwrap();
            let out = crate::platform::plain_output(
                std::process::Command::new("bash").arg("-n").arg(&path),
            )
            .unwrap();
            assert!(out.status.success(), "{} does not parse", script.name);
        }
    }

    #[test]
    fn the_fallback_result_is_valid_json_inside_single_quotes() {
        let entries = entries(&kit_root()).unwrap();
        let run = std::str::from_utf8(&entries[1].data).unwrap();
        let start = run.find("printf '%s\\n' '").unwrap() + "printf '%s\\n' '".len();
        let json = &run[start..start + run[start..].find('\'').unwrap()];
        let v: serde_json::Value = serde_json::from_str(json).unwrap();
        assert_eq!(v["score"], 0);
        assert!(!v["output"].as_str().unwrap().is_empty());
    }

    #[test]
    fn the_toolchain_is_the_one_the_actions_example_pins() {
        let workflow =
            std::fs::read_to_string(kit_root().join("examples/github-actions/grade.yml")).unwrap();
        assert!(
            workflow.contains(&format!("RUST_TOOLCHAIN: \"{TOOLCHAIN}\"")),
            "the two pins differ"
        );
    }

    #[test]
    fn an_uploaded_lib_rs_is_staged_and_a_repository_is_graded_as_it_is() {
        let dir = tempfile::tempdir().unwrap();
        let (sub, work) = (dir.path().join("submission"), dir.path().join("work"));
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(sub.join("lib.rs"), "// mine\n").unwrap();
        std::fs::write(sub.join("advanced.rs"), "// more\n").unwrap();
        let staged_at = staged(&sub, &work).unwrap();
        assert_eq!(staged_at, work.join("submission"));
        assert_eq!(
            std::fs::read_to_string(staged_at.join("src/lib.rs")).unwrap(),
            "// mine\n"
        );
        assert!(staged_at.join("src/advanced.rs").is_file());
        std::fs::create_dir_all(sub.join("student/src")).unwrap();
        std::fs::write(sub.join("student/src/lib.rs"), "// repo\n").unwrap();
        assert_eq!(staged(&sub, &work).unwrap(), sub);
        let empty = dir.path().join("empty");
        std::fs::create_dir_all(&empty).unwrap();
        assert_eq!(staged(&empty, &work).unwrap(), empty);
    }
}
