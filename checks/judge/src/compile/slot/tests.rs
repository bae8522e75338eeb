//! Unit tests of the subject slots: what a slot's `kit/` holds, how it is
//! filled, seeded and cleared, and its lock.

use super::*;
use std::time::Duration;

/// Every entry under `dir`, links not followed, in name order: a
/// folder as `path/`, a file as `path = bytes`, anything else (a link,
/// a FIFO) as `path ?`.
fn listing(dir: &Path) -> Vec<String> {
    fn below(dir: &Path, rel: &Path, out: &mut Vec<String>) {
        let mut names: Vec<_> = std::fs::read_dir(dir.join(rel))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        for name in names {
            let rel = rel.join(name);
            let meta = std::fs::symlink_metadata(dir.join(&rel)).unwrap();
            if meta.is_dir() {
                out.push(format!("{}/", rel.display()));
                below(dir, &rel, out);
            } else if meta.is_file() {
                let bytes = std::fs::read(dir.join(&rel)).unwrap();
                out.push(format!(
                    "{} = {}",
                    rel.display(),
                    String::from_utf8_lossy(&bytes)
                ));
            } else {
                out.push(format!("{} ?", rel.display()));
            }
        }
    }
    let mut out = Vec::new();
    below(dir, Path::new(""), &mut out);
    out
}

