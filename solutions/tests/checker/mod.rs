//! The checker run as one test, shared by the core reference's test
//! (`solutions/tests/contract.rs`) and the advanced one's
//! (`solutions/advanced/tests/contract.rs`): cargo-mutants runs them
//! against each mutant. See docs/MUTANTS.md.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// One fixed seed, so every mutant meets the same generated cases.
pub const SEED: &str = "20261129";
/// Longest the checker may take, its own builds included.
const LIMIT: Duration = Duration::from_secs(300);

/// Runs `bash lab.sh ARGS` in the kit at `root` and fails unless it ends
/// with 0 within [`LIMIT`]. `name` names its target folder and its logs
/// in the system's temporary folder.
pub fn passes(root: &str, args: &[&str], name: &str) {
    // Outside the target directory that `cargo test` holds locked, so the
    // checker's own cargo builds never wait on it.
    let target = std::env::temp_dir().join(format!("{name}-target"));
    // Output goes to files, not pipes: the judge starts its builds and
    // runners in process groups of their own, and one left behind by a kill
    // must not keep this test waiting on a pipe.
    let logs = std::env::temp_dir().join(format!("{name}-log-{}", std::process::id()));
    std::fs::create_dir_all(&logs).expect("log folder");
    let (o, e) = (logs.join("stdout"), logs.join("stderr"));
    let mut command = Command::new("bash");
    command
        .arg(format!("{root}/lab.sh"))
        .args(args)
        .current_dir(root)
        .env("CARGO_TARGET_DIR", &target)
        .env("LAB_LANG", "en")
        .env_remove("LAB_ROOT")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&o).expect("stdout file"))
        .stderr(std::fs::File::create(&e).expect("stderr file"));
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let mut child = command.spawn().expect("bash runs");
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for bash") {
            break Some(status);
        }
        if start.elapsed() > LIMIT {
            // Our process group: lab.sh, its cargo build and the judge it
            // execs. The judge's own builds and runners have groups and
            // limits of their own.
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", child.id())])
                .status();
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let read = |p: &std::path::Path| {
        String::from_utf8_lossy(&std::fs::read(p).unwrap_or_default()).into_owned()
    };
    let text = format!("{}\n--- stderr ---\n{}", read(&o), read(&e));
    let _ = std::fs::remove_dir_all(&logs);
    let lines: Vec<&str> = text.lines().collect();
    let tail = lines[lines.len().saturating_sub(80)..].join("\n");
    match status {
        None => panic!("the checker did not finish within {LIMIT:?}; output ends:\n{tail}"),
        Some(s) => assert!(
            s.code() == Some(0),
            "the checker ended with {s}, not 0; output ends:\n{tail}"
        ),
    }
}
