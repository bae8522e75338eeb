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