fn put(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn the_same_subject_again_keeps_its_outputs_and_another_clears_them() {
    let work = tempfile::tempdir().unwrap();
    let (target, note) = (work.path().join("target"), work.path().join("subject"));
    let runner = target.join("debug/lab-runner");
    let a = subject_bytes(b"fn a() {}", None);
    let b = subject_bytes(b"fn a() {}", Some(b""));
    assert_ne!(a, b, "no advanced.rs is not an empty one");
    put(&runner, "built from a");
    clear_unless_same(&target, &note, &a).unwrap();
    assert!(!runner.exists(), "no note yet: cleared");
    put(&runner, "built from a");
    clear_unless_same(&target, &note, &a).unwrap();
    assert!(runner.exists(), "the same subject: kept");
    clear_unless_same(&target, &note, &b).unwrap();
    assert!(!runner.exists(), "another subject: cleared");
    // A note that is a link is no note.
    put(&runner, "built from b");
    std::fs::remove_file(&note).unwrap();
    let elsewhere = work.path().join("elsewhere");
    put(&elsewhere, std::str::from_utf8(&b).unwrap());
    std::os::unix::fs::symlink(&elsewhere, &note).unwrap();
    clear_unless_same(&target, &note, &b).unwrap();
    assert!(!runner.exists(), "a linked note: cleared");
}

#[test]
fn a_filled_slot_holds_exactly_the_kits_files_whatever_was_planted_there() {
    use std::os::unix::fs::symlink;
    let work = tempfile::tempdir().unwrap();
    let (root, slot, outside) = (
        work.path().join("kit"),
        work.path().join("slot/kit"),
        work.path().join("outside"),
    );
    put(
        &root.join("Cargo.toml"),
        "[workspace]\nmembers = [\"student\", \"checks/judge\"]\n",
    );
    put(&root.join("Cargo.lock"), "lock");
    put(&root.join("student/Cargo.toml"), "student manifest");
    put(&root.join("student/src/lib.rs"), "the kit's own stubs");
    for krate in crate::compile::RUNNER_CRATES {
        put(&root.join(krate).join("Cargo.toml"), krate);
    }
    put(&root.join("checks/api/src/lib.rs"), "api");
    put(&root.join("checks/runner/src/main.rs"), "runner");
    put(
        &root.join("checks/runner-advanced/src/main.rs"),
        "advanced runner",
    );
    put(&root.join("checks/runner-advanced/build.rs"), "script");
    put(&outside.join("secret.rs"), "outside file");
    put(&outside.join("folder/inner.rs"), "outside folder");
    let fill = |advanced: Option<&[u8]>| {
        make_tree(&slot, &slot_files(&root, b"learner", advanced).unwrap()).unwrap()
    };
    fill(Some(b"advanced"));

    // Planted: a build script, a manifest and a crate the slot does not
    // hold, a folder, a FIFO, links where a kit file and a kit folder
    // belong, a link to a folder outside, and a folder where a kit file
    // belongs.
    put(&slot.join("checks/runner/build.rs"), "fn main() {}");
    put(&slot.join("Cargo.toml"), "[workspace]");
    std::fs::remove_file(slot.join("checks/judge")).unwrap();
    symlink(&outside, slot.join("checks/judge")).unwrap();
    put(&slot.join("checks/api/src/lib.rs"), "planted api");
    put(&slot.join("student/extra/more.rs"), "extra");
    let fifo =
        std::ffi::CString::new(slot.join("checks/runner-advanced/pipe").to_str().unwrap()).unwrap();
    // SAFETY: mkfifo with a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
    std::fs::remove_file(slot.join("checks/runner-advanced/src/main.rs")).unwrap();
    symlink(
        outside.join("secret.rs"),
        slot.join("checks/runner-advanced/src/main.rs"),
    )
    .unwrap();
    std::fs::remove_dir_all(slot.join("checks/runner/src")).unwrap();
    symlink(outside.join("folder"), slot.join("checks/runner/src")).unwrap();
    symlink(&outside, slot.join("student/outside")).unwrap();
    std::fs::remove_file(slot.join("checks/runner/Cargo.toml")).unwrap();
    put(&slot.join("checks/runner/Cargo.toml/x"), "folder");
    // An unchanged file keeps its mtime.
    let old = std::time::SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
    let file = std::fs::File::options()
        .write(true)
        .open(slot.join("checks/runner-advanced/Cargo.toml"))
        .unwrap();
    file.set_modified(old).unwrap();
    drop(file);

    fill(None);
    let want = [
        "Cargo.lock = lock",
        "Cargo.toml = [workspace]\nmembers = [\"student\", \"checks/judge\"]\n",
        "checks/",
        // A link to the kit's member, not a copy.
        "checks/judge ?",
        "checks/runner/",
        "checks/runner/Cargo.toml = checks/runner",
        "checks/runner/src/",
        "checks/runner/src/main.rs = runner",
        "checks/runner-advanced/",
        "checks/runner-advanced/Cargo.toml = checks/runner-advanced",
        "checks/runner-advanced/build.rs = script",
        "checks/runner-advanced/src/",
        "checks/runner-advanced/src/main.rs = advanced runner",
        "student/",
        "student/Cargo.toml = student manifest",
        "student/src/",
        "student/src/lib.rs = learner",
    ];
    assert_eq!(listing(&slot), want);
    assert_eq!(
        std::fs::read_link(slot.join("checks/judge")).unwrap(),
        root.join("checks/judge")
    );
    assert_eq!(
        listing(&outside),
        [
            "folder/",
            "folder/inner.rs = outside folder",
            "secret.rs = outside file"
        ]
    );
    let mtime = std::fs::metadata(slot.join("checks/runner-advanced/Cargo.toml"))
        .unwrap()
        .modified()
        .unwrap();
    assert_eq!(mtime, old);
}

#[test]
fn what_was_built_from_a_learner_leaves_the_target_and_the_rest_stays() {
    let work = tempfile::tempdir().unwrap();
    let (target, outside) = (work.path().join("target"), work.path().join("outside"));
    put(&outside.join("lab_runner-keep"), "outside");
    let gone = [
        "debug/lab-runner",
        "debug/lab-runner.d",
        "debug/lab-runner-advanced",
        "debug/lab-runner-advanced.d",
        "debug/libstudent.rlib",
        "debug/deps/libstudent-0a1b2c3d4e5f6071.rlib",
        "debug/deps/libstudent-0a1b2c3d4e5f6071.rmeta",
        "debug/deps/student-0a1b2c3d4e5f6071.d",
        "debug/deps/lab_runner-1111222233334444",
        "debug/deps/lab_runner-1111222233334444.d",
        "debug/deps/lab_runner-1111222233334444.lab_runner.abc12-cgu.0.rcgu.o",
        "debug/deps/lab_runner_advanced-5555666677778888",
        "debug/deps/rmetaXy12Ab/full.rmeta",
        "debug/.fingerprint/student-0a1b2c3d4e5f6071/output-lib-student",
        "debug/.fingerprint/lab-runner-1111222233334444/bin-lab-runner",
        "debug/.fingerprint/lab-runner-advanced-1234abcd5678ef90/bin-lab-runner-advanced",
        "lab-tmp/rustcAbCdEf/x.o",
        "debug/incremental/student-3k1x9z0q2w7e/s-h1-abc-xyz/query-cache.bin",
        "debug/incremental/lab_runner-1a2b3c4d5e6f/s-h1-abc-xyz/dep-graph.bin",
    ];
    let kept = [
            "debug/.cargo-lock = x",
            "debug/build/",
            // The advanced runner's build script, the kit's code: kept.
            "debug/build/lab-runner-advanced-9999aaaabbbbcccc/",
            "debug/build/lab-runner-advanced-9999aaaabbbbcccc/output = x",
            "debug/.fingerprint/lab-runner-advanced-9999aaaabbbbcccc/",
            "debug/.fingerprint/lab-runner-advanced-9999aaaabbbbcccc/run-build-script-build-script-build = x",
            "debug/build/serde-0123456789abcdef/",
            "debug/build/serde-0123456789abcdef/output = x",
            "debug/deps/",
            "debug/deps/lab_api-0123456789abcdef.d = x",
            "debug/deps/liblab_harness-0123456789abcdef.rlib = x",
            "debug/deps/liblab_wire-0123456789abcdef.rmeta = x",
            "debug/deps/libserde-abc.rlib = x",
            "debug/deps/libserde-abcdef0123456789.rlib = x",
            "debug/deps/libstudent_records-0123456789abcdef.rlib = x",
            "debug/deps/student-records-0123456789abcdef.d = x",
            "debug/.fingerprint/",
            "debug/.fingerprint/lab-harness-0123456789abcdef/",
            "debug/.fingerprint/lab-harness-0123456789abcdef/lib-lab-harness = x",
            "debug/incremental/",
            "debug/incremental/lab_harness-1a2b3c4d5e6f/",
            "debug/incremental/lab_harness-1a2b3c4d5e6f/s = x",
        ];
    for path in gone {
        put(&target.join(path), "x");
    }
    for entry in kept {
        if let Some((path, _)) = entry.split_once(" = ") {
            put(&target.join(path), "x");
        }
    }
    // A link named like a runner, to a file outside: the link goes.
    std::os::unix::fs::symlink(
        outside.join("lab_runner-keep"),
        target.join("debug/deps/lab_runner-7777777777777777"),
    )
    .unwrap();

    clear_learner_outputs(&target, false).unwrap();
    let mut want: Vec<String> = kept.iter().map(|s| s.to_string()).collect();
    want.push("debug/".into());
    want.sort();
    let mut left = listing(&target);
    left.sort();
    assert_eq!(left, want);
    assert_eq!(listing(&outside), ["lab_runner-keep = outside"]);
}

#[test]
fn a_slot_s_target_starts_from_the_kit_s_libraries_and_never_from_a_learner_s() {
    use std::os::unix::fs::MetadataExt;
    let work = tempfile::tempdir().unwrap();
    let (debug, target, note) = (
        work.path().join("kit/debug"),
        work.path().join("slot/target"),
        work.path().join("slot/seeded"),
    );
    put(&debug.join("deps/liblab_api-0123456789abcdef.rlib"), "api");
    put(
        &debug.join("deps/libstudent-0a1b2c3d4e5f6071.rlib"),
        "learner",
    );
    put(
        &debug.join(".fingerprint/lab-api-0123456789abcdef/lib-lab_api"),
        "fp",
    );
    put(
        &debug.join(".fingerprint/student-0a1b2c3d4e5f6071/lib-student"),
        "learner fp",
    );
    put(&debug.join("build/serde-0123456789abcdef/output"), "out");
    put(&debug.join("lab-judge"), "not seeded");
    put(&target.join("debug/deps/planted"), "left by another kit");
    seed(&debug, &target, &note).unwrap();
    let mut got = listing(&target.join("debug"));
    got.sort();
    assert_eq!(
        got,
        [
            ".fingerprint/",
            ".fingerprint/lab-api-0123456789abcdef/",
            ".fingerprint/lab-api-0123456789abcdef/lib-lab_api = fp",
            "build/",
            "build/serde-0123456789abcdef/",
            "build/serde-0123456789abcdef/output = out",
            "deps/",
            "deps/liblab_api-0123456789abcdef.rlib = api",
        ]
    );
    let ino = |p: &Path| std::fs::metadata(p).unwrap().ino();
    let rlib = "deps/liblab_api-0123456789abcdef.rlib";
    assert_eq!(
        ino(&debug.join(rlib)),
        ino(&target.join("debug").join(rlib))
    );
    let fp = ".fingerprint/lab-api-0123456789abcdef/lib-lab_api";
    assert_ne!(ino(&debug.join(fp)), ino(&target.join("debug").join(fp)));
    // The same build again: the slot's target is left as it is.
    put(
        &target.join("debug/deps/libstudent-0a1b2c3d4e5f6071.rlib"),
        "built",
    );
    seed(&debug, &target, &note).unwrap();
    assert!(target
        .join("debug/deps/libstudent-0a1b2c3d4e5f6071.rlib")
        .exists());
    // The kit built its libraries again: seeded afresh.
    let file = std::fs::File::options()
        .write(true)
        .open(debug.join(fp))
        .unwrap();
    file.set_modified(std::time::SystemTime::UNIX_EPOCH + Duration::from_secs(7))
        .unwrap();
    drop(file);
    seed(&debug, &target, &note).unwrap();
    assert!(!target
        .join("debug/deps/libstudent-0a1b2c3d4e5f6071.rlib")
        .exists());
    // A note that is a link is no note.
    std::fs::remove_file(&note).unwrap();
    put(&work.path().join("forged"), &seed_stamp(&debug).unwrap());
    std::os::unix::fs::symlink(work.path().join("forged"), &note).unwrap();
    put(&target.join("debug/deps/planted"), "x");
    seed(&debug, &target, &note).unwrap();
    assert!(!target.join("debug/deps/planted").exists());
}

#[test]
fn the_kit_s_own_build_is_cleared_when_its_sources_differ_whatever_their_times() {
    let work = tempfile::tempdir().unwrap();
    let (kit, other, target) = (
        work.path().join("kit"),
        work.path().join("copy"),
        work.path().join("target"),
    );
    let note = target.join("lab-build/subject");
    put(&kit.join("student/src/lib.rs"), "fn a() {}");
    put(&other.join("student/src/lib.rs"), "fn a() {}");
    let runner = target.join("debug/lab-runner");
    let cache = target.join("debug/incremental/student-3k1x9z0q2w7e/s-1/dep-graph.bin");
    let built = || {
        put(&runner, "built");
        put(&cache, "cache");
    };
    built();
    clear_unless_kit_same(&kit, &target, &note).unwrap();
    assert!(!runner.exists(), "no note yet: cleared");
    assert!(cache.exists(), "the learner's incremental cache stays");
    built();
    clear_unless_kit_same(&kit, &target, &note).unwrap();
    assert!(runner.exists(), "the same sources: kept");
    // The same bytes in another copy of the kit sharing the target.
    clear_unless_kit_same(&other, &target, &note).unwrap();
    assert!(!runner.exists(), "another kit: cleared");
    built();
    clear_unless_kit_same(&other, &target, &note).unwrap();
    // A file put back with its old time: its bytes decide.
    let lib = other.join("student/src/lib.rs");
    let when = std::fs::metadata(&lib).unwrap().modified().unwrap();
    std::fs::write(&lib, "fn b() {}").unwrap();
    let file = std::fs::File::options().write(true).open(&lib).unwrap();
    file.set_modified(when).unwrap();
    drop(file);
    clear_unless_kit_same(&other, &target, &note).unwrap();
    assert!(!runner.exists(), "other bytes at the same time: cleared");
    // A new module counts too.
    built();
    clear_unless_kit_same(&other, &target, &note).unwrap();
    put(&other.join("student/src/more.rs"), "");
    clear_unless_kit_same(&other, &target, &note).unwrap();
    assert!(!runner.exists(), "a new file: cleared");
}
