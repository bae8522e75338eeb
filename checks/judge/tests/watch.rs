//! `watch` where file events do not arrive and times say nothing (WSL's
//! /mnt/c, network shares, cloud-synced folders): it reads the files and
//! compares what they hold, so a save it must see is simulated here at its
//! hardest: a new file of the same length renamed over lib.rs, its old
//! modification time put back. On a copy of the kit, under an outer limit.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;
use common::kit_root;

/// Long enough for a check on a loaded machine; a save watch missed ends
/// the test here.
const LIMIT: Duration = Duration::from_secs(300);

/// Waits until `file` holds `text`, failing the test after [`LIMIT`].
fn wait_for(file: &Path, text: &str, child: &mut std::process::Child) -> String {
    let start = Instant::now();
    loop {
        let now = std::fs::read_to_string(file).unwrap_or_default();
        if now.contains(text) {
            return now;
        }
        if start.elapsed() > LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("no {text:?} within {LIMIT:?}:\n{now}");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn watch_sees_a_save_that_kept_its_length_and_time() {
    common::seed_e2e();
    let target = kit_root().join("target/e2e");
    // The judge built once in the kit itself (see e2e.rs, `built_once`).
    let built = common::run_program(
        &kit_root(),
        "bash",
        &["lab.sh", "--help"],
        "e2e",
        &[],
        LIMIT,
    );
    assert_eq!(built.code, 0, "{}{}", built.stdout, built.stderr);
    let kit = tempfile::tempdir().unwrap();
    lab_judge::files::copy_tree(&kit_root(), kit.path(), &lab_judge::files::not_in_a_clone)
        .unwrap();
    let lib = kit.path().join("student/src/lib.rs");
    let out = tempfile::tempdir().unwrap();
    let stdout = out.path().join("o");
    let mut child = Command::new("bash")
        .args(["lab.sh", "watch", "3", "--max-checks", "2", "--seed", "7"])
        .current_dir(kit.path())
        .env("CARGO_TARGET_DIR", &target)
        .env("LAB_LANG", "en")
        .env_remove("LAB_ROOT")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&stdout).unwrap())
        .stderr(std::fs::File::create(out.path().join("e")).unwrap())
        .spawn()
        .unwrap();
    // The first check is done when watch says what it waits for.
    let first = wait_for(&stdout, "waiting for the next save", &mut child);
    let checks = |text: &str| text.matches("rerun exactly with").count();
    let before = checks(&first);
    assert!(before > 0, "{first}");
    // The save: same length, through a rename, with the old time put back.
    let old = std::fs::read_to_string(&lib).unwrap();
    let time = std::fs::metadata(&lib).unwrap().modified().unwrap();
    let saved = old.replacen("todo!(\"step 03", "todo!(\"STEP 03", 1);
    assert_ne!(saved, old);
    assert_eq!(saved.len(), old.len());
    let new = lib.with_extension("rs.new");
    std::fs::write(&new, &saved).unwrap();
    std::fs::rename(&new, &lib).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&lib)
        .unwrap()
        .set_modified(time)
        .unwrap();
    assert_eq!(std::fs::metadata(&lib).unwrap().modified().unwrap(), time);
    let status = common::wait_within(&mut child, LIMIT, "watch after the save");
    let all = std::fs::read_to_string(&stdout).unwrap();
    assert_eq!(status.code(), Some(0), "{all}");
    // The second check ran: as many seed lines again.
    assert_eq!(checks(&all), 2 * before, "{all}");
}
