//! The `editor` stage: rust-analyzer, as an editor opening the kit's folder
//! runs it, must analyse both learner files, `student/src/lib.rs` and
//! `student/src/advanced.rs`. It analyses a file only inside some crate's
//! module tree, and follows a `#[path]` module only within the package
//! folder the file lives in; the advanced runner's `#[path]` to
//! advanced.rs is therefore not enough, and the `student` package names
//! advanced.rs as an example's root (see student/Cargo.toml).
//!
//! Proved on a copy of the kit whose two learner files are the pristine
//! stubs, each with one type error appended: the stage passes when
//! `rust-analyzer diagnostics` reports that error in both files (a file
//! outside every module tree gets no diagnostics at all). Skipped, with the
//! reason, when rust-analyzer is not installed.

use lab_judge::platform::{plain_output, plain_status_within};
use std::path::Path;
use std::process::Command;
use std::time::Duration;

/// Appended to each learner file: a mismatched type, E0308.
const PROBE: &str = "\n#[allow(dead_code)]\nfn lab_editor_probe() -> u8 {\n    \"probe\"\n}\n";

/// The error code of [`PROBE`].
const PROBE_CODE: &str = "E0308";

/// The learner files, relative to the kit's root, and their stubs.
const FILES: [(&str, &str); 2] = [
    ("student/src/lib.rs", "fixtures/pristine/lib.rs"),
    ("student/src/advanced.rs", "fixtures/pristine/advanced.rs"),
];

/// Longest a run of rust-analyzer may take (about 15 s on two idle cores).
const LIMIT: Duration = Duration::from_secs(600);

/// The stage's outcome: passed, and what to print.
pub(super) fn check(root: &Path) -> (bool, String) {
    // Through the judge's register of its own children: the Linux layer,
    // collecting orphans while other stages run, would reap it otherwise.
    let version = plain_output(Command::new("rust-analyzer").arg("--version"));
    if !version.is_ok_and(|o| o.status.success()) {
        return (
            true,
            "skipped: rust-analyzer is not installed (rustup component add rust-analyzer)".into(),
        );
    }
    match run(root) {
        Ok(report) => judge(&report),
        Err(e) => (false, format!("rust-analyzer could not be run: {e}")),
    }
}

/// What rust-analyzer says of the files, one line per learner file that it
/// did not analyse (none: passed).
pub(super) fn judge(report: &str) -> (bool, String) {
    let missing: Vec<&str> = FILES
        .iter()
        .map(|(file, _)| *file)
        .filter(|file| !reports_probe(report, file))
        .collect();
    if missing.is_empty() {
        (
            true,
            "rust-analyzer analyses student/src/lib.rs and student/src/advanced.rs".into(),
        )
    } else {
        (
            false,
            format!(
                "rust-analyzer does not analyse {} (outside every crate's module tree)",
                missing.join(", ")
            ),
        )
    }
}

/// Whether a line of `report` gives the probe's error in `file`. Lines look
/// like `at crate student, file /tmp/x/student/src/lib.rs: Error
/// RustcHardError("E0308") from ...`; progress lines end in `\r`.
fn reports_probe(report: &str, file: &str) -> bool {
    report.split(['\n', '\r']).any(|line| {
        line.split_once(", file ").is_some_and(|(_, rest)| {
            rest.split_once(": ").is_some_and(|(path, what)| {
                Path::new(path.trim()).ends_with(file) && what.contains(PROBE_CODE)
            })
        })
    })
}

/// Copies the kit, puts the probed stubs in place and returns what
/// `rust-analyzer diagnostics` printed (it exits with a failure status when
/// it finds errors, as it must here).
fn run(root: &Path) -> Result<String, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let kit = dir.path().join("kit");
    lab_judge::files::copy_tree(root, &kit, &lab_judge::files::not_in_a_clone)
        .map_err(|e| format!("copying the kit: {e}"))?;
    for (file, stub) in FILES {
        let text = std::fs::read_to_string(root.join(stub))
            .map_err(|e| format!("{}: {e}", root.join(stub).display()))?;
        std::fs::write(kit.join(file), text + PROBE).map_err(|e| e.to_string())?;
    }
    let out = dir.path().join("out");
    let file = std::fs::File::create(&out).map_err(|e| e.to_string())?;
    // Build scripts and proc macros off: the stage needs only the module
    // trees (cargo metadata), not a build of the whole workspace.
    let mut cmd = Command::new("rust-analyzer");
    cmd.args([
        "diagnostics",
        "--disable-build-scripts",
        "--disable-proc-macros",
    ])
    .arg(&kit)
    .env("CARGO_NET_OFFLINE", "true")
    .env("CARGO_TARGET_DIR", dir.path().join("target"))
    .stdout(file.try_clone().map_err(|e| e.to_string())?)
    .stderr(file);
    if plain_status_within(&mut cmd, LIMIT)
        .map_err(|e| e.to_string())?
        .is_none()
    {
        return Err(format!("no answer within {} s", LIMIT.as_secs()));
    }
    let bytes = std::fs::read(&out).map_err(|e| e.to_string())?;
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_files_must_carry_the_probe_error() {
        let lib = "at crate student, file /t/kit/student/src/lib.rs: Error RustcHardError(\"E0308\") from LineCol";
        let adv = "\r3/9 processing x\rat crate advanced, file /t/kit/student/src/advanced.rs: Error RustcHardError(\"E0308\") from";
        assert!(judge(&format!("{lib}\n{adv}\n")).0);
        let (ok, why) = judge(&format!("{lib}\n"));
        assert!(!ok);
        assert!(
            why.contains("student/src/advanced.rs") && !why.contains("lib.rs"),
            "{why}"
        );
        // Another error in the file, or the probe's in another file, is not it.
        let other = "at crate advanced, file /t/kit/student/src/advanced.rs: Error RustcHardError(\"E0425\") from";
        let elsewhere =
            "at crate x, file /t/kit/solutions/advanced.rs: Error RustcHardError(\"E0308\") from";
        assert!(!judge(&format!("{lib}\n{other}\n{elsewhere}\n")).0);
        // A progress line naming the file is not a diagnostic.
        assert!(
            !judge(&format!(
                "{lib}\nprocessing /t/kit/student/src/advanced.rs E0308\n"
            ))
            .0
        );
    }
}
