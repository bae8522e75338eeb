//! The checker of the advanced steps 09–13 as one test of their reference
//! answers. It is ignored in ordinary runs: cargo-mutants runs it (with
//! `--include-ignored`) against each mutant of `solutions/advanced.rs`. See
//! docs/MUTANTS.md.

use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The kit's root: the workspace that holds this crate, two folders up
/// (a cargo-mutants copy of it, when cargo-mutants runs this test).
const KIT_ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
/// One fixed seed, so every mutant meets the same generated cases.
const SEED: &str = "20261129";
/// Longest the checker may take, its own builds included.
const LIMIT: Duration = Duration::from_secs(300);

#[test]
#[ignore = "runs the advanced checker; used by cargo-mutants, see docs/MUTANTS.md"]
fn the_checker_passes_the_advanced_reference_answers() {
    // `--advanced` goes with `--subject`: the core reference is the lib.rs.
    let subject = format!("{KIT_ROOT}/solutions/src/lib.rs");
    let advanced = format!("{KIT_ROOT}/solutions/advanced.rs");
    // Outside the target directory that `cargo test` holds locked, so the
    // checker's own cargo builds never wait on it.
    let target = std::env::temp_dir().join("retry-lab-mutants-advanced-target");
    // Output goes to files, not pipes: the judge starts its builds and
    // runners in process groups of their own, and one left behind by a kill
    // must not keep this test waiting on a pipe.
    let logs = std::env::temp_dir().join(format!(
        "retry-lab-mutants-advanced-log-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&logs).expect("log folder");
    let (o, e) = (logs.join("stdout"), logs.join("stderr"));
    let mut child = Command::new("bash")
        .arg(format!("{KIT_ROOT}/lab.sh"))
        .args(["check", "09", "10", "11", "12", "13"])
        .args([
            "--subject",
            &subject,
            "--advanced",
            &advanced,
            "--seed",
            SEED,
        ])
        .current_dir(KIT_ROOT)
        .env("CARGO_TARGET_DIR", &target)
        .env("LAB_LANG", "en")
        .env_remove("LAB_ROOT")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&o).expect("stdout file"))
        .stderr(std::fs::File::create(&e).expect("stderr file"))
        .process_group(0)
        .spawn()
        .expect("bash runs");
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
