//! What the test files that drive whole commands share: the kit's root, and
//! running a program in a folder under an outer time limit with its output
//! captured in files (no pipe a grandchild could hold open).

// Each test file uses what it needs of this.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The kit these tests belong to.
pub fn kit_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// How a program ended and what it printed.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Waits for `child`, killed and the test failed if it outlives `limit`.
pub fn wait_within(
    child: &mut std::process::Child,
    limit: Duration,
    what: &str,
) -> std::process::ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(s) = child.try_wait().unwrap() {
            return s;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{what} did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Runs `program args…` in `dir` with its builds in `target` (a folder of
/// the kit's `target/`), in English, with `env` added; killed and the test
/// failed if it outlives `limit`.
pub fn run_program(
    dir: &Path,
    program: &str,
    args: &[&str],
    target: &str,
    env: &[(&str, &str)],
    limit: Duration,
) -> Run {
    let out = tempfile::tempdir().unwrap();
    let (o, e) = (out.path().join("o"), out.path().join("e"));
    let mut child = Command::new(program)
        // A check run under GitHub Actions would add its annotations.
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", kit_root().join("target").join(target))
        .env("LAB_LANG", "en")
        .env_remove("LAB_ROOT")
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&o).unwrap())
        .stderr(std::fs::File::create(&e).unwrap())
        .spawn()
        .unwrap();
    let status = wait_within(&mut child, limit, &format!("{program} {args:?}"));
    Run {
        code: status.code().unwrap_or(-1),
        stdout: std::fs::read_to_string(&o).unwrap(),
        stderr: std::fs::read_to_string(&e).unwrap(),
    }
}

/// The cargo build folder (`…/debug`) this test program was built in: the
/// kit's own, where `lab.sh selftest` built the judge before the tests.
pub fn own_build() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    Some(exe.parent()?.parent()?.to_path_buf())
}

/// Starts the kit's `target/<name>/debug`, when it holds no build yet, from
/// the cargo state of the build folder `from` (its `deps`, `build` and
/// `.fingerprint`; not the judge's slots or runners), so that cargo builds
/// there only what differs. The same sources built the same way are fresh
/// at once: the kit's crates are named by paths within the kit, the
/// registry's by their versions. Libraries, binaries and metadata are hard
/// links (rustc and the linker replace such a file through a new one, never
/// in place); fingerprints, dependency files and build-script outputs, which
/// cargo rewrites in place, are copies. Times are kept. Once per program;
/// made under another name and renamed into place, so that a test program
/// stopped halfway leaves nothing taken for a build.
pub fn seed_target(from: &Path, name: &str) {
    static SEEDED: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let mut seeded = SEEDED.lock().unwrap_or_else(|e| e.into_inner());
    if seeded.iter().any(|n| n == name) {
        return;
    }
    seeded.push(name.to_string());
    let to = kit_root().join("target").join(name).join("debug");
    if !from.join("deps").is_dir() || to.exists() {
        return;
    }
    let partial = to.with_file_name(format!("debug.partial-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&partial);
    let made = ["deps", "build", ".fingerprint"].iter().all(|sub| {
        lab_judge::files::seed_folder(&from.join(sub), &partial.join(sub), &|_| false).is_ok()
    });
    if !made || std::fs::rename(&partial, &to).is_err() {
        let _ = std::fs::remove_dir_all(&partial);
    }
}

/// [`seed_target`] for `target/e2e`, which the end-to-end, browser and
/// snapshot tests share, from the kit's own build.
pub fn seed_e2e() {
    if let Some(own) = own_build() {
        seed_target(&own, "e2e");
    }
}
